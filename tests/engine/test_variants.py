"""The variant records against the table in spec/variants.md."""

from __future__ import annotations

import dataclasses
from itertools import pairwise
from typing import Any

import pytest

from engine import InvariantError
from engine.cards import Suit, parse_cards
from engine.rankings import (
    AMERICANA,
    DEUCE_TO_SEVEN,
    DRAW32,
    EIGHT_OR_BETTER,
    HIGH,
    SOKO,
    TELESINA,
    DeckSize,
)
from engine.variants import VARIANTS, Face, ForcedBets, HandForm, UnknownVariantError, get_variant

# name: (deck, max seats, forced bets, hole cards, board cards, draws, betting rounds, hand form, ranking, low)
TABLE = {
    "holdem": (52, 8, ForcedBets.BLINDS, 2, 5, (), 4, HandForm.BEST_FIVE, HIGH, None),
    "omaha": (52, 8, ForcedBets.BLINDS, 4, 5, (), 4, HandForm.OMAHA, HIGH, None),
    "omaha-hilo": (52, 8, ForcedBets.BLINDS, 4, 5, (), 4, HandForm.OMAHA, HIGH, EIGHT_OR_BETTER),
    "soko": (52, 8, ForcedBets.ANTE_BRING_IN, 5, 0, (), 4, HandForm.EXACT_FIVE, SOKO, None),
    "stud7": (52, 8, ForcedBets.ANTE_BRING_IN, 7, 0, (), 5, HandForm.BEST_FIVE, HIGH, None),
    "stud7-hilo": (52, 8, ForcedBets.ANTE_BRING_IN, 7, 0, (), 5, HandForm.BEST_FIVE, HIGH, EIGHT_OR_BETTER),
    "draw5": (52, 6, ForcedBets.BLINDS, 5, 0, (5,), 2, HandForm.EXACT_FIVE, HIGH, None),
    "triple-draw-27": (52, 6, ForcedBets.BLINDS, 5, 0, (5, 5, 5), 4, HandForm.EXACT_FIVE, DEUCE_TO_SEVEN, None),
    "americana": (32, 6, ForcedBets.ANTE_BRING_IN, 5, 0, (), 4, HandForm.EXACT_FIVE, AMERICANA, None),
    "telesina": (32, 6, ForcedBets.ANTE_BRING_IN, 5, 1, (), 5, HandForm.BEST_FIVE, TELESINA, None),
    "draw32": (32, 5, ForcedBets.BLINDS, 5, 0, (4,), 2, HandForm.EXACT_FIVE, DRAW32, None),
}


def test_the_eleven_names() -> None:
    assert list(VARIANTS) == list(TABLE)


@pytest.mark.parametrize("name", list(TABLE))
def test_variant_matches_the_spec_table(name: str) -> None:
    deck, seats, forced, hole, board, draws, rounds, form, ranking, low = TABLE[name]
    v = get_variant(name)
    assert (v.deck, v.max_seats, v.forced_bets) == (DeckSize(deck), seats, forced)
    assert (v.hole_cards, v.board_cards, v.draws, v.betting_rounds) == (hole, board, draws, rounds)
    assert (v.hand_form, v.ranking, v.low) == (form, ranking, low)
    assert v.is_hilo == (low is not None)
    assert v.has_draws == bool(draws)
    v._check()


def test_street_by_street_deals() -> None:
    stud = get_variant("stud7")
    assert [s.name for s in stud.streets] == [
        "third street", "fourth street", "fifth street", "sixth street", "seventh street",
    ]  # fmt: skip
    assert [(s.count(Face.DOWN), s.count(Face.UP)) for s in stud.streets] == [(2, 1), (0, 1), (0, 1), (0, 1), (1, 0)]
    holdem = get_variant("holdem")
    assert [s.count(Face.BOARD) for s in holdem.streets] == [0, 3, 1, 1]  # the flop is three cards
    telesina = get_variant("telesina")
    assert telesina.streets[-1].name == "vela" and telesina.streets[-1].count(Face.BOARD) == 1
    soko = get_variant("soko")
    assert [(s.count(Face.DOWN), s.count(Face.UP)) for s in soko.streets] == [(1, 1), (0, 1), (0, 1), (0, 1)]


def test_between_streets_runs_from_no_cards_to_the_showdown() -> None:
    assert get_variant("holdem").between_streets == ((0, 0), (2, 0), (2, 3), (2, 4), (2, 5))
    assert get_variant("stud7").between_streets == ((0, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0))
    assert get_variant("triple-draw-27").between_streets == ((0, 0), (5, 0))  # a draw changes cards, not how many
    for game in VARIANTS.values():
        states = game.between_streets
        assert states[0] == (0, 0) and states[-1] == (game.hole_cards, game.board_cards), game.name
        assert all(a < b for a, b in pairwise(states)), game.name


def test_bring_in_rules() -> None:
    shdc = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
    for name in ("soko", "stud7", "stud7-hilo"):
        bring_in = get_variant(name).bring_in
        assert bring_in is not None and bring_in.lowest and bring_in.suit_order == shdc
    americana = get_variant("americana").bring_in
    assert americana is not None and not americana.lowest and americana.suit_order == shdc
    telesina = get_variant("telesina").bring_in
    assert telesina is not None and not telesina.lowest
    assert telesina.suit_order == (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES)
    assert get_variant("holdem").bring_in is None


def test_stud7_may_share_a_last_card() -> None:
    assert get_variant("stud7").shared_last_card and get_variant("stud7-hilo").shared_last_card
    assert not get_variant("soko").shared_last_card


def test_variants_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_variant("holdem").max_seats = 9  # type: ignore[misc]  # writes a frozen field, on purpose


def test_unknown_variant_lists_the_valid_names() -> None:
    with pytest.raises(UnknownVariantError) as err:
        get_variant("razz")
    message = str(err.value)
    assert "'razz'" in message
    for name in TABLE:
        assert name in message


def test_get_variant_passes_a_variant_through() -> None:
    v = get_variant("soko")
    assert get_variant(v) is v


# ------------------------------------------------------------------ bring-in (spec: "Bring-in")


@pytest.mark.parametrize("name", ["soko", "stud7", "stud7-hilo"])
def test_lowest_up_card_brings_in_with_spades_over_hearts_over_diamonds_over_clubs(name: str) -> None:
    bring_in = get_variant(name).bring_in
    assert bring_in is not None
    assert bring_in.seat(parse_cards("5h 3d 9c")) == 1
    assert bring_in.seat(parse_cards("2s 2h 2d 2c")) == 3  # the 2 of clubs is the lowest card
    assert bring_in.seat(parse_cards("2s 2h 2d")) == 2
    assert bring_in.seat(parse_cards("As Kd")) == 1  # the ace is high


def test_americana_highest_up_card_brings_in_spades_first() -> None:
    bring_in = get_variant("americana").bring_in
    assert bring_in is not None
    assert bring_in.seat(parse_cards("Ah As Kd")) == 1
    assert bring_in.seat(parse_cards("7c 9d 8s")) == 1


def test_telesina_highest_up_card_brings_in_hearts_first() -> None:
    bring_in = get_variant("telesina").bring_in
    assert bring_in is not None
    assert bring_in.seat(parse_cards("As Ah Ad Ac")) == 1
    assert bring_in.seat(parse_cards("As Ad Ac")) == 1
    assert bring_in.seat(parse_cards("As Ac")) == 1  # clubs over spades


def test_bring_in_needs_up_cards() -> None:
    bring_in = get_variant("soko").bring_in
    assert bring_in is not None
    with pytest.raises(ValueError, match="at least one"):
        bring_in.seat(())


# ------------------------------------------------------------------ _check catches corruption


@pytest.mark.parametrize(
    ("name", "change", "match"),
    [
        ("holdem", {"deck": DeckSize.SHORT}, "holdem: a 32-card pack, a ranking for 52 cards"),
        ("omaha-hilo", {"low": TELESINA}, "omaha-hilo: a 52-card pack, a low ranking for 32 cards"),
        ("stud7", {"hand_form": HandForm.EXACT_FIVE}, "stud7: an exact-five hand needs 5 own cards and no board"),
        ("soko", {"hand_form": HandForm.OMAHA}, "soko: an Omaha hand needs 2\\+ hole and 3\\+ board cards, not 5, 0"),
        ("holdem", {"streets": get_variant("holdem").streets[:1]}, "holdem: a best-five hand from 2 hole and 0 board"),
        ("holdem", {"max_seats": 24}, "holdem: 24 seats deal 53 cards from a 52-card pack"),
        ("stud7", {"bring_in": None}, "stud7: no bring-in rule with forced bets 'ante and bring-in'"),
        ("holdem", {"bring_in": get_variant("stud7").bring_in}, "holdem: a bring-in rule with forced bets 'small"),
    ],
    ids=["deck", "low-deck", "exact-five", "omaha", "best-five", "seats", "no-bring-in", "stray-bring-in"],
)
def test_a_corrupted_variant_is_caught(name: str, change: dict[str, Any], match: str) -> None:
    corrupted = dataclasses.replace(get_variant(name), **change)
    with pytest.raises(InvariantError, match=match):
        corrupted._check()
