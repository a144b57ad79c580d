"""engine.evaluator: exhaustive five-card counts, order against peer evaluators, Omaha, tables, errors."""

from __future__ import annotations

import doctest
import importlib
from collections import Counter
from collections.abc import Callable
from itertools import combinations, combinations_with_replacement
from pathlib import Path

import eval7
import numpy as np
import pytest
from phevaluator import _pheval

from engine import _tables
from engine.cards import Card, CardError, parse_cards
from engine.evaluator import (
    Category,
    EngineInputError,
    best_five,
    best_five_omaha,
    category,
    evaluate,
    evaluate_batch,
    evaluate_omaha,
    evaluate_omaha_batch,
    tables,
)

FIVE_CARD_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """``n`` rows of ``k`` distinct card ids (uint8), reproducibly."""
    rng = np.random.default_rng(seed)
    chunks = []
    for start in range(0, n, 200_000):
        keys = rng.random((min(200_000, n - start), 52), dtype=np.float32)
        chunks.append(np.argpartition(keys, k - 1, axis=1)[:, :k].astype(np.uint8))
    return np.concatenate(chunks)


def assert_same_order(ours: np.ndarray, peer: np.ndarray, peer_higher_is_better: bool) -> None:
    """Our values and the peer's must induce the same order: a strictly monotone bijection between them."""
    pairs = np.unique(np.stack([ours.astype(np.int64), peer.astype(np.int64)], axis=1), axis=0)
    assert len(pairs) == len(np.unique(ours)) == len(np.unique(peer)), "a value of one side maps to two of the other"
    steps = np.diff(pairs[np.argsort(pairs[:, 0])][:, 1])
    assert np.all(steps > 0) if peer_higher_is_better else np.all(steps < 0), "the orders differ"


def peer_values(evaluate_ids: Callable[..., int], ids: np.ndarray) -> np.ndarray:
    return np.fromiter((evaluate_ids(*row) for row in ids.tolist()), dtype=np.int64, count=len(ids))


# --------------------------------------------------------------------------- five-card exhaustive


@pytest.fixture(scope="module")
def all_five_card_hands() -> np.ndarray:
    return np.fromiter(combinations(range(52), 5), dtype=np.dtype((np.uint8, 5)), count=2_598_960)


def test_every_five_card_hand_category_count(all_five_card_hands: np.ndarray) -> None:
    values = evaluate_batch(all_five_card_hands)
    counts = Counter((values >> 12).tolist())
    assert {Category(c): n for c, n in counts.items()} == FIVE_CARD_COUNTS
    distinct = np.unique(values)
    assert distinct.size == 7_462
    # Within each category the index is dense: 0 .. (number of classes - 1).
    for cat in Category:
        indexes = distinct[distinct >> 12 == cat] & 0xFFF
        assert indexes.tolist() == list(range(indexes.size))


def test_five_card_hands_order_like_phevaluator(all_five_card_hands: np.ndarray) -> None:
    ours = evaluate_batch(all_five_card_hands)
    # One hand of each of the 7,462 values, plus a random 300,000 (the full 2.6M through Python takes too long).
    _, first = np.unique(ours, return_index=True)
    sample = np.random.default_rng(5).choice(len(ours), 300_000, replace=False)
    picked = np.concatenate([first, sample])
    peer = peer_values(_pheval.evaluate_5cards, all_five_card_hands[picked])
    assert_same_order(ours[picked], peer, peer_higher_is_better=False)


# --------------------------------------------------------------------------- six and seven cards against peers


def test_million_seven_card_hands_order_like_phevaluator() -> None:
    hands = random_hands(1_000_000, 7, seed=7)
    ours = evaluate_batch(hands)
    assert_same_order(ours, peer_values(_pheval.evaluate_7cards, hands), peer_higher_is_better=False)


def test_seven_card_hands_order_like_eval7() -> None:
    hands = random_hands(200_000, 7, seed=77)
    deck = [eval7.Card(str(Card(i))) for i in range(52)]
    peer = np.fromiter((eval7.evaluate([deck[c] for c in row]) for row in hands.tolist()), dtype=np.int64)
    assert_same_order(evaluate_batch(hands), peer, peer_higher_is_better=True)


def test_six_card_hands_order_like_phevaluator() -> None:
    hands = random_hands(300_000, 6, seed=6)
    assert_same_order(evaluate_batch(hands), peer_values(_pheval.evaluate_6cards, hands), peer_higher_is_better=False)


def test_card_id_convention_matches_phevaluator() -> None:
    # The peer comparisons pass ids straight through; make sure both mean the same card.
    from phevaluator import evaluate_cards

    for text in ("As Ks Qs Js Ts 2c 3d", "2c 2d 2h 7s 7c 9d Kh", "Ah 2d 3c 4s 5h Kd Qc"):
        ids = [c.id for c in parse_cards(text)]
        assert evaluate_cards(*text.split()) == evaluate_cards(*ids)


def test_scalar_path_equals_batch_path() -> None:
    for k in (5, 6, 7):
        hands = random_hands(20_000, k, seed=k)
        batch = evaluate_batch(hands)
        assert [evaluate(row) for row in hands.tolist()] == batch.tolist()


def test_scalar_calls_take_numpy_ids() -> None:
    row = np.array([51, 47, 43, 39, 35, 0, 1], dtype=np.uint8)
    assert evaluate(row) == evaluate("As Ks Qs Js Ts 2c 2d")
    assert evaluate_omaha(row[:4], row[4:]) == evaluate_omaha("As Ks Qs Js", "Ts 2c 2d")
    assert best_five(row) == best_five("As Ks Qs Js Ts 2c 2d")


def test_any_integer_dtype_is_accepted() -> None:
    hands = random_hands(1_000, 7, seed=3)
    expected = evaluate_batch(hands)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint64):
        assert np.array_equal(evaluate_batch(hands.astype(dtype)), expected)
    assert np.array_equal(evaluate_batch(np.asfortranarray(hands)), expected)
    assert evaluate_batch(np.empty((0, 7), dtype=np.uint8)).shape == (0,)


# --------------------------------------------------------------------------- known hands


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("As Ks Qs Js Ts", "Ks Qs Js Ts 9s"),  # royal flush over king-high straight flush
        ("5d 4d 3d 2d Ad", "Ac Ad Ah As Kc"),  # steel wheel over quad aces
        ("2c 2d 2h 2s 3c", "Ac Ad Ah Kc Kd"),  # any quads over any full house
        ("Ac Ad Ah 2c 2d", "Kc Kd Kh Ac Ad"),  # full house: trips first
        ("2c 3c 4c 5c 7c", "Ac Kd Qh Js Tc"),  # any flush over any straight
        ("6c 5d 4h 3s 2c", "Ac 2d 3h 4s 5c"),  # six-high straight over the wheel
        ("2c 2d 2h 3s 4c", "Ac Ad Kh Ks Qc"),  # trips over two pair
        ("Ac Ad 3h 3s 2c", "Kc Kd Qh Qs Jc"),  # two pair: top pair first
        ("Ac Ad Kh Ks 3c", "Ac Ad Kh Ks 2c"),  # two pair: kicker
        ("2c 2d 5h 4s 3c", "Ac Kd Qh Js 9c"),  # pair over high card
        ("Ac Ad Kh 4s 3c", "Ac Ad Qh Js Tc"),  # pair: first kicker
        ("Ac Kd Qh Js 9c", "Ac Kd Qh Js 8c"),  # high card: last card
    ],
)
def test_known_orderings(better: str, worse: str) -> None:
    assert evaluate(better) > evaluate(worse)


def test_value_encoding_end_points() -> None:
    assert evaluate("7c 5d 4h 3s 2c") == 0
    assert evaluate("As Ks Qs Js Ts") == (Category.STRAIGHT_FLUSH << 12) | 9
    assert evaluate("Ah Kh Qh Jh 9h") == (Category.FLUSH << 12) | 1276
    assert evaluate("Ac Ad Ah Kc Kd") == evaluate("As Ad Ah Ks Kh")  # suits never break ties
    assert evaluate("Ac Ad Ah Kc Kd 2s 3s") == evaluate("Ac Ad Ah Kc Kd")


def test_flush_beats_the_straight_and_pairs_in_the_same_seven() -> None:
    value = evaluate("9h 8h 7h 6c 5c 2h Kh")
    assert category(value) is Category.FLUSH
    assert category(evaluate("9h 8h 7h 6h 5c 5d 5s")) is Category.STRAIGHT
    assert category(evaluate("9h 8h 7h 6h 4c 4d 4s")) is Category.THREE_OF_A_KIND
    assert category(evaluate("9h 8h 7h 6h 5h 5d 5s")) is Category.STRAIGHT_FLUSH
    assert category(evaluate("Ah Kh Qh Jh 3h Ad As")) is Category.FLUSH


def test_categories_and_labels() -> None:
    assert [c.label for c in Category] == [
        "high card",
        "pair",
        "two pair",
        "three of a kind",
        "straight",
        "flush",
        "full house",
        "four of a kind",
        "straight flush",
    ]
    assert category(evaluate("Qc Qd Qh 9s 9d")) is Category.FULL_HOUSE
    with pytest.raises(EngineInputError, match="not a hand value"):
        category(-1)
    with pytest.raises(EngineInputError, match="not a hand value"):
        category(9 << 12)
    assert category(np.int32(evaluate("Qc Qd Qh 9s 9d"))) is Category.FULL_HOUSE  # evaluate_batch's numbers
    for not_a_value in ("Qc Qd Qh 9s 9d", 1.5, None):  # cards given where their value is asked: Python's TypeError
        with pytest.raises(EngineInputError, match=r"^.* is not a hand value \(a number evaluate gives\)"):
            category(not_a_value)  # type: ignore[arg-type]  # on purpose


def test_best_five_is_the_hand_that_plays() -> None:
    for row in random_hands(300, 7, seed=11).tolist():
        cards = tuple(Card(c) for c in row)
        five = best_five(cards)
        assert len(five) == 5 and set(five) <= set(cards)
        assert evaluate(five) == evaluate(cards)
    assert [str(c) for c in best_five("Kh Kd 9s 9c 4d 2c Kc")] == ["Kh", "Kd", "Kc", "9s", "9c"]
    assert [str(c) for c in best_five("Ad 2c 3h 4s 5d Jc Jd")] == ["5d", "4s", "3h", "2c", "Ad"]
    assert [str(c) for c in best_five("Ts 9s 8s 7s 6s As Ks")] == ["Ts", "9s", "8s", "7s", "6s"]
    assert [str(c) for c in best_five("Ts 9s 8s 7s 6s As Kd")] == ["Ts", "9s", "8s", "7s", "6s"]


@pytest.mark.parametrize(
    ("cards", "fragment", "error"),
    [
        ("As Ks Qs Js", "has 4 cards", EngineInputError),
        ("As Ks Qs Js Ts 9s 8s 7s", "has 8 cards", EngineInputError),
        ("As Ks Qs Js As", "appears more than once", CardError),
        ("As Ks Qs Js Tx", "unknown suit", CardError),
    ],
)
def test_bad_hands(cards: str, fragment: str, error: type[Exception]) -> None:
    with pytest.raises(error, match=fragment):
        evaluate(cards)


def test_bad_batches() -> None:
    with pytest.raises(EngineInputError, match="shape"):
        evaluate_batch(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(EngineInputError, match="shape"):
        evaluate_batch(np.arange(7))
    with pytest.raises(EngineInputError, match="dtype"):
        evaluate_batch(np.zeros((1, 7), dtype=np.float64))
    good = random_hands(10, 7, seed=1).astype(np.int64)
    bad = good.copy()
    bad[4, 2] = 52
    with pytest.raises(CardError, match="row 4 holds card id 52"):
        evaluate_batch(bad)
    bad = good.copy()
    bad[6, 1] = -3
    with pytest.raises(CardError, match="row 6 holds card id -3"):
        evaluate_batch(bad)
    bad = good.copy()
    bad[7, 6] = bad[7, 0]
    with pytest.raises(CardError, match=r"row 7 .* holds a card twice"):
        evaluate_batch(bad)


# --------------------------------------------------------------------------- Omaha


def test_omaha_against_phevaluator() -> None:
    deals = random_hands(120_000, 9, seed=9)
    holes, boards = deals[:, :4], deals[:, 4:]
    ours = evaluate_omaha_batch(holes, boards)
    peer = peer_values(_pheval.evaluate_omaha_cards, np.concatenate([boards, holes], axis=1))
    assert_same_order(ours, peer, peer_higher_is_better=False)


def test_omaha_short_boards_and_scalar_path() -> None:
    deals = random_hands(400, 9, seed=19)
    for board_size in (3, 4, 5):
        holes, boards = deals[:, :4], deals[:, 4 : 4 + board_size]
        batch = evaluate_omaha_batch(holes, boards).tolist()
        for hole, board, value in zip(holes.tolist(), boards.tolist(), batch, strict=True):
            brute = max(evaluate(list(p) + list(t)) for p in combinations(hole, 2) for t in combinations(board, 3))
            assert evaluate_omaha(hole, board) == value == brute


@pytest.mark.parametrize(
    ("hole", "board", "expected"),
    [
        ("Ah Kh Qh Jh", "Th 2c 3d 4s 5s", Category.HIGH_CARD),  # four hearts in hand, one on board
        ("As Kh 2c 3d", "Qs Js Ts 9s 8s", Category.STRAIGHT),  # five spades on board, one in hand
        ("As Ks 2c 3d", "Qs Js Ts 9s 8s", Category.STRAIGHT_FLUSH),
        ("Ac Ad Ah 2c", "Kc Kd Ks 8s 9d", Category.FULL_HOUSE),  # kings full: only two of the aces play
        ("2c 3d 4h 5s", "Ac Ad Ah As Kc", Category.THREE_OF_A_KIND),  # only three board aces play
        ("9c 8d Kh Ks", "7c 6d 5h Ac Ad", Category.STRAIGHT),
    ],
)
def test_omaha_uses_exactly_two_hole_and_three_board_cards(hole: str, board: str, expected: Category) -> None:
    assert category(evaluate_omaha(hole, board)) is expected
    five = best_five_omaha(hole, board)
    assert len(set(five) & set(parse_cards(hole))) == 2 and len(set(five) & set(parse_cards(board))) == 3
    assert evaluate(five) == evaluate_omaha(hole, board)


def test_omaha_plays_two_hole_cards_even_when_three_would_be_better() -> None:
    assert evaluate_omaha("Ac Ad Ah 2c", "Kc Kd Ks 8s 9d") == evaluate("Ac Ad Kc Kd Ks")
    assert evaluate("Ac Ad Ah 2c Kc Kd Ks") > evaluate_omaha("Ac Ad Ah 2c", "Kc Kd Ks 8s 9d")


def test_bad_omaha_input() -> None:
    with pytest.raises(EngineInputError, match="exactly 4"):
        evaluate_omaha("As Ks Qs", "2c 3c 4c")
    with pytest.raises(EngineInputError, match="3 to 5"):
        evaluate_omaha("As Ks Qs Js", "2c 3c")
    with pytest.raises(CardError, match="appears more than once"):
        evaluate_omaha("As Ks Qs Js", "2c 3c As")
    with pytest.raises(EngineInputError, match="must match"):
        evaluate_omaha_batch(np.zeros((2, 4), dtype=np.uint8), np.zeros((3, 5), dtype=np.uint8))
    deals = random_hands(5, 9, seed=2).astype(np.int64)
    deals[3, 5] = deals[3, 1]
    with pytest.raises(CardError, match="row 3"):
        evaluate_omaha_batch(deals[:, :4], deals[:, 4:])


# --------------------------------------------------------------------------- tables


def test_rank_keys_give_unique_sums() -> None:
    sums = [
        sum(_tables.RANK_KEYS[r] for r in ranks)
        for size in range(8)
        for ranks in combinations_with_replacement(range(13), size)
        if all(ranks[i] != ranks[i + 4] for i in range(size - 4))
    ]
    assert len(sums) == len(set(sums))


def test_rank_keys_come_from_the_greedy_search() -> None:
    from engine._kernels import search_rank_keys

    keys = search_rank_keys(8, 7, 4, 1 << 20)
    assert tuple(keys.tolist()) == _tables.RANK_KEYS[:8]


def test_tables_rebuild_to_the_pinned_digest() -> None:
    rebuilt = _tables.build_tables()
    assert _tables.tables_digest(rebuilt) == _tables.TABLES_DIGEST
    assert _tables.tables_digest(tables()) == _tables.TABLES_DIGEST


def test_cache_is_verified_before_use(tmp_path: Path) -> None:
    path = tmp_path / "tables.npz"
    _tables._write_cache(path, tables())
    assert _tables._read_cache(path) is not None
    loaded = np.load(path)
    arrays = {name: loaded[name].copy() for name in loaded.files}
    arrays["hash_values"][1234] ^= 1
    np.savez(path, **arrays)
    assert _tables._read_cache(path) is None  # a tampered cache is rejected (and would be rebuilt)
    path.write_bytes(b"not a numpy file")
    assert _tables._read_cache(path) is None
    assert _tables._read_cache(tmp_path / "missing.npz") is None


def test_cache_location_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EXCHANGE_POKER_CACHE_DIR", str(tmp_path))
    assert _tables.cache_path().parent == tmp_path
    monkeypatch.delenv("EXCHANGE_POKER_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _tables.cache_dir() == tmp_path / "xdg" / "exchange-poker-sim"


# --------------------------------------------------------------------------- doctests


@pytest.mark.parametrize("module", ["engine.evaluator", "engine._tables", "engine.equity", "engine"])
def test_module_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
