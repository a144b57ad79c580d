"""API-NG read methods: listCurrentOrders, listMarketBook, listRunnerBook, listMarketCatalogue
(listClearedOrders: :mod:`exchange.server.cleared_orders`).

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

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exchange.betfair import apiformat
from exchange.betfair.stream import EVENT_TYPE_ID, EVENT_TYPE_NAME
from exchange.core.orders import BetStatus, MatchView, OrderStatus, OrderView
from exchange.server.auth import Session
from exchange.server.discovery import event, open_markets
from exchange.server.errors import ApiError, ApingCode, invalid_input
from exchange.server.limits import (
    CATALOGUE_WEIGHTS,
    Budget,
    check_weight,
    current_budget,
    market_book_weight,
    pause,
    slices,
)
from exchange.server.market_filter import parse_market_filter, parse_time, parse_time_range
from exchange.server.market_infos import MarketInfo
from exchange.server.params import (
    MARKET_ID_MAX,
    get_bool,
    get_enum,
    get_int,
    get_str,
    get_str_list,
    number_text,
    record_window,
)
from exchange.server.price_projection import parse_price_projection
from exchange.server.service import ExchangeService

JsonDict = dict[str, Any]
MAX_RECORDS = 1000
SCAN_SLICE = 2000  # orders filtered between two turns of the loop (about 1 ms)
MAX_CATALOGUE = 1000


def _page(items: Sequence[Any], params: Mapping[str, Any], limit: int = MAX_RECORDS) -> tuple[list[Any], bool]:
    start, count = record_window(params, limit)
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


async def _matching(items: Iterable[Any], keep: Callable[[Any], bool]) -> list[Any]:
    """The items ``keep`` accepts, scanned :data:`SCAN_SLICE` at a time with a turn of the loop between slices (a
    fixed slice: a test is cheaper than a row's formatting, which ``Limits.rows_per_slice`` paces)."""
    out: list[Any] = []
    for i, chunk in enumerate(slices(items, SCAN_SLICE)):
        if i:
            await pause()
        out += [item for item in chunk if keep(item)]
    return out


def refuse_source_id(params: Mapping[str, Any]) -> None:
    """``includeSourceId`` (listCurrentOrders, listClearedOrders): ``false`` is the one answer. Betfair's adds the
    source of each order (``sourceIdKey``, ``sourceIdDescription``), which orders here do not keep, so ``true`` is
    refused rather than answered without it."""
    if get_bool(params, "includeSourceId", default=False):
        raise invalid_input("includeSourceId true is not offered: orders here keep no source id; "
                            "leave it out or send false")


def _bet_ids(params: Mapping[str, Any]) -> set[str] | None:
    """``betIds`` as a set (None: not given); unbounded here, as the caller counts them (:func:`check_id_count`)."""
    ids = get_str_list(params, "betIds", max_items=None)
    return set(ids) if ids else None


MAX_IDS = 250  # betIds and marketIds a listCurrentOrders names together, betIds a listMarketBook names: Betfair's
MAX_CLEARED_IDS = 1000  # betIds and marketIds a listClearedOrders names together: Betfair's


def check_id_count(method: str, named: int, what: str, limit: int = MAX_IDS) -> None:
    """Refuse a call naming more than ``limit`` ids with ``REQUEST_SIZE_EXCEEDS_LIMIT``, as Betfair does."""
    if named > limit:
        raise ApiError(ApingCode.REQUEST_SIZE_EXCEEDS_LIMIT,
                       f"{method} takes at most {limit} {what}, not {named}: ask in several calls")


async def list_current_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    bet_ids = _bet_ids(params)
    market_ids = set(get_str_list(params, "marketIds", max_items=None)) or None
    check_id_count("listCurrentOrders", len(bet_ids or ()) + len(market_ids or ()), "betIds and marketIds together")
    projection = get_enum(params, "orderProjection", ("ALL", "EXECUTABLE", "EXECUTION_COMPLETE"), default="ALL")
    order_by = get_enum(params, "orderBy", ("BY_BET", "BY_MARKET", "BY_MATCH_TIME", "BY_PLACE_TIME",
                                             "BY_SETTLED_TIME", "BY_VOID_TIME"), default="BY_BET")
    descending = get_enum(params, "sortDir", ("EARLIEST_TO_LATEST", "LATEST_TO_EARLIEST"),
                          default="EARLIEST_TO_LATEST") == "LATEST_TO_EARLIEST"
    refs = set(get_str_list(params, "customerOrderRefs")) or None
    strategies = set(get_str_list(params, "customerStrategyRefs")) or None
    start, end = parse_time_range(params, "dateRange")
    # API-NG's deprecated forerunner of dateRange, still in its signature: on the placed date whatever the orderBy
    placed_from, placed_to = parse_time_range(params, "placedDateRange")
    describe = get_bool(params, "includeItemDescription", default=False)
    refuse_source_id(params)
    budget = current_budget()
    async with budget.reading():
        every = service.orders(session.account)
        dated = _order_date(service, session.account, every, order_by)
        orders = await _matching(every, lambda o: (
            (bet_ids is None or str(o.bet_id) in bet_ids)
            and (market_ids is None or o.market_id in market_ids)
            and (refs is None or o.customer_ref in refs)
            and (strategies is None or o.strategy_ref in strategies)
            and (projection == "ALL" or str(o.status) == projection)
            and _in_range(dated(o), start, end)
            and _in_range(o.placed_ts, placed_from, placed_to)))
        orders.sort(key=_order_sort_key(order_by, dated), reverse=descending)
        page, more = _page(orders, params, budget.limits.max_rows_per_call)
        budget.charge_rows(len(page), "listCurrentOrders")
        rows = await _formatted(page, apiformat.current_order, budget)
        if describe:  # API-NG's CurrentItemDescription: the version of the order's market
            for row in rows:
                row["currentItemDescription"] = {"marketVersion": {"version": service.market_version(row["marketId"])}}
        return {"currentOrders": rows, "moreAvailable": more}


def _order_date(service: ExchangeService, account: str, orders: Sequence[OrderView], order_by: str
                ) -> Callable[[OrderView], int | None]:
    """The date listCurrentOrders sorts ``orders`` by under ``orderBy`` and applies ``dateRange`` to; None for an
    order without one, which is not listed.

    As API-NG's, ``orderBy`` filters as it sorts: ``BY_MATCH_TIME`` lists only the orders with a match (at the
    last fill's date), ``BY_SETTLED_TIME`` only the bets settled on a selection settled early (at that
    settlement's date), ``BY_VOID_TIME`` only the orders with a voided stake (at their last void's date); the
    others list every order at its placed date.
    """
    if order_by == "BY_MATCH_TIME":
        return lambda o: o.matched_ts
    if order_by == "BY_VOID_TIME":
        voided = service.notes.voided
        return lambda o: voided.get(o.market_id, {}).get(o.bet_id, o.placed_ts) if o.size_voided else None
    if order_by == "BY_SETTLED_TIME":
        settled = {c.bet_id: c.settled_ts for market_id in {o.market_id for o in orders}
                   for c in service.exchange.cleared_orders(account, market_id) if c.bet_status is BetStatus.SETTLED}
        return lambda o: settled.get(o.bet_id)
    return lambda o: o.placed_ts


def _order_sort_key(order_by: str, dated: Callable[[OrderView], int | None]
                    ) -> Callable[[OrderView], tuple[Any, ...]]:
    """listCurrentOrders' order under ``orderBy``, as API-NG documents each: ``BY_MARKET`` by market, placed date and
    bet; the dates by their date (``dated``), then, for ``BY_SETTLED_TIME`` and ``BY_VOID_TIME``, the last match's
    date, then the placed date and the bet id (placed dates and bet ids rise together here)."""
    if order_by == "BY_MARKET":
        return lambda o: (o.market_id, o.placed_ts, o.bet_id)
    if order_by in ("BY_SETTLED_TIME", "BY_VOID_TIME"):
        return lambda o: (dated(o), o.matched_ts or 0, o.placed_ts, o.bet_id)
    return lambda o: (dated(o), o.placed_ts, o.bet_id)


def _in_range(ms: int | None, start: int | None, end: int | None) -> bool:
    return ms is not None and (start is None or ms >= start) and (end is None or ms <= end)


async def list_market_book(
    service: ExchangeService, session: Session, params: Mapping[str, Any]
) -> list[JsonDict]:
    market_ids = get_str_list(params, "marketIds", max_items=None)  # the weight bounds them: TOO_MUCH_DATA
    if not params.get("marketIds"):
        raise invalid_input("marketIds is required (a list of market ids)")
    projection = parse_price_projection(params, min_stake=service.exchange.config.min_stake)
    unique_ids = list(dict.fromkeys(market_ids))
    check_weight("listMarketBook", market_book_weight(projection.price_data, projection.depth), len(unique_ids),
                 " with this priceProjection")
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
    wanted, overall, by_strategy = _order_filters(params)
    if order_projection is None:  # API-NG's matchProjection: "if you ask for orders", how their matches are shown
        match_projection = None
    out = []
    for i, market_id in enumerate(unique_ids):
        if i:
            await pause()
        book = service.market_book(market_id)
        if book is None:
            continue
        every = [o for o in service.orders(session.account) if o.market_id == market_id] if order_projection else []
        mine = [o for o in every if wanted(o)]
        fills = service.exchange.matches(session.account, market_id) if match_projection and every else ()
        runners = []
        for r in book.runners:
            shown = dataclasses.replace(r, available_to_back=projection.offers(r.available_to_back),
                                        available_to_lay=projection.offers(r.available_to_lay))
            entry = apiformat.runner(shown, book.status, with_prices=projection.with_prices, depth=None,
                                     traded=projection.traded)
            theirs = [o for o in mine if o.selection_id == r.selection_id  # the orders shown, whose matches these are
                      and (order_projection == "ALL" or str(o.status) == order_projection)]
            if order_projection:
                entry["orders"] = [apiformat.runner_order(o) for o in theirs]
            if match_projection:
                matched = [o for o in every if o.selection_id == r.selection_id] if overall else theirs
                entry["matches"] = _matches(matched, fills, match_projection)
                if by_strategy:
                    entry["matchesByStrategy"] = _matches_by_strategy(theirs, fills, match_projection)
            runners.append(entry)
        out.append(apiformat.market_book(book, version=service.market_version(market_id), runners=runners,
                                         last_match_ms=service.last_match_ms(market_id)))
    return out


def _order_filters(params: Mapping[str, Any]) -> tuple[Callable[[OrderView], bool], bool, bool]:
    """The orders listMarketBook shows (``betIds``, ``customerStrategyRefs``, ``matchedSince``: as API-NG's, the
    orders with a fill since then and every order still EXECUTABLE, whatever its matched date), whether
    its ``matches`` count every order (``includeOverallPosition``, default true) or only those shown (of these, the
    ``orderProjection``'s), and whether
    each runner also gets ``matchesByStrategy`` (``partitionMatchedByStrategyRef``, default false).

    ``currencyCode`` must be GBP (the one currency); ``locale`` is accepted.
    """
    bet_ids = _bet_ids(params)
    check_id_count("listMarketBook", len(bet_ids or ()), "betIds")
    strategies = set(get_str_list(params, "customerStrategyRefs")) or None
    since = None if params.get("matchedSince") is None else parse_time(params["matchedSince"], "matchedSince")
    overall = get_bool(params, "includeOverallPosition", default=True)
    by_strategy = get_bool(params, "partitionMatchedByStrategyRef", default=False)
    get_enum(params, "currencyCode", ("GBP",), default="GBP")
    get_str(params, "locale", required=False, max_len=16)

    def wanted(o: OrderView) -> bool:
        return ((bet_ids is None or str(o.bet_id) in bet_ids)
                and (strategies is None or o.strategy_ref in strategies)
                and (since is None or o.status is OrderStatus.EXECUTABLE
                     or (o.matched_ts is not None and o.matched_ts >= since)))

    return wanted, overall, by_strategy


async def list_runner_book(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> list[JsonDict]:
    """``listRunnerBook``: listMarketBook of one market, with only the runner ``selectionId`` (``handicap`` 0)."""
    market_id = get_str(params, "marketId", max_len=MARKET_ID_MAX)
    selection_id = get_int(params, "selectionId")
    handicap = params.get("handicap")
    if handicap is not None and (isinstance(handicap, bool) or not isinstance(handicap, int | float) or handicap
                                 ) and number_text(handicap) != 0:
        raise invalid_input(f"handicap must be 0 (no market here has handicaps), not {handicap!r:.40}")
    book_params = {k: v for k, v in params.items() if k not in ("marketId", "selectionId", "handicap")}
    books = await list_market_book(service, session, {**book_params, "marketIds": [market_id]})
    for book in books:
        book["runners"] = [r for r in book["runners"] if r["selectionId"] == selection_id]
    return books


def _matches(orders: Sequence[OrderView], fills: Sequence[MatchView], projection: str) -> list[JsonDict]:
    """A runner's ``matches`` of ``orders`` under ``matchProjection``.

    ``NO_ROLLUP``: each fill of each order (``betId``, ``matchId``, the fill's price and stake, ``matchDate``), in
    match order; ``ROLLED_UP_BY_PRICE``: the stake summed per side and fill price, ascending by side (BACK
    first), then price; ``ROLLED_UP_BY_AVG_PRICE``: one per side, its whole stake at its stake-weighted average
    price (exact until formatted). ``fills`` are the account's unvoided matches on the market
    (:meth:`~exchange.core.exchange.Exchange.matches`).
    """
    matched = {o.bet_id: o for o in orders if o.size_matched}
    if projection == "ROLLED_UP_BY_AVG_PRICE":
        by_side: dict[str, tuple[Fraction, int]] = {}
        for o in matched.values():
            stake_x_price, stake = by_side.get(str(o.side), (Fraction(0), 0))
            average = o.average_price_matched or Fraction(0)  # never None: the order has matched
            by_side[str(o.side)] = (stake_x_price + average * o.size_matched, stake + o.size_matched)
        return [{"side": side, "price": apiformat.price(total / stake), "size": apiformat.money(stake)}
                for side, (total, stake) in sorted(by_side.items())]
    theirs = [f for f in fills if f.bet_id in matched]
    if projection == "NO_ROLLUP":
        return [{"betId": str(f.bet_id), "matchId": str(f.match_id), "side": str(f.side),
                 "price": apiformat.tick_price(f.tick), "size": apiformat.money(f.size),
                 "matchDate": apiformat.iso(f.matched_ts)} for f in theirs]
    by_tick: dict[tuple[str, int], int] = {}
    for f in theirs:
        key = (str(f.side), f.tick)
        by_tick[key] = by_tick.get(key, 0) + f.size
    return [{"side": side, "price": apiformat.tick_price(tick), "size": apiformat.money(size)}
            for (side, tick), size in sorted(by_tick.items())]


def _matches_by_strategy(orders: Sequence[OrderView], fills: Sequence[MatchView], projection: str
                         ) -> dict[str, JsonDict]:
    """``matchesByStrategy``: :func:`_matches` per ``customerStrategyRef`` of ``orders`` (API-NG's ``Matches``:
    ``{"matches": [...]}``), refs in order; orders without a ref count in none, and a ref with no match is left out."""
    by_ref: dict[str, list[OrderView]] = {}
    for o in orders:
        if o.strategy_ref is not None:
            by_ref.setdefault(o.strategy_ref, []).append(o)
    out = {}
    for ref, group in sorted(by_ref.items()):
        matches = _matches(group, fills, projection)
        if matches:
            out[ref] = {"matches": matches}
    return out


MARKET_SORTS = ("MINIMUM_TRADED", "MAXIMUM_TRADED", "MINIMUM_AVAILABLE", "MAXIMUM_AVAILABLE", "FIRST_TO_START",
                "LAST_TO_START")


async def list_market_catalogue(
    service: ExchangeService, session: Session, params: Mapping[str, Any]
) -> list[JsonDict]:
    """The open markets passing ``filter`` (closed ones are not listed, as on Betfair), in ``sort`` order.

    Without ``sort`` the newest market comes first. ``MINIMUM``/``MAXIMUM_TRADED`` sort by matched volume,
    ``..._AVAILABLE`` by the size resting on the book, ``FIRST``/``LAST_TO_START`` by the game's start.
    """
    market_filter = parse_market_filter(params, required=True)  # mandatory in API-NG, as for the navigation calls
    max_results = get_int(params, "maxResults")
    if max_results <= 0:
        raise invalid_input(f"maxResults must be positive, not {max_results}")
    if max_results > MAX_CATALOGUE:
        raise ApiError(ApingCode.TOO_MUCH_DATA, f"maxResults is at most {MAX_CATALOGUE}, not {max_results}")
    projection = set(get_str_list(params, "marketProjection"))
    unknown = projection - PROJECTIONS
    if unknown:
        raise invalid_input(f"marketProjection has unknown values {sorted(unknown)}; use {sorted(PROJECTIONS)}")
    weight = sum(CATALOGUE_WEIGHTS.get(p, 0) for p in projection)
    if weight:
        weights = ", ".join(f"{p} {w}" for p, w in CATALOGUE_WEIGHTS.items())
        check_weight("listMarketCatalogue", weight, max_results,
                     f" with this marketProjection ({weights}, the others 0), up to maxResults")
    sort = params.get("sort")
    if sort is not None:
        sort = get_enum(params, "sort", MARKET_SORTS)
    get_str(params, "locale", required=False, max_len=16)
    markets = open_markets(service, session, market_filter)
    if sort is not None:
        markets.sort(key=_market_sort_key(service, sort), reverse=sort.startswith(("MAXIMUM", "LAST")))
    return [_catalogue_entry(service, info, projection) for info in markets[:max_results]]


PROJECTIONS = frozenset({"COMPETITION", "EVENT", "EVENT_TYPE", "MARKET_START_TIME", "MARKET_DESCRIPTION",
                         "RUNNER_DESCRIPTION", "RUNNER_METADATA"})


def _market_sort_key(service: ExchangeService, sort: str) -> Callable[[MarketInfo], tuple[int, str]]:
    def key(info: MarketInfo) -> tuple[int, str]:
        if sort.endswith("TO_START"):
            return info.market_time_ms, info.market_id
        book = service.market_book(info.market_id)
        if book is None:
            return 0, info.market_id
        if sort.endswith("TRADED"):
            return book.total_matched, info.market_id
        resting = sum(level.size for r in book.runners for level in (*r.available_to_back, *r.available_to_lay))
        return resting, info.market_id

    return key


def _catalogue_entry(service: ExchangeService, info: Any, projection: set[str]) -> JsonDict:
    book = service.market_book(info.market_id)
    entry: JsonDict = {
        "marketId": info.market_id,
        "marketName": info.market_name,
        "totalMatched": apiformat.money(book.total_matched if book else 0),
        "version": service.market_version(info.market_id),  # as listMarketBook's and the stream's
    }
    if "MARKET_START_TIME" in projection:
        entry["marketStartTime"] = apiformat.iso(info.market_time_ms)
    if "EVENT_TYPE" in projection:
        entry["eventType"] = {"id": EVENT_TYPE_ID, "name": EVENT_TYPE_NAME}
    if "EVENT" in projection:
        entry["event"] = event(info)
    if "MARKET_DESCRIPTION" in projection:
        entry["description"] = {
            "persistenceEnabled": False, "bspMarket": False, "marketTime": apiformat.iso(info.market_time_ms),
            "suspendTime": apiformat.iso(info.suspend_ms), "bettingType": "ODDS", "turnInPlayEnabled": True,
            "marketType": info.market_type, "regulator": "MR_INT", "marketBaseRate": float(info.commission_percent),
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

