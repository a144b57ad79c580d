"""The WebSocket stream: authentication, market and order subscriptions, heartbeats, and
betfairlightweight's own stream listener reading what we send."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from tests.server.helpers import APP_KEY, login, place, rpc

MARKET = "holdem.0"


async def receive(ws: ClientWebSocketResponse, op: str, *, ct: str | None = None, timeout: float = 3) -> dict[str, Any]:
    while True:
        message = json.loads((await ws.receive(timeout=timeout)).data)
        if message.get("op") == op and (ct is None or message.get("ct") == ct):
            return message


async def test_stream_auth_subscribe_images_deltas_and_heartbeats(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    async with client.ws_connect("/stream") as ws:
        assert (await receive(ws, "connection"))["connectionId"]
        await ws.send_json({"op": "marketSubscription", "id": 1, "marketFilter": {}})
        refused = await receive(ws, "status")
        assert refused["statusCode"] == "FAILURE" and refused["errorCode"] == "NOT_AUTHORIZED"
    async with client.ws_connect("/stream") as ws:
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": "bad"})
        failed = await receive(ws, "status")
        assert failed["errorCode"] == "INVALID_SESSION_INFORMATION" and failed["connectionClosed"] is True
    async with client.ws_connect("/stream") as ws:
        listener = StreamListener(max_latency=None)
        listener.on_data((await ws.receive()).data)
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]},
                            "marketDataFilter": {"fields": ["EX_ALL_OFFERS", "EX_TRADED", "EX_TRADED_VOL", "EX_LTP",
                                                            "EX_MARKET_DEF"]}, "heartbeatMs": 500})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
        assert image["id"] == 2 and image["mc"][0]["id"] == MARKET
        assert image["mc"][0]["marketDefinition"]["status"] == "OPEN"
        listener.register_stream(2, "marketSubscription")
        listener.on_data(json.dumps(image))

        await ws.send_json({"op": "orderSubscription", "id": 3, "orderFilter": {}, "heartbeatMs": 500})
        assert (await receive(ws, "status"))["id"] == 3
        assert (await receive(ws, "ocm", ct="SUB_IMAGE"))["oc"] == []

        await rpc(client, token, "placeOrders", place(MARKET, 1, "LAY", 3.0, 10))
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.0, 4))
        delta = await receive(ws, "mcm")
        while "mc" not in delta:
            delta = await receive(ws, "mcm")
        rc = delta["mc"][0]["rc"][0]
        assert rc["id"] == 1 and rc["atb"] == [[3.0, 6.0]] and rc["trd"] == [[3.0, 4.0]] and rc["ltp"] == 3.0
        listener.on_data(json.dumps(delta))
        (book,) = listener.snap([MARKET])
        runner = next(r for r in book.runners if r.selection_id == 1)
        assert runner.ex.available_to_back[0].price == 3.0 and runner.last_price_traded == 3.0

        orders = await receive(ws, "ocm")
        while "oc" not in orders:
            orders = await receive(ws, "ocm")
        (uo,) = orders["oc"][0]["orc"][0]["uo"]
        assert uo["side"] == "L" and uo["sm"] == 4.0 and uo["sr"] == 6.0 and uo["status"] == "E"
        assert orders["oc"][0]["orc"][0]["ml"] == [[3.0, 4.0]]

        heartbeat = await receive(ws, "mcm", ct="HEARTBEAT", timeout=5)
        assert heartbeat["id"] == 2 and "clk" in heartbeat
        await ws.send_json({"op": "nonsense", "id": 9})
        assert (await receive(ws, "status"))["errorCode"] == "INVALID_INPUT"
        await ws.send_str("{broken")
        assert (await receive(ws, "status"))["errorCode"] == "INVALID_INPUT"
