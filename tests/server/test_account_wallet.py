"""getAccountFunds's ``wallet``: the one wallet, UK, or absent; any other is refused, not answered as UK."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import ACCOUNT, login, place, place_one, rpc


async def test_a_wallet_other_than_uk_is_refused_naming_the_field(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    for params in ({}, {"wallet": "UK"}, {"wallet": None}):
        funds = (await rpc(client, alice, "getAccountFunds", params, path=ACCOUNT))["result"]
        assert (funds["wallet"], funds["availableToBetBalance"]) == ("UK", 1000.0)
    for wallet in ("AUSTRALIAN", "BOGUS", "uk", ""):
        error = (await rpc(client, alice, "getAccountFunds", {"wallet": wallet}, path=ACCOUNT))["error"]
        details = error["data"]["AccountAPINGException"]
        assert details["errorCode"] == "INVALID_INPUT_DATA" and "wallet must be one of UK" in details["errorDetails"]


async def test_the_exposure_limit_is_the_balance_which_the_funds_check_holds(client: TestClient) -> None:
    """The exchange takes a bet only while the balance covers the worst outcome, so an account can be exposed
    by its balance and no more: that is its ``exposureLimit`` (negative, as ``exposure``), not an invented figure."""
    alice = await login(client, "alice", "pw-alice")
    funds = (await rpc(client, alice, "getAccountFunds", path=ACCOUNT))["result"]
    assert (funds["exposure"], funds["exposureLimit"]) == (0.0, -1000.0)
    await place_one(client, alice, "holdem.0", 1, "LAY", 5.0, 2)  # liability 4 x 2.00
    funds = (await rpc(client, alice, "getAccountFunds", path=ACCOUNT))["result"]
    assert (funds["exposure"], funds["exposureLimit"], funds["availableToBetBalance"]) == (-8.0, -1000.0, 992.0)
    over = (await rpc(client, alice, "placeOrders", place("holdem.0", 1, "LAY", 2.0, 993)))["result"]
    # were hand 1 to win, alice would lose 8.00 + 993.00: more than the limit
    assert over["instructionReports"][0]["errorCode"] == "INSUFFICIENT_FUNDS"
    within = (await rpc(client, alice, "placeOrders", place("holdem.0", 1, "LAY", 2.0, 992)))["result"]
    assert within["status"] == "SUCCESS"  # 8.00 + 992.00: exactly the limit
