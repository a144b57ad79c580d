"""Hand-made hands from the rule texts (``variants.md``), above all for the five games pokerkit
does not play: who brings in, Telesina's vela, Soko's four-flush, the 32-Card Draw split,
7-Card Stud's shared last card; and the draw timer, the discard reshuffle, the raise cap,
the open-pair double limit, side pots and the odd chip."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.cards import Card, parse_cards
from engine.table import IllegalActionError, Phase, Stakes, Structure, TableError, TableState
from engine.table import actions as A
from engine.variants import Face, get_variant


def stacked(variant: str, hands: list[str], board: str = "", then: str = "") -> list[Card]:
    """A deck order from which the table deals each seat ``hands[i]`` (in dealing order) and
    the board ``board``, with ``then`` next (draw replacements); burns and the rest from the
    unnamed cards."""
    game = get_variant(variant)
    seats = [list(parse_cards(h)) for h in hands]
    shared = list(parse_cards(board))
    named = {c for h in seats for c in h} | set(shared) | set(parse_cards(then))
    spare = [c for c in game.deck.cards() if c not in named]
    order: list[Card] = []
    for street in game.streets:
        for deal in street.deals:
            if deal.face is Face.DRAW:
                return order + list(parse_cards(then)) + spare
            if deal.face is Face.BOARD:
                order.append(spare.pop(0))
                order.extend(shared.pop(0) if shared else spare.pop(0) for _ in range(deal.count))
                continue
            for _ in range(deal.count):
                order.extend(h.pop(0) if h else spare.pop(0) for h in seats)
    return order + spare


def awards(state: TableState) -> dict[int, int]:
    out: dict[int, int] = {}
    for record in state.log:
        if isinstance(record, A.Award):
            assert record.seat is not None
            out[record.seat] = out.get(record.seat, 0) + record.amount
    return out


def call_down(state: TableState) -> None:
    """Every seat posts the bring-in if due, then checks or calls to the end; draws stand pat."""
    while not state.done:
        if state.phase is Phase.DRAWING:
            state.draw(())
        elif state.can_post_bring_in():
            state.post_bring_in()
        else:
            state.check_call()
        state._check()


# ------------------------------------------------------------------ the bring-in


def test_stud_lowest_up_card_brings_in_clubs_lowest() -> None:
    deck = stacked("stud7", ["AsKs2s", "AhKh2c", "AdKdQd"])
    state = TableState.start("stud7", [100] * 3, deck=deck)
    assert state.actor == 1 and state.can_post_bring_in() and not state.can_fold()
    with pytest.raises(IllegalActionError, match="must post the bring-in"):
        state.check_call()
    assert state.raise_sizes() == (4,)  # or complete to the small bet
    state.bet_raise(4)
    assert state.actor == 2 and state.to_call() == 4 and state.raise_sizes() == (8,)


@pytest.mark.parametrize(
    ("variant", "ups", "seat"),
    [
        ("americana", ["As", "Ah", "Kd"], 0),  # highest up card, spades over hearts
        ("telesina", ["As", "Ah", "Kd"], 1),  # highest up card, hearts over every suit
        ("soko", ["3s", "3c", "Kd"], 1),  # lowest up card, clubs lowest
    ],
)
def test_bring_in_seat_by_game(variant: str, ups: list[str], seat: int) -> None:
    downs = ["8c", "9c", "Tc"]
    deck = stacked(variant, [d + u for d, u in zip(downs, ups, strict=True)])
    state = TableState.start(variant, [100] * 3, deck=deck)
    assert state.actor == seat and state.can_post_bring_in()
    record = state.post_bring_in()
    assert record == A.PostBringIn(seat, 2) and state.to_call() == 2


def test_stud_later_rounds_best_up_hand_acts_first() -> None:
    deck = stacked("stud7", ["AsKs2c7d", "AhKh9c9d", "AdQdTcJh"])
    state = TableState.start("stud7", [100] * 3, deck=deck)
    state.post_bring_in()  # seat 0 (2c)
    state.check_call()
    state.check_call()
    assert state.street == 1 and state.actor == 1  # the open pair of nines


@pytest.mark.parametrize(
    ("hands", "first"),
    [
        (["7cAs8s", "7dAh8h"], 1),  # A-8 high both: the ace of hearts over the ace of spades
        (["7cAh8s", "7dAsKs"], 0),  # card by card: A♥ beats A♠ before the king is looked at
        (["7cKh8s", "7dAsTh"], 1),  # the rank first: the ace of spades over the king of hearts
        (["7c8s8h", "7d8d8c"], 0),  # equal pairs with no kicker: a tie, to the seat nearer the button's left
    ],
)
def test_telesina_later_rounds_best_up_hand_by_ranking_t_acts_first(hands: list[str], first: int) -> None:
    """Telesina's up cards are compared by its ranking T, which breaks ties by suit (hearts > diamonds > clubs >
    spades): high cards card by card, rank then suit."""
    state = TableState.start("telesina", [100, 100], deck=stacked("telesina", hands))
    state.post_bring_in()
    state.check_call()
    assert state.street == 1 and state.actor == first


def test_telesina_pair_ties_go_to_the_suit_of_the_highest_kicker() -> None:
    """Equal pairs with equal kickers: the suit of the highest kicker decides (ranking T)."""
    deck = stacked("telesina", ["7c9h9sKs", "7d9d9cKh"])
    state = TableState.start("telesina", [100, 100], deck=deck)
    state.post_bring_in()
    state.check_call()
    state.check_call()
    state.check_call()
    assert state.street == 2 and state.actor == 1  # 9-9-K♥ over 9-9-K♠


def test_telesina_equal_two_pairs_go_to_the_suit_of_the_top_pairs_highest_card() -> None:
    """Four up cards making equal two pairs: no kicker shows, so the top pair's suit decides (ranking T)."""
    deck = stacked("telesina", ["7cKcKs8c8s", "7dKhKd8h8d"])
    state = TableState.start("telesina", [100, 100], deck=deck)
    state.post_bring_in()
    for _ in range(5):
        state.check_call()
    assert state.street == 3 and state.actor == 1  # K♥ K♦ 8♥ 8♦ over K♣ K♠ 8♣ 8♠


def test_open_pair_on_fourth_street_allows_the_big_bet() -> None:
    deck = stacked("stud7", ["AsKs2c7d", "AhKh9c9d", "AdQdTcJh"])
    state = TableState.start("stud7", [100] * 3, deck=deck)
    state.post_bring_in()
    state.check_call()
    state.check_call()
    assert state.raise_sizes() == (4, 8)
    state.bet_raise(8)
    assert state.raise_sizes() == (16,)  # after the big bet, raises are big
    with pytest.raises(IllegalActionError, match="may bet or raise to 16, not 12"):
        state.bet_raise(12)


def test_shared_seventh_card_when_the_pack_runs_short() -> None:
    state = TableState.start("stud7", [200] * 8, seed=11)
    call_down(state)
    board = [r for r in state.log if isinstance(r, A.Deal) and r.seat is None]
    assert len(board) == 1 and len(state.board) == 1  # 8 x 6 = 48 cards dealt; 4 left for 8 seats
    last_bets = [r for r in state.log[state.log.index(board[0]) :] if isinstance(r, A.CheckCall | A.BetRaise)]
    assert last_bets == []  # no betting on the shared card
    assert all(len(cards) == 6 for cards in state.cards)
    assert sum(state.stacks) == 1600


# ------------------------------------------------------------------ Telesina, Soko


def test_telesina_vela_plays_for_both() -> None:
    # seat 0: Ah Kh Qh Jh 7c, seat 1: 9s 9d 8c 8d 7d; the vela Th makes seat 0 a straight flush
    deck = stacked("telesina", ["Ah7cKhQhJh", "9s9d8c8d7d"], board="Th")
    state = TableState.start("telesina", [50, 50], deck=deck)
    call_down(state)
    assert state.board == list(parse_cards("Th"))
    assert awards(state) == {0: sum(state.contributed)}
    assert state.stacks == [50 + state.contributed[1], 50 - state.contributed[1]]


def test_soko_four_flush_beats_a_pair() -> None:
    deck = stacked("soko", ["2h9hJhQh3c", "AsAd5c6d8s"])
    state = TableState.start("soko", [50, 50], deck=deck)
    call_down(state)
    assert awards(state) == {0: sum(state.contributed)}


# ------------------------------------------------------------------ 32-Card Draw split


def _draw32_to_split(seats: int) -> TableState:
    state = TableState.start("draw32", [40] * seats, seed=4)
    while state.street == 0 or state.phase is Phase.DRAWING:
        if state.phase is Phase.DRAWING:
            state.draw(())
        else:
            state.check_call()
    return state


def test_draw32_split_accepted_divides_the_pot() -> None:
    state = _draw32_to_split(3)
    first = state.actor
    assert first == 0 and state.can_offer_split()
    pot = state.pot  # 3 x 2 = 6
    state.offer_split()
    assert state.phase is Phase.SPLIT and state.actor == 1 and not state.can_check_call()
    state.answer_split(True)
    state.answer_split(True)
    assert state.done and awards(state) == {0: 2, 1: 2, 2: 2} and pot == 6
    assert [type(r) for r in state.log[-5:-3]] == [A.AnswerSplit, A.AnswerSplit]


def test_draw32_split_odd_chip_to_closest_seat_and_refusal_ends_the_offer() -> None:
    state = _draw32_to_split(2)  # heads-up: seat 0 (big blind) acts first after the draw
    assert state.actor == 0
    state.offer_split()
    state.answer_split(False)
    assert state.phase is Phase.BETTING and state.actor == 0 and not state.can_offer_split()
    state.bet_raise()
    with pytest.raises(IllegalActionError, match="offered only by the first seat"):
        state.offer_split()


def test_split_offer_only_in_draw32_and_only_first() -> None:
    state = _draw32_to_split(3)
    state.check_call()
    assert not state.can_offer_split()
    holdem = TableState.start("holdem", [50, 50], seed=1)
    with pytest.raises(IllegalActionError, match="Texas Hold'em has no split offer: only 32-Card Draw has one"):
        holdem.offer_split()


# ------------------------------------------------------------------ draws: timer, reshuffle


def test_draw_time_out_stands_pat_and_bars_betting_next_round() -> None:
    state = TableState.start("draw5", [50, 50, 50], seed=2)
    while state.phase is not Phase.DRAWING:
        state.check_call()
    assert state.actor == 0
    cards_before = list(state.cards[0])
    passed = state.pass_time(12.5)
    assert passed == A.TimePassed(0, 12.5, 17.5)
    timed_out = state.pass_time(17.5)
    assert timed_out == A.Draw(0, (), timed_out=True) and state.cards[0] == cards_before
    state.draw(state.cards[1][:2])
    state.draw(())
    assert state.phase is Phase.BETTING and state.actor == 0
    assert state.raise_sizes() == () and state.can_check_call()
    with pytest.raises(IllegalActionError, match="draw time ran out"):
        state.bet_raise()
    state.check_call()
    assert state.raise_sizes() == (4,)  # seat 1 may bet (the big bet after the draw)
    with pytest.raises(IllegalActionError, match="draw time runs only"):
        state.pass_time(1)


def test_discards_reshuffled_never_to_their_owner() -> None:
    state = TableState.start("draw5", [50] * 6, seed=9)  # 30 dealt, 22 left
    while state.phase is not Phase.DRAWING:
        state.check_call()
    discarded: dict[int, set[Card]] = {}
    while state.phase is Phase.DRAWING:
        seat = state.actor
        assert seat is not None
        discarded[seat] = set(state.cards[seat])
        state.draw(state.cards[seat])
        state._check()
    assert any(isinstance(r, A.Reshuffle) for r in state.log)
    for seat, cards in discarded.items():
        assert not cards & set(state.cards[seat]) and len(state.cards[seat]) == 5


def test_draw_refuses_foreign_and_too_many_cards() -> None:
    fresh = TableState.start("draw32", [40, 40], seed=4)
    while fresh.phase is not Phase.DRAWING:
        fresh.check_call()
    seat = fresh.actor
    assert seat is not None
    with pytest.raises(IllegalActionError, match="at most 4"):
        fresh.draw(fresh.cards[seat])
    other = fresh.cards[1 - seat][0]
    with pytest.raises(IllegalActionError, match=f"does not hold {other}"):
        fresh.draw([other])
    with pytest.raises(IllegalActionError, match="twice"):
        fresh.draw([fresh.cards[seat][0]] * 2)
    for nothing in (None, 3):  # a bot's Decision(Move.DRAW, discards=None): refused, not a TypeError
        with pytest.raises(IllegalActionError, match=f"seat {seat} names no card: discards are cards or their names"):
            fresh.draw(nothing)  # type: ignore[arg-type]  # no cards, on purpose
        assert not fresh.can_draw(nothing)  # type: ignore[arg-type]  # no cards, on purpose


def test_discards_may_be_written_as_text() -> None:
    state = TableState.start("draw5", [40, 40], seed=4)
    while state.phase is not Phase.DRAWING:
        state.check_call()
    held = [str(card) for card in state.cards[0][:2]]
    assert state.can_draw(held)
    record = state.draw(held)  # a bot may name its discards as text, as in "As"
    assert record.discards == tuple(parse_cards(" ".join(held)))
    with pytest.raises(IllegalActionError, match="seat 1 names no card: 'Zz' has an unknown rank"):
        state.draw(["Zz"])


def test_time_that_is_no_number_is_refused_not_crashed_on() -> None:
    state = TableState.start("draw5", [40, 40], seed=4)
    while state.phase is not Phase.DRAWING:
        state.check_call()
    for seconds in ("3", None, True):
        assert not state.can_pass_time(seconds)  # type: ignore[arg-type]  # no numbers, on purpose
        with pytest.raises(IllegalActionError, match=f"time passes in seconds, a number, not {seconds!r}"):
            state.pass_time(seconds)  # type: ignore[arg-type]  # no numbers, on purpose
    assert state.pass_time(1) == A.TimePassed(0, 1, 29.0)


@pytest.mark.parametrize("seconds", [0, -5, float("nan"), "30"])
def test_a_draw_time_that_is_no_positive_number_is_refused(seconds: object) -> None:
    with pytest.raises(TableError, match=f"the draw time is a positive number of seconds, not {seconds!r}"):
        TableState.start("draw5", [40, 40], seed=4, draw_seconds=seconds)  # type: ignore[arg-type]  # bad times, on purpose


# ------------------------------------------------------------------ betting limits, pots


def test_fixed_limit_cap_a_bet_and_three_raises() -> None:
    """Before the flop the big blind is the bet (the blinds are live bets): three raises, to 8 at 1/2, cap it; it
    took a fourth, to 10. After the flop a bet and three raises, at the small bet."""
    state = TableState.start("holdem", [100] * 3, seed=1)
    for to in (4, 6, 8):
        state.bet_raise(to)
    assert state.raise_sizes() == () and state.can_check_call()
    with pytest.raises(IllegalActionError, match="a bet and three raises"):
        state.bet_raise(10)
    state.check_call()
    state.check_call()  # the flop
    for to in (2, 4, 6, 8):
        state.bet_raise(to)
    with pytest.raises(IllegalActionError, match="a bet and three raises"):
        state.bet_raise(10)


def test_pot_limit_and_no_limit_sizes() -> None:
    pl = TableState.start("omaha", [100] * 3, seed=1, structure=Structure.POT_LIMIT)
    assert pl.actor == 2 and pl.raise_sizes() == (4, 7)  # call 2, pot then 5: raise to 2 + 5
    no = TableState.start("holdem", [100] * 3, seed=1, structure=Structure.NO_LIMIT)
    assert no.raise_sizes() == (4, 100)
    with pytest.raises(IllegalActionError, match="4 up to 100"):
        no.bet_raise(3)


def test_a_whole_number_of_any_integer_type_is_a_bet() -> None:
    numpy = pytest.importorskip("numpy")
    state = TableState.start("holdem", [100] * 3, seed=1, structure=Structure.NO_LIMIT)
    assert state.can_bet_raise(numpy.int64(8))
    assert state.bet_raise(numpy.int64(8)) == A.BetRaise(2, 8) and type(state.bets[2]) is int
    for bad in (8.0, True, "8"):
        with pytest.raises(IllegalActionError, match=f"a bet is a whole number of chips, not {bad!r}"):
            state.bet_raise(bad)  # type: ignore[arg-type]  # no whole numbers, on purpose


def test_stacks_of_any_integer_type_are_stacks() -> None:
    numpy = pytest.importorskip("numpy")
    state = TableState.start("holdem", numpy.full(3, 100), seed=1)
    assert state.starting == (100, 100, 100) and all(type(s) is int for s in state.stacks)
    with pytest.raises(TableError, match="whole, positive stack"):
        TableState.start("holdem", numpy.array([100.0, 100.0]), seed=1)


def test_stakes_and_a_seed_of_any_integer_type_are_taken() -> None:
    numpy = pytest.importorskip("numpy")
    stakes = Stakes(small_blind=numpy.int64(1), big_blind=numpy.int32(2), small_bet=numpy.int64(2),
                    big_bet=numpy.int64(4))
    assert stakes == Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
    assert all(type(amount) is int for amount in vars(stakes).values())
    state = TableState.start("holdem", [100, 100], stakes=stakes, seed=numpy.int64(7))
    assert sorted(state.bets) == [1, 2] and state.cards == TableState.start("holdem", [100, 100], seed=7).cards
    for bad in (1.0, True, "1"):
        with pytest.raises(TableError, match="stakes must be whole non-negative chip counts"):
            TableState.start("holdem", [100, 100], stakes=Stakes(small_blind=bad, big_blind=2))  # type: ignore[arg-type]  # no whole blind, on purpose


def test_side_pots_and_odd_chip() -> None:
    # every live seat plays the board's straight; seat 0 folds its small blind
    deck = stacked("holdem", ["2c3c", "2d3d", "2h3h", "2s3s"], board="TsJsQdKhAc")
    state = TableState.start("holdem", [50, 10, 40, 21], deck=deck, structure=Structure.NO_LIMIT)
    state.bet_raise(40)  # seat 2 all in
    state.check_call()  # seat 3 all in for 21
    state.fold()  # seat 0, the small blind
    state.check_call()  # seat 1 all in for 10
    assert state.done
    # main pot 31 (the folded blind in it) three ways, the odd chip to seat 1, closest to the
    # button's left; side pot 22 two ways; 19 uncalled, returned to seat 2
    assert [(a.seat, a.amount, a.pot, a.half) for a in state.log if isinstance(a, A.Award)] == [
        (1, 11, 0, "high"),
        (2, 10, 0, "high"),
        (3, 10, 0, "high"),
        (2, 11, 1, "high"),
        (3, 11, 1, "high"),
        (2, 19, 2, "returned"),
    ]
    assert state.stacks == [49, 11, 40, 21]


def test_a_seat_whose_bet_covers_everyone_is_not_asked_to_act() -> None:
    # the small blind is all in for 1, seat 2 holds just the big blind: the big blind can
    # neither lose more nor be raised, so once seat 2 calls all in the board runs out
    state = TableState.start("holdem", [1, 8, 2], seed=31)
    assert state.actor == 2
    state.check_call()
    assert state.done and state.actor is None
    assert not [r for r in state.log if isinstance(r, A.CheckCall) and r.seat == 1]
    assert sum(state.stacks) == 11


def test_odd_chip_goes_to_high_half_in_hilo() -> None:
    # seat 0 (all in with its small blind) wins the high of the main pot, seat 1 its low and
    # all of the side pot; seat 2 makes neither
    deck = stacked("omaha-hilo", ["KsKdKh9c", "2s3dQcQh", "JcJd4s4c"], board="KcAh5h7s8d")
    state = TableState.start("omaha-hilo", [1, 3, 3], deck=deck)
    call_down(state)
    assert [(a.seat, a.amount, a.pot, a.half) for a in state.log if isinstance(a, A.Award)] == [
        (0, 2, 0, "high"),
        (1, 1, 0, "low"),
        (1, 1, 1, "high"),
        (1, 1, 1, "low"),
    ]
    assert state.stacks == [2, 4, 1]


def test_refusals_say_why() -> None:
    state = TableState.start("holdem", [100, 100], seed=3)
    with pytest.raises(IllegalActionError, match="no bring-in to post"):
        state.post_bring_in()
    with pytest.raises(IllegalActionError, match="no draw now"):
        state.draw(())
    state.check_call()
    with pytest.raises(IllegalActionError, match="nothing to call"):
        state.fold()
    state.check_call()
    while not state.done:
        state.check_call()
    with pytest.raises(IllegalActionError, match="nobody may check or call"):
        state.check_call()
    with pytest.raises(TableError, match="seats 2 to 8"):
        TableState.start("holdem", [100])
    with pytest.raises(TableError, match="positive stack"):
        TableState.start("holdem", [100, 0])
    with pytest.raises(TableError, match="bring-in < small bet"):
        TableState.start("stud7", [100, 100], stakes=Stakes(ante=1, bring_in=4, small_bet=4, big_bet=8))


def test_refusals_in_a_draw_or_a_split_offer_say_what_the_hand_waits_for() -> None:
    state = TableState.start("draw5", [50, 50, 50], seed=2)
    betting = r"seat 2 is to bet \(fold, check or call, bet or raise\)"
    with pytest.raises(IllegalActionError, match="no draw now: " + betting):
        state.draw(())
    while state.phase is not Phase.DRAWING:
        state.check_call()
    waits = r"seat 0 is to draw \(discard up to 5 cards, or none to stand pat\)"
    for refused in (state.check_call, state.fold, state.bet_raise, lambda: state.answer_split(True)):
        with pytest.raises(IllegalActionError, match=waits):
            refused()
    offer = _draw32_to_split(3)
    offer.offer_split()
    for waiting in (offer.check_call, offer.bet_raise, lambda: offer.draw(())):
        with pytest.raises(IllegalActionError, match="seat 1 is to accept or refuse the split offer"):
            waiting()
    offer.answer_split(False)  # one refusal ends it: the betting starts
    call_down(offer)
    with pytest.raises(IllegalActionError, match="nobody may fold now: the hand is over"):
        offer.fold()


def test_draw32_split_with_side_pots_divides_only_the_pots_all_their_seats_accept() -> None:
    state = TableState.start("draw32", [3, 40, 40], seed=4)
    state.bet_raise(4)  # seat 2
    state.check_call()  # seat 0 all in for 3
    state.check_call()  # seat 1
    while state.phase is Phase.DRAWING:
        state.draw(())
    assert state.actor == 1 and state.can_offer_split()  # seat 0 is all in: seat 1 acts first
    state.offer_split()
    assert state.actor == 2
    state.answer_split(True)
    assert state.actor == 0  # with side pots the offer goes on past any refusal
    state.answer_split(False)
    split = [(a.seat, a.amount, a.half) for a in state.log if isinstance(a, A.Award)]
    assert split == [(1, 1, "split"), (2, 1, "split")]  # the side pot of seats 1 and 2 only
    assert state.phase is Phase.BETTING and state.actor == 1 and state.pot == 9
    state._check()
    call_down(state)
    assert sum(state.stacks) == 83 and state.pot == 0
    main = [a for a in state.log if isinstance(a, A.Award) and a.half != "split"]
    assert sum(a.amount for a in main) == 9


def test_telesina_heads_up_lowest_straight_flush_of_spades_beats_the_highest() -> None:
    deck = stacked("telesina", ["As7s8s9sTs", "JhQhKhAh7d"], board="Th")
    state = TableState.start("telesina", [50, 50], deck=deck)
    call_down(state)
    assert awards(state) == {0: sum(state.contributed)}


def test_a_deck_order_must_name_the_whole_pack() -> None:
    pack = list(get_variant("holdem").deck.cards())
    with pytest.raises(TableError, match=r"a deck order names all 52 cards of the pack, not 4; missing 2c .* 3c"):
        TableState.start("holdem", [10, 10], deck=pack[-4:])
    with pytest.raises(TableError, match="not 51; missing As"):
        TableState.start("holdem", [10, 10], deck=pack[:-1])
    short = list(get_variant("draw32").deck.cards())
    state = TableState.start("draw32", [10, 10], deck=list(reversed(short)))
    state._check()


# ------------------------------------------------------------------ _check catches corruption


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda s: s.stacks.__setitem__(0, s.stacks[0] + 1), "do not add up"),
        (lambda s: s.cards[1].__setitem__(0, s.cards[0][0]), "held twice"),
        (lambda s: s.mucked.append(s.cards[0][0]), "not the pack once"),
        (lambda s: s.live.__setitem__(s.actor, False), "has folded"),
        (lambda s: s.bets.__setitem__(0, s.contributed[0] + 1), "seat 0: stack"),
    ],
)
def test_a_corrupted_table_state_is_caught(corrupt: Callable[[TableState], object], message: str) -> None:
    from engine import InvariantError

    state = TableState.start("holdem", [100, 100, 100], seed=8)
    state._check()
    corrupt(state)
    with pytest.raises(InvariantError, match=message):
        state._check()


def _no_limit(stacks: list[int], structure: Structure = Structure.NO_LIMIT) -> TableState:
    return TableState.start("holdem", stacks, seed=1, structure=structure)


@pytest.mark.parametrize("structure", [Structure.NO_LIMIT, Structure.FIXED_LIMIT])
def test_the_big_blinds_all_in_short_of_a_full_raise_does_not_reopen_the_betting(structure: Structure) -> None:
    """1/2, three seats: the button and the small blind call, the big blind (3 chips) raises all in to 3, a raise of
    1 where a full one adds 2 (the blinds are live bets). The two who called may call or fold, not raise."""
    table = _no_limit([100, 3, 100], structure)
    table.check_call()
    table.check_call()
    bb = table.actor
    assert bb is not None and table.stacks[bb] == 1
    table.bet_raise(3)
    for _ in range(2):
        assert table.raise_sizes() == () and table.to_call() == 1
        with pytest.raises(IllegalActionError, match="all-ins since add up to less than a full raise"):
            table.bet_raise()
        table.check_call()
    assert table.street == 1


def test_short_all_ins_reopen_the_betting_once_they_add_up_to_a_full_raise_and_after() -> None:
    """On the flop a bet of 10 is called; all-ins to 15 and 21 add 11, a full raise: the bettor may raise again,
    and still may after a third all-in to 23 (what it faces since its bet has only grown)."""
    for stacks, third in (([200, 200, 17, 23, 200, 200], False), ([200, 200, 17, 23, 25, 200], True)):
        table = _no_limit(stacks)
        while table.street == 0:
            table.check_call()
        bettor = table.actor
        for to in (10, None, 15, 21, 23 if third else None, None):
            table.check_call() if to is None else table.bet_raise(to)
        assert table.actor == bettor and table.to_call() == (13 if third else 11)
        assert table.raise_sizes()[0] == (33 if third else 31)


def test_a_single_short_all_in_does_not_reopen_the_betting_after_the_flop() -> None:
    table = _no_limit([100, 5, 100])
    while table.street == 0:
        table.check_call()
    bettor = table.actor
    table.bet_raise(2)
    table.bet_raise(3)  # all in: a raise of 1 where a full one adds 2
    table.check_call()
    assert table.actor == bettor and table.raise_sizes() == () and table.to_call() == 1


def test_an_all_in_bet_short_of_the_smallest_bet_and_one_raising_it_short_reopen_nothing() -> None:
    """On the flop at 1/2: an all-in bet of 1 (the smallest bet is 2) is called; an all-in to 2 adds 1, short of a
    full raise (2); the seat that called may only call or fold."""
    table = _no_limit([3, 100, 4, 100])
    while table.street == 0:
        table.check_call()
    table.bet_raise(1)  # all in
    caller = table.actor
    table.check_call()
    table.bet_raise(2)  # all in
    table.check_call()
    assert table.actor == caller and table.to_call() == 1 and table.raise_sizes() == ()


def _stud_short_of_chips(seats: int, short: int, chips: int, structure: Structure = Structure.FIXED_LIMIT
                         ) -> tuple[TableState, list[int]]:
    """7-Card Stud at 4/8, bring-in 2, 100 chips a seat but ``chips`` for the seat ``short`` places after the
    bring-in seat (0: that seat); the table, and the seats in turn from the bring-in seat."""
    first = TableState.start("stud7", [100] * seats, seed=3).actor
    assert first is not None
    order = [(first + i) % seats for i in range(seats)]
    stacks = [100] * seats
    stacks[order[short]] = chips
    return TableState.start("stud7", stacks, seed=3, structure=structure), order


def test_a_completion_is_a_full_bet_and_an_all_in_short_of_a_raise_over_it_reopens_nothing() -> None:
    """7-Card Stud at 4/8 with a bring-in of 2: the bring-in, a completion to 4 (a full bet: the seat that brought
    in may raise over it), a call, an all-in to 7 (adds 3 of the 4 a raise adds): the completer and the caller may
    only call or fold, the bring-in seat, which has not answered the completion, may raise."""
    table, (bring_in, completer, caller, _, _) = _stud_short_of_chips(5, 3, 8)  # 1 for the ante, 7 to go all in
    table.post_bring_in()
    table.bet_raise(4)
    table.check_call()
    table.bet_raise(7)
    table.check_call()
    assert table.actor == bring_in and table.raise_sizes() == (11,)
    table.check_call()
    for seat in (completer, caller):
        assert table.actor == seat and table.raise_sizes() == ()
        table.check_call()


@pytest.mark.parametrize("structure", [Structure.FIXED_LIMIT, Structure.NO_LIMIT])
def test_an_all_in_short_of_the_completion_leaves_the_completion_to_be_made(structure: Structure) -> None:
    """7-Card Stud, bring-in 2, small bet 4: after the bring-in an all-in to 3 is no full bet, so the next seat may
    call 3 or complete to 4 (not raise to 7 as over a completion); the one after may still complete; a completion to
    4 is a full bet, over which the bring-in seat may raise."""
    table, (bring_in, _, caller, completer, _) = _stud_short_of_chips(5, 1, 4, structure)  # all in to 3
    table.post_bring_in()
    table.bet_raise(3)
    assert table.actor == caller and table.to_call() == 3 and table.raise_sizes()[0] == 4
    table.check_call()
    assert table.actor == completer and table.raise_sizes()[0] == 4
    table.bet_raise(4)
    assert table.raise_sizes()[0] == 8  # a raise over the completion adds a full bet
    table.check_call()
    assert table.actor == bring_in and table.to_call() == 2 and table.raise_sizes()[0] == 8
    table.check_call()
    assert table.actor == caller and table.to_call() == 1 and table.raise_sizes()[0] == 8


def test_the_bring_in_seat_all_in_short_of_the_completion_leaves_it_to_the_next() -> None:
    table, (first, _, _) = _stud_short_of_chips(3, 0, 4)  # the bring-in seat: 1 for the ante, all in to 3
    assert table.actor == first and table.raise_sizes() == (3,)
    table.bet_raise(3)
    assert table.to_call() == 3 and table.raise_sizes() == (4,)


def test_all_ins_short_of_the_completion_are_no_bets_toward_the_fixed_limit_cap() -> None:
    """The completion is the round's bet: an all-in to 3 before it took one of the round's raises (4/8 capped at 12,
    not 16), and four such all-ins capped the round before anyone could complete."""
    table, _ = _stud_short_of_chips(5, 1, 4)  # all in to 3
    table.post_bring_in()
    table.bet_raise(3)
    for to in (4, 8, 12, 16):
        assert table.raise_sizes() == (to,)
        table.bet_raise(to)
    assert table.raise_sizes() == ()
    with pytest.raises(IllegalActionError, match="the betting is capped"):
        table.bet_raise()
    stakes = Stakes(ante=1, bring_in=3, small_bet=10, big_bet=20)
    first = TableState.start("stud7", [100] * 8, seed=3, stakes=stakes).actor
    assert first is not None
    stacks = [100] * 8
    for place, chips in zip(range(1, 5), (6, 7, 8, 9), strict=True):  # all in to 5, 6, 7 and 8
        stacks[(first + place) % 8] = chips
    table = TableState.start("stud7", stacks, seed=3, stakes=stakes, structure=Structure.FIXED_LIMIT)
    table.post_bring_in()
    for to in (5, 6, 7, 8):
        table.bet_raise(to)
    for to in (10, 20, 30, 40):
        assert table.raise_sizes() == (to,)
        table.bet_raise(to)
    assert table.raise_sizes() == ()


def test_a_negative_seed_is_refused_as_it_would_deal_as_its_absolute_value() -> None:
    """``random.Random`` drops a seed's sign: seed -3 dealt the hand of seed 3 (and ``play --seed -1`` the hands of
    seeds 0 and 1)."""
    with pytest.raises(ValueError, match="seed must be 0 or more, not -3: a negative seed would deal as 3 does"):
        TableState.start("holdem", [50, 50], seed=-3)
    assert TableState.start("holdem", [50, 50], seed=3).cards != TableState.start("holdem", [50, 50], seed=4).cards
