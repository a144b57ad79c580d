"""listMarketCatalogue and listMarketProfitAndLoss are weighed as Betfair's Market Data Request Limits weigh them,
as listMarketBook is: the weight of one market times the markets asked for must not pass 200, else the call is
refused with ``TOO_MUCH_DATA`` saying how many to ask for. A catalogue market weighs 1 for ``MARKET_DESCRIPTION``
and 1 for ``RUNNER_METADATA`` (the other projections nothing), up to ``maxResults`` markets; a profit and loss
market weighs 4. A bot that works here within them works on Betfair.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from tests.server.helpers import login, rpc

MARKET = "holdem.0"


def _code(answer: dict[str, Any]) -> str | None:
    return answer["error"]["data"]["APINGException"]["errorCode"] if "error" in answer else None


async def test_catalogue_and_profit_and_loss_are_weighed_as_betfair_weighs_them(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")

    async def catalogue(max_results: int, *projection: str) -> str | None:
        return _code(await rpc(client, alice, "listMarketCatalogue", {
            "filter": {}, "maxResults": max_results, "marketProjection": list(projection)}))

    assert await catalogue(1000, "EVENT", "RUNNER_DESCRIPTION", "MARKET_START_TIME", "COMPETITION") is None
    assert await catalogue(200, "MARKET_DESCRIPTION") is None
    assert await catalogue(201, "MARKET_DESCRIPTION") == "TOO_MUCH_DATA"
    assert await catalogue(100, "MARKET_DESCRIPTION", "RUNNER_METADATA") is None
    assert await catalogue(101, "RUNNER_METADATA", "MARKET_DESCRIPTION") == "TOO_MUCH_DATA"

    async def profit_and_loss(markets: int) -> str | None:
        ids = [MARKET] + [f"holdem.{900 + i}" for i in range(markets - 1)]
        return _code(await rpc(client, alice, "listMarketProfitAndLoss", {"marketIds": ids}))

    assert await profit_and_loss(50) is None
    assert await profit_and_loss(51) == "TOO_MUCH_DATA"
