"""How a stream connection's messages leave: its transport, and an outbox that never makes the hub wait.

The hub sends every change to every subscriber one after another while it
holds its ``sending`` lock. Were it to wait for each client's socket, one client
that stopped reading (a bot paused in a debugger, a process stopped, a
network that stalled) would, once the socket buffers filled, hold the lock for
good: every other client's deltas, heartbeats and new subscription images would
stop with it. So a connection's messages go to its :class:`Outbox` at once, and
a task of its own writes them to the transport as fast as the client reads. A
client that lets more than ``max_bytes`` pile up beyond its largest message is
too slow to follow the stream: its connection is aborted (nothing more can
reach it in order) and the hub forgets it; its messages were only ever its own.
(The largest message is allowed for: a resubscription's image of every market
closed since its clock may pass ``max_bytes`` alone, and the client still
reading it must not be dropped for the change that follows it.)

>>> import asyncio
>>> class Printed:
...     closed = False
...     async def send_text(self, text: str) -> None:
...         print(text)
...     async def close(self) -> None:
...         print("closed")
...     def abort(self) -> None:
...         print("aborted")
...     def buffered(self) -> int:
...         return 0
>>> async def demo() -> None:
...     outbox = Outbox(Printed(), max_bytes=10)
...     outbox.put("one"), outbox.put("two")
...     await outbox.finish()
...     print(outbox.put("three"))
>>> asyncio.run(demo())
one
two
closed
False
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections import deque
from typing import Protocol

from aiohttp import web

log = logging.getLogger(__name__)

#: What one connection may have waiting to be written before it counts as too slow and is aborted.
MAX_QUEUED_BYTES = 1 << 20
#: How long a closing connection's last messages may take to be written before it is aborted.
DRAIN_TIMEOUT_S = 5.0
_GONE = (ConnectionError, RuntimeError, OSError, ssl.SSLError)


class Transport(Protocol):
    """How a connection's messages travel: a WebSocket (``/stream``) or a TLS socket of CRLF lines."""

    @property
    def closed(self) -> bool: ...

    async def send_text(self, text: str) -> None:
        """Send one message, waiting while the peer is slow; raise ``ConnectionError`` (or ``RuntimeError``) if
        it has gone."""

    async def close(self) -> None:
        """Close after what was sent, politely (a WebSocket close frame, a TLS close)."""

    def abort(self) -> None:
        """Drop the connection at once, whatever is still unsent."""

    def buffered(self) -> int:
        """Bytes written but not yet taken by the peer (held in the connection's own buffers)."""


class WebSocketTransport:
    """One JSON message per WebSocket text frame."""

    def __init__(self, ws: web.WebSocketResponse, raw: asyncio.Transport | None) -> None:
        self.ws = ws
        self.raw = raw  # the HTTP connection under it, for abort()

    @property
    def closed(self) -> bool:
        return self.ws.closed

    async def send_text(self, text: str) -> None:
        await self.ws.send_str(text)

    async def close(self) -> None:
        await self.ws.close()

    def abort(self) -> None:
        if self.raw is not None:
            self.raw.abort()

    def buffered(self) -> int:
        return 0 if self.raw is None else self.raw.get_write_buffer_size()


class Outbox:
    """One connection's messages, queued at once and written in order by a task of its own."""

    def __init__(self, transport: Transport, *, max_bytes: int = MAX_QUEUED_BYTES) -> None:
        self.transport = transport
        self.max_bytes = max_bytes
        self.gone = False  # the connection is closed, closing, or aborted: nothing more is queued
        self._queue: deque[str | None] = deque()  # None: close the transport here
        self._queued_bytes = 0
        self._largest = 0  # the largest message queued: a client may be behind by it and max_bytes more
        self._ready = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._write(), name="stream-outbox")

    def put(self, text: str) -> bool:
        """Queue ``text``; False if the connection is gone, or is now too slow and has been aborted.

        What the client has not taken counts: the queue and the transport's own buffer (aiohttp's
        WebSocket writer rarely waits for a slow peer, so a backlog may sit there instead). One message
        when nothing is waiting is always taken, however large (a first image of many markets), and the
        client may be behind by the largest message it was sent and ``max_bytes`` more.
        """
        if self.gone:
            return False
        size = len(text)  # characters: bytes for the ASCII that JSON dumps make
        behind = self._queued_bytes + self.transport.buffered()
        if behind and behind + size > self.max_bytes + self._largest:
            log.warning("stream: a client left %d bytes unread; its connection is dropped", behind)
            self.abort()
            return False
        self._queue.append(text)
        self._queued_bytes += size
        self._largest = max(self._largest, size)
        self._ready.set()
        return True

    def close_after(self) -> None:
        """Close the transport once everything queued so far is written; queue nothing more."""
        if not self.gone:
            self.gone = True
            self._queue.append(None)
            self._ready.set()

    async def finish(self) -> None:
        """Write what is queued and close, within :data:`DRAIN_TIMEOUT_S`; abort the connection if it takes longer.

        An outbox aborted before (a client too slow) has nothing left to write: its writer's cancellation is the
        abort's, not this caller's, and ends here (it once escaped and skipped the rest of the connection's
        release, which held its place on the stream port for good)."""
        self.close_after()
        try:
            async with asyncio.timeout(DRAIN_TIMEOUT_S):
                await asyncio.wait((self._task,))  # waits, and leaves the writer running if this caller is cancelled
        except TimeoutError:
            self.abort()
        if self._task.done() and not self._task.cancelled():
            self._task.result()  # a writer's own failure is raised, not lost

    def abort(self) -> None:
        """Drop whatever is queued and the connection with it."""
        self.gone = True
        self._queue.clear()
        self._queued_bytes = 0
        self._task.cancel()
        self.transport.abort()

    async def _write(self) -> None:
        try:
            while True:
                while not self._queue:
                    self._ready.clear()
                    await self._ready.wait()
                text = self._queue.popleft()
                if text is None:
                    await self.transport.close()
                    return
                self._queued_bytes -= len(text)
                await self.transport.send_text(text)
        except _GONE:
            self.gone = True
            with contextlib.suppress(*_GONE):
                self.transport.abort()
