"""The market stream after matches are voided (a card exposed early): what a client's cache holds is what
``listMarketBook`` says, folded with betfairlightweight's own market cache."""

from __future__ import annotations

import json

from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from engine.irregularities import Irregularity, Kind
from exchange.clock import VirtualClock
from exchange.game.irregular import IrregularityPlan
from tests.server.helpers import WINDOW_MS, login, place, rpc
from tests.server.test_irregularities import GAME_1, ROUND_MS, inject
from tests.server.test_stream import authenticated, flush, receive

MARKET = "holdem.1"


async def test_a_runner_whose_only_trades_are_voided_has_no_last_traded_price(client: TestClient,
                                                                             clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP), at_permille=500, notice_ms=1_000))
    exposure = GAME_1 + ROUND_MS + WINDOW_MS // 2
    clock.run(until_ms=exposure + 10)  # the flop is out early: what matches now is voided on notice
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        listener = StreamListener(max_latency=None)
        listener.register_stream(2, "marketSubscription")
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]},
                            "marketDataFilter": {"fields": ["EX_ALL_OFFERS", "EX_TRADED", "EX_TRADED_VOL", "EX_LTP",
                                                            "EX_MARKET_DEF"]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        listener.on_data(json.dumps(await receive(ws, "mcm", ct="SUB_IMAGE")))
        await rpc(client, alice, "placeOrders", place(MARKET, 2, "LAY", 3.0, 20))
        await rpc(client, bob, "placeOrders", place(MARKET, 2, "BACK", 3.0, 6))
        flush(client, clock)
        listener.on_data(json.dumps(await receive(ws, "mcm")))
        (book,) = listener.snap([MARKET])
        assert next(r for r in book.runners if r.selection_id == 2).last_price_traded == 3.0

        clock.run(until_ms=exposure + 1_000 + 10)  # noticed: the match is voided, the market suspended
        flush(client, clock)
        listener.on_data(json.dumps(await receive(ws, "mcm")))
        answer = await rpc(client, bob, "listMarketBook", {"marketIds": [MARKET], "priceProjection": {
            "priceData": ["EX_TRADED"]}})
        listed = next(r for r in answer["result"][0]["runners"] if r["selectionId"] == 2)
        (book,) = listener.snap([MARKET])
        cached = next(r for r in book.runners if r.selection_id == 2)
    assert "lastPriceTraded" not in listed and listed["totalMatched"] == 0.0 and listed["ex"]["tradedVolume"] == []
    assert (cached.last_price_traded, cached.total_matched, cached.ex.traded_volume) == (None, 0, [])
