"""API-NG's navigation calls, derived from the channels and their games: listEventTypes, listEvents,
listCompetitions, listMarketTypes, listCountries, listVenues and listTimeRanges.

Each takes a ``MarketFilter`` (:mod:`exchange.server.market_filter`, every field honoured) and counts the
markets open now that pass it, as Betfair's navigation does: an event is a game (its markets share it), the one
event type is Exchange Poker, every market is in ``GB`` and a ``WIN`` market but a hi/lo game's Low market
(``LOW``); there are no competitions and no
venues, so those two lists are always empty. ``locale`` is accepted (a string; names are English).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping
from typing import Any

from exchange.betfair import apiformat
from exchange.betfair.stream import EVENT_TYPE_ID, EVENT_TYPE_NAME
from exchange.server.auth import Session
from exchange.server.market_filter import COUNTRY, MarketFilter, parse_market_filter
from exchange.server.market_infos import MarketInfo
from exchange.server.params import get_enum, get_str
from exchange.server.service import ExchangeService

JsonDict = dict[str, Any]
GRANULARITIES = ("DAYS", "HOURS", "MINUTES")


def open_markets(service: ExchangeService, session: Session, market_filter: MarketFilter) -> list[MarketInfo]:
    """The open markets passing ``market_filter`` for ``session``'s account, newest first."""
    live = set(service.live_market_ids())
    statuses: dict[str, set[str]] | None = None

    def order_statuses(market_id: str) -> set[str]:
        nonlocal statuses
        if statuses is None:
            statuses = {}
            for order in service.orders(session.account):
                statuses.setdefault(order.market_id, set()).add(str(order.status))
        return statuses.get(market_id, set())

    return [info for info in service.catalogue() if info.market_id in live
            and market_filter.matches(info, in_play=service.in_play(info.market_id), order_statuses=order_statuses)]


def _filtered(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> list[MarketInfo]:
    get_str(params, "locale", required=False, max_len=16)
    return open_markets(service, session, parse_market_filter(params, required=True))


async def list_event_types(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> list[JsonDict]:
    count = len(_filtered(service, session, params))
    return [{"eventType": {"id": EVENT_TYPE_ID, "name": EVENT_TYPE_NAME}, "marketCount": count}] if count else []


async def list_events(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> list[JsonDict]:
    markets = _filtered(service, session, params)
    counts = Counter(info.event_id for info in markets)
    first: dict[str, MarketInfo] = {}
    for info in markets:
        first.setdefault(info.event_id, info)
    return [{"event": event(info), "marketCount": counts[event_id]} for event_id, info in first.items()]


def event(info: MarketInfo) -> JsonDict:
    """API-NG ``Event`` of a market's game."""
    return {"id": info.event_id, "name": info.event_name, "countryCode": COUNTRY, "timezone": "UTC",
            "openDate": apiformat.iso(info.open_ms)}


async def list_competitions(service: ExchangeService, session: Session, params: Mapping[str, Any]
                            ) -> list[JsonDict]:
    _filtered(service, session, params)
    return []


async def list_venues(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> list[JsonDict]:
    _filtered(service, session, params)
    return []


async def list_market_types(service: ExchangeService, session: Session, params: Mapping[str, Any]
                            ) -> list[JsonDict]:
    counts = Counter(info.market_type for info in _filtered(service, session, params))
    return [{"marketType": code, "marketCount": count} for code, count in sorted(counts.items())]


async def list_countries(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> list[JsonDict]:
    count = len(_filtered(service, session, params))
    return [{"countryCode": COUNTRY, "marketCount": count}] if count else []


async def list_time_ranges(service: ExchangeService, session: Session, params: Mapping[str, Any]
                           ) -> list[JsonDict]:
    """Markets counted per day, hour or minute of their start (``granularity``, required), earliest first."""
    granularity = get_enum(params, "granularity", GRANULARITIES)
    counts = Counter(_bucket(info.market_time_ms, granularity) for info in _filtered(service, session, params))
    step = {"DAYS": datetime.timedelta(days=1), "HOURS": datetime.timedelta(hours=1),
            "MINUTES": datetime.timedelta(minutes=1)}[granularity]
    return [{"timeRange": {"from": _iso(start), "to": _iso(start + step)}, "marketCount": count}
            for start, count in sorted(counts.items())]


def _bucket(ms: int, granularity: str) -> datetime.datetime:
    when = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    if granularity == "DAYS":
        return when.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity == "HOURS":
        return when.replace(minute=0, second=0, microsecond=0)
    return when.replace(second=0, microsecond=0)


def _iso(when: datetime.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")

