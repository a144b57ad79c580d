"""engine.cards: ids, both notations, errors, the two packs and seeded shuffling."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import (
    Card,
    CardError,
    Rank,
    Suit,
    check_distinct,
    deck32,
    deck52,
    format_cards,
    parse_cards,
    shuffled,
    to_card,
)


def test_ids_follow_rank_then_suit() -> None:
    assert Card.parse("2c").id == 0
    assert Card.parse("2s").id == 3
    assert Card.parse("3c").id == 4
    assert Card.parse("Td").id == 4 * (10 - 2) + 1 == 33
    assert Card.parse("As").id == 51
    assert Card.of(Rank.ACE, Suit.SPADES) == Card(51)
    assert Card.of(12, 2) == Card.parse("Qh")


@given(st.integers(0, 51))
def test_id_round_trips_through_text(card_id: int) -> None:
    card = Card(card_id)
    assert Card.parse(str(card)) == card
    assert card.id == 4 * (card.rank - 2) + card.suit
    assert str(card) == card.rank.char + card.suit.char
    assert repr(card) == f"Card('{card}')"


def test_rank_and_suit_are_the_enum_members_of_every_card() -> None:
    for card_id in range(52):
        card = Card(card_id)
        assert card.rank is Rank(card_id // 4 + 2) and type(card.rank) is Rank
        assert card.suit is Suit(card_id % 4) and type(card.suit) is Suit
    assert Card.parse("Td").rank is Rank.TEN and Card.parse("Td").suit is Suit.DIAMONDS


def test_parse_both_notations_and_separators() -> None:
    expected = (Card.parse("As"), Card.parse("Kd"), Card.parse("7c"))
    assert parse_cards("As Kd 7c") == expected
    assert parse_cards("AsKd7c") == expected
    assert parse_cards("As,Kd,7c") == expected
    assert parse_cards(" as  kD\t7C ") == expected  # rank and suit case-insensitive
    assert parse_cards(["As", Card(45), 20]) == expected
    assert parse_cards("") == ()
    assert format_cards(expected) == "As Kd 7c"
    assert format_cards(()) == ""


def test_cards_order_by_rank_then_suit() -> None:
    assert sorted(parse_cards("As 2c Ah Kd 2s")) == list(parse_cards("2c 2s Kd Ah As"))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Xs", "unknown rank 'X'"),
        ("Ax", "unknown suit 'x'"),
        ("A", "not a card"),
        ("10s", "not a card"),
    ],
)
def test_bad_card_text_names_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(CardError, match=fragment):
        Card.parse(text)


@pytest.mark.parametrize("text", ["10s", "10s 10d", "As 10d", "10s Kd Qh", "Ts,10h"])
def test_a_ten_written_10_is_told_to_be_t(text: str) -> None:
    with pytest.raises(CardError, match="a ten is written T"):
        parse_cards(text)


def test_bad_card_lists_and_values() -> None:
    with pytest.raises(CardError, match="each card is two characters"):
        parse_cards("AsK")
    with pytest.raises(CardError, match="out of range"):
        Card(52)
    with pytest.raises(CardError, match="out of range"):
        Card(-1)
    with pytest.raises(CardError, match="not a card"):
        to_card(1.5)  # type: ignore[arg-type]  # a float, on purpose
    with pytest.raises(CardError, match="not a card"):
        to_card(True)
    assert issubclass(CardError, ValueError)


# bytes were read byte by byte as card ids: b"AsKs" was "card id 65 is out of range"
@pytest.mark.parametrize("value", [None, 5, 1.5, b"AsKs", bytearray(b"AsKs")], ids=["none", "int", "float", "bytes",
                                                                                 "bytearray"])
def test_a_value_that_is_not_a_list_of_cards_is_refused_saying_what_is(value: object) -> None:
    with pytest.raises(CardError, match=rf"^{re.escape(repr(value))} is not a list of cards; give a string such as "
                                        "'As Kd' or a list"):
        parse_cards(value)  # type: ignore[arg-type]  # not cards, on purpose


def test_a_card_error_is_an_engine_input_error() -> None:
    """One ``except EngineInputError`` catches every refusal of input, bad cards too; ``except CardError`` still
    catches them alone."""
    from engine import EngineInputError

    assert issubclass(CardError, EngineInputError) and issubclass(CardError, ValueError)
    with pytest.raises(EngineInputError, match="card As appears more than once"):
        check_distinct(parse_cards("As Kd"), parse_cards("As"))


def test_the_errors_module_stands_alone() -> None:
    """``engine._errors`` imports nothing of the engine (``engine.cards`` imports it): run as a file on its own."""
    import runpy
    from pathlib import Path

    errors = runpy.run_path(str(Path(__file__).resolve().parents[2] / "engine" / "_errors.py"))
    assert issubclass(errors["EngineInputError"], ValueError)


def test_check_distinct_names_the_repeated_card() -> None:
    check_distinct(parse_cards("As Kd"), parse_cards("Qc"))
    with pytest.raises(CardError, match="card Kd appears more than once"):
        check_distinct(parse_cards("As Kd"), parse_cards("Qc Kd"))


def test_packs() -> None:
    full = deck52()
    assert len(full) == 52 == len(set(full))
    assert [c.id for c in full] == list(range(52))
    short = deck32()
    assert len(short) == 32 == len(set(short))
    assert {c.rank for c in short} == set(Rank) - {Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX}
    assert all(sum(1 for c in short if c.suit == suit) == 8 for suit in Suit)


def test_shuffling_depends_only_on_the_rng_passed() -> None:
    pack = deck52()
    first = shuffled(pack, random.Random(2024))
    second = shuffled(pack, random.Random(2024))
    other = shuffled(pack, random.Random(2025))
    assert first == second
    assert first != other
    assert sorted(first) == list(pack)
    assert pack == deck52()  # the input is not touched
    random.seed(0)
    third = shuffled(pack, random.Random(2024))
    random.seed(1)
    assert third == first  # global random state plays no part
