"""API-NG ``listClearedOrders``: the caller's settled, voided, lapsed or cancelled bets, filtered and grouped.

Every filter of the call is honoured: ``betIds``, ``marketIds``, ``runnerIds``,
``side``, ``eventTypeIds``, ``eventIds``, ``customerOrderRefs``,
``customerStrategyRefs`` and ``settledDateRange`` (on the settled date: a ``MARKET``, ``EVENT`` or ``EVENT_TYPE``
rollup takes the markets with a bet settled in it, whole, as Betfair's "will always return the overall position
from the market including all settlements", so that its commission, charged on the whole market, comes with the
profit it was charged on), and
``includeItemDescription`` adds each row's ``itemDescription`` (a rolled-up row's: what its bets share, down to
the market, the event or the event type). ``groupBy``
rolls the bets up as Betfair does: ``BET`` one row a bet; ``SIDE`` one row per
market, runner and side (the stake-weighted ``priceMatched``, sizes and profit
summed); ``RUNNER`` per market and runner; ``MARKET``, ``EVENT`` and
``EVENT_TYPE`` coarser still, with the account's ``commission`` on their
markets (with ``SETTLED`` bets only: commission is charged on settled bets, so
other statuses' rollups say 0 and no market's commission is counted twice); ``STRATEGY`` one row per
``customerStrategyRef`` across every market ("settled P&L and the number of bet orders", as Betfair documents it:
no commission, which is charged per market whatever the strategy; the bets without a ref make one row without
one). A SIDE, RUNNER or MARKET row also
carries the bet-level fields that are unambiguous in it, as Betfair's table of roll-up fields has them
(:func:`_hoisted`).
Pages (``fromRecord``/``recordCount``) count the rows returned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exchange.betfair import apiformat
from exchange.betfair.description import market_type_of
from exchange.betfair.stream import EVENT_TYPE_ID, EVENT_TYPE_NAME
from exchange.core.orders import BetStatus, ClearedOrder
from exchange.server.auth import Session
from exchange.server.errors import invalid_input
from exchange.server.limits import current_budget
from exchange.server.listings import (
    MAX_CLEARED_IDS,
    MAX_RECORDS,
    _bet_ids,
    _formatted,
    _in_range,
    _matching,
    _page,
    check_id_count,
    refuse_source_id,
)
from exchange.server.market_filter import parse_time_range
from exchange.server.params import get_bool, get_enum, get_int_list, get_str, get_str_list
from exchange.server.service import ExchangeService

JsonDict = dict[str, Any]
GROUPS = ("EVENT_TYPE", "EVENT", "MARKET", "SIDE", "BET", "RUNNER", "STRATEGY")
#: The rollups that carry their markets' commission: a settled date range takes each of their markets whole.
WHOLE_MARKETS = ("MARKET", "EVENT", "EVENT_TYPE")


def _filter(service: ExchangeService, params: Mapping[str, Any]) -> Callable[[ClearedOrder], bool] | None:
    """A predicate for every filter the call gives but ``settledDateRange`` (:func:`_settled_in`), or None if it
    gives none (the index answers as it is)."""
    bet_ids = _bet_ids(params)
    market_ids = set(get_str_list(params, "marketIds", max_items=None)) or None
    check_id_count("listClearedOrders", len(bet_ids or ()) + len(market_ids or ()), "betIds and marketIds together",
                   MAX_CLEARED_IDS)
    runner_ids = set(get_int_list(params, "runnerIds", max_items=MAX_RECORDS)) or None
    side = params.get("side")
    if side is not None and side not in ("BACK", "LAY"):
        raise invalid_input(f"side must be BACK or LAY, not {side!r:.40}")
    event_types = set(get_str_list(params, "eventTypeIds")) or None
    event_ids = set(get_str_list(params, "eventIds", max_items=MAX_RECORDS)) or None
    strategies = set(get_str_list(params, "customerStrategyRefs")) or None
    refs = set(get_str_list(params, "customerOrderRefs")) or None
    if all(f is None for f in (bet_ids, market_ids, runner_ids, side, event_types, event_ids, strategies, refs)):
        return None
    return lambda o: (
        (bet_ids is None or str(o.bet_id) in bet_ids)
        and (market_ids is None or o.market_id in market_ids)
        and (runner_ids is None or o.selection_id in runner_ids)
        and (side is None or str(o.side) == side)
        and (event_types is None or EVENT_TYPE_ID in event_types)
        and (event_ids is None or service.event_id(o.market_id) in event_ids)
        and (strategies is None or o.strategy_ref in strategies)
        and (refs is None or o.customer_ref in refs))


async def _settled_in(orders: Sequence[ClearedOrder], start: int | None, end: int | None,
                      group_by: str) -> list[ClearedOrder]:
    """The bets settled in ``settledDateRange``; for a rollup with commission (:data:`WHOLE_MARKETS`), every bet of
    each market with one settled in it (a market whose hands settled early settles at several times)."""
    settled = await _matching(orders, lambda o: _in_range(o.settled_ts, start, end))
    if group_by not in WHOLE_MARKETS:
        return settled
    markets = {o.market_id for o in settled}
    return await _matching(orders, lambda o: o.market_id in markets)


async def list_cleared_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    status = BetStatus(get_enum(params, "betStatus", tuple(BetStatus)))
    group_by = get_enum(params, "groupBy", GROUPS, default="BET")
    describe = get_bool(params, "includeItemDescription", default=False)
    refuse_source_id(params)
    get_str(params, "locale", required=False, max_len=16)  # one language here: checked, as every method does
    keep = _filter(service, params)
    start, end = parse_time_range(params, "settledDateRange")
    budget = current_budget()
    limit = budget.limits.max_rows_per_call
    async with budget.reading():
        # In (settled_ts, bet_id) order already; a page of an unfiltered list is an index lookup.
        orders: Sequence[ClearedOrder] = await service.cleared_rows(session.account, status)
        if keep is not None:
            orders = await _matching(orders, keep)
        if start is not None or end is not None:
            orders = await _settled_in(orders, start, end, group_by)
        if group_by == "BET":
            page, more = _page(orders, params, limit)
            budget.charge_rows(len(page), "listClearedOrders")
            rows = await _formatted(page, lambda o: _bet_row(service, o, describe), budget)
            return {"clearedOrders": rows, "moreAvailable": more}
        grouped = _grouped(service, session, orders, group_by, describe)
        rows, more = _page(grouped, params, limit)
        budget.charge_rows(len(rows), "listClearedOrders")
        return {"clearedOrders": rows, "moreAvailable": more}


def _bet_row(service: ExchangeService, order: ClearedOrder, describe: bool) -> JsonDict:
    row = apiformat.cleared_order(order, EVENT_TYPE_ID, service.event_id(order.market_id))
    if describe:
        row["itemDescription"] = item_description(service, order.market_id, order.selection_id)
    return row


def item_description(service: ExchangeService, market_id: str, selection_id: int | None) -> JsonDict:
    """API-NG ``ItemDescription`` of a market (and runner) from the catalogue."""
    info = service.recorder_info(market_id)
    out: JsonDict = {"eventTypeDesc": EVENT_TYPE_NAME, "marketType": market_type_of(market_id), "numberOfWinners": 1,
                     "eachWayDivisor": None}
    if info is not None:
        out |= {"eventDesc": info.event_name, "marketDesc": info.market_name,
                "marketStartTime": apiformat.iso(info.market_time_ms)}
        if selection_id is not None and 1 <= selection_id <= len(info.runner_names):
            out["runnerDesc"] = info.runner_names[selection_id - 1]
    return {k: v for k, v in out.items() if v is not None}


def _size_settled(order: ClearedOrder) -> int:
    """The bet's ``sizeSettled`` as its own row shows it (:func:`exchange.betfair.apiformat.cleared_order`): the
    stake voided for a voided bet, else the stake settled; a group's is the sum of its bets'."""
    return order.size_voided if order.bet_status is BetStatus.VOIDED else order.size_settled


def _group_key(service: ExchangeService, order: ClearedOrder, group_by: str) -> tuple[Any, ...]:
    if group_by == "SIDE":
        return order.market_id, order.selection_id, str(order.side)
    if group_by == "RUNNER":
        return order.market_id, order.selection_id
    if group_by == "MARKET":
        return (order.market_id,)
    if group_by == "STRATEGY":
        return (order.strategy_ref,)
    return (service.event_id(order.market_id),) if group_by == "EVENT" else (EVENT_TYPE_ID,)


def _grouped(service: ExchangeService, session: Session, orders: Iterable[ClearedOrder], group_by: str,
             describe: bool) -> list[JsonDict]:
    groups: dict[tuple[Any, ...], list[ClearedOrder]] = {}
    for o in orders:
        groups.setdefault(_group_key(service, o, group_by), []).append(o)
    return [_group_row(service, session, members, group_by, describe) for members in groups.values()]


def _group_row(service: ExchangeService, session: Session, members: list[ClearedOrder], group_by: str,
               describe: bool) -> JsonDict:
    first = members[0]
    row: JsonDict = {
        "eventTypeId": EVENT_TYPE_ID,
        "betCount": len(members),
        "profit": apiformat.money(sum(o.profit for o in members)),
        "settledDate": apiformat.iso(max(o.settled_ts for o in members)),
        "lastMatchedDate": apiformat.iso(max((o.last_matched_ts or 0) for o in members) or None),
    }
    if group_by == "STRATEGY":  # across markets and events: neither is named
        row["customerStrategyRef"] = first.strategy_ref
    elif group_by != "EVENT_TYPE":
        row["eventId"] = service.event_id(first.market_id)
    if group_by in WHOLE_MARKETS:
        # charged on the settled bets: a rollup of voided, lapsed or cancelled bets carries none, so that a client
        # summing profit less commission over every bet status counts each market's commission once
        markets = {o.market_id for o in members} if first.bet_status is BetStatus.SETTLED else set()
        row["commission"] = apiformat.money(sum(service.commission(session.account, m) for m in markets))
    elif group_by in ("SIDE", "RUNNER"):  # one runner of one market
        row |= {"marketId": first.market_id, "selectionId": first.selection_id, "handicap": 0.0,
                "sizeCancelled": apiformat.money(sum(o.size_cancelled + o.size_lapsed for o in members))}
    if describe:
        row["itemDescription"] = _group_description(service, first, group_by)
    if group_by == "MARKET":
        row["marketId"] = first.market_id
    if group_by in ("SIDE", "RUNNER", "MARKET"):
        row |= _hoisted(members, group_by)
    return {k: v for k, v in row.items() if v is not None}


def _group_description(service: ExchangeService, first: ClearedOrder, group_by: str) -> JsonDict:
    """A rolled-up row's ``itemDescription``: as much of a bet's as every bet of the row shares (the runner's for a
    SIDE or RUNNER row, the market's for a MARKET row, the event's for an EVENT row, the event type's else)."""
    if group_by in ("SIDE", "RUNNER", "MARKET"):
        return item_description(service, first.market_id, None if group_by == "MARKET" else first.selection_id)
    shared = ("eventTypeDesc", "eventDesc") if group_by == "EVENT" else ("eventTypeDesc",)
    whole = item_description(service, first.market_id, None)
    return {k: whole[k] for k in shared if k in whole}


def _hoisted(members: Sequence[ClearedOrder], group_by: str) -> JsonDict:
    """The bet-level fields a SIDE, RUNNER or MARKET row carries, as Betfair's roll-ups "hoist" them wherever
    they are unambiguous: the latest ``placedDate``, and ``persistenceType``, ``orderType`` and ``priceReduced``
    (the same for every bet here); ``side``, ``priceRequested`` (the bets' mean), ``priceMatched`` (weighted by the
    size settled) and ``sizeSettled`` (summed) when the bets are all on one side (a RUNNER row) or one runner and
    side (a MARKET row, which then names the runner too); and ``betId`` for a row of one bet."""
    first = members[0]
    row: JsonDict = {"placedDate": apiformat.iso(max(o.placed_ts for o in members)), "persistenceType": "LAPSE",
                     "orderType": "LIMIT", "priceReduced": False}
    if group_by == "SIDE" or all(o.selection_id == first.selection_id and o.side is first.side for o in members):
        row["side"] = str(first.side)
        row["priceRequested"] = apiformat.price(sum((Fraction(o.price_requested) for o in members), Fraction(0))
                                                / len(members))
        row["sizeSettled"] = apiformat.money(sum(_size_settled(o) for o in members))
        matched = [(_size_settled(o), o.price_matched) for o in members
                   if o.price_matched is not None and _size_settled(o)]
        total = sum(size for size, _ in matched)
        if total:
            row["priceMatched"] = apiformat.price(sum((size * price for size, price in matched), Fraction(0)) / total)
        if group_by == "MARKET":
            row |= {"selectionId": first.selection_id, "handicap": 0.0}
    if len(members) == 1:
        row["betId"] = str(first.bet_id)
    return row
