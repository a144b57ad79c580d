"""getAccountFunds's ``wallet``: the one wallet, UK, or absent; any other is refused, not answered as UK."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import ACCOUNT, login, rpc


async def test_a_wallet_other_than_uk_is_refused_naming_the_field(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    for params in ({}, {"wallet": "UK"}, {"wallet": None}):
        funds = (await rpc(client, alice, "getAccountFunds", params, path=ACCOUNT))["result"]
        assert (funds["wallet"], funds["availableToBetBalance"]) == ("UK", 1000.0)
    for wallet in ("AUSTRALIAN", "BOGUS", "uk", ""):
        error = (await rpc(client, alice, "getAccountFunds", {"wallet": wallet}, path=ACCOUNT))["error"]
        details = error["data"]["AccountAPINGException"]
        assert details["errorCode"] == "INVALID_INPUT_DATA" and "wallet must be one of UK" in details["errorDetails"]
