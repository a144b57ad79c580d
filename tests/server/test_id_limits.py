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


async def test_past_a_thousand_ids_the_code_is_still_the_limits_own(client: TestClient) -> None:
    """However many ids a call names past its limit, the code is the limit's (not INVALID_INPUT_DATA, which says
    the request is malformed): REQUEST_SIZE_EXCEEDS_LIMIT for the bet and market ids of listCurrentOrders,
    listMarketBook and listClearedOrders (1000 betIds and marketIds together, as Betfair's), TOO_MUCH_DATA for the
    markets of the weighed listMarketBook and listMarketProfitAndLoss."""
    alice = await login(client, "alice", "pw-alice")
    bets = [str(i) for i in range(1, 1100)]
    markets = [f"holdem.{i}" for i in range(1100)]
    assert _code(await rpc(client, alice, "listCurrentOrders", {"betIds": bets[:1001]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
    assert _code(await rpc(client, alice, "listCurrentOrders", {"marketIds": markets[:1001]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
    book = {"marketIds": ["holdem.0"], "orderProjection": "ALL"}
    assert _code(await rpc(client, alice, "listMarketBook", {**book, "betIds": bets[:1001]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
    assert _code(await rpc(client, alice, "listMarketBook", {"marketIds": markets[:401]})) == "TOO_MUCH_DATA"
    assert _code(await rpc(client, alice, "listMarketProfitAndLoss", {"marketIds": markets[:201]})) == "TOO_MUCH_DATA"
    cleared = {"betStatus": "SETTLED"}
    assert _code(await rpc(client, alice, "listClearedOrders", {**cleared, "betIds": bets[:600],
                                                                "marketIds": markets[:400]})) is None
    assert _code(await rpc(client, alice, "listClearedOrders", {**cleared, "betIds": bets[:600],
                                                                "marketIds": markets[:401]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
    assert _code(await rpc(client, alice, "listClearedOrders", {**cleared, "betIds": bets[:1001]})) \
        == "REQUEST_SIZE_EXCEEDS_LIMIT"
