"""A spectator that stops reading the games stream holds up no other spectator, and is dropped once far behind.

Anyone may open ``/games/v1/stream`` (no login), so a page left in a stopped process, or a client written to
stall, must not freeze the table for every other watcher. The stalled spectator here completes the WebSocket
handshake on a raw socket with the smallest buffers on both sides and then reads nothing while prices change
and flush after flush is sent; a healthy spectator beside it must see every change. Server on 127.0.0.1, the
test's clock, every wait bounded.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.stream_transport import Outbox
from tests.server.helpers import login, place, rpc, until
from tests.server.test_games_stream import next_snapshot

MARKET = "holdem.0"
CHANGES = 150  # one snapshot flushed per change: far more than the stalled socket's buffers hold
PRICES = (3.0, 3.5)


async def _stalled_spectator(client: TestClient) -> tuple[socket.socket, Outbox]:
    """A spectator connected by hand, its buffers at the smallest, that reads its handshake's answer and no more."""
    hub = client.app[keys.GAMES]
    before = set(hub.connections)
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    raw.connect(("127.0.0.1", client.port))
    raw.sendall(b"GET /games/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: c3RhbGxlZCB3YXRjaGVyIQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    raw.setblocking(False)
    await until(lambda: len(hub.connections) > len(before), "the stalled spectator is connected")
    (outbox,) = hub.connections - before
    outbox.transport.raw.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
    outbox.transport.raw.set_write_buffer_limits(high=4096)  # and the server's own buffer for it small too
    return raw, outbox


def hand_2(snapshot: dict[str, Any]) -> list[dict[str, float]]:
    prices: list[dict[str, float]] = snapshot["game"]["markets"][0]["selections"][1]["bestAvailableToBackPrices"]
    return prices


async def _changes(client: TestClient, clock: VirtualClock, token: str) -> None:
    """``CHANGES`` price changes on Hand 2, each flushed to the spectators."""
    for i in range(CHANGES):
        await rpc(client, token, "placeOrders", place(MARKET, 2, "LAY", PRICES[i % 2], 2 + i))
        clock.advance(client.app[keys.GAMES].conflate_ms)
        await asyncio.sleep(0)  # the flush task runs


async def test_a_spectator_that_stops_reading_holds_up_no_other(client: TestClient, clock: VirtualClock) -> None:
    alice = await login(client, "alice", "pw-alice")
    async with client.ws_connect("/games/v1/stream") as healthy:
        await next_snapshot(healthy)
        raw, stalled = await _stalled_spectator(client)
        await _changes(client, clock, alice)
        await until(lambda: stalled.transport.buffered() > 0, "the stalled spectator is behind")
        final = hand_2(await (await client.get("/games/v1/channels/holdem/snapshot")).json())
        shown = hand_2(await next_snapshot(healthy))
        while shown != final:  # the healthy spectator is sent every flush, the last one too
            shown = hand_2(await next_snapshot(healthy))
        assert stalled in client.app[keys.GAMES].connections  # behind, but within what it may queue
    raw.close()


async def test_a_spectator_too_far_behind_is_dropped(client: TestClient, clock: VirtualClock) -> None:
    client.app[keys.GAMES].max_queued_bytes = 20_000  # a few snapshots
    raw, stalled = await _stalled_spectator(client)
    await _changes(client, clock, await login(client, "alice", "pw-alice"))
    await until(lambda: stalled not in client.app[keys.GAMES].connections, "the stalled spectator is dropped")
    assert stalled.gone
    raw.close()
