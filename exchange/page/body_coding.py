"""A request body's ``Content-Encoding``, decoded by the server itself, whole, with every check: the live server's
routes (:func:`exchange.server.connections.read_body`) and the replay's control route alike.

aiohttp's own decoding (which the app turns off: ``auto_decompress``) failed three ways: a deflate body that was
not deflate, arriving after its head, left the handler waiting for it until the body timeout (a 408 where a 400
was due, and a traceback in the log), because the parser met the error as the message completed and told the
payload nothing; the same body arriving with its head was called "not valid HTTP/1.1"; and a gzip body cut short
before its checksum and length was taken. Here the body is read as it came and then decoded, so a body that does
not decode is refused at once, always in the same words, and a gzip or deflate stream must end where the body
ends. An application whose handlers are made with :data:`HANDLER_ARGS` sees each body as it came;
:func:`body_of` decodes it, or says why not (:class:`Refused`).

>>> import gzip
>>> decode(["gzip"], gzip.compress(b'{"a": 1}'), limit=100)
b'{"a": 1}'
>>> decode(["gzip"], gzip.compress(b'{"a": 1}')[:-4], limit=100)
Traceback (most recent call last):
...
exchange.page.body_coding.Undecodable: it ends before its gzip stream does
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from http import HTTPStatus
from types import MappingProxyType
from typing import Any

from aiohttp import hdrs, web

#: The ``Content-Encoding`` values of a request body that the server decodes.
BODY_ENCODINGS = ("gzip", "deflate")
#: Other names of them (RFC 9110 asks a recipient to take ``x-gzip`` as ``gzip``).
ALIASES = {"x-gzip": "gzip"}
#: At most this many gzip members one after another in a body (each costs a copy of the rest of the body).
MAX_MEMBERS = 64


#: What an aiohttp application's request handlers are made with (its ``handler_args``), so that its routes see a
#: body as it came and decode it here.
HANDLER_ARGS: Mapping[str, Any] = MappingProxyType({"auto_decompress": False})


class Undecodable(ValueError):
    """The body is not what its ``Content-Encoding`` says; the message says how."""


class NotTaken(ValueError):
    """The body's ``Content-Encoding`` is not one the server decodes."""


class TooLarge(ValueError):
    """The decoded body would be larger than the server takes."""


class Refused(Exception):
    """A request body this module does not decode: the HTTP status of its refusal, a stable code and the words."""

    def __init__(self, status: int, code: str, details: str) -> None:
        super().__init__(details)
        self.status, self.code, self.details = status, code, details


async def body_of(request: web.Request) -> bytes:
    """``request``'s body as it came (:data:`HANDLER_ARGS`), decoded as its ``Content-Encoding`` fields say, at most
    ``client_max_size`` bytes of it; :class:`Refused` saying why not (400, 413 or 415)."""
    return decoded(request, await request.read())


def decoded(request: web.Request, body: bytes) -> bytes:
    """``body``, ``request``'s as it came, decoded as :func:`body_of` says."""
    applied = codings_of(request)
    limit = request.client_max_size
    try:
        return decode(applied, body, limit=limit)
    except NotTaken as exc:
        raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE",
                      f"a request body encoded {str(exc)[:40]!r} is not taken here: send it as it is, or encoded "
                      f"{encodings_taken()}") from None
    except TooLarge:
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "REQUEST_ENTITY_TOO_LARGE",
                      f"the request body decodes to more than {limit} bytes") from None
    except Undecodable as exc:
        raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST",
                      f"the request body is not what its Content-Encoding ({', '.join(applied):.40}) says: {exc}; "
                      f"send it as it is, or encoded as said ({encodings_taken()})") from None


def encodings_taken() -> str:
    """``gzip or deflate``, for a message."""
    return ", ".join(BODY_ENCODINGS[:-1]) + " or " + BODY_ENCODINGS[-1]


def codings(headers: Iterable[str]) -> list[str]:
    """The codings the ``Content-Encoding`` header fields ``headers`` name, in the order they were applied (the
    fields are one list, comma-separated, RFC 9110): lower case, ``identity`` left out, aliases named as
    :data:`BODY_ENCODINGS` names them.

    >>> codings(["GZIP", " identity , x-gzip"]), codings([]), codings(["identity"])
    (['gzip', 'gzip'], [], [])
    """
    named = (part.strip().lower() for field in headers for part in field.split(","))
    return [ALIASES.get(coding, coding) for coding in named if coding not in ("", "identity")]


def codings_of(request: web.Request) -> list[str]:
    """The codings ``request``'s body was sent in, from every ``Content-Encoding`` field (:func:`codings`)."""
    return codings(request.headers.getall(hdrs.CONTENT_ENCODING, ()))


def decode(applied: Sequence[str], body: bytes, *, limit: int) -> bytes:
    """``body`` decoded from the codings ``applied`` to it (:func:`codings`), the last first, at most ``limit``
    bytes of it (0: no limit): :class:`NotTaken`, :class:`Undecodable` or :class:`TooLarge` if not. An empty body
    is empty whatever it says.

    ``gzip`` may be several gzip members one after another (at most :data:`MAX_MEMBERS`). ``deflate`` is the zlib
    format (RFC 1950); a raw deflate stream without its header is taken too, as some clients send one (its first
    two bytes are then not a zlib header)."""
    for coding in reversed(applied):
        if not body:
            return body
        if coding == "gzip":
            body = _inflate(body, zlib.MAX_WBITS | 16, "gzip", limit, members=MAX_MEMBERS)
        elif coding == "deflate":
            wrapped = len(body) >= 2 and body[0] & 0x0F == zlib.DEFLATED and int.from_bytes(body[:2], "big") % 31 == 0
            body = _inflate(body, zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS, "deflate", limit, members=1)
        else:
            raise NotTaken(coding)
    return body


def _inflate(body: bytes, wbits: int, name: str, limit: int, *, members: int) -> bytes:
    """``body`` inflated: at most ``members`` streams one after another, the last ending where the body does, and
    at most ``limit`` bytes of output (the inflater is never asked for more than one byte past it)."""
    decoded, rest = b"", body
    for _ in range(members):
        inflater = zlib.decompressobj(wbits)
        room = limit + 1 - len(decoded) if limit else 0
        try:
            decoded += inflater.decompress(rest, room)
        except zlib.error:
            raise Undecodable(f"it is not a {name} stream") from None
        if limit and len(decoded) > limit:
            raise TooLarge(limit)
        if not inflater.eof:
            raise Undecodable(f"it ends before its {name} stream does")
        rest = inflater.unused_data
        if not rest:
            return decoded
    raise Undecodable(f"it holds more than {members} {name} members" if members > 1
                      else f"it goes on past the end of its {name} stream")
