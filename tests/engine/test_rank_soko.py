"""Soko against a brute-force reference written from the rule text, and each rule of the spec."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from engine.cards import parse_cards
from engine.rankings import SOKO, HandCategory
from engine.rankings.compare import order_mismatches
from engine.rankings.fast import keys_batch

# The rule book, best first; the reference returns (place, tie-break tuple), place 0 = best.
ORDER = [
    "royal flush", "straight flush", "four of a kind", "full house", "flush", "straight",
    "three of a kind", "two pair", "four-flush", "four-straight", "one pair", "high card",
]  # fmt: skip


def straight_top(ranks: list[int]) -> int | None:
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct == [2, 3, 4, 5, 14]:
        return 5
    return distinct[-1] if distinct[-1] - distinct[0] == 4 else None


def reference(cards: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """(-place, tie-breaks): greater is better, so it compares like our keys."""
    ranks = [c // 4 + 2 for c in cards]
    suits = [c % 4 for c in cards]
    counts = Counter(ranks)
    by_group = sorted(ranks, key=lambda r: (counts[r], r), reverse=True)
    grouped = tuple(dict.fromkeys(by_group))
    shape = sorted(counts.values(), reverse=True)
    flush = len(set(suits)) == 1
    top = straight_top(ranks)

    def place(name: str, *ties: int) -> tuple[int, tuple[int, ...]]:
        return (-ORDER.index(name), ties)

    if flush and top == 14:
        return place("royal flush")
    if flush and top:
        return place("straight flush", top)
    if shape == [4, 1]:
        return place("four of a kind", *grouped)
    if shape == [3, 2]:
        return place("full house", *grouped)
    if flush:
        return place("flush", *sorted(ranks, reverse=True))
    if top:
        return place("straight", top)
    if shape == [3, 1, 1]:
        return place("three of a kind", *grouped)
    if shape == [2, 2, 1]:
        return place("two pair", *grouped)
    for suit, n in Counter(suits).items():
        if n == 4:
            four = sorted((r for r, s in zip(ranks, suits, strict=True) if s == suit), reverse=True)
            odd = next(r for r, s in zip(ranks, suits, strict=True) if s != suit)
            return place("four-flush", *four, odd)
    for high in range(14, 3, -1):
        needed = [14, 2, 3, 4] if high == 4 else list(range(high - 3, high + 1))
        rest = list(ranks)
        if all(r in rest for r in needed):
            for r in needed:
                rest.remove(r)
            return place("four-straight", high, rest[0])
    if shape == [2, 1, 1, 1]:
        return place("one pair", *grouped)
    return place("high card", *sorted(ranks, reverse=True))


def test_matches_reference_on_every_pair_of_60k_random_hands() -> None:
    rng = random.Random(21)
    hands = np.array([rng.sample(range(52), 5) for _ in range(60_000)], dtype=np.int64)
    mine = keys_batch(SOKO.code, hands).tolist()
    ref = [reference(tuple(h)) for h in hands.tolist()]
    assert order_mismatches(mine, ref) == []


def test_matches_reference_on_every_hand_of_the_short_categories() -> None:
    # all hands of ranks 9..A and 2..5 (C(32,5) each): dense in four-flushes and four-straights
    for pool in (range(28, 52), [*range(0, 16), *range(48, 52)]):
        hands = np.array(list(combinations(pool, 5)), dtype=np.int64)
        mine = keys_batch(SOKO.code, hands).tolist()
        ref = [reference(tuple(h)) for h in hands.tolist()]
        assert order_mismatches(mine, ref) == []


def test_categories_match_reference() -> None:
    rng = random.Random(22)
    for _ in range(3_000):
        ids = rng.sample(range(52), 5)
        value = SOKO.evaluate(ids)
        assert value is not None
        assert -ORDER.index(str(value.category)) == reference(tuple(ids))[0]


def soko(cards: str) -> int:
    value = SOKO.evaluate(parse_cards(cards))
    assert value is not None
    return value.key


def test_spec_four_flush_beats_four_straight() -> None:
    four_flush = SOKO.evaluate(parse_cards("2c 5c 7c 9c Kd"))
    four_straight = SOKO.evaluate(parse_cards("9c Tc Jd Qh 2s"))
    assert four_flush is not None and four_flush.category is HandCategory.FOUR_FLUSH
    assert four_straight is not None and four_straight.category is HandCategory.FOUR_STRAIGHT
    assert four_straight < four_flush


def test_spec_four_flush_and_four_straight_sit_between_two_pair_and_one_pair() -> None:
    assert soko("Ac Ad Kh 9s 7c") < soko("9c Tc Jd Qh 2s") < soko("2c 5c 7c 9c Kd") < soko("2c 2d 3h 3s 4c")


def test_a_hand_that_is_both_is_a_four_flush() -> None:
    value = SOKO.evaluate(parse_cards("9c Tc Jc Qc 2s"))
    assert value is not None and value.category is HandCategory.FOUR_FLUSH


def test_a_four_flush_with_a_pair_is_a_four_flush() -> None:
    value = SOKO.evaluate(parse_cards("As Ks 9s 4s 4h"))
    assert value is not None and value.category is HandCategory.FOUR_FLUSH


def test_spec_four_flush_ties_go_by_the_four_suited_cards_then_the_odd_card() -> None:
    assert soko("Ac Kc 9c 2c Qd") > soko("Ah Kh 8h 7h Qs")  # third suited card: 9 over 8
    assert soko("Ac Kc 9c 2c Qd") > soko("Ah Kh 9h 2h Js")  # same four ranks: odd card Q over J
    assert soko("Ac Kc 9c 2c Qd") == soko("Ah Kh 9h 2h Qs")


def test_spec_four_straight_ties_go_by_the_top_card_then_the_odd_card() -> None:
    assert soko("9c Tc Jd Qh 2s") > soko("8c 9c Td Jh As")  # top Q over top J
    assert soko("9c Tc Jd Qh 3s") > soko("9d Th Js Qc 2c")  # odd card 3 over 2
    assert soko("Ac 2d 3h 4s 9c") < soko("2c 3d 4h 5s 9d")  # A234 (top 4) is the lowest four-straight
    assert soko("Jc Qd Kh As 2c") > soko("Tc Jd Qh Ks 2d")  # JQKA is the highest four-straight


def test_a_pair_inside_a_four_straight_plays_as_the_four_straight() -> None:
    value = SOKO.evaluate(parse_cards("Ac Ad Kh Qs Jc"))
    assert value is not None and value.category is HandCategory.FOUR_STRAIGHT
    assert soko("Ac Ad Kh Qs Jc") > soko("Ah Kc Qd Js 2s")  # odd card: the second ace over the 2


def test_four_straight_does_not_wrap() -> None:
    value = SOKO.evaluate(parse_cards("Qc Kd Ah 2s 7c"))
    assert value is not None and value.category is HandCategory.HIGH_CARD


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("As Ks Qs Js Ts", HandCategory.ROYAL_FLUSH),
        ("Ks Qs Js Ts 9s", HandCategory.STRAIGHT_FLUSH),
        ("9s 9h 9d 9c 2s", HandCategory.FOUR_OF_A_KIND),
        ("9s 9h 9d 2c 2s", HandCategory.FULL_HOUSE),
        ("As Js 9s 4s 2s", HandCategory.FLUSH),
        ("Ah 2c 3d 4s 5h", HandCategory.STRAIGHT),
        ("9s 9h 9d Kc 2s", HandCategory.THREE_OF_A_KIND),
        ("9s 9h Kd Kc 2s", HandCategory.TWO_PAIR),
        ("9s 9h Kd Qc 2s", HandCategory.ONE_PAIR),
        ("As Jh 9d 6c 2s", HandCategory.HIGH_CARD),
    ],
)
def test_spec_standard_categories(cards: str, category: HandCategory) -> None:
    value = SOKO.evaluate(parse_cards(cards))
    assert value is not None and value.category is category


def test_spec_royal_flush_over_straight_flush() -> None:
    assert soko("As Ks Qs Js Ts") > soko("Ks Qs Js Ts 9s")


def test_shows_the_four_first() -> None:
    value = SOKO.evaluate(parse_cards("2s 9c Tc Jd Qh"))
    assert value is not None and [str(c) for c in value.cards] == ["Qh", "Jd", "Tc", "9c", "2s"]
