"""Bet ids and market versions are ASCII digits: other Unicode digits name no bet and no version.

Python's ``str.isdigit`` is true of ``"²"`` (which ``int`` refuses) and of ``"١"`` (Arabic-Indic one, which
``int`` reads as 1). A betId or ``marketVersion.version`` of either must be refused as what it is, not
answered ``UNEXPECTED_ERROR`` (the API's 500) nor taken for bet 1.
"""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.server.helpers import login, place, place_one, rpc

MARKET = "holdem.0"
NOT_ASCII = ["²", "١", "1²", "𝟏"]
NOT_DIGITS = [*NOT_ASCII, " 1", "1.0", "-1", "1 "]


def _instruction(method: str, bet_id: str) -> dict[str, Any]:
    extra: dict[str, dict[str, Any]] = {"replaceOrders": {"newPrice": 4.0},
                                        "updateOrders": {"newPersistenceType": "LAPSE"}}
    return {"betId": bet_id, **extra.get(method, {})}


@pytest.mark.parametrize("method", ["cancelOrders", "replaceOrders", "updateOrders"])
@pytest.mark.parametrize("bet_id", NOT_DIGITS)
async def test_a_bet_id_of_other_digits_is_no_bet_of_yours(client: TestClient, method: str, bet_id: str) -> None:
    """Refused as no bet id at all (" 1" was "no bet  1 of yours", as if a bet " 1" could be someone else's)."""
    alice = await login(client, "alice", "pw-alice")
    bet = await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2)
    assert bet["betId"] == "1"
    out = await rpc(client, alice, method, {"marketId": MARKET, "instructions": [_instruction(method, bet_id)]})
    (report,) = out["result"]["instructionReports"]
    assert report["errorCode"] == "INVALID_BET_ID", out
    said = f"betId {bet_id!r} is not a bet id: a string of digits (as placeOrders gave it)"
    assert said in out["result"]["errorMessage"], out
    current = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert [(o["betId"], o["priceSize"]["price"], o["sizeRemaining"]) for o in current] == [("1", 3.0, 2.0)]


@pytest.mark.parametrize("version", NOT_ASCII)
async def test_a_market_version_of_other_digits_is_invalid_input(client: TestClient, version: str) -> None:
    alice = await login(client, "alice", "pw-alice")
    out = await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "BACK", 3.0, 2), "marketVersion": {
        "version": version}})
    exception = out["error"]["data"]["APINGException"]
    assert exception["errorCode"] == "INVALID_INPUT_DATA", out
    assert exception["errorDetails"].startswith("marketVersion.version must be an integer"), out


@pytest.mark.parametrize(("version", "says"), [
    ({"version": 3, "x": 2}, "marketVersion: 'x' is not a parameter of a MarketVersion; allowed: version"),
    ({"versio": 3}, "marketVersion: 'versio' is not a parameter of a MarketVersion; allowed: version"),
    ({"version": -1}, "marketVersion.version must be a version listMarketBook gave, 0 or more, not -1"),
    ({}, "marketVersion.version is required"),
])
async def test_a_market_version_says_what_is_wrong_with_it(client: TestClient, version: Any, says: str) -> None:
    """An unknown key in it was ignored (a misspelt ``versio`` was called "not an integer"), and -1 made the order
    lapse as stale."""
    alice = await login(client, "alice", "pw-alice")
    out = await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "BACK", 3.0, 2), "marketVersion": version})
    exception = out["error"]["data"]["APINGException"]
    assert (exception["errorCode"], exception["errorDetails"]) == ("INVALID_INPUT_DATA", says), out
    assert (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"] == []


async def test_a_bet_id_of_too_many_digits_is_no_bet_of_yours(client: TestClient) -> None:
    """Digits all the same, past the 18 of ours: not called "not a bet id" (a review found it was)."""
    alice = await login(client, "alice", "pw-alice")
    out = await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": "9" * 19}]})
    assert out["result"]["instructionReports"][0]["errorCode"] == "INVALID_BET_ID", out
    assert f"no bet {'9' * 19} of yours on this market" in out["result"]["errorMessage"], out
