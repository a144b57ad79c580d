"""The Exchange Stream API as Betfair serves it: a TLS socket of CRLF-terminated JSON lines.

betfairlightweight's ``BetfairStream`` (and so flumine live) opens a TLS TCP
connection, not a WebSocket, to its ``HOSTS`` entry on its port, waits for the
``{"op": "connection"}`` line, sends ``authentication`` and waits for its
``status`` line, then subscribes. This module is only that transport: every
message, subscription and session rule is the stream hub's
(:mod:`exchange.server.stream`), shared with the WebSocket route, so a client
sees the same markets and orders whichever way it connects.

A line is one JSON message ended by ``\\r\\n`` (a bare ``\\n`` is accepted too);
a line longer than 64 KiB is answered ``INVALID_INPUT`` and the connection
closed, as is one that is not UTF-8. The port holds at most ``max_connections``
connections at once (``serve --max-connections``, as the HTTP port): one more is
sent ``status`` ``FAILURE`` / ``MAX_CONNECTION_LIMIT_EXCEEDED`` and closed before
it reaches the hub. A connection must finish its TLS handshake within the
header timeout (``serve --header-timeout``, as an HTTP request's head), or it
is closed: the cap counts only connections past their handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl

from exchange.server.connections import DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS
from exchange.server.stream import MAX_MESSAGE, StreamHub
from exchange.server.stream_connection import StreamConnection

CRLF = b"\r\n"
_FULL = json.dumps({"op": "status", "statusCode": "FAILURE", "errorCode": "MAX_CONNECTION_LIMIT_EXCEEDED",
                    "errorMessage": "the stream port has as many connections as it takes; try again shortly",
                    "connectionClosed": True}, separators=(",", ":")).encode() + CRLF


class SocketTransport:
    """One connection's writer: each message a line ended by CRLF."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed or self.writer.is_closing()

    async def send_text(self, text: str) -> None:
        self.writer.write(text.encode() + CRLF)
        await self.writer.drain()

    def abort(self) -> None:
        self._closed = True
        self.writer.transport.abort()

    def buffered(self) -> int:
        return self.writer.transport.get_write_buffer_size()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.writer.close()
        with contextlib.suppress(ConnectionError, ssl.SSLError, OSError):
            await self.writer.wait_closed()


class StreamSocketServer:
    """The TLS listener: one :class:`SocketTransport` per client, all on the one hub."""

    def __init__(self, hub: StreamHub, context: ssl.SSLContext, *, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 handshake_timeout_ms: int = DEFAULT_HEADER_TIMEOUT_MS) -> None:
        self.hub = hub
        self.context = context
        self.max_connections = max_connections
        self.handshake_timeout_ms = handshake_timeout_ms
        self.server: asyncio.Server | None = None
        self._transports: set[SocketTransport] = set()

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (0: any free port); return the port."""
        self.server = await asyncio.start_server(self._serve, host, port, ssl=self.context, limit=_LINE_LIMIT,
                                                 ssl_handshake_timeout=self.handshake_timeout_ms / 1000)
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
        for transport in list(self._transports):
            await transport.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        watch_for_vanishing(writer.get_extra_info("socket"))
        transport = SocketTransport(writer)
        if len(self._transports) >= self.max_connections:
            writer.write(_FULL)
            with contextlib.suppress(ConnectionError, ssl.SSLError, OSError):
                await writer.drain()
            await transport.close()
            return
        self._transports.add(transport)
        conn = self.hub.connect(transport)
        try:
            await _read_lines(conn, reader)
        finally:
            self._transports.discard(transport)  # its place on the port is free, whatever the release meets
            try:
                await self.hub.release(conn)
            finally:
                await transport.close()


#: How long a client may leave what it was sent unacknowledged, or stay silent to keepalive probes, before the
#: system drops its connection (so one that vanished without closing stops counting toward its account's limit).
VANISHED_AFTER_S = 60
#: The reader's buffer: a message of :data:`MAX_MESSAGE` bytes and the CRLF that ends it.
_LINE_LIMIT = MAX_MESSAGE + 2
_KEEPALIVE = (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3),
              ("TCP_USER_TIMEOUT", VANISHED_AFTER_S * 1000))


def watch_for_vanishing(sock: socket.socket | None) -> None:
    """Have the system notice a client gone without a word (power lost, network cut) within about a minute.

    A subscribed client is sent a heartbeat every few seconds, but a peer that vanished never acknowledges
    them and the system retries for about a quarter of an hour; an idle one would be held for good. With
    ``TCP_USER_TIMEOUT`` and keepalive probes, the read ends with an error within :data:`VANISHED_AFTER_S`.
    Options a platform lacks are skipped.
    """
    if sock is None:
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in _KEEPALIVE:
        option = getattr(socket, name, None)
        if option is not None:
            sock.setsockopt(socket.IPPROTO_TCP, option, value)


async def _read_lines(conn: StreamConnection, reader: asyncio.StreamReader) -> None:
    """Hand each line to ``conn`` until the client closes, sends something unreadable, or ``conn`` is closed.

    A message is at most :data:`MAX_MESSAGE` bytes, not counting the CRLF (or LF) that ends it."""
    while not conn.closed:
        try:
            line: bytes | None = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            line = None
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, OSError):
            return  # the client went away
        if line is None or len(line.rstrip(b"\r\n")) > MAX_MESSAGE:
            conn.status(None, "INVALID_INPUT", f"a message is at most {MAX_MESSAGE} bytes", close=True)
            return
        try:
            text = line.decode()
        except UnicodeDecodeError:
            conn.status(None, "INVALID_INPUT", "a message is a line of UTF-8 JSON", close=True)
            return
        if text.strip():
            await conn.handle(text)
