from __future__ import annotations

import random

import pytest

from engine.cards import CardError, deck32, deck52, parse_cards
from engine.dealer import BOARD, BURN, Dealer, DeckExhausted, arrange_deck


def deal_holdem(dealer: Dealer) -> tuple[list[tuple], tuple]:
    holes = dealer.deal_hole(seats=4, per_seat=2)
    board = dealer.deal_board(3) + dealer.deal_board(1) + dealer.deal_board(1)
    return holes, board


def test_same_seed_same_deal_and_different_seed_differs() -> None:
    a = Dealer.shuffled(random.Random(42))
    b = Dealer.shuffled(random.Random(42))
    c = Dealer.shuffled(random.Random(43))
    assert deal_holdem(a) == deal_holdem(b)
    assert a.record == b.record
    assert deal_holdem(c) != deal_holdem(Dealer.shuffled(random.Random(42)))


def test_holdem_procedure_round_robin_and_burns() -> None:
    order = list(deck52())
    dealer = Dealer(order)
    holes, board = deal_holdem(dealer)
    # One card at a time round the table: seat 1 gets cards 0 and 4.
    assert holes[0] == (order[0], order[4])
    assert holes[3] == (order[3], order[7])
    targets = [r.to for r in dealer.record]
    assert targets[8:] == [BURN, BOARD, BOARD, BOARD, BURN, BOARD, BURN, BOARD]
    assert board == (order[9], order[10], order[11], order[13], order[15])
    assert len(dealer.remaining) == 52 - 16


def test_omaha_deals_sixteen_hole_cards() -> None:
    dealer = Dealer.shuffled(random.Random(1))
    holes = dealer.deal_hole(seats=4, per_seat=4)
    assert all(len(h) == 4 for h in holes)
    assert len({c for h in holes for c in h}) == 16


def test_arrange_deck_round_trips_a_known_deal() -> None:
    hands = [parse_cards(h) for h in ("AsKs", "QdQc", "7h6h", "2c2d")]
    board = parse_cards("Ah7c2s9d3h")
    holes, dealt_board = deal_holdem(Dealer(arrange_deck(hands, board)))
    assert holes == hands
    assert dealt_board == board


def test_arrange_deck_rejects_duplicates() -> None:
    with pytest.raises(CardError, match="more than once"):
        arrange_deck([parse_cards("AsKs"), parse_cards("AsQc")])


def test_shuffle_keeps_the_deck_and_cut_moves_it() -> None:
    dealer = Dealer.shuffled(random.Random(5), deck32())
    assert sorted(dealer.remaining) == list(deck32())
    uncut = Dealer.shuffled(random.Random(5), deck32(), cut=False)
    assert dealer.remaining != uncut.remaining


def test_empty_deck_raises() -> None:
    dealer = Dealer(parse_cards("AsKs"))
    dealer.deal_hole(seats=2, per_seat=1)
    with pytest.raises(DeckExhausted, match="empty"):
        dealer.burn()


def test_a_draw_with_the_deck_already_empty_is_dealt_from_the_discards_without_a_burn() -> None:
    # Nothing left to burn: the round's discards are shuffled and dealt, no seat getting its own back
    # (the draw equity prices a draw this way).
    dealer = Dealer(parse_cards("2c 3c"))
    dealer.deal_hole(seats=2, per_seat=1)
    thrown = [parse_cards("As Ks"), parse_cards("Qs Js")]
    got = dealer.replace(thrown)
    assert sorted(got[0]) == sorted(thrown[1]) and sorted(got[1]) == sorted(thrown[0])
    assert BURN not in [r.to for r in dealer.record]


def test_when_the_rounds_discards_cannot_serve_a_seat_the_earlier_discards_are_shuffled_in() -> None:
    dealer = Dealer(parse_cards("2c 3c 4c"))
    assert dealer.replace([parse_cards("As"), parse_cards("Ks")]) == [parse_cards("3c"), parse_cards("4c")]
    # The deck is out. Seat 1 takes Qs or Js; then the round's pile holds 3c and the other of seat 2's own cards, so
    # seat 2 gets 3c and one of the first draw's discards.
    first, second = dealer.replace([parse_cards("3c"), parse_cards("Qs Js")])
    assert len(first) == 1 and first[0] in parse_cards("Qs Js")
    assert len(second) == 2 and parse_cards("3c")[0] in second and set(second) & set(parse_cards("As Ks"))
