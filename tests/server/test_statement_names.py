"""A statement item names its market, commission rate and start the same once the exchange has forgotten the market
(``keep_closed_markets``): the statement covers the whole journal, not only the markets kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import ACCOUNT, START_MS, WINDOW_MS, login, place, rpc, serving


async def _market_items(client: TestClient, token: str) -> list[dict[str, Any]]:
    answer = await rpc(client, token, "getAccountStatement", {"includeItem": "EXCHANGE"}, path=ACCOUNT)
    return list(answer["result"]["accountStatement"])


async def test_an_item_of_a_market_no_longer_kept_is_named_as_it_was(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, keep_closed_markets=1) as client:
        alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
        for selection in (2, 3, 4):  # alice wins 5.00 (and pays commission) on these hands, or loses 15.00
            await rpc(client, bob, "placeOrders", place("holdem.0", selection, "LAY", 4.0, 10))
            await rpc(client, alice, "placeOrders", place("holdem.0", selection, "BACK", 4.0, 5))
        catalogue = await rpc(client, alice, "listMarketCatalogue", {
            "filter": {"marketIds": ["holdem.0"]}, "maxResults": 1, "marketProjection": ["MARKET_START_TIME"]})
        (market,) = catalogue["result"]
        service = client.app[keys.SERVICE]
        while "holdem.0" not in service.exchange.markets or service.exchange.markets["holdem.0"].is_open:
            clock.advance(WINDOW_MS)
        await service.durable()  # the statement reads committed records: the settlement's, once it is on disk
        kept = await _market_items(client, alice)
        # Seed 1 deals hand 4 the win: alice's result, then its commission (newest first).
        assert (kept[0]["refId"][-2:], kept[0]["legacyData"].get("commissionRate")) == ("-c", "2.5%")
        assert [i["legacyData"]["betCategoryType"] for i in kept] == ["NONE", "E"]  # commission, then the result
        assert {i["legacyData"]["fullMarketName"] for i in kept} == {"Exchange Hold'em 0 / Game 0"}
        # the game's start, as the catalogue gives it, where the item is dated when the market settled
        assert {i["legacyData"]["startDate"] for i in kept} == {market["marketStartTime"]}
        assert all(i["itemDate"] > market["marketStartTime"] for i in kept)
        while "holdem.0" in service.exchange.markets:  # the next game closes: holdem.0 is forgotten
            clock.advance(WINDOW_MS)
        await service.durable()
        assert await _market_items(client, alice) == kept
