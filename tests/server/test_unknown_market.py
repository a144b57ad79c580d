"""A cancel, replace or update naming a market that does not exist says so (``INVALID_MARKET_ID``).

They answered ``INVALID_BET_ID`` ("no bet of yours on this market"): a bot with a mistyped or stale market id
was told its bet was gone, and a cancel of every bet on such a market reported success. As for placeOrders,
``INVALID_MARKET_ID`` is the call's code (an ``ExecutionReportErrorCode`` only); each instruction reports
``ERROR_IN_ORDER``. A market that does exist but holds none of the caller's bets still answers
``INVALID_BET_ID``, and nothing of the caller's changes.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from tests.server.helpers import login, place_one, rpc

MARKET = "holdem.0"
NO_MARKET = "holdem.999"


async def _executable(client: TestClient, token: str) -> list[tuple[str, float, float]]:
    out = await rpc(client, token, "listCurrentOrders", {})
    return [(o["betId"], o["priceSize"]["price"], o["sizeRemaining"]) for o in out["result"]["currentOrders"]
            if o["status"] == "EXECUTABLE"]


def _codes(result: dict[str, Any]) -> tuple[str, str, list[str]]:
    return result["status"], result["errorCode"], [r["errorCode"] for r in result["instructionReports"]]


async def test_changes_naming_an_unknown_market_are_refused_with_invalid_market_id(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bet = await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2)
    before = await _executable(client, alice)
    bet_id = bet["betId"]
    cancel = await rpc(client, alice, "cancelOrders", {"marketId": NO_MARKET, "instructions": [{"betId": bet_id}]})
    replace = await rpc(client, alice, "replaceOrders",
                        {"marketId": NO_MARKET, "instructions": [{"betId": bet_id, "newPrice": 4.0}]})
    update = await rpc(client, alice, "updateOrders",
                       {"marketId": NO_MARKET, "instructions": [{"betId": bet_id, "newPersistenceType": "LAPSE"}]})
    for out in (cancel, replace, update):
        assert _codes(out["result"]) == ("FAILURE", "INVALID_MARKET_ID", ["ERROR_IN_ORDER"]), out
        assert f"market '{NO_MARKET}' does not exist" in out["result"]["errorMessage"]
    replaced = replace["result"]["instructionReports"][0]
    assert replaced["cancelInstructionReport"]["errorCode"] == "ERROR_IN_ORDER"
    assert replaced["placeInstructionReport"]["errorCode"] == "RELATED_ACTION_FAILED"
    assert await _executable(client, alice) == before == [(bet_id, 3.0, 2.0)]


async def test_cancelling_every_bet_of_an_unknown_market_is_refused_and_cancels_nothing(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2)
    out = (await rpc(client, alice, "cancelOrders", {"marketId": NO_MARKET}))["result"]
    assert (out["status"], out["errorCode"], out["instructionReports"]) == ("FAILURE", "INVALID_MARKET_ID", [])
    assert len(await _executable(client, alice)) == 1


async def test_a_known_market_without_the_bet_still_answers_invalid_bet_id(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    bet = await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2)
    out = (await rpc(client, bob, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet["betId"]}]}))
    assert _codes(out["result"]) == ("FAILURE", "BET_ACTION_ERROR", ["INVALID_BET_ID"]), out
    everything = (await rpc(client, bob, "cancelOrders", {"marketId": MARKET}))["result"]
    assert (everything["status"], everything["instructionReports"]) == ("SUCCESS", [])
    assert len(await _executable(client, alice)) == 1
