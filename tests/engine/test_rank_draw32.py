"""32-Card Draw: never a tie, every tie-break, against a brute-force reference from the rule text."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from itertools import combinations, pairwise

import numpy as np
import pytest

from engine.cards import parse_cards
from engine.rankings import DRAW32, HandCategory
from engine.rankings.compare import order_mismatches
from engine.rankings.fast import keys_batch

ORDER = [
    "royal flush", "straight flush", "four of a kind", "flush", "full house", "straight",
    "three of a kind", "two pair", "one pair", "high card",
]  # fmt: skip
SUIT = {2: 3, 1: 2, 0: 1, 3: 0}  # hearts > diamonds > clubs > spades
SHORT_DECK = range(20, 52)


def straight_top(ranks: list[int]) -> int | None:
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct == [7, 8, 9, 10, 14]:
        return 10
    return distinct[-1] if distinct[-1] - distinct[0] == 4 else None


def reference(cards: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """The rule book's tie-breaks only (no final card-by-card step)."""
    ranks = [c // 4 + 2 for c in cards]
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    top = straight_top(ranks)
    suit = SUIT[cards[0] % 4]

    def place(name: str, *ties: int) -> tuple[int, tuple[int, ...]]:
        return (-ORDER.index(name), ties)

    def rank_with(n: int) -> list[int]:
        return sorted((r for r, k in counts.items() if k == n), reverse=True)

    def best_suit(rank: int) -> int:
        return max(SUIT[c % 4] for c in cards if c // 4 + 2 == rank)

    if flush and top == 14:
        return place("royal flush", suit)
    if flush and top:
        return place("straight flush", top, suit)
    if shape == [4, 1]:
        return place("four of a kind", rank_with(4)[0])
    if flush:
        return place("flush", *sorted(ranks, reverse=True), suit)
    if shape == [3, 2]:
        return place("full house", rank_with(3)[0])
    if top:
        return place("straight", top, best_suit(top))
    if shape == [3, 1, 1]:
        return place("three of a kind", rank_with(3)[0])
    if shape == [2, 2, 1]:
        high, second = rank_with(2)
        return place("two pair", high, second, rank_with(1)[0], best_suit(high))
    if shape == [2, 1, 1, 1]:
        pair = rank_with(2)[0]
        return place("one pair", pair, *rank_with(1), best_suit(pair))
    high_to_low = sorted(ranks, reverse=True)
    return place("high card", *high_to_low, best_suit(high_to_low[0]))


@pytest.fixture(scope="module")
def all_hands() -> np.ndarray:
    return np.array(list(combinations(SHORT_DECK, 5)), dtype=np.int64)


@pytest.fixture(scope="module")
def all_keys(all_hands: np.ndarray) -> list[int]:
    return keys_batch(DRAW32.code, all_hands).tolist()


def test_every_distinct_hand_has_a_distinct_key(all_hands: np.ndarray, all_keys: list[int]) -> None:
    ordered = sorted(all_keys)
    assert len(ordered) == 201_376
    assert all(a < b for a, b in pairwise(ordered))


@pytest.fixture(scope="module")
def all_refs(all_hands: np.ndarray) -> list[tuple[int, tuple[int, ...]]]:
    return [reference(tuple(h)) for h in all_hands.tolist()]


def test_our_order_refines_the_rule_book_order_on_all_hands(
    all_keys: list[int], all_refs: list[tuple[int, tuple[int, ...]]]
) -> None:
    assert order_mismatches(all_keys, all_refs, refines=True) == []


def test_rule_book_alone_separates_every_two_hands_that_share_no_card(
    all_hands: np.ndarray, all_refs: list[tuple[int, tuple[int, ...]]]
) -> None:
    # hands the rule book calls equal always share a card, so they never meet at one table
    masks = (np.int64(1) << all_hands).sum(axis=1)
    groups: dict[tuple[int, tuple[int, ...]], list[int]] = defaultdict(list)
    for i, ref in enumerate(all_refs):
        groups[ref].append(i)
    for members in groups.values():
        if len(members) > 1:
            m = masks[members]
            disjoint = (m[:, None] & m[None, :]) == 0
            assert not disjoint.any(), f"hands {all_hands[members][disjoint.any(axis=1)][:2]} tie yet share no card"


def test_never_ties_over_100k_random_deals_of_two_hands() -> None:
    rng = random.Random(41)
    for _ in range(100_000):
        ten = rng.sample(SHORT_DECK, 10)
        a, b = DRAW32.key5(*ten[:5]), DRAW32.key5(*ten[5:])
        assert a != b
        assert (a > b) == (reference(tuple(ten[:5])) > reference(tuple(ten[5:])))


def d32(cards: str) -> int:
    value = DRAW32.evaluate(parse_cards(cards))
    assert value is not None
    return value.key


def test_spec_royal_flush_higher_suit() -> None:
    royal = DRAW32.evaluate(parse_cards("Th Jh Qh Kh Ah"))
    assert royal is not None and royal.category is HandCategory.ROYAL_FLUSH
    assert d32("Th Jh Qh Kh Ah") > d32("Td Jd Qd Kd Ad") > d32("Tc Jc Qc Kc Ac") > d32("Ts Js Qs Ks As")


def test_spec_straight_flush_top_card_then_suit() -> None:
    assert d32("9s Ts Js Qs Ks") > d32("8h 9h Th Jh Qh") > d32("8d 9d Td Jd Qd")
    assert d32("Ah 7h 8h 9h Th") < d32("7s 8s 9s Ts Js")  # A789T is the lowest


def test_spec_straight_top_card_then_suit_of_top_card() -> None:
    assert d32("8s 9s Ts Js Qh") > d32("8h 9h Th Jh Qd")
    assert d32("Ah 7h 8h 9h Ts") < d32("7s 8s 9s Ts Jc")  # A789T is the lowest straight
    assert d32("Th Jc Qd Ks Ah") > d32("9h Th Jh Qh Kc")


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("8h 8d 8c 8s 7h", "7h 7d 7c 7s Ah"),
        ("8h 8d 8c 7s 7h", "7d 7c 7s Ah Ad"),
        ("8h 8d 8c 7s 9h", "7d 7c 7s Ah Kd"),
    ],
    ids=["four of a kind", "full house", "three of a kind"],
)
def test_spec_sets_compare_by_rank(better: str, worse: str) -> None:
    assert d32(better) > d32(worse)


def test_spec_flush_beats_full_house_and_ranks_then_suit() -> None:
    assert d32("7s 8s 9s Js Ks") > d32("Ah Ad Ac Kh Kd")
    assert d32("7s 8s 9s Js As") > d32("7h 8h 9h Jh Kh")  # ranks first
    assert d32("7h 8h 9h Jh Kh") > d32("7d 8d 9d Jd Kd")  # same ranks: the suit


def test_spec_two_pair_pairs_kicker_then_suit_of_top_pairs_highest_card() -> None:
    assert d32("Kh Ks Jd Jc 7d") > d32("Qh Qs Jh Js Ad")
    assert d32("Kh Ks Jd Jc 7d") > d32("Kd Kc Th Ts Ad")
    assert d32("Kc Ks Jd Jc 8d") > d32("Kd Kh Jh Js 7d")
    assert d32("Kh Ks Jd Jc 8d") > d32("Kd Kc Jh Js 8h")  # K♥ over K♦


def test_spec_pair_rank_kickers_then_suit_of_pairs_highest_card() -> None:
    assert d32("Th Tc 7h 8d 9s") > d32("9d 9s Ac Kh Qc")
    assert d32("9d 9s Ac Qh 8c") > d32("9h 9c Ah Jd 8s")
    assert d32("9h 9s Ac Jd 8c") > d32("9d 9c Ah Jh 8h")  # 9♥ over 9♦


def test_spec_high_card_ranks_then_suit_of_highest_card() -> None:
    assert d32("Ac Kc 9d 8s 7h") < d32("As Kh Td 8c 7d") > d32("Ah Kd 9h 8c 7d")
    assert d32("Ah Kc 9d 8s 7s") > d32("Ad Kh 9h 8h 7h")  # A♥ over A♦


def test_spec_category_order() -> None:
    hands = [
        "Th Jh Qh Kh Ah", "9h Th Jh Qh Kh", "8h 8d 8c 8s 7h", "7s 8s 9s Js Ks", "8h 8d 8c 7s 7h",
        "8s 9h Td Jc Qh", "8h 8d 8c 7s 9h", "Kh Ks Jd Jc 7d", "Th Tc 7h 8d 9s", "Ah Kc 9d 8s 7s",
    ]  # fmt: skip
    keys = [d32(h) for h in hands]
    assert keys == sorted(keys, reverse=True)
    values = [DRAW32.evaluate(parse_cards(h)) for h in hands]
    assert [None if v is None else str(v.category) for v in values] == ORDER
