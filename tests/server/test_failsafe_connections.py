"""Connections cannot pile up: head and body timeouts, and a connection cap, on the guarded listener.

The issue: 3,000 connections that each sent half a request stayed open 23 s and
more (file handles 14 → 4,014). Here raw sockets on 127.0.0.1 do the same to
the server in this process, listening through its connection guard as
``serve`` does; both timeouts run on the server's clock, a
:class:`~exchange.clock.VirtualClock` the test advances to the exact moment.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from exchange.clock import VirtualClock
from exchange.server import connections
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.fallback_equities import river_only_equities
from tests.server.helpers import START_MS

HALF_REQUEST = b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Application: raw\r\n"
SOCKETS = 50
HEADER_MS = 10_000
BODY_MS = 8_000
LOOP_TURNS = 5_000  # at most this many turns of the event loop for a socket's bytes to be handled
READ_BOUND_S = 30  # a safety bound on reading a socket to its end, never reached when the server closes it


@dataclass
class Listening:
    app: web.Application
    clock: VirtualClock
    port: int
    runner: web.AppRunner

    @property
    def guard(self) -> connections.ConnectionGuard:
        return self.app[connections.GUARD]

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.port)

    async def works(self) -> bool:
        async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{self.port}/openapi.json") as r:
            return r.status == 200 and "paths" in await r.json()


Start = Callable[..., Awaitable[Listening]]


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    """Start a server listening through its connection guard on a free port; stopped when the test ends."""
    runners: list[web.AppRunner] = []

    async def start(max_connections: int = 200) -> Listening:
        clock = VirtualClock(start_ms=START_MS)
        config = ServerConfig(db_path=str(tmp_path / f"conn-{len(runners)}.db"), house=False, seed=1,
                              run_games=False, header_timeout_ms=HEADER_MS, body_timeout_ms=BODY_MS,
                              max_connections=max_connections)
        app = create_app(config, clock=clock, equities=river_only_equities)
        runner = await connections.listen(app, "127.0.0.1", 0)
        runners.append(runner)
        return Listening(app, clock, runner.addresses[0][1], runner)

    yield start
    for runner in runners:
        if runner.server is not None:  # (not stopped by the test)
            await runner.cleanup()


async def settle(condition: Callable[[], bool], what: str) -> None:
    """Let the event loop turn until ``condition()`` holds (the server has handled what the sockets sent)."""
    for _ in range(LOOP_TURNS):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{what}: not after {LOOP_TURNS} turns of the event loop")


async def read_to_end(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends before it closes the connection."""
    return await asyncio.wait_for(reader.read(), READ_BOUND_S)


async def read_answer(reader: asyncio.StreamReader) -> bytes:
    """One answer: its head and the body its ``Content-Length`` says (not waiting for the connection to close)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_BOUND_S)
    lines = head.lower().split(b"\r\n")
    length = next(int(line.split(b":")[1]) for line in lines if line.startswith(b"content-length:"))
    return head + await asyncio.wait_for(reader.readexactly(length), READ_BOUND_S)


async def closed_without_answer(reader: asyncio.StreamReader) -> bool:
    """Whether the server closed the connection without a byte of answer (a reset is that too: it closed with
    bytes of ours still unread)."""
    try:
        return await read_to_end(reader) == b""
    except ConnectionResetError:
        return True


async def test_half_requests_are_closed_at_the_header_timeout(start: Start) -> None:
    server = await start()
    guard = server.guard
    sockets = [await server.connect() for _ in range(SOCKETS)]
    for _, writer in sockets:
        writer.write(HALF_REQUEST)
    await settle(lambda: len(guard) == SOCKETS, "every connection admitted")
    server.clock.advance(HEADER_MS - 1)
    assert guard.timed_out == 0 and len(guard) == SOCKETS  # the server holds them for now
    assert await server.works()  # and serves others meanwhile
    server.clock.advance(1)
    assert guard.timed_out == SOCKETS
    for reader, writer in sockets:
        assert await closed_without_answer(reader)
        writer.close()
    await settle(lambda: len(guard) == 0, "every timed-out connection forgotten")
    assert await server.works()


async def test_a_head_trickled_a_byte_at_a_time_is_still_cut_off(start: Start) -> None:
    server = await start()
    reader, writer = await server.connect()
    await settle(lambda: len(server.guard) == 1, "the connection admitted")
    elapsed_ms = 0
    for byte in HALF_REQUEST * 4:  # data keeps coming, but the head never completes in time
        writer.write(bytes([byte]))
        await writer.drain()
        server.clock.advance(100)
        elapsed_ms += 100
        if server.guard.timed_out:
            break
    assert elapsed_ms == HEADER_MS
    assert await closed_without_answer(reader)
    writer.close()


async def test_empty_lines_before_a_head_do_not_stop_its_deadline(start: Start) -> None:
    """A head's end is its blank line; the empty lines a client may send before a request line are no head, or a
    connection could be held forever by sending "\\r\\n\\r\\n" and then half a request."""
    server = await start()
    reader, writer = await server.connect()
    writer.write(b"\r\n\r\n\r\n" + HALF_REQUEST)
    await writer.drain()
    await settle(lambda: len(server.guard) == 1, "the connection admitted")
    (connection,) = server.guard._open.values()
    await settle(lambda: connection.deadline is None or connection._tail != b"", "the bytes received")
    server.clock.advance(HEADER_MS)
    assert server.guard.timed_out == 1
    assert await closed_without_answer(reader)
    writer.close()


async def test_an_idle_connection_is_closed_at_the_header_timeout(start: Start) -> None:
    server = await start()
    reader, writer = await server.connect()
    await settle(lambda: len(server.guard) == 1, "the connection admitted")
    server.clock.advance(HEADER_MS - 1)
    assert server.guard.timed_out == 0
    server.clock.advance(1)
    assert server.guard.timed_out == 1
    assert await closed_without_answer(reader)
    writer.close()


@pytest.mark.parametrize("parts", [
    [b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"],
    [b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r", b"\n"],  # its blank line split across two reads
    [b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"\r\n"],
], ids=["one-read", "split-cr-lf", "split-line"])
async def test_a_whole_head_in_as_its_deadline_passes_is_answered(start: Start, parts: list[bytes]) -> None:
    """A head that has all arrived when the sweep finds the deadline passed is the app's: on a busy loop the sweep
    can run after the bytes came in and before the handler starts, and it closed the connection while the app went
    on to carry the request out (a placeOrders done, its answer lost: the client saw the connection aborted)."""
    server = await start()
    reader, writer = await server.connect()
    await settle(lambda: len(server.guard) == 1, "the connection admitted")
    (connection,) = server.guard._open.values()
    server.clock.advance(HEADER_MS - 1)
    for part in parts:  # the bytes as the transport hands them over, in the same turn of the loop as ...
        connection.data_received(part)
    server.clock.advance(1)  # ... the sweep at the deadline
    assert server.guard.timed_out == 0
    answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_BOUND_S)
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    writer.close()


async def test_a_client_gone_while_its_body_is_read_is_no_error(start: Start, caplog: pytest.LogCaptureFixture) -> None:
    """A connection lost while the server reads a request's body is the client's going, logged as that; it was an
    "unhandled error" with a traceback."""
    server = await start()
    _, writer = await half_sent(server, b'{"jsonrpc"')
    timers = server.clock.pending - 1  # without the handler's wait for the body
    with caplog.at_level(logging.INFO, logger="exchange.server.middleware"):
        writer.transport.abort()
        await settle(lambda: server.clock.pending == timers and len(server.guard) == 0, "the handler done")
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "exchange.server.middleware"] == [
        ("INFO", "connection lost during POST /exchange/betting/json-rpc/v1")]
    assert await server.works()


async def half_sent(server: Listening, part: bytes, path: str = "/exchange/betting/json-rpc/v1",
                    kind: str = "application/json") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection whose request has sent its head and ``part`` of the 100 bytes of body it promised, its handler
    waiting for the rest."""
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Application: raw\r\n"
            f"Content-Type: {kind}\r\nContent-Length: 100\r\n\r\n").encode()
    reader, writer = await server.connect()
    await settle(lambda: len(server.guard) == 1, "the connection admitted")
    timers = server.clock.pending
    writer.write(head + part)
    await settle(lambda: server.clock.pending == timers + 1, "the handler waiting for the body")
    return reader, writer


URLENCODED = ("application/x-www-form-urlencoded", b"username=a")
MULTIPART = ("multipart/form-data; boundary=b", b'--b\r\nContent-Disposition: form-data; name="username"\r\n\r\na')


@pytest.mark.parametrize(("path", "form"), [("/exchange/betting/json-rpc/v1", URLENCODED), ("/api/login", URLENCODED),
                                           ("/api/login", MULTIPART)])
async def test_a_body_that_does_not_arrive_is_a_408_and_the_connection_closes(start: Start, path: str,
                                                                             form: tuple[str, bytes]) -> None:
    kind, part = form
    server = await start()
    reader, writer = await half_sent(server, part, path, kind)
    waiting = server.clock.pending
    server.clock.advance(BODY_MS - 1)
    assert server.clock.pending == waiting  # still waiting
    server.clock.advance(1)
    got = await read_answer(reader)
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    assert b'"REQUEST_TIMEOUT"' in got and b"\r\nConnection: close\r\n" in got
    # closed at once: not kept open the 10 s aiohttp lingers for the rest of a body (it did, on the wall clock)
    await settle(lambda: len(server.guard) == 0, "the connection closed after the answer")
    assert await read_to_end(reader) == b""
    writer.close()
    assert await server.works()


async def test_a_body_still_awaited_when_the_server_stops_is_refused_at_once(start: Start) -> None:
    """SIGTERM while a request's body is on its way: aiohttp reads nothing more of a connection once it is closing,
    so the request waited out the whole body timeout before its 408 (which blamed the client), and the server's
    stop waited with it. Now it is answered 503 as the stop begins; the server's clock does not move here, so
    without that the answer would never come."""
    server = await start()
    reader, writer = await half_sent(server, b'{"jsonrpc": "2.0", ')
    stopping = asyncio.create_task(server.runner.cleanup())  # what SIGTERM runs
    got = await read_answer(reader)
    assert got.startswith(b"HTTP/1.1 503 "), got[:200]
    assert b'"SERVICE_UNAVAILABLE"' in got and b"the server is stopping" in got
    assert b"\r\nRetry-After: 1\r\n" in got
    await asyncio.wait_for(stopping, READ_BOUND_S)
    assert await read_to_end(reader) == b""  # and the connection closed
    writer.close()


@pytest.mark.parametrize(("path", "said"), [("/exchange/betting/json-rpc/v1", b'"REQUEST_SIZE_EXCEEDS_LIMIT"'),
                                           ("/exchange/betting/rest/v1.0/listEvents/", b'"REQUEST_SIZE_EXCEEDS_LIMIT"'),
                                           ("/api/login", b"413")])
async def test_a_body_said_to_be_too_large_is_refused_at_once(start: Start, path: str, said: bytes) -> None:
    """Its Content-Length past the limit: refused before any of it is read, not after waiting out the body timeout
    for bytes that were never going to be taken. (The server then closes the connection, as its answer says, after
    aiohttp's lingering close: up to 10 s reading what the client may still send, so that a reset does not lose the
    answer on the way. A body that timed out, above, is not lingered for.)"""
    server = await start()
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Application: raw\r\n"
            "Content-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n").encode()
    reader, writer = await server.connect()
    await settle(lambda: len(server.guard) == 1, "the connection admitted")
    writer.write(head)
    got = await read_answer(reader)  # the clock never moves: no timeout answers this
    assert said in got, got[:300]
    head = got.split(b"\r\n\r\n")[0].lower()
    assert b"\r\nconnection: close" in head, head  # not kept open draining a body it will not take
    writer.close()
    assert await server.works()


async def test_past_the_connection_cap_a_new_connection_gets_503_at_once(start: Start) -> None:
    server = await start(max_connections=20)
    held = [await server.connect() for _ in range(20)]
    await settle(lambda: len(server.guard) == 20, "every connection admitted")
    reader, writer = await server.connect()
    got = await read_to_end(reader)
    writer.close()
    assert got.startswith(b"HTTP/1.1 503 "), got[:200]
    assert b"Retry-After: 1" in got and b'"SERVICE_BUSY"' in got
    assert server.guard.refused == 1
    for _, held_writer in held:
        held_writer.close()
    await settle(lambda: len(server.guard) == 0, "the closed connections forgotten")
    assert await server.works()  # once the server has seen the closes, it takes more


@pytest.mark.parametrize("stop_first", [False, True])
async def test_the_body_timeout_and_the_stop_in_one_turn_end_the_wait_once(stop_first: bool) -> None:
    """The body timeout fired, and the stop came before the reading task resumed: ending the wait a second time
    raised, out of the server's shutdown (its journal then never stopped); the other way round, in the timer's
    callback."""
    clock = VirtualClock(start_ms=START_MS)
    guard = connections.ConnectionGuard(clock=clock)
    loop = asyncio.get_running_loop()
    errors: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _, context: errors.append(context))

    async def reader() -> str:
        try:
            async with guard.body_deadline(BODY_MS):
                await loop.create_future()  # a body that never comes
        except TimeoutError:
            return "ended"
        return "not ended"

    try:
        task = asyncio.create_task(reader())
        await asyncio.sleep(0)
        if stop_first:
            guard.stop_reading_bodies()
            clock.advance(BODY_MS)
        else:
            clock.advance(BODY_MS)
            await asyncio.sleep(0)  # the timeout is ending; the reader has not resumed
            guard.stop_reading_bodies()
        assert await task == "ended"
        assert errors == []
    finally:
        loop.set_exception_handler(None)


@pytest.mark.parametrize("form", [URLENCODED, MULTIPART])
async def test_a_login_whose_body_came_whole_is_answered_while_the_server_stops(start: Start,
                                                                                 form: tuple[str, bytes]) -> None:
    """Only a body still on its way is refused as the server stops: one that came with its head is read."""
    kind, _ = form
    server = await start()
    server.guard.stop_reading_bodies()  # what the stop does first
    body = (b"username=a&password=b" if kind.startswith("application") else
            b'--b\r\nContent-Disposition: form-data; name="username"\r\n\r\na\r\n'
            b'--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nb\r\n--b--\r\n')
    reader, writer = await server.connect()
    writer.write((f"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Application: raw\r\nContent-Type: {kind}\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    got = await read_answer(reader)
    assert got.startswith(b"HTTP/1.1 200 ") and b'"INVALID_USERNAME_OR_PASSWORD"' in got, got[:300]
    writer.close()
