"""JSON in and out of the server: orjson on the hot path, the standard library for what orjson refuses.

Every placeOrders call parses one body and writes one answer and one journal
record; with the standard library that was an eighth of the server's CPU per
order, with orjson it is a fiftieth. orjson refuses a few things the standard
library takes (``NaN``, lone surrogates, UTF-16 bodies): those fall back to
:mod:`json`, so the server accepts the JSON it did before (but a client's ``NaN`` and
lone surrogates, which are not JSON text: :func:`loads_client`). One difference
remains: orjson reads an integer past 64 bits as a float, which every field
that wants an integer refuses with ``INVALID_INPUT_DATA`` (no API-NG field
holds such a number; Betfair's are Java longs). A document with more than
:data:`FAST_BRACKETS` brackets goes to :mod:`json` too: orjson takes nesting
1024 deep, deeper than ``repr()`` (in error messages) can walk, while the
standard library refuses what the interpreter's recursion limit cannot hold,
and that refusal is the server's parse error for absurdly nested bodies.

>>> loads(b'{"id": 1, "price": 2.5, "nan": NaN}')
{'id': 1, 'price': 2.5, 'nan': nan}
>>> dumps({"price": 2.5, "ok": True, "ids": [1, 2]})
b'{"price":2.5,"ok":true,"ids":[1,2]}'
>>> dumps({"big": 2**70})
b'{"big":1180591620717411303424}'
"""

from __future__ import annotations

import dataclasses
import json
import operator
import re
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import orjson

from exchange.core.records import Record

FAST_BRACKETS = 512  # a 50-call batch of one-instruction placeOrders has 250


def loads(data: bytes | str, parse_constant: Callable[[str], Any] | None = None) -> Any:
    """Parse JSON; raises ``ValueError`` (or ``RecursionError``, ``UnicodeDecodeError``) as :func:`json.loads`,
    to which ``parse_constant`` goes (what ``NaN``, ``Infinity`` and ``-Infinity`` are read as)."""
    if len(data) > FAST_BRACKETS and _brackets(data) > FAST_BRACKETS:  # a short body cannot have that many
        return json.loads(data, parse_constant=parse_constant)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data, parse_constant=parse_constant)


class NotANumber(ValueError):
    """A client's document holds ``NaN``, ``Infinity`` or ``-Infinity``: JavaScript's, not JSON's (RFC 8259)."""


def _not_a_number(name: str) -> Any:
    raise NotANumber(f"{name} is not a JSON number (JSON has none that is not finite)")


class NotUnicode(ValueError):
    """A client's document holds a string that is not Unicode text: a lone UTF-16 surrogate (``"\\udc00"``)."""


class RepeatedKey(ValueError):
    """A client's document gives one object the same key twice: JSON readers differ on which one counts (RFC 8259
    leaves it open), so a repeated ``size`` or ``sizeReduction`` must not be read as the last one quietly."""


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # how JSON writes half of a UTF-16 pair
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a half left alone once the parser joined the pairs


def loads_client(data: bytes | str) -> Any:
    r""":func:`loads` for a client's document: one holding a lone surrogate is refused (:class:`NotUnicode`), and
    one holding ``NaN`` or ``Infinity`` (:class:`NotANumber`: they are not JSON, though Python writes them).

    JSON can write half of a UTF-16 pair (``"x\udc00"``) and Python reads it, but no UTF-8 text takes it: a
    reference carrying one went through the API and then stopped the Parquet recording of every game. The
    escapes are looked for in a UTF-8 body's bytes first, so an ordinary body costs one scan.

    >>> loads_client(b'{"ref": "\\ud83d\\ude00"}') == {"ref": "\U0001f600"}  # a pair: one character
    True
    >>> try:
    ...     loads_client(b'{"ref": "x\\udc00"}')
    ... except NotUnicode as exc:
    ...     print(str(exc)[:51])
    'x\udc00' has half of a UTF-16 surrogate pair alone
    >>> try:
    ...     loads_client('{"ref": "x\udc00"}')  # text already decoded, the half in it
    ... except NotUnicode as exc:
    ...     print(str(exc)[:51])
    'x\udc00' has half of a UTF-16 surrogate pair alone
    >>> try:
    ...     loads_client(b'{"limitOrder": {"size": 2, "price": NaN}}')
    ... except NotANumber as exc:
    ...     print(exc)
    NaN is not a JSON number (JSON has none that is not finite)
    >>> try:
    ...     loads_client(b'{"limitOrder": {"size": 2, "price": 3, "size": 50}}')
    ... except RepeatedKey as exc:
    ...     print(exc)
    one object gives the key 'size' twice; give each key once
    """
    value = loads(data, _not_a_number)
    _refuse_a_repeated_key(data, value)
    # a UTF-8 body is read for the escapes first; text (a stream's line) and a UTF-16 or -32 body are walked whole
    utf8 = data if isinstance(data, bytes) and json.detect_encoding(data) == "utf-8" else None
    if utf8 is None or _SURROGATE_ESCAPE.search(utf8):
        found = _lone_surrogate(value)
        if found is not None:
            raise NotUnicode(f"{found!r:.60} has half of a UTF-16 surrogate pair alone; send text as UTF-8 (or "
                             "escape a character past U+FFFF as its two halves together)")
    return value


_KEY_END_BYTES, _KEY_END_TEXT = re.compile(rb'"\s*:'), re.compile(r'"\s*:')  # a key's closing quote, its colon


def _refuse_a_repeated_key(data: bytes | str, value: Any) -> None:
    """Raise :class:`RepeatedKey` if an object of the document ``data`` (parsed: ``value``) repeats a key.

    The parsed objects keep one value a key, so a document without repeats has exactly as many keys in them as its
    text has keys; the text is counted as quotes followed by a colon, which is at least that (a string value may
    hold ``":`` too): only when the counts differ is it read again, pair by pair. A body in UTF-16 or -32 is always
    read pair by pair (its bytes for a key's quote and colon are not those, and a character's may be).
    """
    if isinstance(data, str):
        marks = len(_KEY_END_TEXT.findall(data))
    else:
        marks = len(_KEY_END_BYTES.findall(data)) if json.detect_encoding(data) == "utf-8" else -1
    if marks == _keys(value):
        return

    def first_repeat(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(f"one object gives the key {key!r:.60} twice; give each key once")
            seen.add(key)
        return dict(pairs)

    json.loads(data, object_pairs_hook=first_repeat)


def _keys(value: Any) -> int:
    """How many keys the objects of a parsed document hold."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _lone_surrogate(value: Any) -> str | None:
    """The first string (a key or a value) of a parsed document holding a lone surrogate, if any."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def not_json(exc: BaseException) -> str:
    """Why :func:`loads` refused a client's body, in the client's terms (not the parser's).

    >>> not_json(RecursionError("maximum recursion depth exceeded"))
    'the body is nested too deeply to be read (a few hundred levels at most)'
    >>> not_json(ValueError("Expecting value: line 1 column 1 (char 0)"))
    'the body is not JSON (Expecting value: line 1 column 1 (char 0))'
    """
    if isinstance(exc, NotUnicode):
        return f"the body holds text that is not Unicode: {exc}"
    if isinstance(exc, NotANumber):
        return f"the body is not JSON: {exc}"
    if isinstance(exc, RepeatedKey):
        return f"the body is ambiguous: {exc}"
    if isinstance(exc, RecursionError):
        return "the body is nested too deeply to be read (a few hundred levels at most)"
    if isinstance(exc, ValueError) and "digits" in str(exc) and "limit" in str(exc):
        return f"the body holds a number of more than {sys.get_int_max_str_digits()} digits; none is taken"
    return f"the body is not JSON ({exc})"


def dumps(value: Any) -> bytes:
    """Compact JSON as UTF-8 bytes (no spaces), as the standard library's ``separators=(",", ":")`` writes it."""
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError: an int past 64 bits, a non-str key, a lone surrogate
        return json.dumps(value, separators=(",", ":")).encode()


def dumps_str(value: Any) -> str:
    """:func:`dumps` as text (a WebSocket text frame, a TEXT column)."""
    return dumps(value).decode()


def whole_number(value: object) -> int:
    """``value`` if it is a JSON whole number (not a float, not a boolean), else ``TypeError``: for the server's
    own documents read back (the journal's records, the snapshots' parts).

    >>> whole_number(3)
    3
    >>> whole_number(True)
    Traceback (most recent call last):
    ...
    TypeError: expected a whole number, got True
    """
    if type(value) is not int:
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def dumps_record(body: Mapping[str, Any] | Record) -> str:
    """A journal body as JSON text: a mapping as it is, a core record as its ``to_dict()`` would write.

    The same JSON as ``json.dumps(record.to_dict())`` (a test holds them equal for every kind of event),
    about four times faster: fields are read with one ``attrgetter`` per class and orjson writes enums,
    tuples and numbers itself, calling back only for nested records and ``Decimal`` / ``Fraction``.
    """
    value = body if isinstance(body, Mapping) else _record_dict(body)
    try:
        return orjson.dumps(value, default=_record_default, option=orjson.OPT_PASSTHROUGH_DATACLASS).decode()
    except TypeError:  # something orjson cannot write (an int past 64 bits): the core's own projection
        plain = body if isinstance(body, Mapping) else body.to_dict()
        return json.dumps(plain, separators=(",", ":"))


_Shape = tuple[str | None, tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_SHAPES: dict[type, _Shape] = {}


def _shape(cls: type) -> _Shape:
    shape = _SHAPES.get(cls)
    if shape is None:
        names = tuple(field.name for field in dataclasses.fields(cls))
        shape = _SHAPES[cls] = (getattr(cls, "TYPE_TAG", None), names, _getter(names))
    return shape


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function from a record to its field values, as a tuple (``attrgetter`` of one name gives no tuple)."""
    if len(names) > 1:
        return operator.attrgetter(*names)

    def values(record: Any) -> tuple[Any, ...]:
        return tuple(getattr(record, name) for name in names)

    return values


def _record_dict(record: Record) -> dict[str, Any]:
    tag, names, values = _shape(type(record))
    out: dict[str, Any] = {"type": tag} if tag is not None else {}
    out.update(zip(names, values(record), strict=True))
    return out


def _record_default(value: Any) -> Any:
    if isinstance(value, Record):
        return _record_dict(value)
    if isinstance(value, Decimal | Fraction):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _brackets(data: bytes | str) -> int:
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    return data.count(b"[") + data.count(b"{")
