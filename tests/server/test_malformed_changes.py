"""A call with one malformed instruction is refused whole and changes nothing.

API-NG checks a request's shape before it carries out any of it: an instruction of the wrong type
makes the call an ``INVALID_INPUT_DATA`` error, so the instructions before it must not have been
carried out either (the caller is told the call failed and has no report of what it did). A
placeOrders instruction's ``handicap`` other than 0 is such a field: no runner here has another.
"""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.server.helpers import login, place, place_one, rpc

MALFORMED_CANCELS = [{"betId": 3.5}, {"betId": None}, "not an object", {"betId": "1", "sizeReduction": "one"}]
MALFORMED_REPLACES = [{"betId": "1", "newPrice": "x"}, {"betId": [1], "newPrice": 3.0}, {"betId": "1"}, 7]


async def _resting(client: TestClient, token: str) -> list[tuple[str, float, float]]:
    out = await rpc(client, token, "listCurrentOrders", {})
    return sorted((o["betId"], o["priceSize"]["price"], o["sizeRemaining"]) for o in out["result"]["currentOrders"]
                  if o["status"] == "EXECUTABLE")


def _refused(out: dict[str, Any]) -> None:
    exception = out["error"]["data"]["APINGException"]
    assert exception["errorCode"] == "INVALID_INPUT_DATA", out
    assert exception["errorDetails"].startswith("instructions[1]"), out


@pytest.mark.parametrize("bad", MALFORMED_CANCELS)
async def test_a_malformed_cancel_instruction_cancels_none_of_the_call(client: TestClient, bad: Any) -> None:
    alice = await login(client, "alice", "pw-alice")
    bet = await place_one(client, alice, "holdem.0", 1, "BACK", 3.0, 2)
    before = await _resting(client, alice)
    out = await rpc(client, alice, "cancelOrders", {"marketId": "holdem.0", "instructions": [
        {"betId": bet["betId"], "sizeReduction": 1.0}, bad]})
    _refused(out)
    assert await _resting(client, alice) == before == [(bet["betId"], 3.0, 2.0)]


@pytest.mark.parametrize("bad", MALFORMED_REPLACES)
async def test_a_malformed_replace_instruction_replaces_none_of_the_call(client: TestClient, bad: Any) -> None:
    alice = await login(client, "alice", "pw-alice")
    bet = await place_one(client, alice, "holdem.0", 1, "BACK", 3.0, 2)
    out = await rpc(client, alice, "replaceOrders", {"marketId": "holdem.0", "instructions": [
        {"betId": bet["betId"], "newPrice": 4.0}, bad]})
    _refused(out)
    assert await _resting(client, alice) == [(bet["betId"], 3.0, 2.0)]


@pytest.mark.parametrize("handicap", [1.5, -0.5, "1.5", "zero", True, [0]])
async def test_a_place_instruction_with_a_handicap_is_refused_not_placed_on_handicap_0(client: TestClient,
                                                                                     handicap: Any) -> None:
    """No runner here has a handicap but 0: an instruction for another names no runner, and is not silently
    placed on the runner with handicap 0 (its report's echo said ``handicap: 0.0``)."""
    alice = await login(client, "alice", "pw-alice")
    params = place("holdem.0", 1, "BACK", 3.0, 2)
    params["instructions"].insert(0, {**params["instructions"][0], "handicap": 0})  # 0 (or "0") is fine
    params["instructions"][1]["handicap"] = handicap
    out = await rpc(client, alice, "placeOrders", params)
    exception = out["error"]["data"]["APINGException"]
    assert exception["errorCode"] == "INVALID_INPUT_DATA", out
    assert exception["errorDetails"].startswith("instructions[1].handicap must be 0"), out
    assert await _resting(client, alice) == []
