"""Every rejection kind: its API-NG error code, a message that says what is allowed, and no state change."""

from __future__ import annotations

from decimal import Decimal

import pytest

from exchange.core import ladder
from exchange.core.commands import (
    CancelOrder,
    CreateMarket,
    Move,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    ReplaceOrders,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
)
from exchange.core.errors import ErrorCode, ExchangeError
from exchange.core.events import CancelReason, OrderAction, OrderCancelled, OrderPlaced, OrderRejected
from exchange.core.orders import OrderType, PersistenceType
from exchange.core.side import Side

from .conftest import Harness


def place(hx: Harness, **changes: object) -> OrderRejected:
    """Place a (by default valid) back of 5.00 at 3 on selection 1 for alice, with changes; expect a rejection."""
    fields: dict[str, object] = dict(
        ts=hx.tick(), account_id="alice", market_id="1.1", selection_id=1, side=Side.BACK,
        price=Decimal("3"), size=500,
    )  # fmt: skip
    fields.update(changes)
    digest = hx.ex.state_digest()
    events = hx.run(PlaceOrder(**fields))  # type: ignore[arg-type]  # fields of any type, for the rejections
    assert len(events) == 1, events
    rejection = events[0]
    assert isinstance(rejection, OrderRejected), rejection
    assert rejection.action is OrderAction.PLACE
    assert hx.ex.state_digest() == digest
    return rejection


@pytest.mark.parametrize(
    ("changes", "code", "message"),
    [
        (
            {"price": Decimal("2.03")},
            ErrorCode.INVALID_ODDS,
            "price 2.03 is not on the ladder; nearest ticks 2.02, 2.04",
        ),
        ({"price": Decimal("1000.5")}, ErrorCode.INVALID_ODDS, "price 1000.5 is above the highest price 1000"),
        ({"price": Decimal("1")}, ErrorCode.INVALID_ODDS, "price 1 is below the lowest price 1.01"),
        ({"price": "abc"}, ErrorCode.INVALID_ODDS, "price 'abc' is not a number"),
        ({"price": Decimal("sNaN")}, ErrorCode.INVALID_ODDS, "price sNaN is not a finite number"),
        # a huge exponent: placed by comparison (the exact arithmetic took seconds, and 1E+9999999 less a price
        # raised decimal.Overflow out of execute)
        ({"price": Decimal("1E+9999999")}, ErrorCode.INVALID_ODDS, "price 1E+9999999 is above the highest price 1000"),
        ({"price": Decimal("1E-9999999")}, ErrorCode.INVALID_ODDS, "price 1E-9999999 is below the lowest price 1.01"),
        ({"price": "-1e999999999"}, ErrorCode.INVALID_ODDS, "price -1E+999999999 is below the lowest price 1.01"),
        ({"size": 199}, ErrorCode.INVALID_BET_SIZE, "size 1.99 is below the minimum stake 2.00"),
        ({"size": 0}, ErrorCode.INVALID_BET_SIZE, "size 0 must be a positive whole number of minor units"),
        ({"size": -500}, ErrorCode.INVALID_BET_SIZE, "size -500 must be a positive whole number of minor units"),
        (
            {"size": Decimal("5.00")},
            ErrorCode.INVALID_BET_SIZE,
            "size Decimal('5.00') must be a positive whole number of minor units",
        ),
        ({"selection_id": 7}, ErrorCode.INVALID_RUNNER, "selection 7 is not in market 1.1; selections are 1, 2, 3, 4"),
        (
            {"selection_id": "1"},
            ErrorCode.INVALID_RUNNER,
            "selection '1' is not in market 1.1; selections are 1, 2, 3, 4",
        ),
        ({"market_id": "9.9"}, ErrorCode.INVALID_MARKET_ID, "market '9.9' does not exist"),
        ({"account_id": "mallory"}, ErrorCode.INVALID_ACCOUNT, "account 'mallory' does not exist"),
        (
            {"persistence_type": PersistenceType.PERSIST},
            ErrorCode.INVALID_PERSISTENCE_TYPE,
            "persistence type PERSIST is not offered; use LAPSE",
        ),
        (
            {"order_type": OrderType.MARKET_ON_CLOSE},
            ErrorCode.INVALID_ORDER_TYPE,
            "order type MARKET_ON_CLOSE is not offered; use LIMIT",
        ),
        (
            {"size": 200_000},
            ErrorCode.INSUFFICIENT_FUNDS,
            "this order needs 2000.00 more exposure but only 1000.00 is available to bet",
        ),
        (
            {"round": 2},
            ErrorCode.MARKET_NOT_OPEN_FOR_BETTING,
            "round 2 is not open; market 1.1 is in round 1",
        ),
        ({"side": "BACKK"}, ErrorCode.INVALID_BID_TYPE, "side must be Side.BACK or Side.LAY, not 'BACKK'"),
        ({"side": "BACK"}, ErrorCode.INVALID_BID_TYPE, "side must be Side.BACK or Side.LAY, not 'BACK'"),
        # a minimum fill that is not a whole number of minor units from 1 to the size: refused before the order is
        # booked (it once booked the order and then raised, leaving a state its journal would not give)
        *[
            (
                {"fill_or_kill": min_fill},
                ErrorCode.INVALID_MIN_FILL_SIZE,
                f"fill_or_kill (the minimum fill) must be a whole number of minor units from 1 to the size 500, "
                f"not {min_fill!r}",
            )
            for min_fill in ("500", -5, 0, 501, True, Decimal("2"))
        ],
    ],
)
def test_place_rejections(hx: Harness, changes: dict[str, object], code: ErrorCode, message: str) -> None:
    rejection = place(hx, **changes)
    assert rejection.error_code is code
    assert rejection.message == message


def test_stale_round(hx: Harness) -> None:
    hx.suspend()
    hx.open()
    rejection = place(hx, round=1)
    assert rejection.error_code is ErrorCode.BET_REJECTED_ROUND_STALE
    assert rejection.message == "order is for round 1 but market 1.1 is in round 2"
    hx.place("alice", 1, Side.BACK, "3", 500, round_=2)


def test_market_not_open_before_first_window_while_suspended_and_after_void(hx: Harness) -> None:
    hx.market("1.2", open_=False)
    rejection = place(hx, market_id="1.2")
    assert rejection.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING
    assert rejection.message == ("market 1.2 is SUSPENDED; orders are accepted only while it is open, in a betting "
                                 "window")
    hx.suspend()
    assert place(hx).error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING
    hx.void()
    assert place(hx).message == "market 1.1 is VOID; orders are accepted only while it is open, in a betting window"


def test_selection_already_lost_and_won(hx: Harness) -> None:
    hx.suspend()
    hx.lose(3)
    hx.open()
    rejection = place(hx, selection_id=3)
    assert rejection.error_code is ErrorCode.SELECTION_ALREADY_LOST
    assert rejection.message == "selection 3 has already lost and takes no more bets"
    hx.suspend()
    hx.settle(1, 2)
    # the market is closed: that is what every order on it meets (the spec's rule), winner or loser alike
    for selection in (1, 3, 4):
        rejection = place(hx, selection_id=selection)
        assert rejection.error_code is ErrorCode.MARKET_NOT_OPEN_FOR_BETTING, selection
        assert "is SETTLED" in rejection.message, rejection.message
    assert place(hx, selection_id=9).error_code is ErrorCode.INVALID_RUNNER  # a runner it never had is still that


def cancel(hx: Harness, account: str, bet_id: object, reduction: object = None,
           market_id: str | None = None) -> OrderRejected:
    digest = hx.ex.state_digest()
    events = hx.run(CancelOrder(hx.tick(), account, bet_id, reduction, market_id))  # type: ignore[arg-type]  # bad ids and reductions
    assert len(events) == 1 and isinstance(events[0], OrderRejected), events
    assert events[0].action is OrderAction.CANCEL
    assert hx.ex.state_digest() == digest
    return events[0]


def test_cancel_rejections(hx: Harness) -> None:
    mine = hx.lay("alice", 1, "3", 500)
    theirs = hx.lay("bob", 2, "3", 500)
    # someone else's bet looks exactly like one that does not exist
    other = cancel(hx, "alice", theirs)
    missing = cancel(hx, "alice", 999)
    assert other.error_code is missing.error_code is ErrorCode.INVALID_BET_ID
    assert other.message == f"bet id {theirs} is not one of your orders"
    assert missing.message == "bet id 999 is not one of your orders"
    assert cancel(hx, "alice", "1").error_code is ErrorCode.INVALID_BET_ID
    assert cancel(hx, "mallory", mine).error_code is ErrorCode.INVALID_ACCOUNT
    rejection = cancel(hx, "alice", mine, 0)
    assert rejection.error_code is ErrorCode.INVALID_BET_SIZE
    assert rejection.message == "size reduction 0 must be a positive number of minor units"
    assert cancel(hx, "alice", mine, -1).error_code is ErrorCode.INVALID_BET_SIZE
    hx.back("carol", 1, "3", 500)  # fully matches alice's lay
    taken = cancel(hx, "alice", mine)
    assert taken.error_code is ErrorCode.BET_TAKEN_OR_LAPSED
    assert taken.message == f"bet {mine} has no unmatched size left (matched 5.00, lapsed 0.00, cancelled 0.00)"
    hx.suspend()  # bob's lay lapses
    lapsed = cancel(hx, "bob", theirs)
    assert lapsed.error_code is ErrorCode.BET_TAKEN_OR_LAPSED
    assert lapsed.message == f"bet {theirs} has no unmatched size left (matched 0.00, lapsed 5.00, cancelled 0.00)"


def test_cancel_twice(hx: Harness) -> None:
    bet = hx.lay("alice", 1, "3", 500)
    hx.cancel("alice", bet)
    assert cancel(hx, "alice", bet).error_code is ErrorCode.BET_TAKEN_OR_LAPSED


def replace(hx: Harness, account: str, bet_id: int, price: object, round_: int | None = None) -> OrderRejected:
    digest = hx.ex.state_digest()
    events = hx.run(ReplaceOrder(hx.tick(), account, bet_id, price, round_))  # type: ignore[arg-type]  # bad prices
    assert len(events) == 1 and isinstance(events[0], OrderRejected), events
    assert events[0].action is OrderAction.REPLACE
    assert hx.ex.state_digest() == digest
    return events[0]


def test_replace_rejections_leave_the_order_alone(hx: Harness) -> None:
    bet = hx.lay("carol", 1, "3", 40_000)  # liability 800.00 of carol's 1000.00
    assert replace(hx, "alice", bet, Decimal("2")).error_code is ErrorCode.INVALID_BET_ID
    hx.suspend()
    hx.open()
    # unmatched orders lapsed at the window close
    assert replace(hx, "carol", bet, Decimal("2")).error_code is ErrorCode.BET_TAKEN_OR_LAPSED
    fresh = hx.lay("carol", 1, "3", 500)
    assert replace(hx, "carol", fresh, Decimal("2"), round_=1).error_code is ErrorCode.BET_REJECTED_ROUND_STALE
    # a cheaper lay price is always affordable
    hx.replace("carol", fresh, "2")


def test_a_replace_to_a_price_of_a_huge_exponent_is_refused_as_off_the_ladder(hx: Harness) -> None:
    """The old bet is cancelled, as for any new price that cannot be placed (Betfair's replace); the new one is
    refused naming the price (the exact arithmetic of the ladder took seconds, or raised decimal.Overflow)."""
    bet = hx.back("alice", 1, "3", 500)
    events = hx.run(ReplaceOrder(hx.tick(), "alice", bet, Decimal("1E+9999999")))
    cancelled, rejected = events
    assert isinstance(cancelled, OrderCancelled) and isinstance(rejected, OrderRejected), events
    assert rejected.message == "price 1E+9999999 is above the highest price 1000"


def test_a_remainder_below_the_minimum_stake_is_moved_not_refused(hx: Harness) -> None:
    """As on Betfair: the minimum stake is what a trader may ask to stake; a partly matched bet's remainder below
    it can be moved to a new price (a new bet of that size), while a new bet of that size is refused."""
    bet = hx.back("alice", 1, "3", 500)
    hx.lay("bob", 1, "3", 400)  # leaves 1.00 of alice's back unmatched, under the 2.00 minimum
    assert place(hx, size=100).error_code is ErrorCode.INVALID_BET_SIZE
    events = hx.replace("alice", bet, "3.5")
    moved = next(e for e in events if isinstance(e, OrderPlaced))
    assert (moved.size, moved.replaces, moved.tick) == (100, bet, ladder.tick_of(Decimal("3.5")))
    hx.assert_replays()


def test_driver_misuse_raises(hx: Harness) -> None:
    ex = hx.ex
    with pytest.raises(ExchangeError, match="does not exist"):
        ex.execute(SuspendMarket(1, "9.9"))
    with pytest.raises(ExchangeError, match="already exists"):
        ex.execute(CreateMarket(1, "1.1", (1, 2)))
    with pytest.raises(ExchangeError, match="at least two distinct"):
        ex.execute(CreateMarket(1, "2.1", (1, 1)))
    with pytest.raises(ExchangeError, match="at least two distinct"):
        ex.execute(CreateMarket(1, "2.1", (1,)))
    with pytest.raises(ExchangeError, match="minimum stake"):
        ex.execute(CreateMarket(1, "2.1", (1, 2), min_stake=0))
    with pytest.raises(ExchangeError, match="basis points"):
        ex.execute(CreateMarket(1, "2.1", (1, 2), commission_bps=10_001))
    with pytest.raises(ExchangeError, match=r"cannot open market 1\.1: it is ACTIVE"):
        ex.execute(OpenMarket(1, "1.1"))
    with pytest.raises(ExchangeError, match="not a selection"):
        ex.execute(SettleMarket(1, "1.1", (9,)))
    for winners in ((), (True,), ([1],), ("1",)):  # a bool or a list went on: True settled selection 1, and was
        # journaled as True; a list raised TypeError
        with pytest.raises(ExchangeError, match="distinct selection ids"):
            ex.execute(SettleMarket(1, "1.1", winners))  # type: ignore[arg-type]  # wrong types on purpose
    with pytest.raises(ExchangeError, match="not in market"):
        ex.execute(SettleSelection(1, "1.1", 9))
    with pytest.raises(ExchangeError, match="not a command"):
        ex.execute("PlaceOrder")  # type: ignore[arg-type]  # a name, not a command, on purpose
    ex.execute(SuspendMarket(2, "1.1"))
    with pytest.raises(ExchangeError, match="cannot suspend"):
        ex.execute(SuspendMarket(3, "1.1"))
    ex.execute(SettleSelection(4, "1.1", 4))
    with pytest.raises(ExchangeError, match="already LOSER"):
        ex.execute(SettleSelection(5, "1.1", 4))
    with pytest.raises(ExchangeError, match="already settled LOSER"):
        ex.execute(SettleMarket(5, "1.1", (4,)))
    ex.execute(SettleMarket(6, "1.1", (1,)))
    for cmd in (
        SettleMarket(7, "1.1", (1,)),
        VoidMarket(7, "1.1"),
        VoidMatchedSince(7, "1.1", 0),
        SettleSelection(7, "1.1", 2),
    ):
        with pytest.raises(ExchangeError, match="it is SETTLED"):
            ex.execute(cmd)
    ex._check()


def test_a_replace_the_account_cannot_cover_still_cancels_the_old_bet(hx: Harness) -> None:
    """As Betfair's replaceOrders: "the cancel is completed first", and "the cancellations will not be rolled back"
    when the new bet cannot be placed: the old bet is cancelled (``REPLACED``), the new one refused, nothing placed."""
    bet = hx.lay("carol", 1, "3", 40_000)  # liability 800.00 of carol's 1000.00
    events = hx.replace("carol", bet, "4")  # would need 1200.00
    cancelled, rejection = events
    assert isinstance(cancelled, OrderCancelled) and isinstance(rejection, OrderRejected), events
    assert (cancelled.bet_id, cancelled.size, cancelled.reason) == (bet, 40_000, CancelReason.REPLACED)
    assert (rejection.action, rejection.error_code, rejection.bet_id) == (
        OrderAction.REPLACE, ErrorCode.INSUFFICIENT_FUNDS, bet)
    assert rejection.message == "the new price needs 400.00 more exposure but only 200.00 is available to bet"
    view = hx.ex.order_view("carol", bet)
    assert view is not None and (view.size_remaining, view.size_cancelled) == (0, 40_000)
    assert hx.ex.funds("carol").exposure == 0  # type: ignore[union-attr]
    hx.assert_replays()


def test_a_cancel_sent_through_a_market_cancels_only_a_bet_on_it(hx: Harness) -> None:
    """API-NG's cancelOrders names a market: a bet of the account's on another is not one of its bets there."""
    hx.market("1.2")
    bet = hx.lay("alice", 1, "3", 500)
    elsewhere = hx.run(CancelOrder(hx.tick(), "alice", bet, None, "1.2"))
    assert [(e.error_code, e.message) for e in elsewhere if isinstance(e, OrderRejected)] == [
        (ErrorCode.INVALID_BET_ID, f"bet {bet} is not one of yours on market 1.2")]
    assert [o.size_remaining for o in hx.ex.current_orders("alice")] == [500]
    (cancelled,) = hx.run(CancelOrder(hx.tick(), "alice", bet, None, "1.1"))
    assert isinstance(cancelled, OrderCancelled) and cancelled.size == 500
    # done with, it is still no bet of alice's on 1.2 (not "taken or lapsed" there), and a replace says the same
    again = cancel(hx, "alice", bet, None, "1.2")
    assert (again.error_code, again.message) == (ErrorCode.INVALID_BET_ID,
                                                 f"bet {bet} is not one of yours on market 1.2")
    moved = hx.run(ReplaceOrders(hx.tick(), "alice", "1.2", (Move(bet, Decimal("4")),)))
    assert [e.error_code for e in moved if isinstance(e, OrderRejected)] == [ErrorCode.INVALID_BET_ID]
    assert cancel(hx, "alice", bet, None, "1.1").error_code is ErrorCode.BET_TAKEN_OR_LAPSED
