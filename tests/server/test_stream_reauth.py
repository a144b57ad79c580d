"""A stream connection belongs to one account: authenticating it again as another is refused, and the first
account's subscriptions go on; the same account may authenticate again (a new session of its own)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from tests.server.helpers import APP_KEY, login, place, rpc
from tests.server.test_stream import flush, receive

MARKET = "holdem.0"


async def test_a_connection_cannot_change_account(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    async with client.ws_connect("/stream") as ws:
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        await ws.send_json({"op": "orderSubscription", "id": 2})
        await receive(ws, "ocm", ct="SUB_IMAGE")

        await ws.send_json({"op": "authentication", "id": 3, "appKey": APP_KEY, "session": bob})
        refused = await receive(ws, "status")
        assert (refused["id"], refused["statusCode"], refused["errorCode"]) == (3, "FAILURE", "INVALID_INPUT")
        assert refused["connectionClosed"] is False and "alice" not in refused["errorMessage"]

        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.0, 2))  # bob's order: not for alice
        await rpc(client, alice, "placeOrders", place(MARKET, 2, "BACK", 3.0, 2))
        flush(client, clock)
        change = await receive(ws, "ocm")
        (market,) = change["oc"]
        assert [runner["id"] for runner in market["orc"]] == [2]  # alice's runner only

        again = await login(client, "alice", "pw-alice")  # a new session of the same account is taken
        await ws.send_json({"op": "authentication", "id": 4, "appKey": APP_KEY, "session": again})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
