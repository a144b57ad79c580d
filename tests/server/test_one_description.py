"""One market, one description: REST, the live stream and a recording say the same of the same game.

An in-process server plays game ``holdem.0`` on the test's clock; the backtester's recorder
(:class:`exchange.tables.streams.StreamFeed`, what writes ``streams/<marketId>``) is attached to the server's
own channel before the game is dealt, so it records that very game. At each step of the game (the Deal
window, the suspension after it, the Pre-flop window in play, the settlement) the market's in-play flag, event,
name, times, status and version are read three ways and must agree; the stream is subscribed mid-game, so its
version cannot depend on when it subscribed.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient, TestServer

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.fallback_equities import river_only_equities
from exchange.tables.streams import StreamFeed
from tests.server.helpers import APP_KEY, PLAYING_MS, START_MS, WINDOW_MS, login, rpc

MARKET = "holdem.0"
KEYS = ("inPlay", "eventId", "eventName", "name", "marketTime", "openDate", "suspendTime", "status", "version")


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[TestClient, VirtualClock, StreamFeed]]:
    clock = VirtualClock(start_ms=START_MS)
    config = ServerConfig(db_path=str(tmp_path / "ex.db"), window_ms=WINDOW_MS, playing_ms=PLAYING_MS, house=False,
                          seed=3)
    app = create_app(config, clock=clock, equities=river_only_equities)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        app[keys.STORE].add("alice", "pw-alice", deposit=100_000)
        channel = app[keys.SERVICE].channels["holdem"]
        feed = StreamFeed(clock, MARKET, channel.config, START_MS)  # fed from the game's first event, as a backtest
        channel.subscribe(feed.on_event)
        clock.advance(0)
        yield client, clock, feed


def _when(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _recorded(feed: StreamFeed) -> dict[str, Any]:
    definitions = [json.loads(line)["mc"][0].get("marketDefinition") for line in feed.recorder.lines]
    return next(d for d in reversed(definitions) if d is not None)


async def _streamed(ws: ClientWebSocketResponse, last: dict[str, Any] | None) -> dict[str, Any]:
    """The newest marketDefinition the stream has sent (every message due is read)."""
    while True:
        try:
            message = json.loads((await ws.receive(timeout=0.3)).data)
        except TimeoutError:
            break
        for change in message.get("mc", ()):
            last = change.get("marketDefinition") or last
    assert last is not None
    return last


async def _rest(client: TestClient, token: str) -> dict[str, Any]:
    (book,) = (await rpc(client, token, "listMarketBook", {"marketIds": [MARKET]}))["result"]
    catalogue = (await rpc(client, token, "listMarketCatalogue", {
        "filter": {"marketIds": [MARKET]}, "maxResults": 1,
        "marketProjection": ["EVENT", "MARKET_START_TIME", "MARKET_DESCRIPTION"]}))["result"]
    out = {"inPlay": book["inplay"], "version": book["version"], "status": book["status"]}
    if catalogue:  # listed while open only
        (entry,) = catalogue
        out |= {"eventId": entry["event"]["id"], "eventName": entry["event"]["name"], "name": entry["marketName"],
                "marketTime": _when(entry["marketStartTime"]), "openDate": _when(entry["event"]["openDate"]),
                "suspendTime": _when(entry["description"]["suspendTime"])}
    return out


async def test_rest_stream_and_recording_describe_the_game_alike(
        served: tuple[TestClient, VirtualClock, StreamFeed]) -> None:
    client, clock, feed = served
    token = await login(client, "alice", "pw-alice")
    hub = client.app[keys.HUB]
    conflate = hub.conflate_ms  # each step ends with a flush this long: the suspension is PLAYING_MS long
    steps = [("Deal", 0), ("suspended after the Deal", WINDOW_MS - conflate + PLAYING_MS // 10),
             ("Pre-flop, in play", PLAYING_MS), ("settled", 3 * (WINDOW_MS + PLAYING_MS))]
    seen_in_play = []
    async with client.ws_connect("/stream") as ws:
        await ws.receive()
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
        await ws.receive()
        streamed: dict[str, Any] | None = None
        for name, advance in steps:
            clock.advance(advance)
            if name == "Pre-flop, in play":  # subscribe mid-game: the version must not depend on when
                await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]}})
            clock.advance(conflate)
            recorded = _recorded(feed)
            rest = await _rest(client, token)
            for key, value in rest.items():
                wanted = _when(recorded[key]) if isinstance(value, datetime.datetime) else recorded[key]
                assert value == wanted, (name, key, value, recorded[key])
            if name != "Deal" and name != "suspended after the Deal":
                streamed = await _streamed(ws, streamed)
                assert {k: streamed.get(k) for k in KEYS} == {k: recorded.get(k) for k in KEYS}, name
            seen_in_play.append(recorded["inPlay"])
    assert seen_in_play == [False, False, True, True]
    assert recorded["status"] == "CLOSED" and recorded["eventId"] == MARKET and recorded["name"] == "Game 0"
    assert _when(recorded["marketTime"]).timestamp() * 1000 == START_MS
