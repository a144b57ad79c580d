"""Whole games on the virtual clock from fixed decks, with the real exchange core and equity engine."""

from __future__ import annotations

import dataclasses

from exchange.agents.view import bettor_view
from exchange.core import ladder
from exchange.core.commands import CancelOrder
from exchange.core.errors import ErrorCode
from exchange.core.events import MarketSettled, OrderLapsed, OrderPlaced, OrderRejected, SelectionSettled
from exchange.core.market import SelectionStatus
from exchange.core.order_views import OrderViews
from exchange.core.side import Side
from exchange.game.channels import HOLDEM
from exchange.game.events import BoardTurned, HandsCannotWin, ResultDeclared, WindowClosed
from exchange.game.rounds import Round, timetable
from exchange.game.table import Phase
from tests.game.helpers import make_channel, one_deck, place

# Every hand plays the royal flush on the board: a 4-way dead heat whatever happens.
ROYAL = (("2c3d", "4c5d", "6c7d", "8c9d"), "AsKsQsJsTs")
# After the turn (Ah Kh 7c 2d) 9s9d cannot win or tie on any river; the others still can.
DEAD_AFTER_TURN = (("AsAc", "KsKc", "7h7d", "9s9d"), "AhKh7c2d3s")
# The turn (Ad, on Ah 7c 2s) gives AsAc quad aces that nothing can beat: settled before the Turn window.
DECIDED_AT_TURN = (("AsAc", "7h7d", "KsKh", "QsQh"), "Ah7c2sAd3h")


def opens(rnd: Round) -> int:
    return timetable(HOLDEM, 0)[rnd - 1].opens_ms


def closes(rnd: Round) -> int:
    return timetable(HOLDEM, 0)[rnd - 1].closes_ms


def test_four_way_dead_heat_settles_every_bet_at_a_quarter_of_the_odds() -> None:
    channel, clock, log = make_channel(one_deck(*ROYAL), makers=0)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=opens(Round.DEAL) + 1_000)
    assert isinstance(place(channel, "alice", 1, Side.LAY, "8", 1_000, rnd=1), OrderPlaced)
    assert isinstance(place(channel, "bob", 1, Side.BACK, "8", 1_000, rnd=1), OrderPlaced)
    clock.run(until_ms=opens(Round.FLOP) + 1_000)
    assert isinstance(place(channel, "alice", 2, Side.LAY, "4", 2_000, rnd=3), OrderPlaced)
    assert isinstance(place(channel, "bob", 2, Side.BACK, "4", 2_000, rnd=3), OrderPlaced)
    clock.run()
    (result,) = log.of_type(ResultDeclared)
    assert result.winners == (1, 2, 3, 4)
    (settled,) = log.of_type(MarketSettled)
    profits = {(b.account_id, b.selection_id): b.profit for b in settled.bets}
    # Back 10.00 at 8 in a 4-way dead heat: odds 8/4 = 2, profit 10.00; the layer loses it.
    assert profits[("bob", 1)] == 1_000 and profits[("alice", 1)] == -1_000
    # Back 20.00 at 4: odds 4/4 = 1, profit 0.
    assert profits[("bob", 2)] == 0 and profits[("alice", 2)] == 0
    accounts = {a.account_id: (a.profit, a.commission) for a in settled.accounts}
    assert accounts["bob"] == (1_000, 25) and accounts["alice"] == (-1_000, 0)
    game = channel.game()
    assert game is not None and game.phase is Phase.FINISHED
    game._check()


def test_house_bets_in_a_dead_heat_settle_at_a_quarter_too() -> None:
    channel, clock, log = make_channel(one_deck(*ROYAL), makers=1)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=opens(Round.DEAL) + 1_000)
    view = bettor_view(channel, "bob")
    assert view is not None
    best = view.hand(3).best_to_back
    assert best is not None and str(ladder.price(best)) == "3.95"  # one tick under the fair 4.0
    assert str(view.hand(3).best_to_back_price) == "3.95"  # the same as odds, to place with
    lay = view.hand(3).best_to_lay
    assert lay is not None and view.hand(3).best_to_lay_price == ladder.price(lay) > ladder.price(best)
    assert isinstance(place(channel, "bob", 3, Side.BACK, "3.95", 500, 1), OrderPlaced)
    clock.run()
    (settled,) = log.of_type(MarketSettled)
    (bet,) = [b for b in settled.bets if b.account_id == "bob"]
    # 5.00 backed at 3.95 in a 4-way dead heat: 500 × (3.95/4 − 1) = −6.25 pennies, to the nearest: −6.
    assert bet.profit == -6


def test_a_hand_drawing_dead_after_the_turn_is_settled_loser_before_the_river() -> None:
    channel, clock, log = make_channel(one_deck(*DEAD_AFTER_TURN), makers=1)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=opens(Round.PREFLOP) + 1_000)
    assert isinstance(place(channel, "bob", 4, Side.BACK, "1000", 200, rnd=2), OrderPlaced)
    clock.run(until_ms=closes(Round.FLOP))
    (dead,) = log.of_type(HandsCannotWin)
    assert dead.hands == (4,)
    (early,) = log.of_type(SelectionSettled)
    assert early.selection_id == 4 and early.status is SelectionStatus.LOSER
    # Settled at the Flop close, when the turn was turned: before the Turn window and the river.
    settled_at = next(s.at_ms for s in log if isinstance(s.event, SelectionSettled))
    assert settled_at == closes(Round.FLOP)
    assert [b.street for b in log.of_type(BoardTurned)] == ["flop", "turn"]
    # Hand 4 takes no more bets.
    clock.run(until_ms=opens(Round.TURN) + 1_000)
    rejected = place(channel, "bob", 4, Side.BACK, "1000", 200, rnd=4)
    assert isinstance(rejected, OrderRejected) and rejected.error_code is ErrorCode.SELECTION_ALREADY_LOST
    clock.run()
    (result,) = log.of_type(ResultDeclared)
    assert result.winners == (1,) and not result.early


def test_when_only_one_hand_can_win_the_market_settles_at_once() -> None:
    channel, clock, log = make_channel(one_deck(*DECIDED_AT_TURN), makers=1)
    channel.start(at_ms=0, games=1)
    clock.run()
    (result,) = log.of_type(ResultDeclared)
    assert result.winners == (1,) and result.early
    (settled,) = log.of_type(MarketSettled)
    stamped = next(s for s in log if isinstance(s.event, MarketSettled))
    assert stamped.at_ms == closes(Round.FLOP)
    assert settled.winners == (1,)
    # No Turn window was opened; the river was dealt out with the result.
    assert [w.round for w in log.of_type(WindowClosed)] == [Round.DEAL, Round.PREFLOP, Round.FLOP]
    assert [b.street for b in log.of_type(BoardTurned)] == ["flop", "turn", "river"]


def test_orders_between_windows_are_rejected_and_stale_rounds_too() -> None:
    channel, clock, _ = make_channel(one_deck(*ROYAL), makers=0)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=closes(Round.DEAL) + 1_000)  # the playing window after Deal
    between = place(channel, "bob", 1, Side.BACK, "4", 200, rnd=1)
    assert isinstance(between, OrderRejected)
    assert between.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING
    unstamped = place(channel, "bob", 1, Side.BACK, "4", 200, rnd=None)
    assert isinstance(unstamped, OrderRejected) and unstamped.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING
    clock.run(until_ms=opens(Round.PREFLOP) + 10)
    stale = place(channel, "bob", 1, Side.BACK, "4", 200, rnd=1)
    assert isinstance(stale, OrderRejected) and stale.error_code is ErrorCode.BET_REJECTED_ROUND_STALE
    assert isinstance(place(channel, "bob", 1, Side.BACK, "4", 200, rnd=2), OrderPlaced)
    clock.run()
    after = place(channel, "bob", 1, Side.BACK, "4", 200, rnd=4)
    # A settled market refuses too, as not open, whatever became of the selection.
    assert isinstance(after, OrderRejected) and after.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING


def test_unmatched_orders_lapse_at_every_close() -> None:
    channel, clock, log = make_channel(one_deck(*ROYAL), makers=0)
    channel.start(at_ms=0, games=1)
    bets = []
    for rnd in (Round.DEAL, Round.PREFLOP, Round.FLOP, Round.TURN):  # Hold'em's four windows
        clock.run(until_ms=opens(rnd) + 500)
        placed = place(channel, "bob", 2, Side.BACK, "900", 200, rnd=int(rnd))
        assert isinstance(placed, OrderPlaced)
        bets.append(placed.bet_id)
        clock.run(until_ms=closes(rnd))
        lapsed = [e for e in log.of_type(OrderLapsed) if e.bet_id == placed.bet_id]
        assert len(lapsed) == 1 and lapsed[0].size == 200
        if rnd is not Round.TURN:  # the market open: the orders lapsed so far are current, all of each lapsed
            current = channel.exchange.current_orders("bob", "holdem.0")
            assert [(o.bet_id, o.size_remaining, o.size_lapsed) for o in current] == [(b, 0, 200) for b in bets]
    # The Turn's close deals the river and settles: the four are cleared, each lapsed whole.
    assert channel.exchange.current_orders("bob") == ()
    assert [(c.bet_id, c.size_lapsed) for c in channel.exchange.cleared_orders("bob")] == [(b, 200) for b in bets]
    clock.run()


def test_a_views_open_orders_are_its_orders_with_something_unmatched_however_it_was_built() -> None:
    """Alice rests three lays and cancels one; bob takes part of another. Her view lists the two with something
    unmatched, built with a memo of her order views or without, and a view built by hand finds them in its orders."""
    channel, clock, _ = make_channel(one_deck(*ROYAL), makers=0)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=opens(Round.DEAL) + 1_000)
    memo = OrderViews()
    for hand in (1, 2, 2):
        assert isinstance(place(channel, "alice", hand, Side.LAY, "5", 1_000, rnd=1), OrderPlaced)
    assert bettor_view(channel, "alice", views=memo) is not None  # the memo lists all three
    game = channel.game()
    assert game is not None
    channel.submit(CancelOrder(clock.now(), "alice", 1, market_id=game.market_id))
    assert isinstance(place(channel, "bob", 2, Side.BACK, "5", 400, rnd=1), OrderPlaced)  # takes 400 of bet 2
    for views in (memo, None):
        view = bettor_view(channel, "alice", views=views)
        assert view is not None and [o.bet_id for o in view.orders] == [1, 2, 3]
        assert [(o.bet_id, o.size_remaining) for o in view.open_orders()] == [(2, 600), (3, 1_000)]
        assert [o.bet_id for o in view.open_orders(hand=2, side=Side.LAY)] == [2, 3]
        assert view.open_orders(hand=1) == () and view.open_orders(side=Side.BACK) == ()
        by_hand = dataclasses.replace(view, live_orders=None)
        assert by_hand.open_orders() == view.open_orders() and by_hand.open_orders(hand=2) == view.open_orders(2)
    only_open = bettor_view(channel, "alice", open_orders_only=True)
    assert only_open is not None and [o.bet_id for o in only_open.orders] == [2, 3]
    assert only_open.open_orders() == only_open.orders
