"""Americana against a brute-force reference from the rule text (all 201,376 hands), and the spec's rules."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from engine.cards import CardError, parse_cards
from engine.rankings import AMERICANA, HandCategory
from engine.rankings.compare import order_mismatches
from engine.rankings.fast import keys_batch

ORDER = [
    "royal flush", "straight flush", "four of a kind", "flush", "full house", "straight",
    "three of a kind", "two pair", "one pair", "high card",
]  # fmt: skip
SHORT_DECK = range(20, 52)


def straight_top(ranks: list[int]) -> int | None:
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct == [7, 8, 9, 10, 14]:
        return 10  # A-7-8-9-T: the ace plays below the seven
    return distinct[-1] if distinct[-1] - distinct[0] == 4 else None


def reference(cards: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    ranks = [c // 4 + 2 for c in cards]
    counts = Counter(ranks)
    grouped = tuple(dict.fromkeys(sorted(ranks, key=lambda r: (counts[r], r), reverse=True)))
    shape = sorted(counts.values(), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    top = straight_top(ranks)

    def place(name: str, *ties: int) -> tuple[int, tuple[int, ...]]:
        return (-ORDER.index(name), ties)

    if flush and top == 14:
        return place("royal flush")
    if flush and top:
        return place("straight flush", top)
    if shape == [4, 1]:
        return place("four of a kind", *grouped)
    if flush:
        return place("flush", *sorted(ranks, reverse=True))
    if shape == [3, 2]:
        return place("full house", *grouped)
    if top:
        return place("straight", top)
    names = {(3, 1, 1): "three of a kind", (2, 2, 1): "two pair", (2, 1, 1, 1): "one pair"}
    name = names.get(tuple(shape), "high card")
    return place(name, *grouped)


@pytest.fixture(scope="module")
def all_hands() -> np.ndarray:
    return np.array(list(combinations(SHORT_DECK, 5)), dtype=np.int64)


def test_matches_reference_on_all_201376_hands(all_hands: np.ndarray) -> None:
    mine = keys_batch(AMERICANA.code, all_hands).tolist()
    ref = [reference(tuple(h)) for h in all_hands.tolist()]
    assert len(mine) == 201_376
    assert order_mismatches(mine, ref) == []


def test_categories_match_reference(all_hands: np.ndarray) -> None:
    for h in all_hands[::37].tolist():
        value = AMERICANA.evaluate(h)
        assert value is not None and -ORDER.index(str(value.category)) == reference(tuple(h))[0]


def am(cards: str) -> int:
    value = AMERICANA.evaluate(parse_cards(cards))
    assert value is not None
    return value.key


def test_spec_a789t_is_the_lowest_straight() -> None:
    value = AMERICANA.evaluate(parse_cards("Ah 7c 8d 9s Th"))
    assert value is not None and value.category is HandCategory.STRAIGHT
    assert am("Ah 7c 8d 9s Th") < am("7h 8c 9d Ts Jh") < am("Th Jc Qd Ks Ah")
    assert am("Ah 7c 8d 9s Th") > am("Ah Ac Ad Ks Qh")  # still a straight: above three of a kind


def test_spec_tjqka_is_the_highest_straight() -> None:
    assert am("Th Jc Qd Ks Ah") > am("9h Tc Jd Qs Kh")


def test_spec_flush_beats_full_house() -> None:
    assert am("7s 9s Js Ks As") > am("Ah Ac Ad Ks Kh")
    assert am("7s 8s 9s Js Ks") < am("7h 7c 7d 7s 8h")  # four of a kind still beats a flush


def test_spec_royal_and_straight_flushes() -> None:
    royal = AMERICANA.evaluate(parse_cards("Th Jh Qh Kh Ah"))
    low_sf = AMERICANA.evaluate(parse_cards("Ah 7h 8h 9h Th"))
    assert royal is not None and royal.category is HandCategory.ROYAL_FLUSH
    assert low_sf is not None and low_sf.category is HandCategory.STRAIGHT_FLUSH
    assert low_sf < royal
    assert low_sf.key > am("Ah Ac Ad As Kh")


def test_spec_ties_by_ranks_only_and_equal_hands_split() -> None:
    assert am("Ah Kc 9d 8s 7h") == am("As Kh 9c 8d 7d")
    assert am("7s 9s Js Ks As") == am("7h 9h Jh Kh Ah")
    assert am("Ah Ac 9d 8s 7h") == am("As Ad 9c 8d 7d")
    assert am("Ah Ac Kd 8s 7h") > am("As Ad Qc Jd Td")  # kicker K over Q


def test_rejects_cards_outside_the_32_card_deck() -> None:
    with pytest.raises(CardError, match="not in the 32-card deck"):
        AMERICANA.evaluate(parse_cards("2h 7c 8d 9s Th"))
