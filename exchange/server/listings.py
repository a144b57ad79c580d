"""API-NG read methods: listCurrentOrders, listClearedOrders, listMarketBook, listMarketCatalogue.

Every list is of the caller's own orders only; nothing here can show one
account another's bets. Sizes are capped the way API-NG caps them
(``TOO_MUCH_DATA`` past the limit) so an absurd request cannot make the
server build an absurd answer: a page is at most 1000 records, a batch shares
one budget, and listMarketBook is weighted as Betfair weights it (see
:mod:`exchange.server.limits`). The order lists build their answers in the
server's one list lane, a slice at a time with a turn of the loop between
slices, so a large read never holds the loop for more than a millisecond or two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from exchange.betfair import apiformat
from exchange.core.orders import BetStatus, ClearedOrder, OrderStatus, OrderView
from exchange.server.auth import Session
from exchange.server.errors import ApiError, ApingCode, invalid_input
from exchange.server.limits import MAX_BOOK_WEIGHT, Budget, current_budget, market_book_weight, pause, slices
from exchange.server.params import (
    get_bool,
    get_enum,
    get_int,
    get_int_list,
    get_object,
    get_str_list,
)
from exchange.server.service import EVENT_TYPE_ID, EVENT_TYPE_NAME, ExchangeService

JsonDict = dict[str, Any]
MAX_RECORDS = 1000
MAX_MARKETS_BOOK = MAX_BOOK_WEIGHT // 5  # with EX_BEST_OFFERS (weight 5): ids a client may name at most
SCAN_SLICE = 2000  # orders filtered between two turns of the loop (about 1 ms)
MAX_CATALOGUE = 1000


def _window(params: Mapping[str, Any], limit: int) -> tuple[int, int]:
    """``fromRecord`` and ``recordCount`` (0 or absent: a full page; more than a page: a page)."""
    start = get_int(params, "fromRecord", default=0)
    count = get_int(params, "recordCount", default=limit)
    if start < 0 or count < 0:
        raise invalid_input("fromRecord and recordCount must not be negative")
    return start, min(count or limit, limit)


def _page(items: Sequence[Any], params: Mapping[str, Any], limit: int = MAX_RECORDS) -> tuple[list[Any], bool]:
    start, count = _window(params, limit)
    page = list(items[start : start + count])
    return page, start + count < len(items)


async def _formatted(items: Sequence[Any], format_one: Callable[[Any], JsonDict], budget: Budget) -> list[JsonDict]:
    """``format_one`` of every item, ``rows_per_slice`` at a time with a turn of the loop between slices."""
    out: list[JsonDict] = []
    for chunk in slices(items, budget.limits.rows_per_slice):
        if out:
            await pause()
        out += [format_one(item) for item in chunk]
    return out


async def _matching(items: Iterable[Any], keep: Callable[[Any], bool], budget: Budget) -> list[Any]:
    """The items ``keep`` accepts, scanned in slices with a turn of the loop between them."""
    out: list[Any] = []
    for i, chunk in enumerate(slices(items, SCAN_SLICE)):
        if i:
            await pause()
        out += [item for item in chunk if keep(item)]
    return out


def _bet_ids(params: Mapping[str, Any]) -> set[str] | None:
    ids = get_str_list(params, "betIds", max_items=MAX_RECORDS)
    return set(ids) if ids else None


async def list_current_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    bet_ids = _bet_ids(params)
    market_ids = set(get_str_list(params, "marketIds", max_items=MAX_RECORDS)) or None
    projection = get_enum(params, "orderProjection", ("ALL", "EXECUTABLE", "EXECUTION_COMPLETE"), default="ALL")
    order_by = get_enum(params, "orderBy", ("BY_BET", "BY_MARKET", "BY_MATCH_TIME", "BY_PLACE_TIME",
                                             "BY_SETTLED_TIME", "BY_VOID_TIME"), default="BY_PLACE_TIME")
    descending = get_enum(params, "sortDir", ("EARLIEST_TO_LATEST", "LATEST_TO_EARLIEST"),
                          default="EARLIEST_TO_LATEST") == "LATEST_TO_EARLIEST"
    refs = set(get_str_list(params, "customerOrderRefs")) or None
    strategies = set(get_str_list(params, "customerStrategyRefs")) or None
    budget = current_budget()
    async with budget.reading():
        orders = await _matching(service.orders(session.account), lambda o: (
            (bet_ids is None or str(o.bet_id) in bet_ids)
            and (market_ids is None or o.market_id in market_ids)
            and (refs is None or o.customer_ref in refs)
            and (strategies is None or o.strategy_ref in strategies)
            and (projection == "ALL" or str(o.status) == projection)), budget)
        orders.sort(key=_order_key(order_by), reverse=descending)
        page, more = _page(orders, params, budget.limits.max_rows_per_call)
        budget.charge_rows(len(page), "listCurrentOrders")
        return {"currentOrders": await _formatted(page, apiformat.current_order, budget), "moreAvailable": more}


def _order_key(order_by: str) -> Any:
    if order_by == "BY_MARKET":
        return lambda o: (o.market_id, o.placed_ts, o.bet_id)
    if order_by == "BY_MATCH_TIME":
        return lambda o: (o.matched_ts or 0, o.bet_id)
    return lambda o: (o.placed_ts, o.bet_id)


GROUPS = ("EVENT_TYPE", "EVENT", "MARKET", "SIDE", "BET", "RUNNER")


async def list_cleared_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    status = BetStatus(get_enum(params, "betStatus", tuple(BetStatus)))
    bet_ids = _bet_ids(params)
    market_ids = set(get_str_list(params, "marketIds", max_items=MAX_RECORDS)) or None
    runner_ids = set(get_int_list(params, "runnerIds", max_items=MAX_RECORDS)) or None
    side = params.get("side")
    if side is not None and side not in ("BACK", "LAY"):
        raise invalid_input(f"side must be BACK or LAY, not {side!r:.40}")
    group_by = get_enum(params, "groupBy", GROUPS, default="BET")
    get_bool(params, "includeItemDescription", default=False)
    strategies = set(get_str_list(params, "customerStrategyRefs")) or None
    refs = set(get_str_list(params, "customerOrderRefs")) or None
    budget = current_budget()
    limit = budget.limits.max_rows_per_call
    async with budget.reading():
        # In (settled_ts, bet_id) order already; a page of an unfiltered list is an index lookup.
        orders: Sequence[ClearedOrder] = await service.cleared_rows(session.account, status)
        if any(f is not None for f in (bet_ids, market_ids, runner_ids, side, strategies, refs)):
            orders = await _matching(orders, lambda o: (
                (bet_ids is None or str(o.bet_id) in bet_ids)
                and (market_ids is None or o.market_id in market_ids)
                and (runner_ids is None or o.selection_id in runner_ids)
                and (side is None or str(o.side) == side)
                and (strategies is None or o.strategy_ref in strategies)
                and (refs is None or o.customer_ref in refs)), budget)
        if group_by in ("BET", "SIDE", "RUNNER"):
            page, more = _page(orders, params, limit)
            budget.charge_rows(len(page), "listClearedOrders")
            rows = await _formatted(page, lambda o: apiformat.cleared_order(o, EVENT_TYPE_ID,
                                                                             service.event_id(o.market_id)), budget)
            return {"clearedOrders": rows, "moreAvailable": more}
        grouped = _grouped(service, session, orders, group_by)
        rows, more = _page(grouped, params, limit)
        budget.charge_rows(len(rows), "listClearedOrders")
        return {"clearedOrders": rows, "moreAvailable": more}


def _grouped(
    service: ExchangeService, session: Session, orders: Iterable[ClearedOrder], group_by: str
) -> list[JsonDict]:
    def event_of(market_id: str) -> str:
        return service.event_id(market_id)

    if group_by in ("BET", "SIDE", "RUNNER"):
        return [apiformat.cleared_order(o, EVENT_TYPE_ID, event_of(o.market_id)) for o in orders]
    groups: dict[str, list[ClearedOrder]] = {}
    for o in orders:
        key = {"EVENT_TYPE": EVENT_TYPE_ID, "EVENT": event_of(o.market_id), "MARKET": o.market_id}[group_by]
        groups.setdefault(key, []).append(o)
    rows = []
    for key, members in groups.items():
        markets = {o.market_id for o in members}
        row: JsonDict = {
            "eventTypeId": EVENT_TYPE_ID,
            "betCount": len(members),
            "profit": apiformat.money(sum(o.profit for o in members)),
            "commission": apiformat.money(sum(service.commission(session.account, m) for m in markets)),
            "settledDate": apiformat.iso(max(o.settled_ts for o in members)),
            "lastMatchedDate": apiformat.iso(max((o.last_matched_ts or 0) for o in members) or None),
        }
        if group_by in ("EVENT", "MARKET"):
            row["eventId"] = event_of(members[0].market_id)
        if group_by == "MARKET":
            row["marketId"] = key
        rows.append({k: v for k, v in row.items() if v is not None})
    return rows


async def list_market_book(
    service: ExchangeService, session: Session, params: Mapping[str, Any]
) -> list[JsonDict]:
    market_ids = get_str_list(params, "marketIds", max_items=MAX_MARKETS_BOOK * 10)
    if not params.get("marketIds"):
        raise invalid_input("marketIds is required (a list of market ids)")
    price_projection = get_object(params, "priceProjection", required=False)
    price_data = set(get_str_list(price_projection, "priceData", where="priceProjection."))
    unknown = price_data - {"EX_BEST_OFFERS", "EX_ALL_OFFERS", "EX_TRADED", "SP_AVAILABLE", "SP_TRADED"}
    if unknown:
        raise invalid_input(f"priceProjection.priceData has unknown values {sorted(unknown)}")
    overrides = get_object(price_projection, "exBestOffersOverrides", required=False, where="priceProjection.")
    depth: int | None = get_int(overrides, "bestPricesDepth", default=3, where="priceProjection.exBestOffersOverrides.")
    if depth is not None and depth <= 0:
        raise invalid_input("bestPricesDepth must be positive")
    unique_ids = list(dict.fromkeys(market_ids))
    weight = market_book_weight(price_data, depth)
    if weight * len(unique_ids) > MAX_BOOK_WEIGHT:
        raise ApiError(ApingCode.TOO_MUCH_DATA, f"listMarketBook weighs {weight} a market with this priceProjection; "
                       f"{len(unique_ids)} markets weigh {weight * len(unique_ids)}, over the limit of "
                       f"{MAX_BOOK_WEIGHT} (at most {MAX_BOOK_WEIGHT // weight} markets a call)")
    with_prices = bool(price_data & {"EX_BEST_OFFERS", "EX_ALL_OFFERS"})
    if "EX_ALL_OFFERS" in price_data:
        depth = None
    traded = "EX_TRADED" in price_data
    order_projection = params.get("orderProjection")
    if order_projection is not None and order_projection not in ("ALL", "EXECUTABLE", "EXECUTION_COMPLETE"):
        raise invalid_input(
            f"orderProjection must be ALL, EXECUTABLE or EXECUTION_COMPLETE, not {order_projection!r:.40}"
        )
    match_projection = params.get("matchProjection")
    if match_projection is not None and match_projection not in ("NO_ROLLUP", "ROLLED_UP_BY_PRICE",
                                                                 "ROLLED_UP_BY_AVG_PRICE"):
        raise invalid_input(f"matchProjection must be NO_ROLLUP, ROLLED_UP_BY_PRICE or ROLLED_UP_BY_AVG_PRICE, "
                            f"not {match_projection!r:.40}")
    out = []
    for i, market_id in enumerate(unique_ids):
        if i:
            await pause()
        book = service.market_book(market_id)
        if book is None:
            continue
        mine = [o for o in service.orders(session.account) if o.market_id == market_id] if (
            order_projection or match_projection) else []
        runners = []
        for r in book.runners:
            entry = apiformat.runner(r, with_prices=with_prices, depth=depth, traded=traded)
            theirs = [o for o in mine if o.selection_id == r.selection_id]
            if order_projection:
                entry["orders"] = [apiformat.runner_order(o) for o in theirs
                                   if order_projection == "ALL" or str(o.status) == order_projection]
            if match_projection:
                entry["matches"] = _matches(theirs, match_projection)
            runners.append(entry)
        out.append(apiformat.market_book(book, version=service.market_version(market_id), runners=runners,
                                         last_match_ms=service.last_match_ms(market_id)))
    return out


def _matches(orders: Sequence[OrderView], projection: str) -> list[JsonDict]:
    matched = [o for o in orders if o.size_matched]
    if projection == "NO_ROLLUP":
        return [{"betId": str(o.bet_id), "side": str(o.side), "price": apiformat.price(o.average_price_matched),
                 "size": apiformat.money(o.size_matched), "matchDate": apiformat.iso(o.matched_ts)} for o in matched]
    rolled: dict[tuple[str, float], int] = {}
    for o in matched:
        key = (str(o.side), apiformat.price(o.average_price_matched))
        rolled[key] = rolled.get(key, 0) + o.size_matched
    return [{"side": side, "price": p, "size": apiformat.money(size)} for (side, p), size in sorted(rolled.items())]


async def list_market_catalogue(
    service: ExchangeService, session: Session, params: Mapping[str, Any]
) -> list[JsonDict]:
    market_filter = get_object(params, "filter", required=False)
    max_results = get_int(params, "maxResults")
    if max_results <= 0:
        raise invalid_input(f"maxResults must be positive, not {max_results}")
    if max_results > MAX_CATALOGUE:
        raise ApiError(ApingCode.TOO_MUCH_DATA, f"maxResults is at most {MAX_CATALOGUE}, not {max_results}")
    projection = set(get_str_list(params, "marketProjection"))
    market_ids = set(get_str_list(market_filter, "marketIds", where="filter.")) or None
    event_ids = set(get_str_list(market_filter, "eventIds", where="filter.")) or None
    event_types = set(get_str_list(market_filter, "eventTypeIds", where="filter.")) or None
    text = market_filter.get("textQuery")
    if text is not None and not isinstance(text, str):
        raise invalid_input("filter.textQuery must be a string")
    out = []
    for info in service.catalogue():
        if market_ids is not None and info.market_id not in market_ids:
            continue
        if event_ids is not None and info.event_id not in event_ids:
            continue
        if event_types is not None and EVENT_TYPE_ID not in event_types:
            continue
        if text and text.lower() not in f"{info.event_name} {info.market_name}".lower():
            continue
        out.append(_catalogue_entry(service, info, projection))
        if len(out) >= max_results:
            break
    return out


def _catalogue_entry(service: ExchangeService, info: Any, projection: set[str]) -> JsonDict:
    book = service.market_book(info.market_id)
    entry: JsonDict = {
        "marketId": info.market_id,
        "marketName": info.market_name,
        "totalMatched": apiformat.money(book.total_matched if book else 0),
    }
    if "MARKET_START_TIME" in projection:
        entry["marketStartTime"] = apiformat.iso(info.market_time_ms)
    if "EVENT_TYPE" in projection:
        entry["eventType"] = {"id": EVENT_TYPE_ID, "name": EVENT_TYPE_NAME}
    if "EVENT" in projection:
        entry["event"] = {"id": info.event_id, "name": info.event_name, "countryCode": "GB", "timezone": "UTC",
                          "openDate": apiformat.iso(info.open_ms)}
    if "MARKET_DESCRIPTION" in projection:
        entry["description"] = {
            "persistenceEnabled": False, "bspMarket": False, "marketTime": apiformat.iso(info.market_time_ms),
            "suspendTime": apiformat.iso(info.suspend_ms), "bettingType": "ODDS", "turnInPlayEnabled": True,
            "marketType": "WIN", "regulator": "MR_INT", "marketBaseRate": float(info.commission_percent),
            "discountAllowed": False, "wallet": "UK", "rules": "Exchange Poker: four hands that never fold; "
            "dead-heat rule; unmatched bets lapse at each window close.", "rulesHasDate": False,
            "priceLadderDescription": {"type": "CLASSIC"},
        }
    if "RUNNER_DESCRIPTION" in projection or "RUNNER_METADATA" in projection:
        entry["runners"] = [
            {"selectionId": i + 1, "runnerName": name, "handicap": 0.0, "sortPriority": i + 1}
            | ({"metadata": {"runnerId": str(i + 1)}} if "RUNNER_METADATA" in projection else {})
            for i, name in enumerate(info.runner_names)
        ]
    return entry


_ = OrderStatus
