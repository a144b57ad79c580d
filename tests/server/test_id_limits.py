"""The limits Betfair puts on the ids a call names: listCurrentOrders takes at most 250 betIds and marketIds
together, listMarketBook at most 250 betIds; past them the call is refused with ``REQUEST_SIZE_EXCEEDS_LIMIT``
(API-NG's code for it), as on Betfair, so a bot that runs here within them runs there.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from tests.server.helpers import login, rpc


def _code(answer: dict[str, Any]) -> str | None:
    return answer["error"]["data"]["APINGException"]["errorCode"] if "error" in answer else None


async def test_calls_naming_more_than_250_ids_are_refused(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bets = [str(i) for i in range(1, 300)]
    markets = [f"holdem.{i}" for i in range(300)]
    assert _code(await rpc(client, alice, "listCurrentOrders", {"betIds": bets[:150], "marketIds": markets[:100]})) \
        is None
    assert _code(await rpc(client, alice, "listCurrentOrders", {"betIds": bets[:150], "marketIds": markets[:101]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
    assert _code(await rpc(client, alice, "listCurrentOrders", {"marketIds": markets[:251]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
    book = {"marketIds": ["holdem.0"], "orderProjection": "ALL"}
    assert _code(await rpc(client, alice, "listMarketBook", {**book, "betIds": bets[:250]})) is None
    assert _code(await rpc(client, alice, "listMarketBook", {**book, "betIds": bets[:251]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
