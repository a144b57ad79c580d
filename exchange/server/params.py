"""Reading API-NG parameters: typed getters that refuse with a message naming the field.

A parameter of the wrong JSON type refuses the whole call with
``INVALID_INPUT_DATA`` (Betfair's DSC errors); a parameter of the right type
with a bad value (a price off the ladder) is the business of the method and
is reported per instruction.

>>> get_str({"marketId": "holdem.1"}, "marketId")
'holdem.1'

A number may come as JSON text, as Betfair's own API-NG sample code sends it (``"selectionId":"47972"``,
``"price":"1.50"``, ``"maxResults":"1"``) and Betfair reads it: plain decimal text only (ASCII digits, a
leading minus, one decimal point), as :func:`number_text` reads it; likewise ``"true"`` and ``"false"``.

>>> get_int({"selectionId": "7"}, "selectionId"), get_number({"price": "1.50"}, "price")
(7, 1.5)
>>> get_int({"selectionId": "seven"}, "selectionId", where="instructions[0].")
Traceback (most recent call last):
...
exchange.server.errors.ApiError: INVALID_INPUT_DATA: instructions[0].selectionId must be an integer, not 'seven'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, TypeVar

from exchange.betfair.apiformat import line_breaker
from exchange.server.errors import invalid_input

T = TypeVar("T")
_MISSING = object()
MAX_STRING = 256
#: The longest ``marketId`` a call naming one market takes (ours are a channel and a game number, ``holdem.17``).
MARKET_ID_MAX = 64


_INTEGER_TEXT = re.compile(r"-?[0-9]{1,18}")
_DECIMAL_TEXT = re.compile(r"-?[0-9]{1,18}(?:\.[0-9]{1,18})?")
_BOOL_TEXT = {"true": True, "false": False}


def number_text(value: Any, *, integer: bool = False) -> int | float | None:
    """The number a JSON string holds if it is plain decimal text (an integer's if ``integer``), else None; also
    None for decimal text no float holds exactly (money and prices are read exactly: no rounding to a bet).

    >>> number_text("1.50"), number_text("-7", integer=True), number_text("7.0", integer=True), number_text("1e3")
    (1.5, -7, None, None)
    >>> number_text("2.0000000000000001")
    """
    if value.__class__ is not str:
        return None
    if _INTEGER_TEXT.fullmatch(value):
        return int(value)
    if integer or not _DECIMAL_TEXT.fullmatch(value):
        return None
    number = float(value)
    return number if Decimal(repr(number)) == Decimal(value) else None


def plain_decimal(text: str) -> bool:
    """Whether ``text`` is a number written plainly: digits, a point and decimals if any, a minus sign if any (no
    exponent, plus sign, spaces, underscores or other scripts' digits, which ``Decimal`` and ``float`` take).

    >>> plain_decimal("25.50"), plain_decimal("-3"), plain_decimal("1e2"), plain_decimal(" 1"), plain_decimal("١")
    (True, True, False, False, False)
    """
    return _DECIMAL_TEXT.fullmatch(text) is not None


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _get(params: Mapping[str, Any], name: str, required: bool, where: str) -> Any:
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if required:
            raise invalid_input(f"{where}{name} is required")
        return _MISSING
    return value


def not_one_line(name: str, breaker: str) -> str:
    """What to say of a text field ``name`` that holds ``breaker``."""
    return f"{name} must be one line of text, without control characters ({breaker!r} here)"


def get_str(
    params: Mapping[str, Any], name: str, *, required: bool = True, max_len: int = MAX_STRING, where: str = "",
    one_line: bool = False
) -> str:
    """A string of at most ``max_len`` characters; ``one_line``: a reference or a label, which a control
    character would break in the logs, the tables and the page (:func:`line_breaker`)."""
    value = _get(params, name, required, where)
    if value is _MISSING:
        return ""
    if not isinstance(value, str):
        raise invalid_input(f"{where}{name} must be a string, not {_show(value)}")
    if len(value) > max_len:
        raise invalid_input(f"{where}{name} is at most {max_len} characters, not {len(value)}")
    if one_line and (breaker := line_breaker(value)) is not None:
        raise invalid_input(not_one_line(f"{where}{name}", breaker))
    return value


def get_opt_str(params: Mapping[str, Any], name: str, *, max_len: int = MAX_STRING, where: str = "",
                one_line: bool = False) -> str | None:
    if params.get(name) is None:
        return None
    return get_str(params, name, max_len=max_len, where=where, one_line=one_line)


#: The integers a parameter may be, from ``INT_MIN`` to ``INT_MAX``: those every JSON parser the server uses reads
#: exactly (signed or unsigned 64 bits; a larger one is a float to one of them). A page past anything there is,
#: ``fromRecord`` 2**64 - 1, is one.
INT_MIN, INT_MAX = -(2**63), 2**64 - 1


def get_int(params: Mapping[str, Any], name: str, *, where: str = "", default: int | None = None) -> int:
    value = _get(params, name, default is None, where)
    if value is _MISSING:
        assert default is not None
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value) if INT_MIN <= value <= INT_MAX else value
        else:
            text = number_text(value, integer=True)
            if text is None:
                raise invalid_input(f"{where}{name} must be an integer, not {_show(value)}")
            value = int(text)
    if not isinstance(value, int) or not INT_MIN <= value <= INT_MAX:  # whichever parser read it (float or int)
        raise invalid_input(f"{where}{name} must be an integer of 64 bits, not {_show(value)}")
    return value


def record_window(params: Mapping[str, Any], limit: int) -> tuple[int, int]:
    """``fromRecord`` and ``recordCount`` of a paged list (0 or absent: a full page; more than a page: a page)."""
    start = get_int(params, "fromRecord", default=0)
    count = get_int(params, "recordCount", default=limit)
    if start < 0 or count < 0:
        raise invalid_input("fromRecord and recordCount must not be negative")
    return start, min(count or limit, limit)


def get_number(params: Mapping[str, Any], name: str, *, where: str = "") -> int | float:
    value = _get(params, name, True, where)
    if isinstance(value, bool) or not isinstance(value, int | float):
        text = number_text(value)
        if text is None:
            inexact = value.__class__ is str and _DECIMAL_TEXT.fullmatch(value)
            hint = " (more significant digits than a number holds: at most 15)" if inexact else ""
            raise invalid_input(f"{where}{name} must be a number, not {_show(value)}{hint}")
        return text
    return value


def get_bool(params: Mapping[str, Any], name: str, *, default: bool, where: str = "") -> bool:
    value = _get(params, name, False, where)
    if value is _MISSING:
        return default
    if not isinstance(value, bool):
        if value.__class__ is str and value in _BOOL_TEXT:
            return _BOOL_TEXT[value]
        raise invalid_input(f"{where}{name} must be true or false, not {_show(value)}")
    return value


def get_object(params: Mapping[str, Any], name: str, *, required: bool = True, where: str = "") -> Mapping[str, Any]:
    value = _get(params, name, required, where)
    if value is _MISSING:
        return {}
    if not isinstance(value, dict):
        raise invalid_input(f"{where}{name} must be an object, not {_show(value)}")
    return value


def get_list(
    params: Mapping[str, Any], name: str, *, required: bool = False, max_items: int | None = None, where: str = ""
) -> list[Any]:
    value = _get(params, name, required, where)
    if value is _MISSING:
        return []
    if not isinstance(value, list):
        raise invalid_input(f"{where}{name} must be a list, not {_show(value)}")
    if max_items is not None and len(value) > max_items:
        raise invalid_input(f"{where}{name} holds at most {max_items} items, not {len(value)}")
    return value


def get_str_list(params: Mapping[str, Any], name: str, *, max_items: int | None = 1000, where: str = ""
                 ) -> list[str]:
    """A list of strings; more than ``max_items`` (None: no bound) is malformed. A limit that Betfair refuses
    with a code of its own (too many ids for the call) is checked by the caller with ``max_items=None``."""
    items = get_list(params, name, max_items=max_items, where=where)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise invalid_input(f"{where}{name}[{i}] must be a string, not {_show(item)}")
        if len(item) > MAX_STRING:
            raise invalid_input(f"{where}{name}[{i}] is at most {MAX_STRING} characters, not {len(item)}")
    return items


def get_int_list(params: Mapping[str, Any], name: str, *, max_items: int = 1000, where: str = "") -> list[int]:
    items = get_list(params, name, max_items=max_items, where=where)
    out = []
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, int):
            item = number_text(item, integer=True)
            if item is None:
                raise invalid_input(f"{where}{name}[{i}] must be an integer, not {_show(items[i])}")
        out.append(int(item))
    return out


def get_enum(
    params: Mapping[str, Any], name: str, allowed: tuple[str, ...], *, default: str | None = None, where: str = ""
) -> str:
    value = _get(params, name, default is None, where)
    if value is _MISSING:
        assert default is not None
        return default
    if value.__class__ is not str or value not in allowed:
        raise invalid_input(f"{where}{name} must be one of {', '.join(allowed)}, not {_show(value)}")
    return value
