"""The spectators' games stream (``/games/v1/stream``) and the page's routes, on the virtual clock.

The stream must show what the Games API snapshot shows, at the same instants:
no card before it is turned, a new snapshot once a window opens, equities
that are the exact shares of the pot, and nothing to a client but snapshots.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.games_stream import HEARTBEAT_MS
from tests.server.helpers import PLAYING_MS, WINDOW_MS, login, place, rpc

NOT_AVAILABLE = "NOT AVAILABLE"


async def next_snapshot(ws: ClientWebSocketResponse, channel: str = "holdem") -> dict[str, Any]:
    while True:
        message = await ws.receive_json(timeout=3)
        if message["op"] == "snapshot" and message["channel"] == channel:
            snapshot: dict[str, Any] = message["snapshot"]
            return snapshot


def flush(client: TestClient, clock: VirtualClock) -> None:
    clock.advance(client.app[keys.GAMES].conflate_ms)


async def test_the_stream_opens_with_the_channels_and_a_snapshot_equal_to_the_games_api(client: TestClient) -> None:
    async with client.ws_connect("/games/v1/stream") as ws:
        channels = await ws.receive_json(timeout=3)
        assert channels["op"] == "channels"
        assert channels["channels"] == (await (await client.get("/games/v1/channels")).json())["channels"]
        first = await next_snapshot(ws)
    assert first == await (await client.get("/games/v1/channels/holdem/snapshot")).json()
    game = first["game"]
    assert game["id"] == "holdem.0" and game["roundName"] == "Deal" and game["bettingOpen"] is True
    assert game["bettingWindowRemainingMs"] == WINDOW_MS
    assert all(card == NOT_AVAILABLE for hand in game["gameData"]["hands"] for card in hand["cards"])
    selections = game["markets"][0]["selections"]
    shares = [Fraction(s["equityExact"]) for s in selections]
    assert sum(shares) == 1 and [round(float(f), 6) for f in shares] == [s["equity"] for s in selections]


async def test_a_turned_card_and_a_new_price_reach_the_spectator_when_they_happen(
    client: TestClient, clock: VirtualClock
) -> None:
    token = await login(client, "alice", "pw-alice")
    async with client.ws_connect("/games/v1/stream") as ws:
        await next_snapshot(ws)
        await rpc(client, token, "placeOrders", place("holdem.0", 2, "LAY", 3.5, 4))
        flush(client, clock)
        priced = (await next_snapshot(ws))["game"]
        hand_2 = priced["markets"][0]["selections"][1]
        assert hand_2["bestAvailableToBackPrices"] == [{"price": 3.5, "size": 4.0}]
        assert all(card == NOT_AVAILABLE for hand in priced["gameData"]["hands"] for card in hand["cards"])
        clock.advance(WINDOW_MS + PLAYING_MS - client.app[keys.GAMES].conflate_ms)
        game = (await next_snapshot(ws))["game"]
        while game["roundName"] != "Pre-flop":  # the window's close comes first, then the reveal
            game = (await next_snapshot(ws))["game"]
    assert game["bettingOpen"] is True and game["bettingWindowRemainingMs"] == WINDOW_MS
    assert all(card != NOT_AVAILABLE for hand in game["gameData"]["hands"] for card in hand["cards"])
    assert game["gameData"]["communityCards"] == [NOT_AVAILABLE] * 5


async def test_the_stream_takes_nothing_from_a_client(client: TestClient) -> None:
    async with client.ws_connect("/games/v1/stream") as ws:
        await next_snapshot(ws)
        await ws.send_str('{"op": "marketSubscription"}')
        answer = await ws.receive_json(timeout=3)
    assert answer == {"op": "error", "errorCode": "READ_ONLY", "errorMessage": "this stream is read-only: send nothing"}


async def test_the_page_and_its_files_are_served_and_nothing_else(client: TestClient) -> None:
    page = await client.get("/")
    assert page.status == 200 and page.content_type == "text/html"
    assert '<script type="module" src="/static/app.js">' in await page.text()
    script = await client.get("/static/app.js")
    assert script.status == 200 and script.content_type == "text/javascript"
    for missing in ("/static/nothing.js", "/static/..%2Froutes.py"):
        resp = await client.get(missing)
        assert resp.status == 404 and (await resp.json())["error"] == "NOT_FOUND"


async def test_a_change_while_a_spectators_image_waits_for_the_journal_reaches_it(
    client: TestClient, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator's first image waits for the journal before it is sent; a window that closed in that wait was
    marked for no one (the spectator was not yet counted), so a lone page kept showing the open window, or the game
    before, until something else changed (a page test stuck on a still clock)."""
    service = client.app[keys.SERVICE]
    waiting, release = asyncio.Event(), asyncio.Event()
    held = service.held

    async def held_when_released() -> bool:
        waiting.set()
        await release.wait()
        return await held()

    monkeypatch.setattr(service, "held", held_when_released)
    async with client.ws_connect("/games/v1/stream") as ws:
        await asyncio.wait_for(waiting.wait(), 3)  # the image is built and waits
        clock.advance(WINDOW_MS)  # meanwhile the Deal window closes
        release.set()
        assert (await next_snapshot(ws))["game"]["bettingOpen"] is True  # the image, from before the close
        flush(client, clock)
        assert (await next_snapshot(ws))["game"]["bettingOpen"] is False


async def test_a_query_on_the_stream_is_refused_as_on_the_snapshot(client: TestClient) -> None:
    """The snapshot and results routes refuse what they do not read; so does the stream, before it upgrades."""
    response = await client.get("/games/v1/stream?channel=holdem")
    assert response.status == 400
    assert await response.json() == {"error": "INVALID_INPUT_DATA",
                                     "details": "unknown query parameters ['channel']; the games stream takes none"}


async def test_a_heartbeat_every_five_seconds_on_the_services_clock(client: TestClient, clock: VirtualClock) -> None:
    """Whatever changes or not, a watcher hears the stream every HEARTBEAT_MS: a page that hears nothing for several
    knows its connection stalled."""
    connected = clock.now()
    async with client.ws_connect("/games/v1/stream") as ws:
        await next_snapshot(ws)
        beats = []
        for _ in range(2):
            clock.advance(HEARTBEAT_MS)
            while True:
                message = await ws.receive_json(timeout=3)
                if message["op"] == "heartbeat":
                    beats.append(message)
                    break
                assert message["op"] in ("snapshot", "channels"), message
    assert beats == [{"op": "heartbeat", "pt": connected + HEARTBEAT_MS},
                     {"op": "heartbeat", "pt": connected + 2 * HEARTBEAT_MS}]
