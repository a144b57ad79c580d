"""Numbers sent as JSON strings, as Betfair's own API-NG sample code sends them (``"selectionId":"47972"``,
``"handicap":"0"``, ``"size":"2"``, ``"price":"1.50"``, ``"maxResults":"1"``) and Betfair reads them: a script
copied from those samples runs here unchanged. Only plain decimal text counts (ASCII digits, a sign, one point):
anything else in a string is still the wrong type, ``INVALID_INPUT_DATA`` naming the field.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.server.helpers import BETTING, headers, login, rpc

MARKET = "holdem.0"


async def test_the_samples_placing_and_listing_calls_run_as_written(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    # the body as the sample code builds it, by string concatenation
    body = ('{"jsonrpc": "2.0", "method": "SportsAPING/v1.0/placeOrders", "params": {"marketId":"' + MARKET +
            '","instructions":[{"selectionId":"' + str(2) + '","handicap":"0","side":"BACK","orderType":"LIMIT",'
            '"limitOrder":{"size":"2","price":"1.50","persistenceType":"LAPSE"}}],"customerRef":"test12121"}, '
            '"id": 1}')
    resp = await client.post(BETTING, data=body, headers=headers(alice))
    report = (await resp.json())["result"]
    assert report["status"] == "SUCCESS", report
    assert report["instructionReports"][0]["instruction"]["limitOrder"] == {
        "size": 2, "price": 1.5, "persistenceType": "LAPSE"}
    (order,) = (await rpc(client, alice, "listCurrentOrders", {"recordCount": "10"}))["result"]["currentOrders"]
    assert (order["selectionId"], order["priceSize"]) == (2, {"price": 1.5, "size": 2.0})
    bet = order["betId"]
    catalogue = await rpc(client, alice, "listMarketCatalogue", {"filter": {}, "maxResults": "1"})
    assert [m["marketId"] for m in catalogue["result"]] == [MARKET]
    book = await rpc(client, alice, "listRunnerBook", {"marketId": MARKET, "selectionId": "2", "handicap": "0"})
    assert [r["selectionId"] for r in book["result"][0]["runners"]] == [2]
    cancel = await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [
        {"betId": bet, "sizeReduction": "0.5"}]})
    assert cancel["result"]["instructionReports"][0]["sizeCancelled"] == 0.5
    cleared = await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "runnerIds": ["2"],
                                                            "includeItemDescription": "true"})
    assert cleared["result"] == {"clearedOrders": [], "moreAvailable": False}


@pytest.mark.parametrize(("params", "field"), [
    ({"selectionId": "two"}, "selectionId"), ({"selectionId": "２"}, "selectionId"),
    ({"selectionId": "2.5"}, "selectionId"),
    ({"limitOrder": {"size": "2", "price": "1,50"}}, "price"), ({"limitOrder": {"size": " 2", "price": "3"}}, "size"),
    ({"limitOrder": {"size": "1e3", "price": "3"}}, "size"), ({"limitOrder": {"size": "NaN", "price": "3"}}, "size"),
    ({"limitOrder": {"size": "2_0", "price": "3"}}, "size"), ({"handicap": "zero"}, "handicap"),
])
async def test_text_that_is_not_a_plain_number_is_still_refused(client: TestClient, params: dict[str, Any],
                                                                field: str) -> None:
    alice = await login(client, "alice", "pw-alice")
    instruction: dict[str, Any] = {"selectionId": 1, "side": "BACK", "orderType": "LIMIT",
                                   "limitOrder": {"size": 2, "price": 3.0, "persistenceType": "LAPSE"}}
    instruction |= params
    answer = await rpc(client, alice, "placeOrders", {"marketId": MARKET, "instructions": [instruction]})
    assert "error" in answer, json.dumps(answer)
    exception = answer["error"]["data"]["APINGException"]
    assert exception["errorCode"] == "INVALID_INPUT_DATA" and field in exception["errorDetails"], exception


@pytest.mark.parametrize(("limit", "field"), [
    ({"size": "2.0000000000000001", "price": "3"}, "size"),  # a float reads 2.0: a stake of 2.00 nobody asked for
    ({"size": "2", "price": "3.0000000000000001"}, "price"),  # a float reads 3.0: a price on the ladder
])
async def test_number_text_no_float_holds_exactly_is_refused_not_rounded(client: TestClient, limit: dict[str, str],
                                                                         field: str) -> None:
    """Text is read exactly, as money is: more digits than a float holds are refused, not rounded to a bet."""
    alice = await login(client, "alice", "pw-alice")
    instruction = {"selectionId": 1, "side": "BACK", "orderType": "LIMIT",
                   "limitOrder": limit | {"persistenceType": "LAPSE"}}
    answer = await rpc(client, alice, "placeOrders", {"marketId": MARKET, "instructions": [instruction]})
    assert "error" in answer, json.dumps(answer)
    exception = answer["error"]["data"]["APINGException"]
    assert exception["errorCode"] == "INVALID_INPUT_DATA" and field in exception["errorDetails"], exception
    assert (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"] == []
