"""Standard high: our keys against pokerkit and eval7 on large random samples."""

from __future__ import annotations

import random

import eval7
import numpy as np
import pytest
from pokerkit import StandardHighHand

from engine.cards import Card, parse_cards
from engine.rankings import HIGH, HandCategory
from engine.rankings.compare import order_mismatches
from engine.rankings.fast import keys_batch

PK_LOOKUP = StandardHighHand.lookup


def random_hands(n: int, size: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    return np.array([rng.sample(range(52), size) for _ in range(n)], dtype=np.int64)


def pk_value(ids: np.ndarray) -> int:
    return PK_LOOKUP.get_entry("".join(str(Card(int(i))) for i in ids)).index


def test_five_card_order_matches_pokerkit_on_every_pair_of_40k_hands() -> None:
    hands = random_hands(40_000, 5, seed=1)
    mine = keys_batch(HIGH.code, hands).tolist()
    theirs = [pk_value(h) for h in hands]
    assert order_mismatches(mine, theirs) == []


def test_categories_match_pokerkit_labels() -> None:
    hands = random_hands(5_000, 5, seed=2)
    for h in hands:
        value = HIGH.evaluate(int(i) for i in h)
        assert value is not None
        label = PK_LOOKUP.get_entry("".join(str(Card(int(i))) for i in h)).label.value.lower()
        assert str(value.category) == label


def test_seven_card_best_matches_pokerkit_from_game() -> None:
    hands = random_hands(3_000, 7, seed=3)
    mine = keys_batch(HIGH.code, hands).tolist()
    theirs = []
    for h in hands:
        text = "".join(str(Card(int(i))) for i in h)
        theirs.append(StandardHighHand.from_game(text[:4], text[4:]).entry.index)
    assert order_mismatches(mine, theirs) == []


def test_seven_card_order_matches_eval7_on_every_pair_of_100k_hands() -> None:
    hands = random_hands(100_000, 7, seed=4)
    mine = keys_batch(HIGH.code, hands).tolist()
    deck = [eval7.Card(str(Card(i))) for i in range(52)]
    theirs = [eval7.evaluate([deck[i] for i in h]) for h in hands.tolist()]
    assert order_mismatches(mine, theirs) == []


def test_order_matches_the_engines_fast_evaluator() -> None:
    from engine.evaluator import evaluate_batch

    for size in (5, 7):
        hands = random_hands(50_000, size, seed=5 + size)
        mine = keys_batch(HIGH.code, hands).tolist()
        theirs = evaluate_batch(hands.astype(np.uint8)).tolist()
        assert order_mismatches(mine, theirs) == []


def test_best_reports_the_five_cards_played() -> None:
    value = HIGH.best(parse_cards("Kd Kc 7h 7s 2c Ad 3h"))
    assert value is not None
    assert value.category is HandCategory.TWO_PAIR
    assert [str(c) for c in value.cards] == ["Kd", "Kc", "7s", "7h", "Ad"]


@pytest.mark.parametrize(
    ("worse", "better"),
    [
        ("Ah 2c 3d 4s 5h", "2h 3c 4d 5s 6h"),  # the wheel is the lowest straight
        ("Ks Qs Js Ts 9s", "As Ks Qs Js Ts"),  # the royal flush is the best straight flush
        ("Ah Kh Qh Jh 9h", "2c 2d 2h 3s 3c"),  # full house over flush
        ("Ah As Kd Qc Tc", "Ac Ad Kh Qs Jc"),  # kickers: J over T
    ],
)
def test_spec_examples(worse: str, better: str) -> None:
    a, b = HIGH.evaluate(parse_cards(worse)), HIGH.evaluate(parse_cards(better))
    assert a is not None and b is not None and a < b


def test_suits_never_break_a_tie() -> None:
    a = HIGH.evaluate(parse_cards("Ah Kh Qd Js 9c"))
    b = HIGH.evaluate(parse_cards("As Ks Qc Jd 9h"))
    assert a is not None and b is not None and a.key == b.key


def test_rejects_wrong_card_counts() -> None:
    with pytest.raises(ValueError, match="exactly 5"):
        HIGH.evaluate(parse_cards("As Ks"))


@pytest.mark.parametrize(
    "name", ["high", "eight-or-better", "deuce-to-seven", "soko", "americana", "telesina", "draw32"]
)
def test_every_ranking_refuses_a_card_given_twice(name: str) -> None:
    # Five aces of spades are not four of a kind: a repeated card is bad input, named as such.
    from engine.cards import CardError
    from engine.rankings import RANKINGS

    ranking = RANKINGS[name]
    with pytest.raises(CardError, match="card As appears more than once"):
        ranking.evaluate(parse_cards("As As Ks Qs Js"))
    with pytest.raises(CardError, match="card As appears more than once"):
        ranking.best(parse_cards("As Ks Qs Js Ts 9s As"))
    with pytest.raises(CardError, match="card As appears more than once"):
        ranking.best_omaha(parse_cards("As Ks Qs Js"), parse_cards("Ts 9s As"))


@pytest.mark.parametrize("text", ["As Ks Qs Js Ts", "AsKsQsJsTs", "As,Ks,Qs,Js,Ts"])
def test_a_ranking_reads_card_text_as_the_rest_of_the_engine_does(text: str) -> None:
    # A string was read a character at a time ("'A' is not a card"): it is a list of cards, as parse_cards reads it.
    royal = HIGH.evaluate(parse_cards("As Ks Qs Js Ts"))
    assert HIGH.evaluate(text) == royal
    assert HIGH.best(text + " 2c 3d") == royal
    assert HIGH.best_omaha("As Ks 2c 3d", "Qs Js Ts 9h 8h") == royal


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("As Ks Qs Js", "exactly 5 cards, got 4"),
        ("As Ks Qs Js 10s", "a ten is written T"),
        ("As Ks Qs Js T", "each card is two characters"),
        ("As Ks Qs Js Tx", "unknown suit 'x'"),
    ],
)
def test_card_text_a_ranking_cannot_read_is_refused_with_what_was_wrong(text: str, message: str) -> None:
    from engine.cards import CardError

    with pytest.raises(CardError, match=message):
        HIGH.evaluate(text)
