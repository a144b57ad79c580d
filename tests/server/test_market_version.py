"""API-NG marketVersion: one version per market, changed by status changes only, honoured by placeOrders."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, login, place, rpc


async def versions(client: TestClient, token: str, market_id: str = "holdem.0") -> tuple[int, int, int]:
    book = (await rpc(client, token, "listMarketBook", {"marketIds": [market_id]}))["result"][0]
    catalogue = (await rpc(client, token, "listMarketCatalogue",
                           {"filter": {"marketIds": [market_id]}, "maxResults": 1}))["result"][0]
    snapshot = client.app[keys.SERVICE].stream_snapshot(market_id)
    return book["version"], catalogue["version"], snapshot.version


def report(answer: dict[str, Any]) -> dict[str, Any]:
    return dict(answer["result"]["instructionReports"][0])


async def test_the_version_is_one_number_and_moves_with_status_only(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    v, catalogue, stream = await versions(client, alice)
    assert v == catalogue == stream and v >= 2  # created, opened
    await rpc(client, alice, "placeOrders", place("holdem.0", 1, "LAY", 3.0, 10))
    bet = report(await rpc(client, bob, "placeOrders", place("holdem.0", 1, "BACK", 3.0, 4)))["betId"]
    await rpc(client, bob, "cancelOrders", {"marketId": "holdem.0", "instructions": [{"betId": bet}]})
    assert await versions(client, alice) == (v, v, v)  # orders, fills and cancels leave it alone
    clock.run(until_ms=START_MS + WINDOW_MS + 10)  # the Deal window closed, hole cards turned
    suspended = await versions(client, alice)
    assert suspended[0] > v and len(set(suspended)) == 1
    clock.run(until_ms=START_MS + WINDOW_MS + PLAYING_MS + 10)  # Pre-flop open
    reopened = await versions(client, alice)
    assert reopened[0] > suspended[0] and len(set(reopened)) == 1


async def test_an_order_sent_for_an_older_version_is_not_matched(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    deal_version = (await versions(client, alice))[0]
    clock.run(until_ms=START_MS + WINDOW_MS + PLAYING_MS + 10)  # cards turned since: Pre-flop open
    await rpc(client, alice, "placeOrders", place("holdem.0", 1, "LAY", 3.0, 10))
    stale = await rpc(client, bob, "placeOrders",
                      {**place("holdem.0", 1, "BACK", 3.0, 4), "marketVersion": {"version": deal_version}})
    assert stale["result"]["status"] == "FAILURE"
    assert report(stale)["errorCode"] == "BET_TAKEN_OR_LAPSED" and "version" in stale["result"]["errorMessage"]
    current = (await rpc(client, bob, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert current == []
    now = (await versions(client, alice))[0]
    fresh = await rpc(client, bob, "placeOrders",
                      {**place("holdem.0", 1, "BACK", 3.0, 4), "marketVersion": {"version": now}})
    assert report(fresh)["sizeMatched"] == 4.0
    unversioned = await rpc(client, bob, "placeOrders", place("holdem.0", 1, "BACK", 3.0, 2))
    assert report(unversioned)["sizeMatched"] == 2.0
    bad = await rpc(client, bob, "placeOrders", {**place("holdem.0", 1, "BACK", 3.0, 2), "marketVersion": 3})
    assert bad["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"
