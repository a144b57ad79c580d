"""The Exchange Stream's order changes (``ocm`` ``uo`` records), from the core's order views and cleared orders."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from exchange.betfair import apiformat
from exchange.core.orders import ClearedOrder, OrderStatus, OrderView
from exchange.core.side import Side


def order_change(bet_id: int, price: Decimal, size: int, side: Side, complete: bool, placed: int,
                 matched_ts: int | None, avp: float, sm: int, sr: int, sl: int, sc: int, sv: int, ref: str | None,
                 rfs: str | None) -> dict[str, Any]:
    """One ``uo`` record: the order's sizes matched, remaining, lapsed, cancelled and voided, its refs."""
    out: dict[str, Any] = {
        "id": str(bet_id), "p": float(price), "s": apiformat.money(size), "side": "B" if side is Side.BACK else "L",
        "status": "EC" if complete else "E", "pt": "L", "ot": "L", "pd": placed, "avp": avp,
        "sm": apiformat.money(sm), "sr": apiformat.money(sr), "sl": apiformat.money(sl), "sc": apiformat.money(sc),
        "sv": apiformat.money(sv), "rac": "", "rc": "REG_GGC", "rfo": ref or "", "rfs": rfs or "",
    }
    if matched_ts is not None:
        out["md"] = matched_ts
    return out


def open_order(o: OrderView) -> tuple[int, dict[str, Any], str, float, float]:
    """``(selection id, uo, side, average price matched, size matched)`` of an order on an open market."""
    avp = apiformat.price(o.average_price_matched)
    uo = order_change(o.bet_id, o.price, o.size, o.side, o.status is OrderStatus.EXECUTION_COMPLETE, o.placed_ts,
             o.matched_ts, avp, o.size_matched, o.size_remaining, o.size_lapsed, o.size_cancelled, o.size_voided,
             o.customer_ref, o.strategy_ref)
    return o.selection_id, uo, uo["side"], avp, apiformat.money(o.size_matched)


def cleared_order(o: ClearedOrder) -> tuple[int, dict[str, Any], str, float, float]:
    """The same of a cleared order (its market closed)."""
    avp = apiformat.price(o.price_matched)
    matched = o.size - o.size_cancelled - o.size_lapsed - o.size_voided
    uo = order_change(o.bet_id, o.price_requested, o.size, o.side, True, o.placed_ts, o.last_matched_ts, avp,
             matched, 0, o.size_lapsed, o.size_cancelled, o.size_voided, o.customer_ref, o.strategy_ref)
    return o.selection_id, uo, uo["side"], avp, apiformat.money(matched)


def matched_position(matches: Iterable[tuple[str, float, float]]) -> dict[str, list[list[float]]]:
    """``{"mb": ..., "ml": ...}``: the matched backs and lays of ``(side, average price, size matched)`` rows,
    size summed per price, ascending by price (the ``mb``/``ml`` of an order runner change).

    >>> matched_position([("B", 3.0, 2.0), ("L", 2.5, 1.0), ("B", 3.0, 4.5), ("B", 2.0, 0.0)])
    {'mb': [[3.0, 6.5]], 'ml': [[2.5, 1.0]]}
    """
    mb: dict[float, float] = {}
    ml: dict[float, float] = {}
    for side, avp, matched in matches:
        if matched:
            target = mb if side == "B" else ml
            target[avp] = round(target.get(avp, 0.0) + matched, 2)
    return {"mb": [[p, s] for p, s in sorted(mb.items())], "ml": [[p, s] for p, s in sorted(ml.items())]}


def strategy_matches(items: Iterable[tuple[dict[str, Any], str, float, float]]
                     ) -> dict[str, dict[str, list[list[float]]]]:
    """``smc``: :func:`matched_position` per ``customerStrategyRef`` (orders without one count in none).

    ``items`` are one runner's ``(uo, side, average price, size matched)``; only refs with a match appear.
    """
    by_ref: dict[str, list[tuple[str, float, float]]] = {}
    for uo, side, avp, matched in items:
        if uo["rfs"] and matched:
            by_ref.setdefault(uo["rfs"], []).append((side, avp, matched))
    return {ref: matched_position(rows) for ref, rows in sorted(by_ref.items())}
