"""engine.equity: exact counts against brute force, the known preflop figure, Monte Carlo, properties, bad input."""

from __future__ import annotations

import dataclasses
import random
import re
import sys
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import _equity_kernels
from engine.cards import Card, CardError, parse_cards
from engine.evaluator import evaluate, evaluate_batch, evaluate_omaha_batch
from engine.variants import get_variant

# `engine.equity` is the function; the module is needed for the kernels' entry points.
equity_module = sys.modules["engine.equity"]
EngineInputError = equity_module.EngineInputError
EquityCounts = equity_module.EquityCounts
HandRule = equity_module.HandRule

PREFLOP_HANDS = ["As Ks", "Qd Qc", "7h 6h", "2c 2d"]
OMAHA_HANDS = ["As Ks Qh Jh", "Qd Qc 9c 8d", "7h 6h 5s 4s", "2c 2d 3h 3d"]

# --------------------------------------------------------------------------- an independent pure-Python reference


def reference_five(cards: Sequence[Card]) -> tuple[int, ...]:
    """(category, tie-breaks) of five cards, written from the rules alone."""
    ranks = sorted((int(c.rank) for c in cards), reverse=True)
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    by_group = tuple(r for r, _ in groups)
    flush = len({c.suit for c in cards}) == 1
    top = None
    if shape == (1, 1, 1, 1, 1):
        if ranks[0] - ranks[4] == 4:
            top = ranks[0]
        elif ranks == [14, 5, 4, 3, 2]:
            top = 5
    if top and flush:
        return (8, top)
    if shape == (4, 1):
        return (7, *by_group)
    if shape == (3, 2):
        return (6, *by_group)
    if flush:
        return (5, *ranks)
    if top:
        return (4, top)
    if shape == (3, 1, 1):
        return (3, *by_group)
    if shape == (2, 2, 1):
        return (2, *by_group)
    if shape == (2, 1, 1, 1):
        return (1, *by_group)
    return (0, *ranks)


def reference_hand(variant: str, hole: Sequence[Card], board: Sequence[Card]) -> tuple[int, ...]:
    if variant == "holdem":
        return max(reference_five(five) for five in combinations([*hole, *board], 5))
    return max(reference_five([*two, *three]) for two in combinations(hole, 2) for three in combinations(board, 3))


def reference_counts(
    variant: str, hands: Sequence[str], board: str = "", dead: str = ""
) -> tuple[int, list[int], list[list[int]]]:
    """Brute force: every completion of the board, every hand scored by the reference evaluator."""
    holes = [parse_cards(h) for h in hands]
    known = parse_cards(board)
    used = {c for h in holes for c in h} | set(known) | set(parse_cards(dead))
    deck = [Card(i) for i in range(52) if Card(i) not in used]
    wins = [0] * len(holes)
    splits = [[0] * 9 for _ in holes]
    boards = 0
    for extra in combinations(deck, 5 - len(known)):
        boards += 1
        values = [reference_hand(variant, hole, (*known, *extra)) for hole in holes]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        if len(winners) == 1:
            wins[winners[0]] += 1
        else:
            for i in winners:
                splits[i][len(winners)] += 1
    return boards, wins, splits


def counts_of(result: engine.EquityResult) -> tuple[int, list[int], list[list[int]]]:
    return result.boards, [h.wins for h in result.results], [list(h.splits) for h in result.results]


# --------------------------------------------------------------------------- exact against brute force


@pytest.mark.parametrize(
    ("variant", "hands", "board", "dead"),
    [
        ("holdem", PREFLOP_HANDS, "Ah 7c 2s Td 3h", ""),  # river
        ("holdem", ["As Ks", "Ad Kd"], "Qh Jh Tc 2s 3s", ""),  # river: a split
        ("holdem", ["Ah Kh", "2c 3d", "9s 9d"], "Qh Jh Th 9h 8h", ""),  # river: the board's straight flush plays
        ("holdem", PREFLOP_HANDS, "Ah 7c 2s Td", ""),  # turn
        ("holdem", ["8h 9h", "Ac Ad", "Kd Qd"], "Th Jh 2d Jd", "3h"),  # turn, flush draws, a dead card
        ("holdem", ["As Ks", "Qd Qc"], "Ah 7c 2s", ""),  # flop
        ("holdem", PREFLOP_HANDS, "Kh 9h 4h", "5h 5c"),  # three-suited flop, dead cards
        ("holdem", ["Ac 2c", "Ad 2d", "Ah 2h", "As 2s"], "Kc Qd Jh", ""),  # many ties
        ("holdem", ["As Kd", "Qd Qc", "7c 6d"], "2h 5h 9h Jh", ""),  # nobody holds the board's suit
        ("holdem", ["Ah Kd", "Qd Qc", "7c 6d"], "2h 5h 9h", "3h"),  # one hand holds it
        ("omaha", OMAHA_HANDS, "Ah 7c 2s Td 9h", ""),  # river
        ("omaha", ["As Ks Qd Jd", "Tc 9c 8d 7h"], "2h 5h 9h", ""),  # flop: nobody holds two hearts
        ("omaha", OMAHA_HANDS, "Kh 9h 4h Th", ""),  # turn: four hearts on board
        ("omaha", ["As Ks Qh Jh", "Td 9d 8c 7c"], "6d 5d 2h", ""),  # flop
    ],
)
def test_exact_counts_match_brute_force(variant: str, hands: list[str], board: str, dead: str) -> None:
    result = engine.equity(variant, hands, board=board, dead=dead)
    result._check()
    assert result.exact
    assert counts_of(result) == reference_counts(variant, hands, board, dead)
    assert all(h.stderr is None for h in result.results)


def test_known_preflop_figure() -> None:
    result = engine.equity("holdem", PREFLOP_HANDS)
    result._check()
    assert result.boards == 1_086_008
    assert [h.wins for h in result.results] == [344_170, 344_924, 246_008, 148_807]
    assert [h.splits for h in result.results] == [(0, 0, 0, 0, 2_099, 0, 0, 0, 0)] * 4
    assert [h.ties for h in result.results] == [2_099] * 4
    aces_kings = result.results[0]
    assert aces_kings.exact_equity == Fraction(344_170 * 4 + 2_099, 4 * 1_086_008)
    assert aces_kings.equity == pytest.approx(float(aces_kings.exact_equity), rel=1e-15)
    assert aces_kings.win == 344_170 / 1_086_008 and aces_kings.tie == 2_099 / 1_086_008


def test_eight_hands_preflop_against_direct_evaluation() -> None:
    hands = ["As Ks", "Qd Qc", "7h 6h", "2c 2d", "Ah Td", "9s 8s", "Kc Jc", "5d 4h"]
    result = engine.equity("holdem", hands)
    result._check()
    holes = [[c.id for c in parse_cards(h)] for h in hands]
    used = {c for h in holes for c in h}
    deck = [c for c in range(52) if c not in used]
    boards = np.fromiter(combinations(deck, 5), dtype=np.dtype((np.uint8, 5)))
    values = np.stack(
        [evaluate_batch(np.hstack([np.tile(np.array(h, np.uint8), (len(boards), 1)), boards])) for h in holes], axis=1
    )
    assert counts_of(result) == direct_counts(values)


def test_omaha_turn_with_dead_cards_against_direct_evaluation() -> None:
    hands = OMAHA_HANDS[:3]
    board, dead = "Kh 9h 4c", "Ad Jd 8h"
    result = engine.equity("omaha", hands, board=board, dead=dead)
    holes = [[c.id for c in parse_cards(h)] for h in hands]
    known = [c.id for c in parse_cards(board)]
    used = {c for h in holes for c in h} | set(known) | {c.id for c in parse_cards(dead)}
    deck = [c for c in range(52) if c not in used]
    boards = np.array([known + list(extra) for extra in combinations(deck, 2)], dtype=np.int64)
    values = np.stack([evaluate_omaha_batch(np.tile(np.array(h), (len(boards), 1)), boards) for h in holes], axis=1)
    assert counts_of(result) == direct_counts(values)


def direct_counts(values: np.ndarray) -> tuple[int, list[int], list[list[int]]]:
    best = values.max(axis=1)
    winners = values == best[:, None]
    nwin = winners.sum(axis=1)
    wins = [int((winners[:, h] & (nwin == 1)).sum()) for h in range(values.shape[1])]
    splits = [
        [int((winners[:, h] & (nwin == k)).sum()) if k >= 2 else 0 for k in range(9)] for h in range(values.shape[1])
    ]
    return len(values), wins, splits


# --------------------------------------------------------------------------- Monte Carlo


def test_monte_carlo_is_reproducible_and_near_exact() -> None:
    exact = engine.equity("holdem", PREFLOP_HANDS)
    first = engine.equity("holdem", PREFLOP_HANDS, samples=200_000, seed=42)
    again = engine.equity("holdem", PREFLOP_HANDS, samples=200_000, seed=42)
    other = engine.equity("holdem", PREFLOP_HANDS, samples=200_000, seed=43)
    assert first == again
    assert counts_of(first) != counts_of(other)
    assert not first.exact and first.boards == 200_000 and first.seed == 42
    for sampled, true in zip(first.results, exact.results, strict=True):
        assert sampled.stderr is not None and 0.0005 < sampled.stderr < 0.002
        assert abs(sampled.equity - true.equity) < 5 * sampled.stderr
    first._check()


def test_monte_carlo_without_a_seed_records_the_seed_it_drew() -> None:
    result = engine.equity("holdem", ["As Ks", "Qd Qc"], board="Ah 7c 2s", samples=2_000)
    assert isinstance(result.seed, int)
    assert engine.equity("holdem", ["As Ks", "Qd Qc"], board="Ah 7c 2s", samples=2_000, seed=result.seed) == result


def splitmix_boards(deck: list[Card], missing: int, samples: int, seed: int) -> list[tuple[Card, ...]]:
    """The sampler's documented algorithm, re-implemented: SplitMix64 + partial Fisher-Yates."""
    mask = (1 << 64) - 1
    state = seed & mask
    perm = list(range(len(deck)))
    boards = []
    for _ in range(samples):
        for j in range(missing):
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            r = j + int(float(z >> 11) * (1.0 / 9007199254740992.0) * (len(deck) - j))
            perm[j], perm[r] = perm[r], perm[j]
        boards.append(tuple(deck[p] for p in perm[:missing]))
    return boards


@pytest.mark.parametrize(("board", "samples"), [("", 3_000), ("Ah 7c 2s", 3_000), ("Kh 9h 4h Th", 500)])
def test_sampled_boards_follow_the_documented_generator(board: str, samples: int) -> None:
    hands = PREFLOP_HANDS
    known = parse_cards(board)
    used = {c for h in hands for c in parse_cards(h)} | set(known)
    deck = [Card(i) for i in range(52) if Card(i) not in used]
    wins = [0] * len(hands)
    splits = [[0] * 9 for _ in hands]
    for extra in splitmix_boards(deck, 5 - len(known), samples, seed=2**64 - 5):
        values = [evaluate([*parse_cards(h), *known, *extra]) for h in hands]
        winners = [i for i, v in enumerate(values) if v == max(values)]
        if len(winners) == 1:
            wins[winners[0]] += 1
        else:
            for i in winners:
                splits[i][len(winners)] += 1
    result = engine.equity("holdem", hands, board=board, samples=samples, seed=-5)  # seeds are taken mod 2**64
    assert counts_of(result) == (samples, wins, splits)
    assert result.seed == result.to_dict()["seed"] == 2**64 - 5  # the seed the command line takes to deal them again


def test_stderr_of_a_certain_outcome_is_zero() -> None:
    result = engine.equity("holdem", ["As Ad", "2c 7d"], board="Ac Ah Kd Ks 3c", samples=100, seed=1)
    assert [h.equity for h in result.results] == [1.0, 0.0]
    assert [h.stderr for h in result.results] == [0.0, 0.0]


# --------------------------------------------------------------------------- properties


@st.composite
def turn_deals(draw: st.DrawFn) -> tuple[list[list[Card]], list[Card]]:
    nhands = draw(st.integers(2, 6))
    cards = draw(st.permutations(range(52)))
    holes = [[Card(c) for c in cards[2 * i : 2 * i + 2]] for i in range(nhands)]
    board = [Card(c) for c in cards[2 * nhands : 2 * nhands + 4]]
    return holes, board


@settings(max_examples=40, deadline=None)
@given(turn_deals(), st.randoms(use_true_random=False))
def test_turn_equities_share_the_pot_and_follow_the_hands(
    deal: tuple[list[list[Card]], list[Card]], rng: random.Random
) -> None:
    holes, board = deal
    result = engine.equity("holdem", holes, board=board)
    result._check()
    assert sum(h.exact_equity for h in result.results) == 1
    assert result.boards == 52 - 2 * len(holes) - 4
    order = list(range(len(holes)))
    rng.shuffle(order)
    permuted = engine.equity("holdem", [holes[i] for i in order], board=board)
    assert [permuted.results[k].splits for k in range(len(order))] == [result.results[i].splits for i in order]
    assert [permuted.results[k].wins for k in range(len(order))] == [result.results[i].wins for i in order]


def suit_swap(suit_a: int, suit_b: int) -> dict[int, int]:
    """A suit permutation without fixed points that sends ``suit_a`` to another suit and ``suit_b`` likewise."""
    others = [s for s in range(4) if s not in (suit_a, suit_b)]
    if suit_a == suit_b:
        swap = {suit_a: others[0], others[0]: suit_a, others[1]: others[2], others[2]: others[1]}
    else:
        swap = {suit_a: others[0], others[0]: suit_a, suit_b: others[1], others[1]: suit_b}
    return swap


@settings(max_examples=8, deadline=None)
@given(st.integers(2, 14), st.integers(2, 14), st.integers(0, 3), st.integers(0, 3))
def test_suit_mirrored_hands_have_equal_equity(rank_a: int, rank_b: int, suit_a: int, suit_b: int) -> None:
    if rank_a == rank_b and suit_a == suit_b:
        suit_b = (suit_a + 1) % 4
    hand = [Card.of(rank_a, suit_a), Card.of(rank_b, suit_b)]
    swap = suit_swap(suit_a, suit_b)
    mirror = [Card.of(c.rank, swap[c.suit]) for c in hand]
    result = engine.equity("holdem", [hand, mirror])
    first, second = result.results
    assert (first.wins, first.splits) == (second.wins, second.splits)
    assert first.exact_equity == second.exact_equity


def test_omaha_suit_mirror() -> None:
    hand = parse_cards("As Ah Kd Qc")
    swap = {3: 1, 1: 3, 2: 0, 0: 2}
    mirror = [Card.of(c.rank, swap[c.suit]) for c in hand]
    result = engine.equity("omaha", [hand, mirror])
    assert result.results[0].exact_equity == result.results[1].exact_equity == Fraction(1, 2)


# --------------------------------------------------------------------------- shape of the result


def test_to_dict_has_exactly_the_documented_keys() -> None:
    data = engine.equity("holdem", ["AsKs", "QdQc"], board="Ah7c2s").to_dict()
    assert set(data) == {"variant", "board", "dead", "exact", "boards", "hands"}
    assert data["variant"] == "holdem" and data["board"] == "Ah 7c 2s" and data["exact"] is True
    assert data["dead"] == ""
    assert data["boards"] == 990
    assert [set(h) for h in data["hands"]] == [{"cards", "win", "tie", "equity"}] * 2
    assert [h["cards"] for h in data["hands"]] == ["As Ks", "Qd Qc"]
    assert sum(h["equity"] for h in data["hands"]) == pytest.approx(1.0)


def test_a_sampled_results_dict_can_be_weighed_and_made_again() -> None:
    """A Monte Carlo written down keeps its seed, its error bars and the cards taken out."""
    result = engine.equity("holdem", ["AsKs", "QdQc"], dead="2c", samples=1000, seed=1)
    data = result.to_dict()
    assert data["dead"] == "2c" and data["seed"] == 1 and data["exact"] is False
    assert [h["stderr"] for h in data["hands"]] == [h.stderr for h in result.results]
    assert all(0 < h["stderr"] < 0.05 for h in data["hands"])
    again = engine.equity("holdem", ["AsKs", "QdQc"], dead=data["dead"], samples=data["boards"], seed=data["seed"])
    assert again.to_dict() == data


def test_result_keeps_its_inputs() -> None:
    result = engine.equity("omaha", ["As Ks Qh Jh", "Qd Qc 9c 8d"], board="2c 3d 4h", dead="5s")
    assert result.variant == "omaha"
    assert result.hands == (parse_cards("As Ks Qh Jh"), parse_cards("Qd Qc 9c 8d"))
    assert result.board == parse_cards("2c 3d 4h") and result.dead == parse_cards("5s")
    assert result.boards == 40 * 39 // 2 and result.seed is None
    assert result.results[0].cards == parse_cards("As Ks Qh Jh")


def test_numpy_ids_are_accepted() -> None:
    holes = np.array([[c.id for c in parse_cards(h)] for h in PREFLOP_HANDS], dtype=np.uint8)
    board = np.array([c.id for c in parse_cards("Ah 7c 2s")])
    assert engine.equity("holdem", holes, board=board) == engine.equity("holdem", PREFLOP_HANDS, board="Ah 7c 2s")


def test_kernels_are_callable_with_ids() -> None:
    holes = np.array([[c.id for c in parse_cards(h)] for h in PREFLOP_HANDS])
    board = [c.id for c in parse_cards("Ah 7c 2s")]
    counts = equity_module.enumerate_equity_holdem(holes, board, [])
    assert isinstance(counts, EquityCounts)
    assert (counts.boards, list(counts.wins)) == counts_of(engine.equity("holdem", PREFLOP_HANDS, board="Ah7c2s"))[:2]
    omaha = np.array([[c.id for c in parse_cards(h)] for h in OMAHA_HANDS])
    exact = equity_module.enumerate_equity_omaha(omaha, board)
    sampled = equity_module.sample_equity_omaha(omaha, board, [], 5_000, 9)
    assert sampled == equity_module.sample_equity_omaha(omaha, board, [], 5_000, 9)
    assert exact.boards == 33 * 32 // 2 and sampled.boards == 5_000
    assert sampled != equity_module.sample_equity_holdem(holes, board, [], 5_000, 9)


def test_rule_codes_match_the_kernels() -> None:
    assert HandRule.BEST_FIVE == _equity_kernels.RULE_HOLDEM
    assert HandRule.OMAHA == _equity_kernels.RULE_OMAHA
    assert {name: (v.hole_cards, v.rule) for name, v in equity_module.EQUITY_VARIANTS.items()} == {
        "holdem": (2, HandRule.BEST_FIVE),
        "omaha": (4, HandRule.OMAHA),
    }


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"variant": "stud"}, EngineInputError, "unknown variant 'stud'; equity knows holdem, omaha"),
        ({"hands": ["As Ks"]}, EngineInputError, "got 1 hand; equity needs 2 to 8 hands"),
        ({"hands": ["As Ks"] + [f"{r}c {r}d" for r in "23456789"]}, EngineInputError, "got 9 hands"),
        ({"hands": "As Ks Qd Qc"}, EngineInputError, "must be a list of hands"),
        ({"hands": ["As Ks", "Qd Qx"]}, CardError, "hand 2: 'Qx' has an unknown suit"),
        ({"hands": ["As Ks", "Qd"]}, EngineInputError, "hand 2 \\(Qd\\) has 1 card; holdem hands have exactly 2"),
        ({"hands": ["As Ks", "As Qc"]}, CardError, "card As appears more than once"),
        ({"board": "Ah 7c"}, EngineInputError, "board has 2 cards .*needs 0, 3, 4 or 5 board cards"),
        ({"board": "Ah 7c 2s 3s 4s 5s"}, EngineInputError, "board has 6 cards"),
        ({"board": "Ah 7c 2s Ks"}, CardError, "card Ks appears more than once"),
        ({"board": "Ah 7c 1s"}, CardError, "board: '1s' has an unknown rank"),
        ({"dead": "Qd"}, CardError, "card Qd appears more than once"),
        ({"samples": 0}, EngineInputError, "samples must be a positive whole number"),
        ({"samples": -3}, EngineInputError, "samples must be a positive whole number"),
        ({"samples": True}, EngineInputError, "samples must be a positive whole number"),
        ({"samples": 10.5}, EngineInputError, "samples must be a positive whole number"),
        ({"samples": 10, "seed": "x"}, EngineInputError, "seed must be a whole number"),
        ({"seed": "x"}, EngineInputError, "seed must be a whole number, not 'x'"),  # exact: refused all the same
        ({"variant": None}, EngineInputError, "unknown variant None; equity knows holdem, omaha, omaha-hilo, soko"),
        ({"variant": 3}, EngineInputError, "unknown variant 3; equity knows holdem, omaha, omaha-hilo, soko"),
        ({"hands": None}, EngineInputError, r"hands must be a list of hands, e\.g\. .* not None$"),
        ({"hands": ["As Ks", None]}, CardError, "^hand 2: None is not a list of cards; give a string such as"),
        ({"hands": ["As Ks", 5]}, CardError, "^hand 2: 5 is not a list of cards"),
        ({"board": 5}, CardError, "^board: 5 is not a list of cards"),
        ({"dead": None}, CardError, "^dead cards: None is not a list of cards"),
    ],
)
def test_bad_input_names_the_problem(kwargs: dict[str, object], error: type[Exception], fragment: str) -> None:
    call: dict[str, object] = {"variant": "holdem", "hands": ["As Ks", "Qd Qc"], **kwargs}
    with pytest.raises(error, match=fragment):
        engine.equity(**call)  # type: ignore[arg-type]  # arguments of any type, on purpose
    assert issubclass(error, ValueError)


@pytest.mark.parametrize(("variant", "hands"), [
    ("omaha-hilo", ["As 2d Kh Kc", "3c 4c Qd Qs"]),
    ("stud7", ["As Ks Qs", "Qd Qc 2c"]),
    ("stud7-hilo", ["As 2d 3c", "9c Tc Jc"]),
    ("soko", ["As Ks 9s", "Qc Qd 8h"]),
    ("americana", ["Ah 7c 8d", "Th Jc Qd"]),
    ("telesina", ["As Ks", "Qd Qc"]),
], ids=lambda v: v if isinstance(v, str) else None)
@pytest.mark.parametrize("seed", ["x", [1], 1.5, True], ids=["text", "list", "float", "bool"])
@pytest.mark.parametrize("samples", [None, 20], ids=["unsampled", "sampled"])
def test_every_games_seed_is_checked_as_holdems(variant: str, hands: list[str], seed: object,
                                                samples: int | None) -> None:
    """The other games' path took any seed to ``seed % 2**64``: a string failed with Python's own TypeError, a float
    or True was taken as a seed, and an exact answer ignored it."""
    with pytest.raises(EngineInputError, match=f"^seed must be a whole number, not {re.escape(repr(seed))}$"):
        engine.equity(variant, hands, samples=samples, seed=seed)  # type: ignore[arg-type]  # on purpose


@pytest.mark.parametrize(("variant", "hands"), [
    ("holdem", ["As Ks", "Qd Qc"]),
    ("omaha", ["As Ks Qs Js", "Qd Qc 2c 3c"]),
    ("stud7", ["As Ks Qs", "Qd Qc 2c"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_a_variant_given_as_a_variant_object_is_priced_as_its_name_is(variant: str, hands: list[str]) -> None:
    """Sampled too: the same seed deals the same boards whichever way the game is named."""
    by_object = engine.equity(get_variant(variant), hands, samples=200, seed=5)  # a Variant, as showdown takes
    assert by_object == engine.equity(variant, hands, samples=200, seed=5)


@pytest.mark.parametrize(
    ("variant", "hands", "board"),
    [
        ("holdem", ["As Ks", "Qd Qc"], "2c 2c 4c"),
        ("omaha", ["As Ks Qs Js", "As Qc Jc Tc"], ""),
        ("omaha-hilo", ["As Ks Qs Js", "As Qc Jc Tc"], ""),
        ("stud7", ["As Ks Qs", "As Qc Jc"], ""),
    ],
)
def test_a_repeated_card_is_an_engine_input_error_in_every_game(variant: str, hands: list[str], board: str) -> None:
    """A caller catching :class:`EngineInputError` catches a repeated card whichever path prices the game."""
    with pytest.raises(EngineInputError, match=r"card (As|2c) appears more than once"):
        engine.equity(variant, hands, board)


@pytest.mark.parametrize("variant", ["omaha", "omaha-hilo"])
def test_omaha_and_omaha_hilo_refuse_a_board_no_street_leaves_alike(variant: str) -> None:
    with pytest.raises(EngineInputError) as refused:
        engine.equity(variant, ["As Ks 2d 3c", "Qd Qc Jh 4h"], board="5h 6h")
    assert str(refused.value) == f"board has 2 cards (5h 6h); {variant} equity needs 0, 3, 4 or 5 board cards"


def test_omaha_needs_four_hole_cards_and_enough_cards_left() -> None:
    with pytest.raises(EngineInputError, match="omaha hands have exactly 4 hole cards"):
        engine.equity("omaha", ["As Ks", "Qd Qc"])
    hands = [[Card(4 * i + j) for j in range(4)] for i in range(8)]  # 32 cards
    dead = [Card(i) for i in range(32, 50)]  # 18 more: 2 left, the board needs 5
    with pytest.raises(EngineInputError, match=r"only 2 cards are left .* the board needs 5 more"):
        engine.equity("omaha", hands, dead=dead)
    assert engine.equity("omaha", hands, dead=dead[:15]).boards == 1  # exactly five left


# ------------------------------------------------------------------ _check catches corruption

# Flop, 903 boards: the two big slicks split 154 boards two ways and win 43 each; the queens win 663.
SLICKS_AND_QUEENS = engine.equity("holdem", ["As Ks", "Ad Kd", "Qh Qc"], board="2c 7d 9s")


def corrupt(result: engine.EquityResult, changes: dict[int, dict[str, Any]]) -> engine.EquityResult:
    """``result`` with fields of some hands changed: ``corrupt(r, {0: {"ties": 1}})``."""
    results = list(result.results)
    for i, change in changes.items():
        results[i] = dataclasses.replace(results[i], **change)
    return dataclasses.replace(result, results=tuple(results))


def splits(two: int = 0, four: int = 0, one: int = 0) -> tuple[int, ...]:
    return (0, one, two, 0, four, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("result", "match"),
    [
        (corrupt(SLICKS_AND_QUEENS, {0: {"boards": 904}}), "hand 0: counted over 904 boards, the result over 903"),
        (corrupt(SLICKS_AND_QUEENS, {2: {"ties": 241}}), r"hand 2: 663 wins \+ 241 ties > 903 boards"),
        (corrupt(SLICKS_AND_QUEENS, {2: {"ties": 1}}), "hand 2: 1 ties but its splits add up to 0"),
        # A "1-way tie" for the queens, counted among their ties too.
        (corrupt(SLICKS_AND_QUEENS, {2: {"ties": 1, "splits": splits(one=1)}}),
         r"hand 2: splits\[0\] and splits\[1\] must be 0"),
        (corrupt(SLICKS_AND_QUEENS, {2: {"wins": 664}}), "pot shares add up to 904 boards, not 903"),
        # One more two-way tie for hand 0 and a four-way one for hand 1, paid for by a win of hand 2:
        # every hand's counts still fit and the shares still add up, but 309 hands tied two ways.
        (corrupt(SLICKS_AND_QUEENS, {0: {"ties": 155, "splits": splits(two=155)},
                                     1: {"ties": 156, "splits": splits(two=154, four=2)}, 2: {"wins": 662}}),
         "2-way ties do not come in groups of 2: 309 hands tied 2 ways"),
    ],
    ids=["hand-boards", "counts-exceed-boards", "ties-and-splits", "one-way-tie", "pot-shares", "tie-groups"],
)
def test_a_corrupted_result_is_caught(result: engine.EquityResult, match: str) -> None:
    SLICKS_AND_QUEENS._check()
    with pytest.raises(engine.InvariantError, match=match):
        result._check()


@pytest.mark.parametrize(("variant", "hands"), [("holdem", ["AsKs", "QdQc"]), ("stud7", ["AsKsQs", "2c2d2h"])])
def test_a_seed_past_64_bits_is_recorded_as_the_seed_that_deals_its_samples(variant: str, hands: list[str]) -> None:
    """``seed=2**64 + 5`` dealt seed 5's samples and recorded 2**64 + 5, which ``equity --seed`` refuses."""
    big, five = (engine.equity(variant, hands, samples=500, seed=seed) for seed in (2**64 + 5, 5))
    assert big.seed == 5 and big.to_dict() == five.to_dict()
