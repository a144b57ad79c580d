"""The pages watching a replay, each sent to by its own task: a page that stops reading holds up no other.

Every message of the replay's stream is a whole state (the channel list with the player's state, or the table's
snapshot; an ``error`` answer), so a page never needs one that a newer one of the same ``op`` has replaced. Each
page holds at most one message of each ``op`` waiting (a bounded queue): a newer one takes the older one's place,
and a slow page skips to the newest state. A page whose sending has not moved while :data:`MAX_SKIPPED` waiting
messages were replaced so has stopped reading: it is dropped (its connection cut at once, no close handshake it
would not read), and a page still alive reconnects and starts again from the current state.
"""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import WSCloseCode, web

#: Waiting messages a page may have replaced, its sending stuck all the while, before it is dropped.
MAX_SKIPPED = 100


class Watcher:
    """One page's WebSocket and what waits to be sent to it, sent in order by the page's own task."""

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.Transport | None, *,
                 max_skipped: int = MAX_SKIPPED) -> None:
        self.ws = ws
        self.max_skipped = max_skipped
        self.skipped = 0  # waiting messages replaced since the last one sent
        self.dropped = False
        self._transport = transport
        self._waiting: dict[str, str] = {}  # op -> the message's text, in the order they go out
        self._ready = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._send_all(), name="replay-watcher")

    def offer(self, op: str, text: str) -> None:
        """Have ``text`` (a message of ``op``) sent after those waiting, in place of the one of ``op`` waiting."""
        if self.dropped:
            return
        if self._waiting.pop(op, None) is not None:
            self.skipped += 1
            if self.skipped > self.max_skipped:
                self.drop()
                return
        self._waiting[op] = text
        self._ready.set()

    async def _send_all(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._waiting:
                op = next(iter(self._waiting))
                text = self._waiting.pop(op)
                try:
                    await self.ws.send_str(text)
                except (ConnectionError, RuntimeError):  # the page has gone: nothing more can reach it
                    self.drop()
                    return
                self.skipped = 0

    def stop(self) -> None:
        """Send nothing more (the page's connection has ended)."""
        self.dropped = True
        self._waiting.clear()
        if asyncio.current_task() is not self._task:
            self._task.cancel()

    def drop(self) -> None:
        """Stop sending and cut the connection (the page's handler then ends and forgets it)."""
        self.stop()
        if self._transport is not None:
            self._transport.abort()

    async def close(self) -> None:
        """Stop sending and close the WebSocket as a server going away (the replay stopping)."""
        self.dropped = True
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        await self.ws.close(code=WSCloseCode.GOING_AWAY, message=b"the replay is stopping")


__all__ = ["MAX_SKIPPED", "Watcher"]
