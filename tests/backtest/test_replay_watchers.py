"""``exchange-poker replay``'s pages are sent to independently: one that stops reading holds up no other.

A page left in a stopped process (a laptop's lid closed, a debugger paused) keeps its connection open and reads
nothing. The stalled page here completes the WebSocket handshake on a raw socket with the smallest buffers on
both sides, then reads nothing while the player broadcasts; a healthy page beside it must get every broadcast,
and the stalled one is dropped once far behind. Server on 127.0.0.1, the replay's clock a fake, every wait
bounded (a broadcast held up by the stalled page never returns: the bound turns that into a failure).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from aiohttp import ClientWebSocketResponse, WSCloseCode, WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

from exchange.backtest.replay import load_timeline
from exchange.backtest.replay_clock import ReplayClock
from exchange.backtest.replay_server import PLAYER, create_replay_app
from exchange.backtest.replay_watchers import MAX_SKIPPED
from tests.backtest.backtest_support import Run
from tests.server.helpers import until

BOUND_S = 10.0  # for a slow machine: a broadcast or a message that takes this long is not coming


def replay_app(run: Run) -> web.Application:
    """The replay of ``run``'s folder, its clock standing still (the test broadcasts by hand)."""
    timeline = load_timeline(run.out)
    return create_replay_app(timeline, clock=ReplayClock(timeline.length_ms, now=lambda: 0.0))


def _stalled_page(client: TestClient) -> socket.socket:
    """A page connected by hand, its receive buffer at the smallest, that sends its handshake and reads nothing."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    raw.connect(("127.0.0.1", client.port))
    raw.sendall(b"GET /games/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: c3RhbGxlZCB3YXRjaGVyIQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    raw.setblocking(False)
    return raw


def _shrink_server_side(client: TestClient, raw: socket.socket) -> None:
    """The server's own buffers for ``raw``'s connection at the smallest too, so it is behind after a few sends."""
    port = raw.getsockname()[1]
    runner = client.server.runner
    assert runner is not None and runner.server is not None
    server = runner.server
    [handler] = [h for h in server.connections
                 if h.transport is not None and h.transport.get_extra_info("peername")[1] == port]
    transport = handler.transport
    assert transport is not None
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
    transport.set_write_buffer_limits(high=4096)


async def test_a_page_that_stops_reading_holds_up_no_other_and_is_dropped(small_run: Run) -> None:
    app = replay_app(small_run)
    player = app[PLAYER]
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        async with client.ws_connect("/games/v1/stream") as healthy:
            assert [(await healthy.receive_json(timeout=BOUND_S))["op"] for _ in range(2)] == ["channels", "snapshot"]
            before = set(player.connections)
            raw = _stalled_page(client)
            await until(lambda: len(player.connections) > len(before), "the stalled page is connected")
            (stalled,) = set(player.connections) - before
            _shrink_server_side(client, raw)
            for _ in range(3 * MAX_SKIPPED):  # every broadcast sends both messages: far past what may wait
                await asyncio.wait_for(player.broadcast(channels=True), BOUND_S)
                got = [(await healthy.receive_json(timeout=BOUND_S))["op"] for _ in range(2)]
                assert got == ["channels", "snapshot"]  # the healthy page is sent every broadcast, in order
            await until(lambda: stalled not in player.connections, "the stalled page is forgotten")
            assert stalled.dropped
            await asyncio.wait_for(player.broadcast(channels=True), BOUND_S)
            assert (await healthy.receive_json(timeout=BOUND_S))["op"] == "channels"
        raw.close()


async def test_each_page_is_told_at_once_when_the_replay_stops(small_run: Run) -> None:
    """Ctrl-C on ``exchange-poker replay`` with a tab open: the tab's stream is closed as the server shuts down
    (``on_shutdown``), not left open through aiohttp's minute of grace for handlers still running."""
    app = replay_app(small_run)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        async with client.ws_connect("/games/v1/stream") as page:
            assert [(await page.receive_json(timeout=BOUND_S))["op"] for _ in range(2)] == ["channels", "snapshot"]
            await app.shutdown()
            closing = await page.receive(timeout=BOUND_S)
            for _ in range(3):  # (a snapshot the player's first tick sent may come before)
                if closing.type is not WSMsgType.TEXT:
                    break
                closing = await page.receive(timeout=BOUND_S)
            assert (closing.type, closing.data) == (WSMsgType.CLOSE, WSCloseCode.GOING_AWAY)
        assert app[PLAYER].connections == set()


async def next_channel_list(ws: ClientWebSocketResponse) -> dict[str, Any]:
    """The next channel list the replay sends, past the snapshots before it."""
    while True:
        message: dict[str, Any] = await ws.receive_json(timeout=BOUND_S)
        if message["op"] == "channels":
            return message


async def test_a_page_is_told_the_players_position_as_each_game_starts(small_run: Run) -> None:
    """The channel list (which carries the player's state) went out at a page's connection, a control and the end:
    a page showed "playing · game 2 of 3" while the table played games 3 and 4. The replay's clock is moved by hand
    into each next game; its own loop broadcasts what changed."""
    timeline = load_timeline(small_run.out)
    now = [0.0]
    app = create_replay_app(timeline, clock=ReplayClock(timeline.length_ms, now=lambda: now[0]))
    count = len(timeline.games)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        player = app[PLAYER]
        ws = await client.ws_connect("/games/v1/stream")
        first = await ws.receive_json(timeout=BOUND_S)
        assert (first["op"], first["replay"]["position"]) == ("channels", f"game 1 of {count}")
        player.clock.play()
        for number in range(2, count + 1):
            start = timeline.next_start(player.clock.position())
            assert start is not None
            now[0] = start / 1000 + 0.001  # the clock's seconds (speed 1): just into the next game
            assert (await next_channel_list(ws))["replay"]["position"] == f"game {number} of {count}"
        await ws.close()
