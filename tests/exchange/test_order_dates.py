"""When an order was cancelled and lapsed, and why it lapsed: kept through the market's close, and shown as
API-NG (``cancelledDate``, ``lapsedDate``, ``lapseStatusReasonCode``) and the order stream (``cd``, ``ld``,
``lsrc``) show them, the reason only where Betfair has a code for it."""

from __future__ import annotations

from decimal import Decimal

from exchange.betfair import apiformat, order_changes
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
)
from exchange.core.events import CancelReason, OrderCancelled, OrderLapsed
from exchange.core.exchange import Exchange
from exchange.core.orders import BetStatus, LapseReason
from exchange.core.side import Side

_SETUP: tuple[Command, ...] = (
    OpenAccount(0, "al"), Deposit(0, "al", 10_000), OpenAccount(0, "bo"), Deposit(0, "bo", 10_000),
    CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
    PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 200),
)


def _exchange() -> Exchange:
    return Exchange.replay(_SETUP)


def test_a_fill_or_kills_rest_is_cancelled_at_once() -> None:
    """As Betfair reports a killed order: the rest is cancelled (``sizeCancelled``, ``cancelledDate``, the stream's
    ``sc`` and ``cd``), and a bet killed whole clears ``CANCELLED``."""
    ex = _exchange()
    events = ex.execute(PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 500, fill_or_kill=100))  # 200 match
    assert [(type(e), getattr(e, "reason", None)) for e in events][-1] == (OrderCancelled, CancelReason.FILL_OR_KILL)
    ex.execute(PlaceOrder(3, "al", "1.1", 1, Side.BACK, Decimal("3"), 400, fill_or_kill=400))  # nothing left: killed
    part, whole = ex.current_orders("al")
    assert (part.size_matched, part.size_cancelled, part.cancelled_ts, part.size_lapsed, part.lapsed_ts) == (
        200, 300, 2, 0, None)
    assert (whole.size_matched, whole.size_cancelled, whole.cancelled_ts) == (0, 400, 3)
    summary = apiformat.current_order(part)
    assert (summary["status"], summary["sizeCancelled"], summary["cancelledDate"]) == (
        "EXECUTION_COMPLETE", 3.0, apiformat.iso(2))
    assert "lapsedDate" not in summary
    ex.execute(SettleMarket(9, "1.1", (1,)))
    cleared = {c.bet_id: c for c in ex.cleared_orders("al")}
    assert (cleared[part.bet_id].bet_status, cleared[part.bet_id].size_cancelled) == (BetStatus.SETTLED, 300)
    assert (cleared[whole.bet_id].bet_status, cleared[whole.bet_id].cancelled_ts) == (BetStatus.CANCELLED, 3)
    uo = order_changes.cleared_order(cleared[part.bet_id]).uo
    assert (uo["sc"], uo["cd"], "ld" in uo) == (3.0, 2, False)


def test_a_fill_or_kill_lapsed_in_an_older_journal_replays_as_it_was() -> None:
    """Journals written before 2026-12-06 hold a fill-or-kill's rest as a lapse (reason ``FILL_OR_KILL``): folded
    now, the bet still shows it lapsed then, so an old journal's orders read as they did."""
    ex = _exchange()
    events = ex.execute(PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 500, fill_or_kill=100))
    *rest, cancelled = events
    assert isinstance(cancelled, OrderCancelled)
    old = OrderLapsed(cancelled.ts, cancelled.bet_id, cancelled.account_id, cancelled.market_id,
                      cancelled.selection_id, cancelled.size, LapseReason.FILL_OR_KILL)
    folded = Exchange.replay([*_SETUP, *rest, old])
    (view,) = folded.current_orders("al")
    assert (view.size_matched, view.size_lapsed, view.lapsed_ts, view.lapse_reason, view.size_cancelled) == (
        200, 300, 2, LapseReason.FILL_OR_KILL, 0)
    assert "lapseStatusReasonCode" not in apiformat.current_order(view)  # Betfair has no code for it


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
