"""The dealer's irregularity procedures: each rule of irregularities.md, card by card."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CardError, deck52, parse_cards
from engine.dealer import Dealer, arrange_deck
from engine.irregularities import IrregularDeal, Irregularity, Kind

HANDS = [parse_cards(h) for h in ("AsKs", "QdQc", "7h6h", "2c2d")]
BOARD = parse_cards("Ah7c2s9d3h")


def fixed(irregularity: Irregularity | None, seed: int = 5) -> IrregularDeal:
    return IrregularDeal(Dealer(arrange_deck(HANDS, BOARD)), irregularity, random.Random(seed))


def steps(deal: IrregularDeal) -> list[tuple[str, str]]:
    return [(str(d.card), d.to) for d in deal.dealer.record]


def play_out(deal: IrregularDeal) -> tuple[tuple[str, ...], list[str]]:
    """Deal the hole cards and all three streets (premature ones where injected); the board as strings."""
    hole = deal.deal_hole(4, 2)
    assert hole.misdeal is None
    board: list[str] = []
    for street, count in enumerate((3, 1, 1)):
        if deal.kind is not None and deal.kind.premature and street == {Kind.PREMATURE_FLOP: 0,
                                                                          Kind.PREMATURE_TURN: 1,
                                                                          Kind.PREMATURE_RIVER: 2}[deal.kind]:
            deal.expose_early(street)
        cards, _ = deal.turn_board(count)
        board += [str(c) for c in cards]
    return tuple(" ".join(map(str, h)) for h in hole.hands), board


def test_no_irregularity_deals_the_usual_way() -> None:
    deal = fixed(None)
    hands, board = play_out(deal)
    assert hands == ("As Ks", "Qd Qc", "7h 6h", "2c 2d")
    assert board == ["Ah", "7c", "2s", "9d", "3h"]
    assert [to for _, to in steps(deal)].count("burn") == 3


@pytest.mark.parametrize("cards", [(0,), (0, 5), (2, 6), (1, 7, 3)])
def test_rule1_first_or_several_exposed_hole_cards_are_a_misdeal(cards: tuple[int, ...]) -> None:
    deal = fixed(Irregularity(Kind.EXPOSED_HOLE_CARDS, cards))
    hole = deal.deal_hole(4, 2)
    assert hole.misdeal is not None and hole.misdeal.startswith("misdeal")
    assert Irregularity(Kind.EXPOSED_HOLE_CARDS, cards).misdeal
    # the deal stops at the card that makes it a misdeal
    second = sorted(cards)[0] if 0 in cards else sorted(cards)[1]
    assert steps(deal)[-1][1] == "misdeal"
    assert len([s for s in steps(deal) if s[1].startswith("seat") and "exposed" not in s[1]]) == second + 1


def test_rule1_one_other_exposed_card_is_replaced_and_becomes_the_burn() -> None:
    deal = fixed(Irregularity(Kind.EXPOSED_HOLE_CARDS, (5,)))  # seat 2's second card, Qc
    hands, board = play_out(deal)
    # the deal went on; after it seat 2 got the top card of the deck in place of Qc
    top = next(c for c in deck52() if c not in {*sum(HANDS, ()), *BOARD})
    assert hands[1] == f"Qd {top}"
    record = steps(deal)
    assert ("Qc", "seat 2 exposed") in record and ("Qc", "burn") in record
    assert record.index(("Qc", "burn")) == 10  # right after the replacement, before any board card
    # the exposed card was the flop's burn: three burns in all, one of them Qc
    assert next(c for c, to in record if to == "burn") == "Qc"
    assert [to for _, to in record].count("burn") == 3
    assert board == ["Ah", "7c", "2s", "9d", "3h"]  # the replacement took the burn's place, so the board is as dealt


def test_rule2_too_many_flop_cards_redeal_the_flop_without_a_burn() -> None:
    deal = fixed(Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=1), seed=11)
    deal.deal_hole(4, 2)
    cards, wrong = deal.turn_board(3)
    order = arrange_deck(HANDS, BOARD)
    assert wrong == tuple(order[9:13]) and [str(c) for c in wrong[:3]] == ["Ah", "7c", "2s"]
    record = steps(deal)
    burns = [c for c, to in record if to == "burn"]
    assert len(burns) == 1  # the burn stays; the new flop has none
    assert [to for _, to in record[-7:-3]] == ["deck"] * 4
    # the new flop is what a reshuffle of the same rest with the same seed gives
    rest = list(wrong) + order[13:]
    rng = random.Random(11)
    rng.shuffle(rest)
    at = rng.randrange(1, len(rest) - 1)
    assert cards == tuple((rest[at:] + rest[:at])[:3])


def test_rule4_premature_turn_is_set_aside_then_reshuffled_for_the_river() -> None:
    deal = fixed(Irregularity(Kind.PREMATURE_TURN), seed=3)
    deal.deal_hole(4, 2)
    _flop, _ = deal.turn_board(3)
    seen = deal.expose_early(1)
    assert [str(c) for c in seen] == ["9d"]
    turn, _ = deal.turn_board(1)
    assert str(turn[0]) == "3h"  # what would have been the river
    record = steps(deal)
    assert ("9d", "set aside") in record
    river, _ = deal.turn_board(1)
    record = steps(deal)
    assert record[-2] == ("9d", "deck") and record[-1][1] == "board"  # shuffled back, river with no burn
    burns = [c for c, to in record if to == "burn"]
    assert len(burns) == 3  # flop, premature turn, real turn; none for the river
    assert str(river[0]) not in burns


@pytest.mark.parametrize("kind,street", [(Kind.PREMATURE_FLOP, 0), (Kind.PREMATURE_RIVER, 2)])
def test_rules3_4_premature_flop_or_river_is_shuffled_back_and_dealt_without_a_burn(kind: Kind, street: int) -> None:
    deal = fixed(Irregularity(kind), seed=8)
    _hands, board = play_out(deal)
    record = steps(deal)
    exposed = [c for c, to in record if to == "exposed"]
    assert len(exposed) == (3 if street == 0 else 1)
    assert all((c, "deck") in record for c in exposed)
    burns = [c for c, to in record if to == "burn"]
    assert len(burns) == 3 and not set(burns) & set(board)


def test_rule5_one_extra_card_is_the_burn_two_are_a_misdeal() -> None:
    deal = fixed(Irregularity(Kind.EXTRA_CARDS, count=1))
    hands, _board = play_out(deal)
    record = steps(deal)
    extra = record[8]
    assert extra[1] == "seat 1 extra" and record[9] == (extra[0], "burn")
    assert hands == ("As Ks", "Qd Qc", "7h 6h", "2c 2d")
    assert next(c for c, to in record if to == "burn") == extra[0]
    two = fixed(Irregularity(Kind.EXTRA_CARDS, count=2))
    assert two.deal_hole(4, 2).misdeal == "misdeal (more than one extra card dealt)"


def test_bad_irregularities_are_refused() -> None:
    with pytest.raises(ValueError, match="distinct positions"):
        Irregularity(Kind.EXPOSED_HOLE_CARDS, ())
    with pytest.raises(ValueError, match="takes no card positions"):
        Irregularity(Kind.PREMATURE_TURN, (1,))
    with pytest.raises(CardError, match=r"positions run 0\.\.7"):
        fixed(Irregularity(Kind.EXPOSED_HOLE_CARDS, (9,))).deal_hole(4, 2)
    with pytest.raises(CardError, match="no premature street"):
        fixed(None).expose_early(1)


irregularities = st.one_of(
    st.none(),
    st.builds(lambda p: Irregularity(Kind.EXPOSED_HOLE_CARDS, (p,)), st.integers(1, 7)),
    st.builds(lambda n: Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=n), st.integers(1, 3)),
    st.sampled_from([Irregularity(k) for k in (Kind.PREMATURE_FLOP, Kind.PREMATURE_TURN, Kind.PREMATURE_RIVER)]),
    st.just(Irregularity(Kind.EXTRA_CARDS)),
)


@settings(max_examples=150, deadline=None)
@given(irregularity=irregularities, deck_seed=st.integers(0, 10**6), rng_seed=st.integers(0, 10**6))
def test_every_corrected_deal_is_a_valid_holdem_deal_that_replays(
    irregularity: Irregularity | None, deck_seed: int, rng_seed: int
) -> None:
    def run() -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
        deal = IrregularDeal(Dealer.shuffled(random.Random(deck_seed)), irregularity, random.Random(rng_seed))
        hands, board = play_out(deal)
        return hands, tuple(board), tuple(steps(deal))

    hands, board, record = run()
    assert run() == (hands, board, record)  # replays from its seeds
    in_play = [c for h in hands for c in h.split()] + list(board)
    assert len(in_play) == 13 == len(set(in_play))
    burns = [c for c, to in record if to == "burn"]
    assert len(burns) == 3 and not set(burns) & set(in_play)  # one burn per street, never a card in play
    visible_early = {c for c, to in record if to == "exposed" or to.endswith(" exposed") or to == "seat 1 extra"}
    hole = {c for h in hands for c in h.split()}
    assert not visible_early & hole  # no card seen before its time stays in a hand
