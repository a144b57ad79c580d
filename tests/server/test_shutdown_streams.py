"""Stopping the server closes its WebSocket streams and freezes its games at once.

aiohttp runs the app's ``on_shutdown`` handlers, then waits (up to a minute) for the request handlers still
running, then the cleanup contexts. A WebSocket's handler lasts as long as its connection, so a stream closed
only in the cleanup held a stop (Ctrl-C on ``serve`` with a trading page open) for that minute. Here the
shutdown step alone must close both streams; each wait for the close is bounded.
"""

from __future__ import annotations

from aiohttp import ClientWebSocketResponse, WSMsgType
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import WINDOW_MS
from tests.server.test_stream import authenticated

CLOSE_TYPES = (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED)


async def _closed(ws: ClientWebSocketResponse) -> bool:
    """Whether the server closes ``ws`` (messages queued before the close are read past)."""
    for _ in range(100):
        message = await ws.receive(timeout=10)
        if message.type in CLOSE_TYPES:
            return True
    return False


async def test_the_shutdown_step_closes_the_games_stream_and_the_exchange_stream(client: TestClient) -> None:
    games = await client.ws_connect("/games/v1/stream")
    assert (await games.receive_json(timeout=3))["op"] == "channels"
    stream = await client.ws_connect("/stream")
    await authenticated(client, stream)
    await client.app.shutdown()  # what aiohttp runs first when the server is told to stop
    assert await _closed(games)
    assert await _closed(stream)


async def test_the_shutdown_step_freezes_the_games(client: TestClient, clock: VirtualClock) -> None:
    """The games stop where they stand as the stop begins: before, they went on dealing and settling for as long
    as aiohttp waited for its request handlers (up to the body timeout), and the restart voided a game that had
    begun after the stop signal."""
    exchange = client.app[keys.SERVICE].exchange
    clock.advance(WINDOW_MS)  # the Deal window closes: holdem.0 moves on
    before = {market_id: market.is_open for market_id, market in exchange.markets.items()}
    assert before == {"holdem.0": True}
    await client.app.shutdown()
    clock.advance(100 * WINDOW_MS)  # long enough for holdem.0 to settle and many games after it
    assert {market_id: market.is_open for market_id, market in exchange.markets.items()} == before
