"""What a client connection may cost the server: how many there are, and how long a request may take to arrive.

Without limits, 3,000 connections that each sent half a request stayed open
for as long as their clients liked, a file handle each. Three limits, all
options of ``serve``:

* **connections** (``max_connections``): past the cap a new connection is
  answered ``503`` (``SERVICE_BUSY``, ``Retry-After: 1``) and closed at once;
* **request head** (``header_timeout_ms``): a connection must deliver a
  complete request line and headers within this time of opening, and again of
  each response (so it is also the keep-alive idle limit), or it is closed;
* **request body** (``body_timeout_ms``): once the head has arrived, the body
  must arrive within this time, or the request is answered ``408``
  (``REQUEST_TIMEOUT``) and the connection closed; ``503`` at once if the
  server starts to stop meanwhile (:meth:`ConnectionGuard.stop_reading_bodies`).

aiohttp has neither a connection cap nor a head timeout of its own (its
keep-alive timer covers a connection that never sends anything only in recent
versions), so :class:`ConnectionGuard` wraps each connection's protocol: it
counts connections and keeps a head deadline per connection, which stops
when a whole head has arrived (its blank line is seen in the bytes received;
:func:`connection_middleware` stops it too when a request reaches the app) and
restarts when the app has answered. A deadline is a number, not a timer: one
sweep every quarter of the header timeout closes the connections past theirs,
so a request costs two stores rather than a timer scheduled and cancelled (a
deadline is kept to within a quarter of the timeout). A body that came with
its head is read without a timeout (there is nothing to wait for). Both
timeouts run on the server's :class:`~exchange.clock.Clock` (the wall clock,
or the virtual clock a test advances).
:func:`run_app` is ``web.run_app`` with the guarded listener (:class:`GuardedSite`, started by
:func:`listen`), whose connections answer a request aiohttp cannot parse in JSON
(:class:`~exchange.server.middleware.JsonErrorsHandler`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import resource
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from aiohttp import web
from aiohttp.typedefs import Handler
from multidict import MultiDict, MultiDictProxy

from exchange.clock import Clock, Timer, WallClock
from exchange.page import body_coding
from exchange.server.middleware import JsonErrorsHandler

log = logging.getLogger(__name__)

ResponseT = TypeVar("ResponseT", bound=web.StreamResponse)
BodyT = TypeVar("BodyT")

DEFAULT_MAX_CONNECTIONS = 1000
DEFAULT_HEADER_TIMEOUT_MS = 10_000
DEFAULT_BODY_TIMEOUT_MS = 10_000
_FDS_BESIDE_CONNECTIONS = 64  # the database, the journal writer's pipes, the listening socket, ...
HEAD_END = b"\r\n\r\n"  # the blank line that ends a request's head

_BUSY_BODY = json.dumps({"error": "SERVICE_BUSY", "details": "the server has as many connections as it takes; "
                                                              "try again shortly"}).encode()
BUSY_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
                 b"Connection: close\r\nContent-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)


class _Guarded(asyncio.Protocol):
    """One connection: the aiohttp protocol inside, made only once the connection is admitted."""

    def __init__(self, guard: ConnectionGuard, make_inner: Callable[[], asyncio.Protocol]) -> None:
        self._guard = guard
        self._make_inner = make_inner
        self._inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        #: When the next request head must have arrived (ms on the guard's clock), or None once it has.
        self.deadline: int | None = None
        #: The last bytes received while a head is awaited: a head's blank line may come split across reads.
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        if not self._guard._admit(self, transport):
            transport.write(BUSY_RESPONSE)
            transport.close()
            return
        self.transport = transport
        self._inner = self._make_inner()
        self.arm()
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._inner is None:
            return
        if self.deadline is not None:
            self._note_head(data)
        self._inner.data_received(data)

    def _note_head(self, data: bytes) -> None:
        """Stop the deadline once a whole head has arrived (its blank line), not only when its handler starts: on
        a busy loop the sweep can run between the two, and it would close a connection whose request the app then
        carries out with nobody left to answer."""
        seen = self._tail + data
        if not self._tail:  # nothing of a head yet: empty lines sent before one (RFC 9112 lets a server skip them)
            seen = seen.lstrip(b"\r\n")  # are not a head, or a client could hold the connection with "\r\n\r\n"
        if HEAD_END in seen:
            self.disarm()
        else:
            self._tail = seen[-len(HEAD_END) + 1:]

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if self._inner is not None:
            self._guard._forget(self)
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()

    def arm(self) -> None:
        """Start the head deadline: a whole request head must arrive within the guard's header timeout."""
        self.deadline = self._guard.clock.now() + self._guard.header_timeout_ms
        self._tail = b""

    def disarm(self) -> None:
        self.deadline = None
        self._tail = b""

    def expire(self) -> None:
        self.deadline = None
        if self.transport is not None and not self.transport.is_closing():
            self._guard.timed_out += 1
            self.transport.close()


class ConnectionGuard:
    """The connection cap and the per-connection head deadlines of one listening server, on ``clock``."""

    def __init__(self, *, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 header_timeout_ms: int = DEFAULT_HEADER_TIMEOUT_MS, clock: Clock | None = None) -> None:
        if max_connections <= 0 or header_timeout_ms <= 0:
            raise ValueError(f"the connection cap and the header timeout must be positive, not {max_connections} "
                             f"and {header_timeout_ms} ms")
        self.max_connections = max_connections
        self.header_timeout_ms = header_timeout_ms
        self.clock: Clock = clock or WallClock()
        self._open: dict[asyncio.BaseTransport, _Guarded] = {}
        self.refused = 0
        self.timed_out = 0
        self._sweeper: Timer | None = None
        #: Set when the server starts to stop (:meth:`stop_reading_bodies`).
        self.stopping = False
        self._body_waits: set[asyncio.Timeout] = set()

    @contextlib.asynccontextmanager
    async def body_deadline(self, timeout_ms: int) -> AsyncIterator[None]:
        """``asyncio.timeout`` of ``timeout_ms`` on the guard's clock, ended at once if the server starts to stop
        (:meth:`stop_reading_bodies`): the block gets ``TimeoutError`` when either comes."""
        async with asyncio.timeout(None) as timeout:
            expire = self.clock.call_later(timeout_ms, lambda: _end_now(timeout))
            self._body_waits.add(timeout)
            if self.stopping:
                _end_now(timeout)
            try:
                yield
            finally:
                expire.cancel()
                self._body_waits.discard(timeout)

    def stop_reading_bodies(self) -> None:
        """The server starts to stop. aiohttp reads nothing more from a connection once it is closing, so a request
        whose body had not all arrived would wait out the body timeout before its 408 (the server's stop with it):
        each such wait ends now, and the request is refused as the server stopping (:func:`read_body`)."""
        self.stopping = True
        for timeout in self._body_waits:
            _end_now(timeout)

    def protocol_factory(self, make_inner: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """What ``loop.create_server`` takes: each connection guarded, ``make_inner`` (aiohttp's) inside."""
        return lambda: _Guarded(self, make_inner)

    def _admit(self, conn: _Guarded, transport: asyncio.BaseTransport) -> bool:
        if len(self._open) >= self.max_connections:
            self.refused += 1
            if self.refused == 1 or self.refused % 1000 == 0:
                log.warning("connections: %d open, the cap; refused %d so far", len(self._open), self.refused)
            return False
        self._open[transport] = conn
        if self._sweeper is None:
            self._schedule_sweep()
        return True

    def _schedule_sweep(self) -> None:
        self._sweeper = self.clock.call_later(max(self.header_timeout_ms // 4, 1), self._sweep)

    def _sweep(self) -> None:
        """Close every connection past its head deadline; sweep again while any is open."""
        now = self.clock.now()
        for conn in [c for c in self._open.values() if c.deadline is not None and c.deadline <= now]:
            conn.expire()
        self._sweeper = None
        if self._open:
            self._schedule_sweep()

    def _forget(self, conn: _Guarded) -> None:
        if conn.transport is not None:
            self._open.pop(conn.transport, None)

    def request_started(self, transport: asyncio.BaseTransport | None) -> None:
        """A request's head has arrived on ``transport``: no deadline while the app handles it."""
        conn = self._open.get(transport) if transport is not None else None
        if conn is not None:
            conn.disarm()

    def request_done(self, transport: asyncio.BaseTransport | None) -> None:
        """The app has answered: the next request's head must arrive within the header timeout."""
        conn = self._open.get(transport) if transport is not None else None
        if conn is not None:
            conn.arm()

    def __len__(self) -> int:
        return len(self._open)


def _end_now(timeout: asyncio.Timeout) -> None:
    """End ``timeout``'s block now, unless it is ending already (the body timeout and the server's stop can come in
    one turn of the loop: a second reschedule would raise)."""
    if not timeout.expired():
        timeout.reschedule(asyncio.get_running_loop().time())


#: The app's guard (:func:`run_app` listens through it) and the body timeout its handlers read bodies with.
GUARD = web.AppKey("connection_guard", ConnectionGuard)
BODY_TIMEOUT_MS = web.AppKey("body_timeout_ms", int)
#: Set by :func:`listen` once the app's port is bound (an app that has it): work that must not hold up the first
#: answer waits for it. A server started otherwise (aiohttp's test server) sets it itself if anything waits.
LISTENING = web.AppKey("listening", asyncio.Event)


@web.middleware
async def connection_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Outermost: stop the connection's head deadline while the app handles the request; restart it after."""
    guard = request.app[GUARD]
    guard.request_started(request.transport)
    try:
        return await handler(request)
    finally:
        guard.request_done(request.transport)


def _unread(request: web.Request) -> web.HTTPException:
    """The refusal of a request whose body did not arrive: 408 when it was too slow, 503 when the server started to
    stop meanwhile (nothing was done; the client may send it again once the server is back). The connection is
    closed as soon as it is sent: the body's stream is ended here, or aiohttp would linger up to 10 s more (on the
    wall clock, whatever the guard's) waiting for the body that did not come. The close itself is the error
    middleware's (``Connection: close`` makes it force the close): with the stream ended and the connection kept,
    the parser would be left in the middle of a body."""
    request.content.feed_eof()
    if request.app[GUARD].stopping:
        return web.HTTPServiceUnavailable(headers={"Connection": "close", "Retry-After": "1"},
                                          text="the server is stopping: the request's body was not read and nothing "
                                               "was done; send it again once the server is back")
    seconds = request.app[BODY_TIMEOUT_MS] / 1000
    return web.HTTPRequestTimeout(headers={"Connection": "close"},
                                  text=f"the request body did not arrive within {seconds:g} s")


def closing(response: ResponseT) -> ResponseT:
    """``response`` to a request whose body is left unread (too large): the connection is closed after it, not
    kept for another request. Before it closes, aiohttp lingers up to 10 s reading what the client still sends of
    the body, so that a client still sending gets the answer, not a reset that would lose it."""
    response.force_close()
    return response


def _refuse_a_body_said_too_large(request: web.Request) -> None:
    """413 at once for a body whose Content-Length is past ``client_max_size`` (not after waiting for it)."""
    limit = request.client_max_size
    if limit and request.content_length is not None and request.content_length > limit:
        raise web.HTTPRequestEntityTooLarge(limit, request.content_length)


async def read_body(request: web.Request) -> bytes:
    """The request body, decoded as its Content-Encoding says (:func:`exchange.page.body_coding.decoded`), or 408 if
    it does not arrive within the body timeout (413 past ``client_max_size``, at once if its Content-Length says so,
    and decoded; 400 if it is not what its Content-Encoding says; 415 in an encoding not taken)."""
    raw = await _arrived(request, request.read)
    try:
        return body_coding.decoded(request, raw)
    except body_coding.Refused as refused:  # raised as what the routes' callers catch
        if refused.status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE:
            raise web.HTTPRequestEntityTooLarge(request.client_max_size, request.client_max_size + 1,
                                                text=refused.details) from None
        if refused.status == HTTPStatus.UNSUPPORTED_MEDIA_TYPE:
            raise web.HTTPUnsupportedMediaType(text=refused.details) from None
        raise web.HTTPBadRequest(text=refused.details) from None


async def read_form(request: web.Request) -> MultiDictProxy[Any]:
    """The form (url-encoded or multipart), or 408 if it does not arrive within the body timeout (413, 400 and 415
    as :func:`read_body`). An encoded form is url-encoded (a multipart one is refused, ``ValueError``), and one of
    another content type is empty, as aiohttp reads them."""
    if not body_coding.codings_of(request):
        return await _arrived(request, request.post)
    body = await read_body(request)
    if request.content_type == "multipart/form-data":
        raise ValueError("a multipart form is taken as it is, not encoded")
    if request.content_type != "application/x-www-form-urlencoded":
        return MultiDictProxy(MultiDict())
    charset = request.charset or "utf-8"
    return MultiDictProxy(MultiDict(parse_qsl(body.rstrip().decode(charset), keep_blank_values=True,
                                              encoding=charset)))


async def _arrived(request: web.Request, read: Callable[[], Awaitable[BodyT]]) -> BodyT:
    """``read()`` of the request's body within the body timeout (nothing to wait for if the whole body came with
    the head), refused as :func:`read_body` says."""
    _refuse_a_body_said_too_large(request)
    try:
        if request.content.is_eof():  # the whole body came with the head: nothing to wait for
            return await read()
        async with request.app[GUARD].body_deadline(request.app[BODY_TIMEOUT_MS]):
            return await read()
    except TimeoutError:
        raise _unread(request) from None


# --- running --------------------------------------------------------------------------------------------------


class GuardedSite(web.BaseSite):
    """A TCP listener whose connections pass through a :class:`ConnectionGuard`."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, guard: ConnectionGuard,
                 handler_args: Mapping[str, Any] | None = None) -> None:
        super().__init__(runner, backlog=128)
        self._host, self._port, self._guard = host, port, guard
        self._handler_args = dict(handler_args or {})

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        # each connection speaks aiohttp's HTTP/1.1, answering what it cannot parse in JSON (JsonErrorsHandler)
        handler = functools.partial(JsonErrorsHandler, server, loop=loop, **self._handler_args)
        self._server = await loop.create_server(self._guard.protocol_factory(handler), self._host, self._port,
                                                backlog=self._backlog, reuse_address=True)


def ensure_file_limit(max_connections: int) -> None:
    """Raise the soft limit on open files to fit the connection cap if it is lower (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max_connections + _FDS_BESIDE_CONNECTIONS
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        if target < wanted:
            log.warning("open-file limit %d is below the connection cap %d plus %d; lower --max-connections",
                        target, max_connections, _FDS_BESIDE_CONNECTIONS)


async def listen(app: web.Application, host: str, port: int, *, handle_signals: bool = False) -> web.AppRunner:
    """Start ``app`` and listen on ``host:port`` through its connection guard; the caller cleans the runner up.

    If the start fails (a stop signal may end it at any await), what had started is cleaned up before the
    error propagates.
    """
    guard = app[GUARD]
    handler_args: dict[str, Any] = {"access_log": None, "keepalive_timeout": guard.header_timeout_ms / 1000,
                                    **body_coding.HANDLER_ARGS}  # (the guarded site makes its own, without the app's)
    runner = web.AppRunner(app, handle_signals=handle_signals, **handler_args)
    try:
        await runner.setup()
        await GuardedSite(runner, host, port, guard, handler_args).start()
    except BaseException:
        await runner.cleanup()
        raise
    if LISTENING in app:
        app[LISTENING].set()
    return runner


#: The signals that stop a served app (each ends :func:`run_app` as aiohttp's own handling would).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def _serve(app: web.Application, host: str, port: int,
                 ready: Callable[[web.Application], Awaitable[None]], signals: list[str]) -> None:
    """Serve until a stop signal; ``signals`` gets the name of each one that came."""
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:  # when aiohttp would add its own (its runner's setup, first thing in listen)
        loop.add_signal_handler(signum, _stop_on, signal.Signals(signum).name, signals)
    try:
        runner = await listen(app, host, port)
        try:
            await ready(app)  # requests are already served while it runs
            while True:
                await asyncio.sleep(3600)
        finally:
            await runner.cleanup()
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def _stop_on(name: str, signals: list[str]) -> None:
    signals.append(name)
    raise web.GracefulExit  # a SystemExit: out of the loop's run, as aiohttp's handler does


async def _nothing(app: web.Application) -> None:
    """The default ``ready``."""


def run_app(app: web.Application, *, host: str, port: int,
            ready: Callable[[web.Application], Awaitable[None]] = _nothing) -> str | None:
    """``web.run_app(app, host=host, port=port)`` with the app's connection guard on the listener.

    ``ready(app)`` is awaited once the app has started and the port is bound. Returns on SIGINT or
    SIGTERM after a clean shutdown (the cleanup contexts that had started have run), one that comes
    while the app starts included, with the signal's name (``"SIGTERM"``; None when the loop ended
    otherwise); an error at startup (the database in use, the port taken) propagates.
    """
    ensure_file_limit(app[GUARD].max_connections)
    loop = asyncio.new_event_loop()
    signals: list[str] = []
    main = loop.create_task(_serve(app, host, port, ready, signals))
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(main)
    except web.GracefulExit:
        pass
    except KeyboardInterrupt:  # Ctrl-C before the handlers were added
        signals.append("SIGINT")
    finally:
        try:
            main.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(main)
        finally:
            _cancel_all(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
            asyncio.set_event_loop(None)
    return signals[0] if signals else None


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
