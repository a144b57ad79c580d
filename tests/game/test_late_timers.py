"""A window's close is its time, not its timer's: an order arriving after ``closes_ms`` is refused even when the
loop has not yet run the close (on the wall clock a busy asyncio loop runs timers late).

The clock here is a virtual one whose time can move on without running what is due, as a busy loop's does;
then it catches up, and the game goes on exactly as it would have.
"""

from __future__ import annotations

from engine.irregularities import Irregularity, Kind
from exchange.agents.view import bettor_view
from exchange.clock import VirtualClock
from exchange.core.errors import ErrorCode
from exchange.core.events import MarketSettled, MarketSuspended, OrderLapsed, OrderPlaced, OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.market import MarketStatus
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import HOLDEM
from exchange.game.events import EventLog, WindowClosed
from exchange.game.irregular import PREMATURE_ROUND, IrregularityOccurred, IrregularityPlan, scripted
from exchange.game.rounds import Round, timetable
from exchange.game.table import Phase
from tests.game.helpers import make_channel, one_deck, place

DECK = (("AsAc", "KsKc", "7h7d", "9s9d"), "AhKh7c2d3s")


def late(clock: VirtualClock, ms: int) -> None:
    """Move the clock on by ``ms`` without running what falls due: the loop is busy elsewhere."""
    clock._now += ms


def test_an_order_after_the_close_is_refused_though_the_close_timer_has_not_run() -> None:
    channel, clock, log = make_channel(one_deck(*DECK), makers=0)
    channel.start(at_ms=0, games=1)
    deal = timetable(HOLDEM, 0)[Round.DEAL - 1]
    clock.run(until_ms=deal.closes_ms - 1)
    first = place(channel, "alice", 1, Side.BACK, "4", 200, rnd=1)  # the last millisecond: taken
    assert isinstance(first, OrderPlaced)
    late(clock, 5)  # closes_ms + 4, the close's timer not yet run
    game = channel.game()
    assert game is not None and game.phase is Phase.BETTING
    refused = place(channel, "bob", 1, Side.LAY, "4", 200, rnd=1)  # would have matched alice's back
    assert isinstance(refused, OrderRejected), refused
    assert refused.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING
    closed = [e.event for e in log.events if isinstance(e.event, (MarketSuspended, OrderLapsed, WindowClosed))]
    assert [type(e) for e in closed] == [OrderLapsed, MarketSuspended, WindowClosed]  # alice's back lapsed unmatched
    clock.run()  # the loop catches up: the stale timer does nothing, the game plays on to its result
    assert game.phase is Phase.FINISHED
    assert sum(isinstance(e.event, WindowClosed) for e in log.events) == 4
    assert sum(isinstance(e.event, MarketSettled) for e in log.events) == 1


def test_a_view_read_after_the_close_shows_betting_closed_and_changes_nothing() -> None:
    """A snapshot read between the window's closing time and its late timer says what an order would find: closed
    (the market's own status is the exchange's, still active until the close runs; the read does not run it)."""
    channel, clock, log = make_channel(one_deck(*DECK), makers=0)
    channel.start(at_ms=0, games=1)
    deal = timetable(HOLDEM, 0)[Round.DEAL - 1]
    clock.run(until_ms=deal.closes_ms - 1)
    before = bettor_view(channel, account_id="alice")
    assert before is not None and before.betting_open and before.percentage_complete < 100
    events = len(log.events)
    late(clock, 1)  # exactly closes_ms: the window is closed from then on
    after = bettor_view(channel, account_id="alice")
    assert after is not None and not after.betting_open and after.percentage_complete == 100
    assert after.market_status is MarketStatus.ACTIVE  # the exchange has not been told yet
    assert after.snapshot()["bettingOpen"] is False
    game = channel.game()
    assert game is not None and game.phase is Phase.BETTING and len(log.events) == events  # nothing closed by a read


def test_a_timer_on_time_is_unchanged() -> None:
    channel, clock, _ = make_channel(one_deck(*DECK), makers=0)
    channel.start(at_ms=0, games=1)
    deal = timetable(HOLDEM, 0)[Round.DEAL - 1]
    clock.run(until_ms=deal.closes_ms - 1)
    game = channel.game()
    assert game is not None and game.phase is Phase.BETTING
    game.close_if_due()  # not yet its time
    assert game.phase is Phase.BETTING
    assert isinstance(place(channel, "bob", 1, Side.LAY, "4", 200, rnd=1), OrderPlaced)


def test_a_wall_clock_stepped_back_before_the_window_opened_leaves_it_open() -> None:
    """The server's time is the wall clock's, its timers a steady clock's: stepped back (an NTP correction) to before
    the window's opening time, an order finds the window open, as a view does, and nothing closes it early."""
    channel, clock, log = make_channel(one_deck(*DECK), makers=0)
    channel.start(at_ms=0, games=1)
    deal = timetable(HOLDEM, 0)[Round.DEAL - 1]
    clock.run(until_ms=deal.opens_ms + 100)
    late(clock, -500)  # before opens_ms
    game = channel.game()
    assert game is not None and game.window_open_at(clock.now())
    assert isinstance(place(channel, "bob", 1, Side.LAY, "4", 200, rnd=1), OrderPlaced)
    view = bettor_view(channel, account_id="bob")
    assert view is not None and view.betting_open
    assert game.phase is Phase.BETTING and not any(isinstance(e.event, WindowClosed) for e in log.events)


def test_a_late_close_runs_the_windows_overdue_irregularity_first_and_refuses_the_order() -> None:
    """A premature flop due at 90 % of the Pre-flop window has not been shown when the loop, busy, reaches an
    order after the window's close: the flop is exposed (and noticed) first, as its timer would have, and the
    order finds the window closed."""
    clock = VirtualClock()
    plan = IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP), at_permille=900)
    channel = Channel(HOLDEM, clock, Exchange(), decks=one_deck(*DECK), irregularities=scripted({0: plan}))
    log = EventLog.attach(channel.bus)
    for user in ("alice", "bob"):
        channel.open_account(user, 100_000)
    channel.start(at_ms=0, games=1)
    window = timetable(HOLDEM, 0)[PREMATURE_ROUND[Kind.PREMATURE_FLOP] - 1]
    clock.run(until_ms=window.opens_ms + window.length_ms * 9 // 10 - 1)  # the exposure is 1 ms away
    assert isinstance(place(channel, "alice", 1, Side.BACK, "4", 200, rnd=2), OrderPlaced)
    late(clock, window.length_ms // 10 + 5)  # past the close; neither the exposure nor the close has run
    refused = place(channel, "bob", 1, Side.LAY, "4", 200, rnd=2)  # would have matched alice's back
    assert isinstance(refused, OrderRejected), refused
    assert refused.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING
    kinds = [type(s.event) for s in log.events if isinstance(s.event, (IrregularityOccurred, WindowClosed))]
    assert kinds == [WindowClosed, IrregularityOccurred, WindowClosed]  # the Deal window's close, then these
    clock.run()  # the loop catches up: the stale timers do nothing, the game plays on
    game = channel.game()
    assert game is not None and game.phase is Phase.FINISHED
    assert sum(isinstance(s.event, IrregularityOccurred) for s in log.events) == 1
