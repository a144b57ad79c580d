"""An order resubscription after a match was voided while the client was away, on a market that then closed.

betfairlightweight keeps its order cache across a reconnect, and flumine resubscribes with its ``clk``. The
final records of the orders on a market that closed while it was away came as a delta of the orders alone:
a matched level emptied by a void (``VoidMatchedSince``, a card exposed early) stayed in the client's cache
with its old stake, so the bot counted a position it did not hold. A market that closed while the client was
away is imaged whole now, each runner a ``fullImage``, which the cache takes in place of what it held.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from exchange.core.commands import CreateMarket, OpenMarket, PlaceOrder, SettleMarket, VoidMatchedSince
from exchange.core.side import Side
from exchange.server import keys
from tests.server.helpers import StreamServer
from tests.server.test_stream import OS, authenticated, receive

MARKET = "m.1"


async def _order_image(client: TestClient, extra: dict[str, Any]) -> dict[str, Any]:
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": OS, "id": 2, **extra})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        return await receive(ws, "ocm", ct="SUB_IMAGE")


def _matched_lays(listener: StreamListener) -> list[list[float]]:
    """Alice's matched lays on selection 1 as betfairlightweight's order cache holds them: ``[price, size]``."""
    runner = listener.stream._caches[MARKET].runners[(1, 0)]
    return [[price, size] for price, size, _ in runner.matched_lays.order_book.values()]


async def test_a_resubscription_empties_the_matched_levels_voided_while_away_on_a_market_that_closed(
    stream_server: StreamServer,
) -> None:
    client = await stream_server()
    service = client.app[keys.SERVICE]
    await authenticated(client, await client.ws_connect("/stream"), "bob")  # (bob's account opened)
    now = service.now()
    service.execute(CreateMarket(now, MARKET, (1, 2)))
    service.execute(OpenMarket(now, MARKET))
    listener = StreamListener(max_latency=None)
    listener.register_stream(2, OS)
    await _order_image(client, {})  # (alice's account opened: nothing to image yet)
    service.execute(PlaceOrder(now, "alice", MARKET, 1, Side.LAY, Decimal("3.0"), 2_000))
    service.execute(PlaceOrder(now, "bob", MARKET, 1, Side.BACK, Decimal("3.0"), 600))  # 6.00 matched
    first = await _order_image(client, {})
    listener.on_data(json.dumps(first))
    assert _matched_lays(listener) == [[3.0, 6.0]]

    service.execute(VoidMatchedSince(now, MARKET, now))  # while alice is away: the match is voided
    service.execute(SettleMarket(now, MARKET, (1,)))  # and the market settles
    again = await _order_image(client, {"initialClk": first["initialClk"], "clk": first["clk"]})
    listener.stream.unique_id = 2  # as betfairlightweight resubscribes: the same cache, the request's id
    listener.on_data(json.dumps(again))
    assert _matched_lays(listener) == []  # before: [[3.0, 6.0]], a position alice does not hold
    ((order,),) = [book.orders for book in listener.snap()]
    assert (order.status, order.size_matched, order.size_voided, order.size_lapsed) == (
        "EXECUTION_COMPLETE", 0.0, 6.0, 14.0)  # 20.00 laid: 6.00 matched then voided, the rest lapsed
    assert listener.stream._caches[MARKET].closed is True
