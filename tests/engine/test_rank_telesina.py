"""Telesina against a brute-force reference from the rule text (all 201,376 hands), and every tie-break."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from engine.cards import parse_cards
from engine.rankings import TELESINA, HandCategory
from engine.rankings.compare import order_mismatches
from engine.rankings.fast import keys_batch
from engine.rankings.telesina import heads_up_winner

ORDER = [
    "straight flush", "four of a kind", "flush", "full house", "straight",
    "three of a kind", "two pair", "one pair", "high card",
]  # fmt: skip
SUIT = {2: 3, 1: 2, 0: 1, 3: 0}  # card id % 4 (c d h s) -> strength: hearts > diamonds > clubs > spades
SHORT_DECK = range(20, 52)


def straight_top(ranks: list[int]) -> int | None:
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct == [7, 8, 9, 10, 14]:
        return 10
    return distinct[-1] if distinct[-1] - distinct[0] == 4 else None


def reference(cards: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """Straight from variants.md: classify by counting, then the listed tie-breaks as a tuple."""
    ranks = [c // 4 + 2 for c in cards]
    suit_of = {c: SUIT[c % 4] for c in cards}
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    top = straight_top(ranks)

    def place(name: str, *ties: int) -> tuple[int, tuple[int, ...]]:
        return (-ORDER.index(name), ties)

    def rank_with(n: int) -> list[int]:
        return sorted((r for r, k in counts.items() if k == n), reverse=True)

    def suits_of_rank(rank: int) -> list[int]:
        return [suit_of[c] for c in cards if c // 4 + 2 == rank]

    if flush and top:
        return place("straight flush", top, suit_of[cards[0]])
    if shape == [4, 1]:
        return place("four of a kind", rank_with(4)[0])
    if flush:
        return place("flush", suit_of[cards[0]])
    if shape == [3, 2]:
        return place("full house", rank_with(3)[0])
    if top:
        return place("straight", top, max(suits_of_rank(top)))
    if shape == [3, 1, 1]:
        return place("three of a kind", rank_with(3)[0])
    if shape == [2, 2, 1]:
        high, second = rank_with(2)
        return place("two pair", high, second, rank_with(1)[0], max(suits_of_rank(high)))
    if shape == [2, 1, 1, 1]:
        kickers = rank_with(1)
        return place("one pair", rank_with(2)[0], *kickers, max(suits_of_rank(kickers[0])))
    ordered = sorted(((c // 4 + 2, suit_of[c]) for c in cards), reverse=True)
    return place("high card", *[x for card in ordered for x in card])


@pytest.fixture(scope="module")
def all_hands() -> np.ndarray:
    return np.array(list(combinations(SHORT_DECK, 5)), dtype=np.int64)


def test_matches_reference_on_all_201376_hands(all_hands: np.ndarray) -> None:
    mine = keys_batch(TELESINA.code, all_hands).tolist()
    ref = [reference(tuple(h)) for h in all_hands.tolist()]
    assert order_mismatches(mine, ref) == []


def test_categories_match_reference(all_hands: np.ndarray) -> None:
    for h in all_hands[::41].tolist():
        value = TELESINA.evaluate(h)
        assert value is not None and -ORDER.index(str(value.category)) == reference(tuple(h))[0]


def test_best_of_six_matches_reference_on_20k_random_six_card_hands() -> None:
    rng = random.Random(31)
    hands = np.array([rng.sample(SHORT_DECK, 6) for _ in range(20_000)], dtype=np.int64)
    mine = keys_batch(TELESINA.code, hands).tolist()
    ref = [max(reference(five) for five in combinations(h, 5)) for h in hands.tolist()]
    assert order_mismatches(mine, ref) == []


def tel(cards: str) -> int:
    value = TELESINA.best(parse_cards(cards))
    assert value is not None
    return value.key


def test_spec_seed_example_ace_of_hearts_queen_beats_ace_of_diamonds_king() -> None:
    assert tel("Ah Qc 9d 8s 7h") > tel("Ad Kc 9h 8c 7d")


def test_spec_high_card_total_order_by_rank_then_suit() -> None:
    assert tel("Ah Kc 9d 8s 7h") > tel("Ad Kh 9h 8c 7d")  # A♥ > A♦
    assert tel("Ad Kc 9d 8s 7h") > tel("Ac Kh 9h 8c 7d")  # A♦ > A♣
    assert tel("Ac Kc 9d 8s 7h") > tel("As Kh 9h 8c 7d")  # A♣ > A♠
    assert tel("As 7s 8h 9c Jd") > tel("Kh Qh Jh 9d 8s")  # A♠ > K♥
    assert tel("Ad Kc 9d 8s 7s") > tel("Ad Ks 9h 8c 7h")  # same first card: K♣ > K♠ decides


def test_spec_straight_flush_top_card_then_suit() -> None:
    assert tel("9s Ts Js Qs Ks") > tel("8h 9h Th Jh Qh")
    assert tel("8h 9h Th Jh Qh") > tel("8d 9d Td Jd Qd") > tel("8c 9c Tc Jc Qc") > tel("8s 9s Ts Js Qs")
    assert tel("As 7s 8s 9s Ts") < tel("7s 8s 9s Ts Js")  # A789T is the lowest straight flush
    assert tel("As 7s 8s 9s Ts") > tel("Ah Ad Ac As Kh")


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("8h 8d 8c 8s 7h", "7h 7d 7c 7s Ah"),  # four of a kind: rank of the set
        ("8h 8d 8c 7s 7h", "7d 7c 7s Ah Ad"),  # full house: rank of the set, not the pair
        ("8h 8d 8c 7s 9h", "7d 7c 7s Ah Kd"),  # three of a kind: rank of the set, not kickers
    ],
)
def test_spec_sets_compare_by_rank(better: str, worse: str) -> None:
    assert tel(better) > tel(worse)


def test_spec_sets_ignore_kickers() -> None:
    assert tel("8h 8d 8c Ks 9h") == tel("8h 8d 8c 7s 9c")


def test_spec_flush_higher_suit_wins_ranks_not_compared() -> None:
    assert tel("7h 8h 9h Jh Qh") > tel("As Ks Qs Js 9s")
    assert tel("7d 8d 9d Jd Qd") > tel("Ac Kc Qc Jc 9c")
    assert tel("7h 8h 9h Jh Qh") == tel("7h 8h Th Jh Kh")


def test_spec_flush_beats_full_house() -> None:
    assert tel("7s 8s 9s Js Ks") > tel("Ah Ad Ac Kh Kd")


def test_spec_straight_top_card_then_suit_of_top_card() -> None:
    assert tel("8c 9d Th Js Qh") > tel("8h 9h Td Jd Qd")
    assert tel("8s 9s Td Jc Qd") > tel("8h 9h Th Jh Qc")  # Q♦ over Q♣, whatever the other suits
    assert tel("Ah 7c 8d 9s Td") < tel("7h 8c 9d Ts Js")  # A789T is the lowest straight


def test_spec_two_pair_order_then_vela_kicker_then_suit_of_top_pair() -> None:
    assert tel("Kh Ks Jd Jc 7d") > tel("Qh Qs Jh Js Ad")  # top pair
    assert tel("Kh Ks Jd Jc 7d") > tel("Kd Kc Th Ts Ad")  # second pair
    assert tel("Kh Ks Jd Jc 8d") > tel("Kd Kc Jh Js 7d")  # kicker
    # both play the vela 9c as kicker: the suit of the top pair's highest card decides (K♥ over K♦)
    vela = "9c"
    a = tel(f"Kh Ks Jd Jc 7d {vela}")
    b = tel(f"Kd Kc Jh Js 8d {vela}")
    assert a > b


def test_spec_pair_then_kickers_then_suit_of_highest_kicker() -> None:
    assert tel("9h 9c Ah Jd 8s") > tel("9d 9s Ac Jh 8c")  # kickers equal: A♥ over A♣
    assert tel("9h 9c Ah Jd 8s") < tel("9d 9s Ac Qh 8c")  # second kicker Q over J
    assert tel("Th Tc 7h 8d 9s") > tel("9d 9s Ac Kh Qc")  # pair rank first


def test_best_of_six_uses_the_vela() -> None:
    value = TELESINA.best(parse_cards("Ah Qc 9d 8s 7h Ad"))
    assert value is not None and value.category is HandCategory.ONE_PAIR


def test_heads_up_rule_lowest_straight_flush_of_spades_beats_hearts_royal() -> None:
    spades = parse_cards("Ts 9s 8s 7s As")
    hearts = parse_cards("Th Jh Qh Kh Ah")
    keys = [tel("As 7s 8s 9s Ts"), tel("Th Jh Qh Kh Ah")]
    assert keys[0] < keys[1]  # not heads-up: the order stands
    assert heads_up_winner(keys, [spades, hearts]) == (0, spades)
    assert heads_up_winner(keys[::-1], [hearts, spades]) == (1, spades)
    assert heads_up_winner([*keys, tel("7h 7d 7c 8h 8d")], [spades, hearts, parse_cards("7h 7d 7c 8h 8d")]) is None


def test_heads_up_rule_names_only_those_two_hands() -> None:
    other_low = parse_cards("Ah 7h 8h 9h Th")
    diamonds_royal = parse_cards("Td Jd Qd Kd Ad")
    spades = parse_cards("As 7s 8s 9s Ts")
    hearts = parse_cards("Th Jh Qh Kh Ah")
    assert heads_up_winner([tel("Ah 7h 8h 9h Th"), tel("Th Jh Qh Kh Ah")], [other_low, hearts]) is None
    assert heads_up_winner([tel("As 7s 8s 9s Ts"), tel("Td Jd Qd Kd Ad")], [spades, diamonds_royal]) is None
