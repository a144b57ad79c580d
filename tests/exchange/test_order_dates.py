"""When an order was cancelled and lapsed, and why it lapsed: kept through the market's close, and shown as
API-NG (``cancelledDate``, ``lapsedDate``, ``lapseStatusReasonCode``) and the order stream (``cd``, ``ld``,
``lsrc``) show them, the reason only where Betfair has a code for it."""

from __future__ import annotations

from decimal import Decimal

from exchange.betfair import apiformat, order_changes
from exchange.core.commands import (
    CancelOrder,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
)
from exchange.core.exchange import Exchange
from exchange.core.orders import LapseReason
from exchange.core.side import Side


def _exchange() -> Exchange:
    ex = Exchange()
    for command in (OpenAccount(0, "al"), Deposit(0, "al", 10_000), OpenAccount(0, "bo"), Deposit(0, "bo", 10_000),
                    CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
                    PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 200)):  # fmt: skip
        ex.execute(command)
    return ex


def test_a_fill_or_kills_rest_lapses_at_once_with_no_betfair_code() -> None:
    ex = _exchange()
    ex.execute(PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 500, fill_or_kill=100))  # 200 match, 300 lapse
    (view,) = ex.current_orders("al")
    assert (view.size_matched, view.size_lapsed, view.lapsed_ts, view.lapse_reason, view.cancelled_ts) == (
        200, 300, 2, LapseReason.FILL_OR_KILL, None)
    summary = apiformat.current_order(view)
    assert summary["lapsedDate"] == apiformat.iso(2) and "lapseStatusReasonCode" not in summary
    assert "cancelledDate" not in summary
    ex.execute(SettleMarket(9, "1.1", (1,)))
    (cleared,) = ex.cleared_orders("al")
    assert (cleared.lapsed_ts, cleared.lapse_reason, cleared.cancelled_ts) == (2, LapseReason.FILL_OR_KILL, None)
    uo = order_changes.cleared_order(cleared).uo
    assert (uo["ld"], "lsrc" in uo, "cd" in uo) == (2, False, False)


def test_a_cut_then_a_lapse_at_the_close_keeps_both_dates() -> None:
    ex = _exchange()
    ex.execute(PlaceOrder(2, "al", "1.1", 2, Side.BACK, Decimal("4"), 500))
    (bet,) = (o.bet_id for o in ex.current_orders("al"))
    ex.execute(CancelOrder(3, "al", bet, 100))
    ex.execute(CancelOrder(5, "al", bet, 100))  # the last cancellation's date
    ex.execute(SettleMarket(9, "1.1", (1,)))  # what rests lapses as the market settles: no code of Betfair's
    (cleared,) = ex.cleared_orders("al")
    assert (cleared.size_cancelled, cleared.size_lapsed) == (200, 300)
    assert (cleared.cancelled_ts, cleared.lapsed_ts, cleared.lapse_reason) == (5, 9, LapseReason.MARKET_SETTLED)
    uo = order_changes.cleared_order(cleared).uo
    assert (uo["cd"], uo["ld"], "lsrc" in uo) == (5, 9, False)
    assert apiformat.current_order(cleared.view())["cancelledDate"] == apiformat.iso(5)
