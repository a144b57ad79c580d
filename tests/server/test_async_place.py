"""``placeOrders`` and ``replaceOrders`` with ``async: true``: the report says PENDING without a bet id, as
Betfair's, and the bet (executed all the same) comes on the order stream and in listCurrentOrders by its
customerOrderRef.

The in-process server of ``conftest.py`` (no house): game ``holdem.0`` has its Deal window open.
"""

from __future__ import annotations

import json

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import PlaceOrders
from betfairlightweight.streaming.listener import StreamListener

from exchange.clock import VirtualClock
from tests.server.helpers import login, place, rpc
from tests.server.test_stream import MARKET, OS, authenticated, flush, receive


async def test_an_async_place_reports_pending_and_the_bet_arrives_on_the_order_stream(client: TestClient,
                                                                                      clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        listener = StreamListener(max_latency=None)
        listener.register_stream(2, "orderSubscription")
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        await ws.send_json({"op": OS, "id": 2})
        listener.on_data((await ws.receive(timeout=3)).data)  # status
        listener.on_data((await ws.receive(timeout=3)).data)  # the (empty) image

        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.0, 4))
        answer = await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "LAY", 3.0, 10,
                                                                  customerOrderRef="a-1"), "async": True})
        result = answer["result"]
        (report,) = result["instructionReports"]
        assert result["status"] == "SUCCESS" and report["status"] == "SUCCESS"
        assert report["orderStatus"] == "PENDING"
        assert not {"betId", "placedDate", "sizeMatched", "averagePriceMatched"} & report.keys()
        parsed = PlaceOrders(**result).place_instruction_reports[0]
        assert parsed.bet_id is None and parsed.order_status == "PENDING"

        flush(client, clock)
        changes = await receive(ws, "ocm")
        listener.on_data(json.dumps(changes))
    (uo,) = changes["oc"][0]["orc"][0]["uo"]
    assert uo["rfo"] == "a-1" and uo["sm"] == 4.0 and uo["sr"] == 6.0  # executed: matched with bob's back
    (current,) = (await rpc(client, alice, "listCurrentOrders", {"customerOrderRefs": ["a-1"]}))["result"][
        "currentOrders"]
    assert current["betId"] == uo["id"] and current["sizeMatched"] == 4.0
    (cached,) = listener.snap()[0].orders
    assert (cached.bet_id, cached.customer_order_ref, cached.size_matched) == (uo["id"], "a-1", 4.0)


async def test_an_async_place_the_exchange_refuses_is_reported_refused(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    refused = (await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "LAY", 3.01, 10), "async": True}))
    (report,) = refused["result"]["instructionReports"]
    assert refused["result"]["status"] == "FAILURE" and report["errorCode"] == "INVALID_ODDS"
    broke = (await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "LAY", 500, 100), "async": True}))
    (report,) = broke["result"]["instructionReports"]
    assert broke["result"]["errorCode"] == "INSUFFICIENT_FUNDS" and report["status"] == "FAILURE"
    assert (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"] == []
    synchronous = (await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "LAY", 3.0, 10), "async": False}))
    assert synchronous["result"]["instructionReports"][0]["betId"].isdigit()


async def test_an_async_replace_reports_the_cancel_and_a_pending_new_bet(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    placed = await rpc(client, alice, "placeOrders", place(MARKET, 1, "LAY", 3.0, 10))
    bet_id = placed["result"]["instructionReports"][0]["betId"]
    answer = await rpc(client, alice, "replaceOrders", {"marketId": MARKET, "async": True,
                                                        "instructions": [{"betId": bet_id, "newPrice": 2.5}]})
    (report,) = answer["result"]["instructionReports"]
    assert answer["result"]["status"] == "SUCCESS" and report["status"] == "SUCCESS"
    assert report["cancelInstructionReport"]["sizeCancelled"] == 10.0
    new_bet = report["placeInstructionReport"]
    assert new_bet["status"] == "SUCCESS" and new_bet["orderStatus"] == "PENDING"
    assert not {"betId", "placedDate", "sizeMatched", "averagePriceMatched"} & new_bet.keys()
    live = (await rpc(client, alice, "listCurrentOrders", {"orderProjection": "EXECUTABLE"}))["result"]
    (current,) = live["currentOrders"]  # the new bet; the old one is complete (cancelled)
    assert current["betId"] != bet_id and current["priceSize"] == {"price": 2.5, "size": 10.0}
    refused = await rpc(client, alice, "replaceOrders", {"marketId": MARKET, "async": True,
                                                         "instructions": [{"betId": bet_id, "newPrice": 2.6}]})
    assert refused["result"]["instructionReports"][0]["errorCode"] == "BET_TAKEN_OR_LAPSED"
