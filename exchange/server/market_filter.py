"""API-NG's ``MarketFilter`` and ``TimeRange``: every field read, checked, and honoured.

Every market of the simulator is of one event type (Exchange Poker), of market
type ``WIN`` (a hi/lo game's Low market: ``LOW``), betting type ``ODDS``, country ``GB``, turns in play (from the
Pre-flop window, when the hole cards are face up), is no BSP market, and has no
competition and no venue. A filter on any of those is honoured against those
facts: asking for ``marketTypeCodes: ["PLACE"]``, a venue, a competition or
``bspOnly: true`` finds nothing, as it would on Betfair. A key Betfair does not
define, or a value of the wrong type, is ``INVALID_INPUT_DATA`` naming it.

>>> f = parse_market_filter({"filter": {"marketTypeCodes": ["WIN"], "inPlayOnly": True}})
>>> f.market_types, f.in_play_only
(frozenset({'WIN'}), True)
>>> parse_market_filter({"filter": {"marketTypes": ["WIN"]}})
Traceback (most recent call last):
...
exchange.server.errors.ApiError: INVALID_INPUT_DATA: filter has unknown keys ['marketTypes']; ...
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from exchange.betfair.stream import EVENT_TYPE_ID
from exchange.server.errors import invalid_input
from exchange.server.market_infos import MarketInfo
from exchange.server.params import get_bool, get_object, get_str, get_str_list

BETTING_TYPE = "ODDS"
COUNTRY = "GB"
ORDER_STATUSES = ("EXECUTABLE", "EXECUTION_COMPLETE")
_LISTS = ("eventTypeIds", "eventIds", "competitionIds", "marketIds", "venues", "marketBettingTypes",
          "marketCountries", "marketTypeCodes", "withOrders", "raceTypes", "exchangeIds")
_BOOLS = ("bspOnly", "turnInPlayEnabled", "inPlayOnly")
_KEYS = frozenset(_LISTS + _BOOLS + ("textQuery", "marketStartTime"))


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def parse_time(text: Any, name: str) -> int:
    """An ISO 8601 date-time (``2026-12-01T18:00:00Z``, or a date alone) as epoch ms; naive times are UTC.

    >>> parse_time("1970-01-01T00:00:01.5Z", "from")
    1500
    """
    if not isinstance(text, str):
        raise invalid_input(f"{name} must be an ISO 8601 date-time string, not {text!r:.40}")
    try:
        when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise invalid_input(f"{name} must be an ISO 8601 date-time such as 2026-12-01T18:00:00Z, not {text!r:.40}"
                            ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return (when - _EPOCH) // datetime.timedelta(milliseconds=1)  # exact: no float of seconds in between


def parse_time_range(params: Mapping[str, Any], name: str, *, where: str = "") -> tuple[int | None, int | None]:
    """A ``TimeRange`` (``from``/``to``, either may be absent) as epoch ms; ``(None, None)`` when absent. A ``from``
    after its ``to`` is taken as it is: it selects nothing, as Betfair documents ("no results will be returned")."""
    if params.get(name) is None:
        return None, None
    raw = get_object(params, name, where=where)
    unknown = sorted(set(raw) - {"from", "to"})
    if unknown:
        raise invalid_input(f"{where}{name} has unknown keys {unknown}; a TimeRange has from and to")
    start = None if raw.get("from") is None else parse_time(raw["from"], f"{where}{name}.from")
    end = None if raw.get("to") is None else parse_time(raw["to"], f"{where}{name}.to")
    return start, end


def _set(market_filter: Mapping[str, Any], name: str) -> frozenset[str] | None:
    values = get_str_list(market_filter, name, where="filter.")
    return frozenset(values) if values else None


@dataclass(frozen=True, slots=True)
class MarketFilter:
    """A parsed ``MarketFilter``: ``None`` (or False for the flags) means the field was not given."""

    text: str | None = None
    event_types: frozenset[str] | None = None
    event_ids: frozenset[str] | None = None
    competition_ids: frozenset[str] | None = None
    market_ids: frozenset[str] | None = None
    venues: frozenset[str] | None = None
    betting_types: frozenset[str] | None = None
    countries: frozenset[str] | None = None
    market_types: frozenset[str] | None = None
    with_orders: frozenset[str] | None = None
    race_types: frozenset[str] | None = None
    bsp_only: bool | None = None
    turn_in_play: bool | None = None
    in_play_only: bool | None = None
    start_from_ms: int | None = None
    start_to_ms: int | None = None

    def matches(self, info: MarketInfo, *, in_play: bool, order_statuses: Callable[[str], set[str]]) -> bool:
        """Whether the market ``info`` (in play or not) passes; ``order_statuses(market_id)``: the caller's orders'."""
        checks = (
            (self.event_types, EVENT_TYPE_ID), (self.event_ids, info.event_id), (self.market_ids, info.market_id),
            (self.betting_types, BETTING_TYPE), (self.countries, COUNTRY), (self.market_types, info.market_type),
        )
        if any(wanted is not None and value not in wanted for wanted, value in checks):
            return False
        if self.competition_ids is not None or self.venues is not None or self.race_types is not None:
            return False  # no market has a competition, a venue or a race type
        if self.bsp_only is True or self.turn_in_play is False:
            return False  # no BSP market; every market turns in play
        if self.in_play_only is not None and in_play != self.in_play_only:
            return False
        if self.start_from_ms is not None and info.market_time_ms < self.start_from_ms:
            return False
        if self.start_to_ms is not None and info.market_time_ms > self.start_to_ms:
            return False
        if self.text and self.text.lower() not in f"{info.event_name} {info.market_name}".lower():
            return False
        return self.with_orders is None or bool(order_statuses(info.market_id) & self.with_orders)


def parse_market_filter(params: Mapping[str, Any], name: str = "filter", *, required: bool = False) -> MarketFilter:
    """The ``MarketFilter`` at ``params[name]``; every field checked (see the module's docstring)."""
    raw = get_object(params, name, required=required)
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise invalid_input(f"{name} has unknown keys {unknown}; a MarketFilter has {sorted(_KEYS)}")
    with_orders = _set(raw, "withOrders")
    if with_orders is not None and not with_orders <= set(ORDER_STATUSES):
        raise invalid_input(f"{name}.withOrders takes {list(ORDER_STATUSES)}, not {sorted(with_orders)}")
    flags = {key: (get_bool(raw, key, default=False, where=f"{name}.") if raw.get(key) is not None else None)
             for key in _BOOLS}
    start_from, start_to = parse_time_range(raw, "marketStartTime", where=f"{name}.")
    text = get_str(raw, "textQuery", required=False, where=f"{name}.") or None
    _set(raw, "exchangeIds")  # deprecated by Betfair and ignored there too: checked for its type only
    return MarketFilter(
        text=text, event_types=_set(raw, "eventTypeIds"), event_ids=_set(raw, "eventIds"),
        competition_ids=_set(raw, "competitionIds"), market_ids=_set(raw, "marketIds"), venues=_set(raw, "venues"),
        betting_types=_set(raw, "marketBettingTypes"), countries=_set(raw, "marketCountries"),
        market_types=_set(raw, "marketTypeCodes"), with_orders=with_orders, race_types=_set(raw, "raceTypes"),
        bsp_only=flags["bspOnly"], turn_in_play=flags["turnInPlayEnabled"], in_play_only=flags["inPlayOnly"],
        start_from_ms=start_from, start_to_ms=start_to,
    )
