"""A request the HTTP parser cannot read is answered in the project's JSON error shape, over a raw socket.

aiohttp answers what it cannot parse (a header over 8 KiB, a bad request line,
a bad chunk) before any route or middleware sees it, with a plain-text page.
The server listens through :func:`exchange.server.connections.listen`, whose
connections answer those in the same ``{"error", "details"}`` JSON as every
other 4xx, with a stable code, and so is aiohttp's refusal of an ``Expect`` it does not
meet, which it makes before the app sees the request. The app runs in process on the test's clock and
listens on 127.0.0.1; each case is one raw socket that the server closes.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from exchange.clock import VirtualClock
from exchange.page import body_coding
from exchange.page.body_coding import MAX_MEMBERS, encodings_taken
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.connections import listen
from exchange.server.fallback_equities import river_only_equities
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, free_port

OVERSIZE_HEADER = b"GET /games/v1/channels HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
CASES = [
    ("header over 8 KiB", OVERSIZE_HEADER, 431, "REQUEST_HEADER_FIELDS_TOO_LARGE"),
    ("request line over 8 KiB", b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 431,
     "REQUEST_HEADER_FIELDS_TOO_LARGE"),
    ("bad method", b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "BAD_REQUEST"),
    ("TLS on the HTTP port", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", 400, "BAD_REQUEST"),
    ("bad header name", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400, "BAD_REQUEST"),
    ("NUL in a header", b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400, "BAD_REQUEST"),
    ("two Content-Lengths", b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
     400, "BAD_REQUEST"),
    ("bad chunk size", b"POST /exchange/betting/json-rpc/v1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                       b"\r\nzz\r\nabc\r\n0\r\n\r\n", 400, "BAD_REQUEST"),
    ("too many headers", b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: a\r\n" % i for i in range(200))
     + b"\r\n", 400, "BAD_REQUEST"),
]


@pytest.fixture
async def port(tmp_path: Path) -> AsyncIterator[int]:
    config = ServerConfig(db_path=str(tmp_path / "ex.db"), window_ms=WINDOW_MS, playing_ms=PLAYING_MS, house=False,
                          seed=1)
    app = create_app(config, clock=VirtualClock(start_ms=START_MS), equities=river_only_equities)
    chosen = free_port()
    runner = await listen(app, "127.0.0.1", chosen)
    try:
        yield chosen
    finally:
        await runner.cleanup()


async def _exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` on a fresh connection; the status, headers and body the server sends before it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 5)  # the server closes the connection after the error
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    fields = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), fields, body


@pytest.mark.parametrize(("what", "request_bytes", "status", "code"), CASES, ids=[c[0] for c in CASES])
async def test_a_request_the_parser_cannot_read_is_a_json_error(port: int, what: str, request_bytes: bytes,
                                                                 status: int, code: str) -> None:
    got_status, fields, body = await _exchange(port, request_bytes)
    assert got_status == status, (what, body)
    assert fields["content-type"].startswith("application/json"), (what, body)
    answer: dict[str, Any] = json.loads(body)
    assert answer["error"] == code and answer["details"], answer
    assert len(answer["details"]) <= 300  # says what was wrong without echoing the request back


async def test_the_oversize_header_answer_names_the_limit(port: int) -> None:
    _, _, body = await _exchange(port, OVERSIZE_HEADER)
    assert "8190 bytes" in json.loads(body)["details"]


async def test_a_good_request_on_the_same_listener_is_answered_as_before(port: int) -> None:
    status, _, body = await _exchange(port, b"GET /games/v1/channels HTTP/1.1\r\nHost: x\r\n"
                                                 b"Connection: close\r\n\r\n")
    assert status == 200 and json.loads(body)["channels"][0]["id"] == "holdem"


@pytest.mark.parametrize("path", ["/api/login", "/exchange/betting/json-rpc/v1", "/no/such/route"])
async def test_an_expectation_the_server_does_not_know_is_a_json_417(port: int, path: str) -> None:
    """aiohttp meets ``Expect: 100-continue`` and refuses any other before the app (or its middleware) sees the
    request: the refusal is JSON with a stable code like every other 4xx."""
    request = (f"POST {path} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n"
               f"Connection: close\r\n\r\n{{}}").encode()
    status, fields, body = await _exchange(port, request)
    assert status == 417 and fields["content-type"].startswith("application/json"), body
    answer = json.loads(body)
    assert answer["error"] == "EXPECTATION_FAILED"
    assert "'200-ok'" in answer["details"] and "100-continue" in answer["details"]


async def test_expect_100_continue_is_still_met(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = b'{"username": "nobody", "password": "x"}'
    writer.write(b"POST /api/login HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nX-Application: k\r\n"
                 b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
    await writer.drain()
    assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(body)
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    assert raw.startswith(b"HTTP/1.1 200 ") and json.loads(raw.partition(b"\r\n\r\n")[2])["status"] == "FAIL"


REQUEST = b'{"jsonrpc": "2.0", "id": 1, "method": "SportsAPING/v1.0/listEventTypes", "params": {"filter": {}}}'


def _rpc_head(*encodings: str) -> bytes:
    """A JSON-RPC call's head, a ``Content-Encoding`` field for each of ``encodings``."""
    fields = "".join(f"Content-Encoding: {encoding}\r\n" for encoding in encodings)
    return f"POST /exchange/betting/json-rpc/v1 HTTP/1.1\r\nHost: x\r\nX-Application: k\r\n{fields}".encode()


async def _post_body(port: int, head: bytes, body: bytes, *, after_head: bool) -> tuple[int, dict[str, Any]]:
    """POST ``head`` (its lines, without Content-Length) and ``body``: with the head, or (``after_head``) only once
    the handler has begun to wait for it (the server's ``100 Continue`` says so). The status and JSON answer."""
    head += b"Content-Length: %d\r\nConnection: close\r\n" % len(body)
    if not after_head:
        status, _, answer = await _exchange(port, head + b"\r\n" + body)
        return status, json.loads(answer)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head + b"Expect: 100-continue\r\n\r\n")
    await writer.drain()
    assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(body)
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 5)  # (the body timeout never comes: the test's clock stands still)
    writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


@pytest.mark.parametrize(("encoding", "body", "said"), [
    ("gzip", b"hello", "it is not a gzip stream"),
    ("deflate", b"hello", "it is not a deflate stream"),
    ("deflate", b"{}", "it ends before its deflate stream does"),
    ("deflate", zlib.compress(REQUEST)[:-6], "it ends before its deflate stream does"),
    ("gzip", gzip.compress(REQUEST)[:-8], "it ends before its gzip stream does"),
    ("deflate", zlib.compress(REQUEST) + b"}", "it goes on past the end of its deflate stream"),
    ("gzip", gzip.compress(b"") * MAX_MEMBERS + gzip.compress(REQUEST),
     f"it holds more than {MAX_MEMBERS} gzip members"),
], ids=["gzip-not-gzip", "deflate-not-deflate", "deflate-two-bytes", "deflate-cut", "gzip-without-its-trailer",
        "deflate-and-more", "too-many-gzip-members"])
@pytest.mark.parametrize("after_head", [False, True], ids=["with-its-head", "after-its-head"])
async def test_a_body_that_is_not_what_its_encoding_says_is_a_400_saying_so(
        port: int, encoding: str, body: bytes, said: str, after_head: bool, caplog: pytest.LogCaptureFixture) -> None:
    """Said in the server's own words, at once, whenever the body comes. aiohttp decoded bodies itself: its details
    were its own ("400, message: Can not decode content-encoding: gzip; ..."); a deflate body that ended early was
    "not valid HTTP/1.1: deflate" when it came with its head, and after it the handler waited out the body timeout
    (a 408, and a traceback in the log); a gzip body without its checksum and length was taken."""
    with caplog.at_level(logging.ERROR):
        status, answer = await _post_body(port, _rpc_head(encoding), body, after_head=after_head)
    assert (status, answer["error"]) == (400, "BAD_REQUEST"), answer
    assert answer["details"] == (f"the request body is not what its Content-Encoding ({encoding}) says: {said}; "
                                 f"send it as it is, or encoded as said ({encodings_taken()})"), answer
    assert caplog.text == ""


def _raw_deflate(data: bytes) -> bytes:
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return raw.compress(data) + raw.flush()


@pytest.mark.parametrize(("encodings", "body"), [
    (("gzip",), gzip.compress(REQUEST)),
    (("GZIP",), gzip.compress(REQUEST)),
    (("x-gzip",), gzip.compress(REQUEST)),
    (("deflate",), zlib.compress(REQUEST)),
    (("deflate",), _raw_deflate(REQUEST)),
    (("gzip",), gzip.compress(REQUEST[:40]) + gzip.compress(REQUEST[40:])),
    (("identity",), REQUEST),
    (("deflate", "gzip"), gzip.compress(zlib.compress(REQUEST))),
    (("deflate, gzip",), gzip.compress(zlib.compress(REQUEST))),
    (("identity", "gzip"), gzip.compress(REQUEST)),
    (("gzip, identity",), gzip.compress(REQUEST)),
], ids=["gzip", "any-case", "x-gzip", "deflate", "raw-deflate", "two-gzip-members", "identity", "two-fields",
        "a-list", "identity-then-gzip", "gzip-then-identity"])
async def test_a_body_its_encodings_decode_is_read(port: int, encodings: tuple[str, ...], body: bytes) -> None:
    """Any case; ``x-gzip`` as gzip (RFC 9110); a raw deflate stream without its zlib header (some clients send one);
    gzip members one after another; codings applied one after another, in several fields or one list, decoded the
    last first. Only the first field was read: a body gzipped twice was decoded once, and one after ``identity`` not
    at all."""
    status, answer = await _post_body(port, _rpc_head(*encodings), body, after_head=False)
    assert status == 200 and answer["error"]["data"]["APINGException"]["errorCode"] == "NO_SESSION", answer
    assert answer["id"] == 1  # the call's own id: the body was read


@pytest.mark.parametrize("encoding", ["br", "zstd", "x-rot13"])
async def test_a_body_in_an_encoding_not_taken_is_a_415_naming_those_taken(port: int, encoding: str) -> None:
    """An encoding aiohttp knew but had no library for (br, zstd) was a 400 calling the request "not valid
    HTTP/1.1" and telling the client to install Brotli; one it did not know was passed on as it came."""
    status, answer = await _post_body(port, _rpc_head(encoding), REQUEST, after_head=False)
    assert (status, answer["error"]) == (415, "UNSUPPORTED_MEDIA_TYPE"), answer
    assert answer["details"] == (f"a request body encoded {encoding!r} is not taken here: send it as it is, or "
                                 f"encoded {encodings_taken()}"), answer
    status, empty = await _post_body(port, _rpc_head(encoding), b"", after_head=False)
    _, plain = await _post_body(port, _rpc_head(), b"", after_head=False)  # nothing to decode: an empty body's answer
    assert status == 200 and empty["error"]["data"]["APINGException"]["errorCode"] == "NO_SESSION", empty
    assert empty["error"]["message"] == plain["error"]["message"], (empty, plain)


async def test_a_body_that_decodes_past_the_limit_is_refused_as_too_large(port: int) -> None:
    """A small gzip body of a large request (a "zip bomb") is refused as a large one is."""
    large = gzip.compress(b'{"params": "' + b"a" * (1 << 24) + b'"}')
    assert len(large) < 1 << 16
    status, answer = await _post_body(port, _rpc_head("gzip"), large, after_head=True)
    assert status == 200 and answer["error"]["data"]["APINGException"]["errorCode"] == "REQUEST_SIZE_EXCEEDS_LIMIT"


def test_a_bomb_is_not_decoded_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inflater is asked for one byte past the limit, and no more: a body that decodes to gigabytes costs what
    its first limit's worth costs."""
    asked: list[int] = []
    inflater = zlib.decompressobj

    class Counted:
        def __init__(self, wbits: int) -> None:
            self.inner = inflater(wbits)

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            asked.append(max_length)
            return self.inner.decompress(data, max_length)

    monkeypatch.setattr(body_coding.zlib, "decompressobj", Counted)
    with pytest.raises(body_coding.TooLarge):
        body_coding.decode(["gzip"], gzip.compress(b"a" * 5000), limit=1000)
    assert asked == [1001]


@pytest.mark.parametrize(("content_type", "encoding", "form", "login"), [
    (b"application/x-www-form-urlencoded", b"gzip", b"username=nobody&password=x", "INVALID_USERNAME_OR_PASSWORD"),
    (b"application/x-www-form-urlencoded; charset=latin-1", b"gzip", "username=n\xf6body&password=x".encode("latin-1"),
     "INVALID_USERNAME_OR_PASSWORD"),
    (b"application/x-www-form-urlencoded", b"gzip", b"username=n\xf6body&password=x", "INPUT_VALIDATION_ERROR"),
    (b"multipart/form-data; boundary=b", b"gzip", b"username=nobody&password=x", "INPUT_VALIDATION_ERROR"),
    (b"application/x-www-form-urlencoded", b"x-rot13", b"username=nobody&password=x", "INPUT_VALIDATION_ERROR"),
], ids=["url-encoded", "latin-1", "not-utf-8", "multipart", "an-encoding-not-taken"])
async def test_an_encoded_login_form_is_read_if_url_encoded(port: int, content_type: bytes, encoding: bytes,
                                                             form: bytes, login: str) -> None:
    """A login is answered as Betfair's, status 200 and a loginStatus, whatever is wrong with its form; its charset
    read as an unencoded form's is."""
    head = (b"POST /api/login HTTP/1.1\r\nHost: x\r\nX-Application: k\r\nContent-Encoding: %s\r\n"
            b"Content-Type: %s\r\n" % (encoding, content_type))
    status, answer = await _post_body(port, head, gzip.compress(form), after_head=False)
    assert (status, answer["status"], answer["error"]) == (200, "FAIL", login), answer
