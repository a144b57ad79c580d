"""placeOrders' instructions read: one ``PlaceInstruction`` becomes a :class:`PlaceRequest`.

A field of the wrong type makes the whole call malformed (``INVALID_INPUT_DATA``, raised); a well-typed value
the exchange does not take (a price off the ladder, a size of 0, a persistence other than LAPSE) becomes the
request's ``problem``, reported on that instruction alone. Used by :mod:`exchange.server.betting`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from exchange.betfair.apiformat import CUSTOMER_REF_MAX, line_breaker
from exchange.core.money import to_exact_decimal, to_minor
from exchange.core.orders import OrderType, PersistenceType
from exchange.core.records import fast_constructor
from exchange.core.side import Side
from exchange.server.errors import invalid_input
from exchange.server.params import (
    get_enum,
    get_int,
    get_number,
    get_object,
    get_str,
    not_one_line,
    number_text,
)

JsonDict = dict[str, Any]
MAX_STAKE = 10**10  # minor units: anything above is refused as INVALID_BET_SIZE before it reaches the core
ORDER_TYPES = tuple(str(t.value) for t in OrderType)
PERSISTENCE_TYPES = tuple(str(t.value) for t in PersistenceType)


@dataclass(frozen=True, slots=True)
class PlaceRequest:
    echo: JsonDict
    selection_id: int
    side: Side
    price: Decimal | None
    size: int | None
    customer_ref: str | None
    problem: tuple[str, str] | None  # (error code, message) found before the core sees it
    fill_or_kill: int | None = None  # timeInForce FILL_OR_KILL: its minFillSize (the size when none is given)


_new_place_request = fast_constructor(PlaceRequest)
_SIDES = {side.value: side for side in Side}
_ORDER_TYPES = frozenset(ORDER_TYPES)
_PERSISTENCE_TYPES = frozenset(PERSISTENCE_TYPES)
_NUMBERS = (int, float)  # the classes of JSON numbers (a bool's class is bool)


def parse_place(raw: Any, i: int) -> PlaceRequest:
    """Read one ``PlaceInstruction``; type errors raise, bad values become a ``problem``.

    Each field is taken directly when it is what clients send (a known enum
    string, a number); anything else goes to the :mod:`~exchange.server.params`
    getter, which refuses it with the message naming the field. The getters
    cost a microsecond or two per instruction that placeOrders cannot spare.
    """
    if not isinstance(raw, dict):
        raise invalid_input(f"instructions[{i}] must be an object")
    where = f"instructions[{i}]."
    selection_id, side, order_type, customer_ref = _instruction_fields(raw, where)
    echo: JsonDict = {"selectionId": selection_id, "side": side.value, "orderType": order_type, "handicap": 0.0}
    if customer_ref is not None:
        echo["customerOrderRef"] = customer_ref
    if order_type != OrderType.LIMIT:
        message = f"orderType {order_type} is not offered on exchange games; use LIMIT"
        return _new_place_request(echo, selection_id, side, None, None, customer_ref, ("INVALID_ORDER_TYPE", message))
    for other, its_type in (("limitOnCloseOrder", "LIMIT_ON_CLOSE"), ("marketOnCloseOrder", "MARKET_ON_CLOSE")):
        if raw.get(other) is not None:  # sent with LIMIT, it would be dropped unread
            raise invalid_input(f"{where}{other} goes with orderType {its_type}; a LIMIT instruction takes "
                                "limitOrder only")
    limit = raw.get("limitOrder")
    if limit.__class__ is not dict:
        limit = get_object(raw, "limitOrder", where=where)
    if limit.get("betTargetType") is not None or limit.get("betTargetSize") is not None:
        echo["limitOrder"] = dict(limit)
        message = "betTargetType (a size set by payout or profit) is not offered; give limitOrder.size"
        return _new_place_request(echo, selection_id, side, None, None, customer_ref, ("INVALID_ORDER_TYPE", message))
    raw_price, raw_size, persistence = _limit_fields(limit, where)
    echo["limitOrder"] = {"size": raw_size, "price": raw_price, "persistenceType": persistence}
    price, size, problem = _limit_values(raw_price, raw_size, persistence)
    fill_or_kill = None
    if limit.get("timeInForce") is not None or limit.get("minFillSize") is not None:
        fill_or_kill, fok_problem = _time_in_force(limit, size, echo["limitOrder"], where)
        problem = problem or fok_problem
    if customer_ref is not None and problem is None:
        if len(customer_ref) > CUSTOMER_REF_MAX:
            problem = ("INVALID_CUSTOMER_ORDER_REF",
                       f"customerOrderRef is at most {CUSTOMER_REF_MAX} characters, not {len(customer_ref)}")
        elif (breaker := line_breaker(customer_ref)) is not None:
            problem = ("INVALID_CUSTOMER_ORDER_REF", not_one_line("customerOrderRef", breaker))
    return _new_place_request(echo, selection_id, side, price, size, customer_ref, problem, fill_or_kill)


def _time_in_force(limit: Mapping[str, Any], size: int | None, echo: JsonDict, where: str
                   ) -> tuple[int | None, tuple[str, str] | None]:
    """``(minimum fill, problem)`` of a limitOrder's ``timeInForce`` and ``minFillSize``, as API-NG has them.

    FILL_OR_KILL matches at once at least ``minFillSize`` (the whole size when absent) or nothing; the rest
    is cancelled. A ``minFillSize`` without FILL_OR_KILL is ``UNEXPECTED_MIN_FILL_SIZE``; one that is not positive or
    exceeds the size, ``INVALID_MIN_FILL_SIZE``. An unknown ``timeInForce`` is a malformed call.
    """
    tif = limit.get("timeInForce")
    if tif is not None:
        tif = get_enum(limit, "timeInForce", ("FILL_OR_KILL",), where=f"{where}limitOrder.")
        echo["timeInForce"] = tif
    raw_min = limit.get("minFillSize")
    if raw_min is None:
        return size, None
    raw_min = get_number(limit, "minFillSize", where=f"{where}limitOrder.")
    echo["minFillSize"] = raw_min
    if tif is None:
        return None, ("UNEXPECTED_MIN_FILL_SIZE", "minFillSize is for timeInForce FILL_OR_KILL only")
    try:
        min_fill = to_minor(raw_min)
    except ValueError as exc:
        return None, ("INVALID_MIN_FILL_SIZE", str(exc))
    if min_fill <= 0 or (size is not None and min_fill > size):
        return None, ("INVALID_MIN_FILL_SIZE", f"minFillSize {raw_min} must be positive and at most the size")
    return min_fill, None


def _instruction_fields(raw: JsonDict, where: str) -> tuple[int, Side, str, str | None]:
    """``(selectionId, side, orderType, customerOrderRef)`` of one instruction; a wrong type raises, and so does a
    ``handicap`` other than 0 (as listRunnerBook's: no runner here has another, so it would name none)."""
    selection_id = raw.get("selectionId")
    if selection_id.__class__ is not int:
        selection_id = get_int(raw, "selectionId", where=where)  # refuses a bool or a float; reads "7" as 7
    side_name = raw.get("side")
    side = _SIDES.get(side_name) if side_name.__class__ is str else None
    if side is None:
        side = Side(get_enum(raw, "side", tuple(_SIDES), where=where))
    order_type = raw.get("orderType")
    if order_type.__class__ is not str or order_type not in _ORDER_TYPES:
        order_type = get_enum(raw, "orderType", ORDER_TYPES, where=where)
    customer_ref = raw.get("customerOrderRef")
    if customer_ref is not None:  # too long: the instruction's INVALID_CUSTOMER_ORDER_REF (parse_place), not malformed
        customer_ref = get_str(raw, "customerOrderRef", where=where) or None  # "" is no ref, as everywhere after
    handicap = raw.get("handicap")
    if handicap is not None and (handicap.__class__ not in _NUMBERS or handicap) and number_text(handicap) != 0:
        raise invalid_input(f"{where}handicap must be 0 (no market here has handicaps), not {handicap!r:.40}")
    return selection_id, side, order_type, customer_ref


def _limit_fields(limit: Mapping[str, Any], where: str) -> tuple[Any, Any, str]:
    """``(price, size, persistenceType)`` of a ``limitOrder`` as sent (numbers unconverted); a wrong type raises."""
    raw_price, raw_size, persistence = limit.get("price"), limit.get("size"), limit.get("persistenceType")
    if raw_price.__class__ not in _NUMBERS:
        raw_price = get_number(limit, "price", where=f"{where}limitOrder.")
    if raw_size.__class__ not in _NUMBERS:
        raw_size = get_number(limit, "size", where=f"{where}limitOrder.")
    if persistence is None:
        persistence = PersistenceType.LAPSE.value
    elif persistence.__class__ is not str or persistence not in _PERSISTENCE_TYPES:
        persistence = get_enum(limit, "persistenceType", PERSISTENCE_TYPES, where=f"{where}limitOrder.")
    return raw_price, raw_size, persistence


def _limit_values(raw_price: Any, raw_size: Any,
                  persistence: str) -> tuple[Decimal | None, int | None, tuple[str, str] | None]:
    """``(price, size in minor units, problem)``: the first bad value found becomes the problem, not an exception."""
    problem: tuple[str, str] | None = None
    size: int | None = None
    price: Decimal | None = None
    try:
        price = to_exact_decimal(raw_price, "price")
    except ValueError as exc:
        problem = ("INVALID_ODDS", str(exc))
    try:
        size = to_minor(raw_size)
        if size <= 0 or size > MAX_STAKE:
            raise ValueError(f"size {raw_size} must be more than 0 and at most {MAX_STAKE // 100:,}.00: an amount "
                             "of the account's currency (GBP: pounds and pence)")
    except ValueError as exc:
        problem = problem or ("INVALID_BET_SIZE", str(exc))
    if persistence != PersistenceType.LAPSE and problem is None:
        message = f"persistenceType {persistence} is not offered: unmatched bets lapse when the window closes (LAPSE)"
        problem = ("INVALID_PERSISTENCE_TYPE", message)
    return price, size, problem
