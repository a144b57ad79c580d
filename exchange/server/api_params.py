"""The parameters API-NG defines for each method, and for the instructions of the four order methods.

A name outside these is refused with ``INVALID_INPUT_DATA`` naming it and what
is allowed, before the method runs: a misspelt parameter must not silently
change what a call does (``cancelOrders`` with ``sizeReductio`` would cancel
the whole bet; ``placeOrders`` with ``custmerStrategyRef`` place one with no
strategy ref). The nested objects have their own checks where they are read
(``MarketFilter``, ``PriceProjection``, ...); here are the method parameters and
the instructions, whose keys no reader otherwise lists. The names are Betfair's
(API-NG's type definitions, which betfairlightweight's methods send as they are).

>>> unknown_parameter("cancelOrders", {"marketId": "holdem.1", "instructions": [{"betId": "7", "sizeReductio": 1}]})
"instructions[0]: 'sizeReductio' is not a parameter of a CancelInstruction; allowed: betId, sizeReduction"
>>> unknown_parameter("listCurrentOrders", {"marketIds": ["holdem.1"]}) is None
True
>>> unknown_parameter("placeOrders", {"marketVersion": {"versio": 3}})
"marketVersion: 'versio' is not a parameter of a MarketVersion; allowed: version"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_LOCALE = frozenset({"locale"})
_FILTERED = frozenset({"filter"}) | _LOCALE
_BOOK = frozenset({"priceProjection", "orderProjection", "matchProjection", "includeOverallPosition",
                   "partitionMatchedByStrategyRef", "customerStrategyRefs", "currencyCode", "matchedSince", "betIds",
                   "locale"})

#: Each method's parameters (without its ``SportsAPING/v1.0/``, ``AccountAPING/v1.0/`` or
#: ``HeartbeatAPING/v1.0/`` prefix).
METHOD_PARAMETERS: dict[str, frozenset[str]] = {
    "listEventTypes": _FILTERED, "listCompetitions": _FILTERED, "listEvents": _FILTERED,
    "listMarketTypes": _FILTERED, "listCountries": _FILTERED, "listVenues": _FILTERED,
    "listTimeRanges": frozenset({"filter", "granularity"}),
    "listMarketCatalogue": frozenset({"filter", "marketProjection", "sort", "maxResults", "locale"}),
    "listMarketBook": _BOOK | {"marketIds"},
    "listRunnerBook": _BOOK | {"marketId", "selectionId", "handicap"},
    "listMarketProfitAndLoss": frozenset({"marketIds", "includeSettledBets", "includeBspBets", "netOfCommission"}),
    "listCurrentOrders": frozenset({"betIds", "marketIds", "orderProjection", "customerOrderRefs",
                                    "customerStrategyRefs", "dateRange", "placedDateRange", "orderBy", "sortDir",
                                    "fromRecord", "recordCount", "includeItemDescription", "includeSourceId"}),
    "listClearedOrders": frozenset({"betStatus", "eventTypeIds", "eventIds", "marketIds", "runnerIds", "betIds",
                                    "customerOrderRefs", "customerStrategyRefs", "side", "settledDateRange",
                                    "groupBy", "includeItemDescription", "includeSourceId", "locale", "fromRecord",
                                    "recordCount"}),
    "placeOrders": frozenset({"marketId", "instructions", "customerRef", "marketVersion", "customerStrategyRef",
                              "async"}),
    "cancelOrders": frozenset({"marketId", "instructions", "customerRef"}),
    "replaceOrders": frozenset({"marketId", "instructions", "customerRef", "marketVersion", "async"}),
    "updateOrders": frozenset({"marketId", "instructions", "customerRef"}),
    "getAccountFunds": frozenset({"wallet"}),
    "getAccountDetails": frozenset(),
    "getAccountStatement": frozenset({"locale", "fromRecord", "recordCount", "itemDateRange", "includeItem",
                                      "wallet"}),
    "listCurrencyRates": frozenset({"fromCurrency"}),
    "heartbeat": frozenset({"preferredTimeoutSeconds"}),  # HeartbeatAPING/v1.0/heartbeat
}

#: Each order method's instruction type and its keys.
INSTRUCTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "placeOrders": ("PlaceInstruction", frozenset({"orderType", "selectionId", "handicap", "side", "limitOrder",
                                                   "limitOnCloseOrder", "marketOnCloseOrder", "customerOrderRef"})),
    "cancelOrders": ("CancelInstruction", frozenset({"betId", "sizeReduction"})),
    "replaceOrders": ("ReplaceInstruction", frozenset({"betId", "newPrice"})),
    "updateOrders": ("UpdateInstruction", frozenset({"betId", "newPersistenceType"})),
}
MARKET_VERSION = frozenset({"version"})
LIMIT_ORDER = frozenset({"size", "price", "persistenceType", "timeInForce", "minFillSize", "betTargetType",
                         "betTargetSize"})


def unknown_parameter(method: str, params: Mapping[str, Any]) -> str | None:
    """Why ``params`` of ``method`` (unprefixed) hold a name API-NG does not define there, or None.

    Values of the wrong type are left to the method (it says what it wanted); only names are checked.
    """
    allowed = METHOD_PARAMETERS.get(method)
    if allowed is None:
        return None
    problem = _unknown("", params, allowed, method)
    version = params.get("marketVersion")
    if problem is None and "marketVersion" in allowed and isinstance(version, dict):
        problem = _unknown("marketVersion: ", version, MARKET_VERSION, "a MarketVersion")
    if problem is not None or method not in INSTRUCTIONS:
        return problem
    kind, keys = INSTRUCTIONS[method]
    instructions = params.get("instructions")
    for i, instruction in enumerate(instructions if isinstance(instructions, list) else ()):
        if isinstance(instruction, dict):
            problem = _unknown(f"instructions[{i}]: ", instruction, keys, f"a {kind}")
            limit = instruction.get("limitOrder")
            if problem is None and method == "placeOrders" and isinstance(limit, dict):
                problem = _unknown(f"instructions[{i}].limitOrder: ", limit, LIMIT_ORDER, "a LimitOrder")
            if problem is not None:
                return problem
    return None


def _unknown(where: str, given: Mapping[str, Any], allowed: frozenset[str], what: str) -> str | None:
    extra = sorted(k for k in given if k not in allowed)
    if not extra:
        return None
    return (f"{where}{extra[0][:40]!r} is not a parameter of {what}; "
            f"allowed: {', '.join(sorted(allowed)) or 'none'}")
