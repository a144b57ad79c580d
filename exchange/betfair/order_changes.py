"""The Exchange Stream's order changes (``ocm`` ``oc`` records), from the core's order views and cleared orders.

An order runner change (``orc``) carries the account's orders on the runner (``uo``) and its matched
position: ``mb``/``ml``, the matched backs and lays "by distinct matched price", and ``smc``, the same per
``customerStrategyRef``.  A price there is the price of a fill, not an order's average: a back at 3.0 that
takes 2.00 at 3.2 and 2.00 at 3.0 is ``mb`` ``[[3.0, 2.0], [3.2, 2.0]]``.  The sums are exact (minor units
per ladder tick, from :meth:`exchange.core.exchange.Exchange.matched_on`, voided matches left out) and become
floats only at the end.

Two shapes, as Betfair sends them:

* the **image** (:func:`market_image`, a subscription's first message): per runner where the account has
  an executable order or a matched stake, ``fullImage: true``, the *executable* orders only in ``uo`` (an
  order fully matched, cancelled or lapsed is left out; its matched stake stays in ``mb``/``ml``/``smc``),
  and the whole matched position; empty fields are left out;
* a **delta** (:func:`market_delta`, every later message): only the runners that changed, in ``uo`` only
  the orders that changed (one that became EXECUTION_COMPLETE is sent once more, status ``EC``), and in
  ``mb``/``ml``/``smc`` only the levels that moved, each with its stake now: ``[price, 0]`` for a level
  whose stake went (a voided match), which a client's cache drops.  ``closed: true`` when the market closed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from exchange.betfair import apiformat
from exchange.core.orders import ClearedOrder, LapseReason, MatchedByTick, MatchedRow, OrderStatus, OrderView
from exchange.core.side import Side


def order_change(bet_id: int, price: Decimal, size: int, side: Side, complete: bool, placed: int,
                 matched_ts: int | None, avp: float, sm: int, sr: int, sl: int, sc: int, sv: int, ref: str | None,
                 rfs: str | None, *, cancelled_ts: int | None, lapsed_ts: int | None,
                 lapse_reason: LapseReason | None) -> dict[str, Any]:
    """One ``uo`` record: the order's sizes matched, remaining, lapsed, cancelled and voided, its refs; when it
    last matched (``md``), was last cancelled (``cd``) and lapsed (``ld``, with Betfair's ``lsrc`` where
    Betfair has a code for the reason), each left out if it never did."""
    out: dict[str, Any] = {
        "id": str(bet_id), "p": float(price), "s": apiformat.money(size), "side": "B" if side is Side.BACK else "L",
        "status": "EC" if complete else "E", "pt": "L", "ot": "L", "pd": placed, "avp": avp,
        "sm": apiformat.money(sm), "sr": apiformat.money(sr), "sl": apiformat.money(sl), "sc": apiformat.money(sc),
        "sv": apiformat.money(sv), "rac": "", "rc": "REG_GGC", "rfo": ref or "", "rfs": rfs or "",
    }
    for key, ts in (("md", matched_ts), ("cd", cancelled_ts), ("ld", lapsed_ts)):
        if ts is not None:
            out[key] = ts
    if (code := apiformat.lapse_status_reason(lapse_reason)) is not None:
        out["lsrc"] = code
    return out


@dataclass(frozen=True, slots=True)
class OrderRow:
    """One order of a market's change: its ``uo`` record and what groups its matches (runner, bet, side, ref)."""

    selection_id: int
    bet_id: int
    side: Side
    strategy_ref: str | None
    uo: dict[str, Any]


def open_order(o: OrderView) -> OrderRow:
    """The row of an order on an open market."""
    uo = order_change(o.bet_id, o.price, o.size, o.side, o.status is OrderStatus.EXECUTION_COMPLETE, o.placed_ts,
             o.matched_ts, apiformat.price(o.average_price_matched), o.size_matched, o.size_remaining, o.size_lapsed,
             o.size_cancelled, o.size_voided, o.customer_ref, o.strategy_ref, cancelled_ts=o.cancelled_ts,
             lapsed_ts=o.lapsed_ts, lapse_reason=o.lapse_reason)
    return OrderRow(o.selection_id, o.bet_id, o.side, o.strategy_ref, uo)


def cleared_order(o: ClearedOrder) -> OrderRow:
    """The row of a cleared order (its market closed)."""
    uo = order_change(o.bet_id, o.price_requested, o.size, o.side, True, o.placed_ts, o.last_matched_ts,
             apiformat.price(o.price_matched), o.size_matched, 0, o.size_lapsed, o.size_cancelled, o.size_voided,
             o.customer_ref, o.strategy_ref, cancelled_ts=o.cancelled_ts, lapsed_ts=o.lapsed_ts,
             lapse_reason=o.lapse_reason)
    return OrderRow(o.selection_id, o.bet_id, o.side, o.strategy_ref, uo)


def matched_position(matches: Iterable[tuple[Side, MatchedByTick]]) -> dict[str, list[list[float]]]:
    """``{"mb": ..., "ml": ...}``: the matched backs and lays of ``(side, matched stake by tick)`` rows (one
    per order), stakes summed per tick in minor units, ascending by price, then shown as ``[price, size]``.

    Two backs, one filled at 3.0 and 3.2 (ticks 149, 153), one at 3.0; a lay filled at 2.5 (tick 124):

    >>> matched_position([(Side.BACK, ((149, 200), (153, 200))), (Side.LAY, ((124, 100),)),
    ...                   (Side.BACK, ((149, 450),)), (Side.BACK, ())])
    {'mb': [[3.0, 6.5], [3.2, 2.0]], 'ml': [[2.5, 1.0]]}
    """
    backs, lays = _sums(matches)
    return {"mb": _price_sizes(backs), "ml": _price_sizes(lays)}


def matched_levels(matches: Iterable[tuple[Side, MatchedByTick]], ticks: Mapping[Side, Iterable[int]]
                   ) -> dict[str, list[list[float]]]:
    """:func:`matched_position` at the given ticks only, a tick with no stake as ``[price, 0]``; a side with
    no tick given is left out.  What a delta sends of the levels that moved.

    >>> matched_levels([(Side.BACK, ((149, 200), (153, 200))), (Side.BACK, ((149, 450),))],
    ...                {Side.BACK: [153, 149, 160], Side.LAY: [124]})
    {'mb': [[3.0, 6.5], [3.2, 2.0], [3.55, 0.0]], 'ml': [[2.5, 0.0]]}
    """
    backs, lays = _sums(matches)
    out = {}
    for key, side, sums in (("mb", Side.BACK, backs), ("ml", Side.LAY, lays)):
        wanted = sorted(set(ticks.get(side, ())))
        if wanted:
            out[key] = _price_sizes({tick: sums.get(tick, 0) for tick in wanted})
    return out


def _sums(matches: Iterable[tuple[Side, MatchedByTick]]) -> tuple[dict[int, int], dict[int, int]]:
    """The matched backs and lays summed per tick, in minor units: the one place they are added up."""
    backs: dict[int, int] = {}
    lays: dict[int, int] = {}
    for side, by_tick in matches:
        sums = backs if side is Side.BACK else lays
        for tick, size in by_tick:
            sums[tick] = sums.get(tick, 0) + size
    return backs, lays


def _price_sizes(sums: Mapping[int, int]) -> list[list[float]]:
    return [[apiformat.tick_price(tick), apiformat.money(size)] for tick, size in sorted(sums.items())]


def strategy_matches(matches: Iterable[tuple[Side, str | None, MatchedByTick]]
                     ) -> dict[str, dict[str, list[list[float]]]]:
    """``smc``: :func:`matched_position` per ``customerStrategyRef`` of ``(side, ref, matched stake by tick)``
    rows; orders without a ref count in none, and only refs with a match appear, in order of ref.

    >>> strategy_matches([(Side.BACK, "s1", ((149, 200), (153, 200))), (Side.LAY, None, ((124, 100),)),
    ...                   (Side.LAY, "s2", ()), (Side.BACK, "s1", ((149, 100),))])
    {'s1': {'mb': [[3.0, 3.0], [3.2, 2.0]], 'ml': []}}
    """
    by_ref: dict[str, list[tuple[Side, MatchedByTick]]] = {}
    for side, ref, by_tick in matches:
        if ref and by_tick:
            by_ref.setdefault(ref, []).append((side, by_tick))
    return {ref: matched_position(rows) for ref, rows in sorted(by_ref.items())}


def market_image(market_id: str, rows: Sequence[OrderRow], matched: Mapping[int, Sequence[MatchedRow]],
                 *, ended: bool = False) -> dict[str, Any]:
    """One market's ``oc`` entry in a subscription's image: per runner (by selection id) where the account has
    an executable order or a matched stake, ``fullImage`` with the executable orders and the whole matched
    position (the stream sends ``smc`` only to the subscriptions that partition by it); ``orc`` is empty when
    no runner qualifies. ``ended``: the orders no longer executable too, and the runners with only those (a
    resubscription's image: the client's cache may still hold them executable, as they were when it left).

    ``rows`` are the account's orders on the market; ``matched`` its matched rows by selection id
    (:meth:`exchange.core.exchange.Exchange.matched_on`; a selection with none may be absent).
    """
    by_runner: dict[int, list[OrderRow]] = {}
    for row in rows:
        by_runner.setdefault(row.selection_id, []).append(row)
    orc = []
    for selection_id, runner_rows in sorted(by_runner.items()):
        fills = matched.get(selection_id, ())
        image: dict[str, Any] = {"id": selection_id, "fullImage": True}
        uo = [r.uo for r in runner_rows if ended or r.uo["status"] == "E"]
        if uo:
            image["uo"] = uo
        overall = matched_position((side, by_tick) for side, _, by_tick in fills)
        image.update((key, levels) for key, levels in overall.items() if levels)
        smc = strategy_matches(fills)
        if smc:
            image["smc"] = smc
        if len(image) > 2:
            orc.append(image)
    return {"id": market_id, "orc": orc}


def market_delta(market_id: str, rows: Sequence[OrderRow], levels: Iterable[tuple[int, Side, int, int]],
                 matched: Mapping[int, Sequence[MatchedRow]], *, closed: bool) -> dict[str, Any] | None:
    """One market's ``oc`` entry in a delta, or None if nothing changed: per runner that changed, the records
    of the orders that changed (``rows``) and the matched levels that moved (``levels``: selection id, side,
    tick and the bet whose match moved it, one of ``rows``), each with the stake now, overall and (``smc``) per
    strategy ref, each ref's only at the levels its own bets moved; ``closed: true`` once the market has closed.

    ``matched`` is, for each selection with a level in ``levels``, the account's matched rows on it
    (:meth:`exchange.core.exchange.Exchange.matched_on`).
    """
    ref_of = {row.bet_id: row.strategy_ref for row in rows}
    moved: dict[int, dict[Side, set[int]]] = {}
    moved_by_ref: dict[int, dict[str, dict[Side, set[int]]]] = {}
    for selection_id, side, tick, bet_id in levels:
        moved.setdefault(selection_id, {}).setdefault(side, set()).add(tick)
        ref = ref_of.get(bet_id)
        if ref:
            moved_by_ref.setdefault(selection_id, {}).setdefault(ref, {}).setdefault(side, set()).add(tick)
    by_runner: dict[int, list[OrderRow]] = {}
    for row in rows:
        by_runner.setdefault(row.selection_id, []).append(row)
    orc = []
    for selection_id in sorted(by_runner.keys() | moved.keys()):
        change: dict[str, Any] = {"id": selection_id}
        runner_rows = by_runner.get(selection_id, [])
        if runner_rows:
            change["uo"] = [r.uo for r in runner_rows]
        ticks = moved.get(selection_id)
        if ticks:
            rows_now = matched.get(selection_id, ())
            change.update(matched_levels(((side, by_tick) for side, _, by_tick in rows_now), ticks))
            smc = {ref: matched_levels(((side, t) for side, r, t in rows_now if r == ref), its_ticks)
                   for ref, its_ticks in sorted(moved_by_ref.get(selection_id, {}).items())}
            if smc:
                change["smc"] = smc
        orc.append(change)
    if not orc and not closed:
        return None
    out: dict[str, Any] = {"id": market_id, "orc": orc}
    if closed:
        out["closed"] = True
    return out
