"""The draw policies on hand-made holdings: each row of each table, and the order the rows are read in."""

from __future__ import annotations

import random

import pytest

from engine import EngineInputError
from engine.cards import Card, parse_cards
from engine.draw_policy import POLICIES, decide, discards, policy_table
from engine.variants import get_variant


def kept(variant: str, cards: str) -> tuple[str, str]:
    row, keep = decide(variant, parse_cards(cards))
    return row.holding, " ".join(map(str, keep))


@pytest.mark.parametrize(
    ("cards", "holding", "keeps"),
    [
        ("9s Ts Js Qs Ks", "straight or better", "9s Ts Js Qs Ks"),
        ("As 2d 3c 4h 5s", "straight or better", "As 2d 3c 4h 5s"),  # the wheel
        ("2s 7s 9s Js Ks", "straight or better", "2s 7s 9s Js Ks"),
        ("8c 8d 8h 2s 2c", "straight or better", "8c 8d 8h 2s 2c"),
        ("8c 8d 8h Ks 2c", "three of a kind", "8c 8d 8h"),
        ("8c 8d Kh Ks 2c", "two pair", "8c 8d Kh Ks"),
        ("8c 8d 9h Ts Jh", "one pair", "8c 8d"),  # a pair before an open-ended four-straight
        ("2h 5h 9h Kh Ks", "one pair", "Kh Ks"),  # a pair before a four-flush
        ("2h 5h 9h Kh As", "four to a flush", "2h 5h 9h Kh"),
        ("8c 9d Th Js 2c", "open-ended four-straight", "8c 9d Th Js"),
        ("Jc Qd Kh As 2c", "an ace", "Kh As"),  # J-Q-K-A is completed by a ten only: not open-ended
        ("As 2d 3c 4h 9s", "an ace", "As 9s"),  # A-2-3-4 likewise (a five only)
        ("2c 5d 7h 9s Jc", "anything else", "Jc"),
    ],
)
def test_five_card_draw_rows(cards: str, holding: str, keeps: str) -> None:
    assert kept("draw5", cards) == (holding, keeps)


@pytest.mark.parametrize(
    ("cards", "holding", "keeps"),
    [
        ("7s 8d 9c Th As", "straight or better", "7s 8d 9c Th As"),  # A-7-8-9-T is the low straight
        ("7s 8d 9c Th Kh", "open-ended four-straight", "7s 8d 9c Th"),  # a J or an A completes it
        ("Jc Qd Kh As 7c", "an ace", "Kh As"),
        ("Kc Qd 9h 8s 7c", "anything else", "Kc"),
    ],
)
def test_32_card_draw_rows(cards: str, holding: str, keeps: str) -> None:
    assert kept("draw32", cards) == (holding, keeps)


@pytest.mark.parametrize(
    ("cards", "holding", "keeps"),
    [
        ("2c 3d 4h 5s 7c", "a made 8-low (five ranks 8 or under, no straight, no flush)", "2c 3d 4h 5s 7c"),
        ("2c 3d 4h 5s 6c", "five ranks 8 or under making a straight or flush", "2c 3d 4h 5s"),
        ("2h 4h 5h 7h 8h", "five ranks 8 or under making a straight or flush", "2h 4h 5h 7h"),
        ("2c 3d 7h 7s Kd", "anything else", "2c 3d 7h"),
        ("2c 2d 9h As Kd", "anything else", "2c"),  # the ace is high in 2-7: never kept
        ("9c Td Jh Qs Kd", "anything else", ""),  # draw five
    ],
)
def test_deuce_to_seven_rows(cards: str, holding: str, keeps: str) -> None:
    assert kept("triple-draw-27", cards) == (holding, keeps)


def test_32_card_draw_never_throws_more_than_four_and_every_policy_is_total() -> None:
    rng = random.Random(5)
    for variant in POLICIES:
        pack = list(get_variant(variant).deck.cards())
        limit = max(get_variant(variant).draws)
        for _ in range(400):
            hand: list[Card] = rng.sample(pack, 5)
            thrown = discards(variant, hand)
            assert len(thrown) <= limit and set(thrown) <= set(hand)
            assert discards(variant, list(reversed(hand))) == tuple(reversed(thrown))  # order does not matter


def test_the_tables_read_as_the_readme_prints_them() -> None:
    assert policy_table("draw5")[0] == ("straight or better", "all five (stand pat)")
    assert [holding for holding, _ in policy_table("draw5")] == [holding for holding, _ in policy_table("draw32")]


def test_bad_input_is_refused_with_a_reason() -> None:
    with pytest.raises(EngineInputError, match="no draw policy"):
        decide("holdem", parse_cards("2c 3c 4c 5c 7d"))
    with pytest.raises(EngineInputError, match="five different cards"):
        decide("draw5", parse_cards("2c 3c 4c 5c"))
