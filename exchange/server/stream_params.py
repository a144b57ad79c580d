"""What a stream client may ask for: subscription messages checked field by field.

A ``marketSubscription`` or ``orderSubscription`` is parsed into a frozen
:class:`MarketParams` or :class:`OrderParams`, or refused with a
:class:`StreamInputError` whose message names the field and says what is
allowed; the stream answers that with ``status`` ``FAILURE`` /
``INVALID_INPUT`` and keeps the previous subscription. Nothing wrong is
passed over silently: a field of the wrong type, a value out of range, and a
key Betfair does not define (a typo such as ``ladderLevel`` would otherwise do
nothing) are all refused. Betfair's own behaviour for unknown keys is not
documented; refusing them is the choice that fails fast.

``null`` counts as "not given" for every field, because betfairlightweight's
``subscribe_to_markets`` sends ``"clk": null, "conflateMs": null, ...`` for the
arguments it was not given.

The rules, from Betfair's Exchange Stream API schema (``ESASwaggerSchema.json``):

* ``heartbeatMs``: an integer; Betfair clamps it to 500..30000 and loops the
  value it uses back in the initial image, so do we (a client that asks for
  100 gets 500). Not an integer (``"x"``, ``1.5``, ``true``) is refused.
* ``conflateMs``: an integer from 0 to 120000, the schema's bounds (outside is refused). It is checked but not
  used: the simulator conflates every subscription at the server's own rate,
  which the initial image reports as its ``conflateMs`` (Betfair, too, may
  answer with a rate other than the one asked for).
* ``segmentationEnabled``: a boolean (the simulator never segments).
* ``clk`` / ``initialClk``: clock tokens from this server's change messages
  (:func:`clock_token`: a counter and the publish time), ``null`` for none. A
  subscription that gives one is a resubscription: its image also shows what
  closed since (:attr:`MarketParams.resume_from_ms`). Any other string (an
  older version's bare counter, Betfair's) is a fresh subscription, as it was
  before clocks were read: a client that resends its clock after every
  reconnect must not be refused for good.
* ``marketFilter``: an object; ``marketIds`` (at most 1000 strings) and ``eventIds``
  (games, ``holdem.17``) narrow the subscription; the other Betfair keys are
  honoured against what every market here is (event type ``990001``, market type
  ``WIN``, or ``LOW`` for a hi/lo game's Low market, country ``GB``, betting type
  ``ODDS``, turns in play, no BSP, no venue or race type): a key that rules that out subscribes to nothing.
* ``marketDataFilter``: an object; ``fields`` a list of Betfair field names
  (absent or empty: :data:`DEFAULT_FIELDS`), ``ladderLevels`` an integer 1..10
  (default 3) used by ``EX_BEST_OFFERS`` / ``EX_BEST_OFFERS_DISP``.
* ``orderFilter``: an object; ``includeOverallPosition`` (boolean, default
  true: ``mb``/``ml``, the matched backs and lays by fill price, are sent), ``customerStrategyRefs``
  (list of strings: only orders placed with one of those ``customerStrategyRef`` values are shown, as
  ``rfs``; empty means all), ``partitionMatchedByStrategyRef``
  (boolean, default false: true adds ``smc``, each runner's matched backs and lays per
  ``customerStrategyRef``, filtered by ``customerStrategyRefs`` as the orders are), ``accountIds`` (list
  of integers; ignored, as the stream only ever shows the authenticated
  account's own orders).

>>> parse_market_subscription({"op": "marketSubscription", "heartbeatMs": 100}, default_heartbeat_ms=5000).heartbeat_ms
500
>>> parse_order_subscription({"op": "orderSubscription", "orderFilter": [1]}, default_heartbeat_ms=5000)
Traceback (most recent call last):
...
exchange.server.stream_params.StreamInputError: orderFilter must be an object, got [1]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from exchange.betfair.description import event_id_of, market_type_of
from exchange.betfair.stream import EVENT_TYPE_ID

MIN_HEARTBEAT_MS = 500
MAX_HEARTBEAT_MS = 30_000
MAX_CONFLATE_MS = 120_000  # the schema's bound on conflateMs
MIN_LADDER_LEVELS = 1
MAX_LADDER_LEVELS = 10
DEFAULT_LADDER_LEVELS = 3
MAX_MARKET_IDS = 1000

#: Every ``marketDataFilter.fields`` name Betfair defines. ``SP_TRADED`` and
#: ``SP_PROJECTED`` are accepted and produce nothing: no simulator market is a BSP market.
KNOWN_FIELDS = frozenset({"EX_BEST_OFFERS_DISP", "EX_BEST_OFFERS", "EX_ALL_OFFERS", "EX_TRADED", "EX_TRADED_VOL",
                          "EX_LTP", "EX_MARKET_DEF", "SP_TRADED", "SP_PROJECTED"})
#: What a subscription without ``fields`` gets: the full ladder (``atb``/``atl``), trades, volumes, last price
#: and the market definition — everything but the best-offers views, which would repeat the ladder.
DEFAULT_FIELDS = frozenset({"EX_ALL_OFFERS", "EX_TRADED", "EX_TRADED_VOL", "EX_LTP", "EX_MARKET_DEF"})

_COMMON_KEYS = frozenset({"op", "id", "heartbeatMs", "conflateMs", "segmentationEnabled", "clk", "initialClk"})
_MARKET_KEYS = _COMMON_KEYS | {"marketFilter", "marketDataFilter"}
_ORDER_KEYS = _COMMON_KEYS | {"orderFilter"}
_MARKET_FILTER_LISTS = frozenset({"marketIds", "bettingTypes", "eventTypeIds", "eventIds", "marketTypes", "venues",
                                  "countryCodes", "raceTypes"})
_MARKET_FILTER_BOOLS = frozenset({"bspMarket", "turnInPlayEnabled"})
_DATA_FILTER_KEYS = frozenset({"fields", "ladderLevels"})
_ORDER_FILTER_KEYS = frozenset({"includeOverallPosition", "customerStrategyRefs", "partitionMatchedByStrategyRef",
                                "accountIds"})
_REQUEST_KEYS = {"authentication": frozenset({"op", "id", "appKey", "session"}), "heartbeat": frozenset({"op", "id"})}


class StreamInputError(ValueError):
    """A request's field has the wrong type or value, or is unknown; the message says which field and what is
    allowed."""


def clock_token(count: int, publish_ms: int) -> str:
    """The ``clk`` of a subscription's ``count``-th change message, published at ``publish_ms``.

    >>> clock_token(3, 1_700_000_000_050)
    '3:1700000000050'
    >>> clock_time(clock_token(3, 1_700_000_000_050)), clock_time("7")
    (1700000000050, None)
    """
    return f"{count}:{publish_ms}"


def clock_time(token: str) -> int | None:
    """The publish time a clock token carries; None if it is not one of :func:`clock_token`."""
    count, _, publish = token.partition(":")
    if not (count.isascii() and count.isdigit() and publish.isascii() and publish.isdigit() and len(token) <= 40):
        return None
    return int(publish)


@dataclass(frozen=True, slots=True)
class MarketParams:
    """A valid ``marketSubscription``: heartbeat (clamped), the markets (None: all) and what to send of them."""

    heartbeat_ms: int
    market_ids: frozenset[str] | None
    fields: frozenset[str]
    ladder_levels: int
    event_ids: frozenset[str] | None = None
    market_types: frozenset[str] | None = None
    #: False when a marketFilter key rules out every market here (a venue, a PLACE market type, BSP, ...).
    any_market: bool = True
    #: A resubscription's clock: the publish time of the last message the client saw (None: a fresh one).
    resume_from_ms: int | None = None

    def wants(self, market_id: str) -> bool:
        """Whether ``market_id`` passes the subscription's ``marketFilter``.

        >>> p = parse_market_subscription({"marketFilter": {"eventIds": ["holdem.3"]}}, default_heartbeat_ms=500)
        >>> p.wants("holdem.3"), p.wants("holdem.4")
        (True, False)
        """
        return (self.any_market and (self.market_ids is None or market_id in self.market_ids)
                and (self.event_ids is None or event_id_of(market_id) in self.event_ids)
                and (self.market_types is None or market_type_of(market_id) in self.market_types))


@dataclass(frozen=True, slots=True)
class OrderParams:
    """A valid ``orderSubscription``: heartbeat (clamped), whether to send ``mb``/``ml``, the strategy refs shown."""

    heartbeat_ms: int
    include_overall_position: bool
    strategy_refs: frozenset[str] | None
    partition_by_strategy: bool = False
    resume_from_ms: int | None = None


def check_request(op: str, message: Mapping[str, Any]) -> None:
    """Refuse an ``authentication`` or ``heartbeat`` holding a key Betfair does not define for it, as a
    subscription's are refused.

    >>> check_request("heartbeat", {"op": "heartbeat", "id": 5})
    >>> check_request("heartbeat", {"op": "heartbeat", "id": 5, "heartbeatMs": 500})
    Traceback (most recent call last):
    ...
    exchange.server.stream_params.StreamInputError: heartbeat: unknown key 'heartbeatMs'; allowed: id, op
    """
    _only(op, message, _REQUEST_KEYS[op])


def parse_market_subscription(message: Mapping[str, Any], *, default_heartbeat_ms: int) -> MarketParams:
    """Check every field of a ``marketSubscription``; raise :class:`StreamInputError` on the first wrong one.

    >>> p = parse_market_subscription({"op": "marketSubscription", "marketFilter": {"marketIds": ["holdem.0"]},
    ...     "marketDataFilter": {"fields": ["EX_BEST_OFFERS"], "ladderLevels": 1}}, default_heartbeat_ms=5000)
    >>> sorted(p.market_ids), sorted(p.fields), p.ladder_levels, p.heartbeat_ms
    (['holdem.0'], ['EX_BEST_OFFERS'], 1, 5000)
    >>> try:
    ...     parse_market_subscription({"marketDataFilter": {"ladderLevels": 11}}, default_heartbeat_ms=5000)
    ... except StreamInputError as err:
    ...     print(err)
    marketDataFilter.ladderLevels must be an integer from 1 to 10, got 11
    """
    _only("marketSubscription", message, _MARKET_KEYS)
    heartbeat_ms = _common(message, default_heartbeat_ms)
    market_filter = _object("marketFilter", message.get("marketFilter"))
    _only("marketFilter", market_filter, _MARKET_FILTER_LISTS | _MARKET_FILTER_BOOLS)
    for key in sorted(_MARKET_FILTER_LISTS & market_filter.keys()):
        _strings(f"marketFilter.{key}", market_filter[key], limit=MAX_MARKET_IDS)
    for key in sorted(_MARKET_FILTER_BOOLS & market_filter.keys()):
        _bool(f"marketFilter.{key}", market_filter[key])
    ids = market_filter.get("marketIds")
    events = market_filter.get("eventIds")
    data_filter = _object("marketDataFilter", message.get("marketDataFilter"))
    _only("marketDataFilter", data_filter, _DATA_FILTER_KEYS)
    fields = _strings("marketDataFilter.fields", data_filter.get("fields"))
    unknown = sorted(set(fields or ()) - KNOWN_FIELDS)
    if unknown:
        raise StreamInputError(f"marketDataFilter.fields: unknown field {unknown[0]!r:.40}; "
                               f"allowed: {', '.join(sorted(KNOWN_FIELDS))}")
    levels = data_filter.get("ladderLevels")
    if levels is not None:
        _int("marketDataFilter.ladderLevels", levels, MIN_LADDER_LEVELS, MAX_LADDER_LEVELS)
    return MarketParams(
        heartbeat_ms=heartbeat_ms,
        market_ids=frozenset(ids) if ids else None,
        fields=frozenset(fields) if fields else DEFAULT_FIELDS,
        ladder_levels=DEFAULT_LADDER_LEVELS if levels is None else levels,
        event_ids=frozenset(events) if events else None,
        market_types=frozenset(market_filter["marketTypes"]) if market_filter.get("marketTypes") else None,
        any_market=_any_market(market_filter),
        resume_from_ms=_resume_from(message),
    )


#: What every market here is, for the marketFilter keys that do not name markets or events.
_FACTS = {"eventTypeIds": EVENT_TYPE_ID, "countryCodes": "GB", "bettingTypes": "ODDS"}


def _any_market(market_filter: Mapping[str, Any]) -> bool:
    """Whether the filter's other keys let any market here through (they are the same for every market)."""
    for key, fact in _FACTS.items():
        if market_filter.get(key) and fact not in market_filter[key]:
            return False
    if market_filter.get("venues") or market_filter.get("raceTypes"):
        return False  # no market has a venue or a race type
    return market_filter.get("bspMarket") is not True and market_filter.get("turnInPlayEnabled") is not False


def parse_order_subscription(message: Mapping[str, Any], *, default_heartbeat_ms: int) -> OrderParams:
    """Check every field of an ``orderSubscription``; raise :class:`StreamInputError` on the first wrong one.

    >>> p = parse_order_subscription({"orderFilter": {"includeOverallPosition": False}}, default_heartbeat_ms=5000)
    >>> p.heartbeat_ms, p.include_overall_position, p.strategy_refs, p.partition_by_strategy, p.resume_from_ms
    (5000, False, None, False, None)
    >>> parse_order_subscription({"orderFilter": {"accountIds": [True]}}, default_heartbeat_ms=5000)
    Traceback (most recent call last):
    ...
    exchange.server.stream_params.StreamInputError: orderFilter.accountIds must be a list of integers, got [True]
    """
    _only("orderSubscription", message, _ORDER_KEYS)
    heartbeat_ms = _common(message, default_heartbeat_ms)
    order_filter = _object("orderFilter", message.get("orderFilter"))
    _only("orderFilter", order_filter, _ORDER_FILTER_KEYS)
    overall = order_filter.get("includeOverallPosition")
    _bool("orderFilter.includeOverallPosition", overall)
    refs = _strings("orderFilter.customerStrategyRefs", order_filter.get("customerStrategyRefs"))
    partition = order_filter.get("partitionMatchedByStrategyRef")
    _bool("orderFilter.partitionMatchedByStrategyRef", partition)
    accounts = order_filter.get("accountIds")
    if accounts is not None and (not isinstance(accounts, list)
                                 or any(isinstance(a, bool) or not isinstance(a, int) for a in accounts)):
        raise StreamInputError(f"orderFilter.accountIds must be a list of integers, got {accounts!r:.60}")
    return OrderParams(
        heartbeat_ms=heartbeat_ms,
        include_overall_position=overall is not False,
        strategy_refs=frozenset(refs) if refs else None,
        partition_by_strategy=partition is True,
        resume_from_ms=_resume_from(message),
    )


def _common(message: Mapping[str, Any], default_heartbeat_ms: int) -> int:
    """Check the fields both subscriptions share; return the heartbeat to use, clamped as Betfair clamps it."""
    heartbeat = message.get("heartbeatMs")
    if heartbeat is not None:
        _int("heartbeatMs", heartbeat, None, None,
             allowed=f"an integer number of milliseconds ({MIN_HEARTBEAT_MS} to {MAX_HEARTBEAT_MS}; "
                     "values outside are clamped)")
    conflate = message.get("conflateMs")
    if conflate is not None:
        _int("conflateMs", conflate, 0, MAX_CONFLATE_MS,
             allowed=f"an integer number of milliseconds from 0 to {MAX_CONFLATE_MS}")
    _bool("segmentationEnabled", message.get("segmentationEnabled"))
    for key in ("clk", "initialClk"):
        value = message.get(key)
        if value is not None and not isinstance(value, str):
            raise StreamInputError(f"{key} must be a string (a clock token from an earlier message), "
                                   f"got {value!r:.40}")
    value = default_heartbeat_ms if heartbeat is None else heartbeat
    return max(MIN_HEARTBEAT_MS, min(MAX_HEARTBEAT_MS, value))


def _resume_from(message: Mapping[str, Any]) -> int | None:
    """The publish time of a resubscription's ``clk`` (else ``initialClk``), or None for a fresh subscription
    (neither given, or neither a token of this server's)."""
    times = [clock_time(message[key]) for key in ("initialClk", "clk") if message.get(key) is not None]
    readable = [t for t in times if t is not None]
    return readable[-1] if readable else None


def _only(name: str, obj: Mapping[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(k for k in obj if k not in allowed)
    if unknown:
        raise StreamInputError(f"{name}: unknown key {unknown[0]!r:.40}; allowed: {', '.join(sorted(allowed))}")


def _object(name: str, value: object) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise StreamInputError(f"{name} must be an object, got {value!r:.40}")
    return value


def _bool(name: str, value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise StreamInputError(f"{name} must be true or false, got {value!r:.40}")


def _int(name: str, value: object, low: int | None, high: int | None, *, allowed: str = "") -> int:
    """``value`` as an int within ``low..high`` (None: unbounded); a bool is not an int here."""
    if (isinstance(value, int) and not isinstance(value, bool)
            and (low is None or value >= low) and (high is None or value <= high)):
        return value
    if not allowed:
        allowed = f"an integer from {low} to {high}" if high is not None else f"an integer >= {low}"
    raise StreamInputError(f"{name} must be {allowed}, got {value!r:.40}")


def _strings(name: str, value: object, *, limit: int | None = None) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise StreamInputError(f"{name} must be a list of strings, got {value!r:.40}")
    if limit is not None and len(value) > limit:
        raise StreamInputError(f"{name} may hold at most {limit} entries, got {len(value)}")
    return value
