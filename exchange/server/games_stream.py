"""The spectator's stream: every channel's Games API snapshot over a WebSocket at ``/games/v1/stream``.

The Exchange Stream (``/stream``) carries prices and a trader's own orders but
no cards, and only to a logged-in session; the trading page shows the table to
anyone who opens it, so this read-only stream pushes what
``/games/v1/channels/{id}/snapshot`` would answer (cards, round, window,
exact equities and best prices), as it changes:

* on connecting, ``{"op": "channels", "pt", "channels": [...]}`` (the list of
  ``/games/v1/channels``), then one ``{"op": "snapshot", "pt", "channel", "snapshot"}``
  per channel;
* afterwards a ``snapshot`` message for a channel each time its game changed
  (a card turned, a window opened or closed, a price moved, a settlement),
  conflated: a change marks its channel, and one flush ``conflate_ms`` later on
  the service's clock sends each marked channel once; a new game on a channel
  also sends ``channels`` again.

* ``{"op": "heartbeat", "pt"}`` every ``heartbeat_ms`` (:data:`HEARTBEAT_MS`, 5 s, unless the server's
  ``games_heartbeat_ms`` says otherwise; 0: none) on the service's clock, whatever changed: a
  watcher that hears nothing for several knows its stream has stalled (a connection still open that no longer
  carries anything) and connects again, where it would have shown a table frozen in time as live.

``pt`` is the server's clock (epoch ms) when the message was built. A client
sends nothing (a text frame is answered with an ``error`` message; the
connection stays open). As every answer of the server, a message waits until
the journal holds the records behind it (:meth:`ExchangeService.durable`); if
the journal fails, every connection is closed.

Anyone may watch, so a watcher that stops reading must hold up no one: each
connection's messages go to its own :class:`~exchange.server.stream_transport.Outbox`,
written as fast as that client reads, and one that falls more than
``max_queued_bytes`` behind is dropped.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from aiohttp import WSMsgType, web

from exchange.clock import Timer
from exchange.core.events import Event
from exchange.page.refusals import unknown_query
from exchange.server.game_view import channel_list, channel_snapshot
from exchange.server.service import ExchangeService
from exchange.server.stream_transport import MAX_QUEUED_BYTES, Outbox, WebSocketTransport

GAMES_STREAM_PATH = "/games/v1/stream"
MAX_MESSAGE = 4 * 1024
_KNOWN_MARKETS = 1_000  # markets whose channel is remembered (a few games of every channel)
HEARTBEAT_MS = 5_000


class GamesHub:
    """The spectator connections and the conflated flush of the channels that changed."""

    def __init__(self, service: ExchangeService, *, conflate_ms: int = 50,
                 max_queued_bytes: int = MAX_QUEUED_BYTES, heartbeat_ms: int = HEARTBEAT_MS) -> None:
        self.service = service
        self.heartbeat_ms = heartbeat_ms
        self.conflate_ms = conflate_ms
        self.max_queued_bytes = max_queued_bytes
        self.connections: set[Outbox] = set()
        self._dirty: set[str] = set()
        self._games: dict[str, str | None] = {}
        self._channel_of: dict[str | None, list[str]] = {}  # a market's channel, found once
        self._flush_handle: Timer | None = None
        self._beat_handle: Timer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.sending = asyncio.Lock()  # one flush or first image at a time, so messages leave in order

    def touched(self, market_id: str | None, event: Event | None) -> None:
        """Something changed on ``market_id``'s channel (every channel if it names none known); flush soon."""
        if not self.connections:
            return
        channels = self._channel_of.get(market_id)
        if channels is None:
            if len(self._channel_of) > _KNOWN_MARKETS:
                self._channel_of.clear()
            channels = self._channel_of[market_id] = _channels_of(market_id, self.service.channels)
        self._dirty.update(channels)
        if self._flush_handle is None:  # on the service's clock, so a test's clock decides when it flushes
            self._flush_handle = self.service.clock.call_later(self.conflate_ms, self._flush_soon)

    def _flush_soon(self) -> None:
        self._flush_handle = None
        self._spawn(self.flush())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        async with self.sending:
            dirty, self._dirty = sorted(self._dirty), set()
            messages = []
            games = self._current_games()
            if games != self._games:
                self._games = games
                messages.append(self._channels_message())
            messages += [self._snapshot_message(name) for name in dirty]
            if not await self.service.held():
                return
            self._send_all([_dumps(m) for m in messages])  # each made once, whatever the number of pages watching

    def _send_all(self, texts: list[str]) -> None:
        """Queue ``texts`` to every watcher; one gone, or too far behind and dropped, is watching no more."""
        for outbox in list(self.connections):
            if not all(outbox.put(text) for text in texts):
                self.connections.discard(outbox)

    def _beat(self) -> None:
        """Send every watcher a heartbeat, and the next one ``heartbeat_ms`` later while anyone watches."""
        self._beat_handle = None
        if not self.connections:
            return
        self._spawn(self._send_heartbeat())
        self._beat_handle = self.service.clock.call_later(self.heartbeat_ms, self._beat)

    async def _send_heartbeat(self) -> None:
        async with self.sending:  # (after a flush under way, never inside one: messages leave whole and in order)
            self._send_all([_dumps({"op": "heartbeat", "pt": self.service.now()})])

    def _current_games(self) -> dict[str, str | None]:
        return {c["id"]: c["gameId"] for c in channel_list(self.service)}

    def _channels_message(self) -> dict[str, Any]:
        return {"op": "channels", "pt": self.service.now(), "channels": channel_list(self.service)}

    def _snapshot_message(self, name: str) -> dict[str, Any]:
        return {"op": "snapshot", "pt": self.service.now(), "channel": name,
                "snapshot": channel_snapshot(self.service, name)}

    def fail(self, reason: str) -> None:
        """The journal failed: every connection is closed, with nothing more sent."""
        for outbox in list(self.connections):
            self.connections.discard(outbox)
            outbox.abort()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.query:  # refused as the snapshot and results routes refuse theirs, not silently unread
            return unknown_query(request, "the games stream takes none")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30)
        await ws.prepare(request)
        outbox = Outbox(WebSocketTransport(ws, request.transport), max_bytes=self.max_queued_bytes)
        try:
            async with self.sending:  # the image, then every flush after it: nothing is missed or reordered
                # A watcher from before its image: a change while the image waits for the journal is flushed to it
                # after the image (the flush waits for this lock). Added after, that change was not marked for
                # anyone, and a watcher alone saw nothing until the next change.
                self.connections.add(outbox)
                if self._beat_handle is None and self.heartbeat_ms:
                    self._beat_handle = self.service.clock.call_later(self.heartbeat_ms, self._beat)
                messages = [self._channels_message()]
                messages += [self._snapshot_message(name) for name in self.service.channels]
                if not await self.service.held():
                    return ws
                if not all(outbox.put(_dumps(message)) for message in messages):
                    return ws
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY) and not outbox.put(_READ_ONLY):
                    break
        finally:
            self.connections.discard(outbox)
            await outbox.finish()
        return ws

    async def close(self) -> None:
        for handle in (self._flush_handle, self._beat_handle):
            if handle is not None:
                handle.cancel()
        # each connection closed politely after what it has queued, all at once, an unread one aborted in 5 s
        await asyncio.gather(*(outbox.finish() for outbox in list(self.connections)))
        for task in list(self._tasks):
            task.cancel()


def _channels_of(market_id: str | None, channels: Iterable[str]) -> list[str]:
    """The channel whose game ``market_id`` is (its id starts ``CHANNEL.``); every channel when none is.

    >>> _channels_of("holdem-turbo.7", ["holdem", "holdem-turbo"]), _channels_of(None, ["holdem", "omaha"])
    (['holdem-turbo'], ['holdem', 'omaha'])
    """
    names = list(channels)
    if market_id is None:
        return names
    mine = [name for name in names if market_id.startswith(f"{name}.")]
    return [max(mine, key=len)] if mine else names


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


_READ_ONLY = _dumps({"op": "error", "errorCode": "READ_ONLY", "errorMessage": "this stream is read-only: send nothing"})
