"""The order stream's ``smc``: matched backs and lays per ``customerStrategyRef`` when the subscription asks for
``partitionMatchedByStrategyRef``, in the image and in every change after it, as betfairlightweight reads them.

The in-process server of ``conftest.py``: game ``holdem.0`` has its Deal window open at the start, and the
clock moves only when a test advances it.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from exchange.clock import VirtualClock
from tests.server.helpers import login, place, rpc
from tests.server.test_stream import MARKET, OS, authenticated, flush, receive


async def _back(client: TestClient, token: str, price: float, size: float, ref: str | None) -> None:
    params = place(MARKET, 1, "BACK", price, size)
    if ref is not None:
        params["customerStrategyRef"] = ref
    assert (await rpc(client, token, "placeOrders", params))["result"]["status"] == "SUCCESS"


async def _subscribe(ws: ClientWebSocketResponse, request_id: int, **order_filter: Any) -> dict[str, Any]:
    await ws.send_json({"op": OS, "id": request_id, "orderFilter": order_filter})
    assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
    return await receive(ws, "ocm", ct="SUB_IMAGE")


def _orc(message: dict[str, Any]) -> dict[str, Any]:
    (market,) = message["oc"]
    (orc,) = market["orc"]
    assert market["id"] == MARKET and orc["id"] == 1
    return dict(orc)


async def test_smc_partitions_matches_by_strategy_in_image_and_deltas(client: TestClient,
                                                                    clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        listener = StreamListener(max_latency=None)
        listener.register_stream(2, "orderSubscription")
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "LAY", 3.0, 9))  # taken whole by the three backs
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "LAY", 2.5, 30))
        await _back(client, alice, 3.0, 4, "s1")
        await _back(client, alice, 3.0, 2, "s2")
        await _back(client, alice, 3.0, 3, None)  # in the overall position, in no strategy's
        image = await _subscribe(ws, 2, partitionMatchedByStrategyRef=True)
        orc = _orc(image)
        assert orc["mb"] == [[3.0, 9.0]] and "ml" not in orc and "uo" not in orc  # all three are matched
        assert orc["smc"] == {"s1": {"mb": [[3.0, 4.0]], "ml": []}, "s2": {"mb": [[3.0, 2.0]], "ml": []}}
        listener.on_data(json.dumps(image))

        await _back(client, alice, 2.5, 5, "s1")  # 3.0 is taken: this one matches at 2.5
        flush(client, clock)
        delta = await receive(ws, "ocm")
        assert "ct" not in delta
        orc = _orc(delta)  # only the level that moved, and only for the strategy whose order moved
        assert (orc["mb"], orc["smc"]) == ([[2.5, 5.0]], {"s1": {"mb": [[2.5, 5.0]]}})
        assert [(uo["rfs"], uo["status"]) for uo in orc["uo"]] == [("s1", "EC")]
        listener.on_data(json.dumps(delta))
    cache = listener.stream._caches[MARKET]
    runner = cache.runners[(1, 0)]
    assert runner.serialise_matches()["matchedBacks"] == [{"price": 2.5, "size": 5.0}, {"price": 3.0, "size": 9.0}]


async def test_smc_is_sent_only_when_asked_and_filtered_by_strategy_refs(client: TestClient) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "LAY", 3.0, 30))
        await _back(client, alice, 3.0, 4, "s1")
        await _back(client, alice, 3.0, 2, "s2")
        await _back(client, alice, 9.0, 2, "s1")  # these two rest unmatched: executable, in the images' uo
        await _back(client, alice, 9.0, 2, "s2")
        assert "smc" not in _orc(await _subscribe(ws, 2))
        assert "smc" not in _orc(await _subscribe(ws, 3, partitionMatchedByStrategyRef=False))
        only = _orc(await _subscribe(ws, 4, partitionMatchedByStrategyRef=True, customerStrategyRefs=["s2"]))
        assert only["smc"] == {"s2": {"mb": [[3.0, 2.0]], "ml": []}}
        assert only["mb"] == [[3.0, 6.0]]  # the overall position is not filtered by strategy
        assert [(uo["rfs"], uo["p"]) for uo in only["uo"]] == [("s2", 9.0)]  # the matched ones are complete
