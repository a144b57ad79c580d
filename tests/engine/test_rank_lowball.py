"""Eight-or-better and deuce-to-seven lows against pokerkit, and every rule of the spec."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pokerkit import EightOrBetterLowHand, OmahaEightOrBetterLowHand, StandardLowHand

from engine.cards import Card, parse_cards
from engine.rankings import DEUCE_TO_SEVEN, EIGHT_OR_BETTER, NO_HAND, HandCategory
from engine.rankings.compare import order_mismatches
from engine.rankings.fast import best_omaha, keys_batch


def random_hands(n: int, size: int, seed: int, low_bias: bool = False) -> np.ndarray:
    rng = random.Random(seed)
    # with low_bias, deal from the low cards and a few others so lows are common
    pool = [c for c in range(52) if c // 4 <= 6 or c // 4 == 12] if low_bias else list(range(52))
    return np.array([rng.sample(pool, size) for _ in range(n)], dtype=np.int64)


def text(ids: np.ndarray) -> str:
    return "".join(str(Card(int(i))) for i in ids)


def low(cards: str) -> int:
    value = EIGHT_OR_BETTER.evaluate(parse_cards(cards))
    return NO_HAND if value is None else value.key


# ------------------------------------------------------------------ eight-or-better


@pytest.mark.parametrize(("size", "low_bias"), [(5, True), (5, False), (7, True)])
def test_eight_or_better_matches_pokerkit(size: int, low_bias: bool) -> None:
    hands = random_hands(30_000 if size == 5 else 10_000, size, seed=size + low_bias, low_bias=low_bias)
    mine = keys_batch(EIGHT_OR_BETTER.code, hands).tolist()
    theirs = []
    for h in hands:
        t = text(h)
        hand = EightOrBetterLowHand.from_game_or_none(t[:4], t[4:])
        # pokerkit: a greater hand is a better low; no hand -> below every low
        theirs.append((0,) if hand is None else (1, -hand.entry.index))
    assert sum(k == NO_HAND for k in mine) == sum(t == (0,) for t in theirs)
    assert order_mismatches(mine, theirs) == []


def test_omaha_low_matches_pokerkit() -> None:
    rng = random.Random(9)
    pool = [c for c in range(52) if c // 4 <= 6 or c // 4 == 12 or rng.random() < 0.3]
    mine, theirs = [], []
    for _ in range(4_000):
        ids = rng.sample(pool, 9)
        hole, board = np.array(ids[:4], dtype=np.int64), np.array(ids[4:], dtype=np.int64)
        mine.append(best_omaha(EIGHT_OR_BETTER.code, hole, 4, board, 5))
        hand = OmahaEightOrBetterLowHand.from_game_or_none(text(hole), text(board))
        theirs.append((0,) if hand is None else (1, -hand.entry.index))
    assert order_mismatches(mine, theirs) == []


def test_spec_8765_4_loses_to_8764_2() -> None:
    assert low("8c 7d 6h 5s 4c") < low("8d 7c 6s 4h 2d")


def test_spec_wheel_is_the_best_low() -> None:
    wheel = EIGHT_OR_BETTER.evaluate(parse_cards("5s 4h 3d 2c Ah"))
    assert wheel is not None and wheel.category is HandCategory.FIVE_LOW
    assert low("5s 4h 3d 2c Ah") > low("6s 4h 3d 2c Ah")


def test_spec_straights_and_flushes_do_not_count_against_a_low() -> None:
    assert low("5h 4h 3h 2h Ah") == low("5s 4h 3d 2c Ac")


@pytest.mark.parametrize(
    "cards",
    ["9c 7d 6h 5s 4c", "8c 8d 6h 5s 4c", "Kc 2d 3h 4s 5c", "As Ah 2c 3d 4h"],
    ids=["nine high", "a pair", "a king", "two aces"],
)
def test_spec_no_qualifying_low(cards: str) -> None:
    assert EIGHT_OR_BETTER.evaluate(parse_cards(cards)) is None


def test_ace_counts_one() -> None:
    assert low("8c 7d 6h 5s Ac") > low("8c 7d 6h 5s 2c")


def test_best_of_seven_reports_the_low_played() -> None:
    value = EIGHT_OR_BETTER.best(parse_cards("Kd 8c 7h 2s 3c Ad 4h"))
    assert value is not None and value.category is HandCategory.SEVEN_LOW
    assert [str(c) for c in value.cards] == ["7h", "4h", "3c", "2s", "Ad"]


# ------------------------------------------------------------------ deuce-to-seven


def d27(cards: str) -> int:
    value = DEUCE_TO_SEVEN.evaluate(parse_cards(cards))
    assert value is not None
    return value.key


def test_deuce_to_seven_matches_pokerkit_on_every_pair_of_40k_hands() -> None:
    hands = random_hands(40_000, 5, seed=11)
    mine = keys_batch(DEUCE_TO_SEVEN.code, hands).tolist()
    theirs = [StandardLowHand(text(h)).entry.index for h in hands]
    # pokerkit's low entries: a smaller index is a better low
    assert order_mismatches(mine, [-t for t in theirs]) == []


def test_spec_best_deuce_to_seven_hand_is_75432_unsuited() -> None:
    best = d27("7c 5d 4h 3s 2c")
    rng = random.Random(5)
    for _ in range(2_000):
        other = " ".join(str(Card(i)) for i in rng.sample(range(52), 5))
        assert d27(other) <= best


def test_spec_ace_is_high_only_so_a2345_is_ace_high() -> None:
    value = DEUCE_TO_SEVEN.evaluate(parse_cards("Ac 2d 3h 4s 5c"))
    assert value is not None and value.category is HandCategory.HIGH_CARD
    assert d27("Ac 2d 3h 4s 5c") < d27("Kc 2d 3h 4s 5c")


def test_spec_straights_and_flushes_count_and_are_bad() -> None:
    assert d27("2c 3d 4h 5s 6c") < d27("Kc Qd Jh 9s 8c")  # a straight loses to king high
    assert d27("7c 5c 4c 3c 2c") < d27("Ac Kd Qh Js 9c")  # a flush loses to ace high


def test_spec_pairs_are_bad() -> None:
    assert d27("2c 2d 3h 4s 5c") < d27("Ac Kd Qh Js 9c")


def test_deuce_to_seven_lower_cards_win() -> None:
    assert d27("8c 6d 4h 3s 2c") < d27("7c 6d 5h 4s 2c") < d27("7c 5d 4h 3s 2c")
