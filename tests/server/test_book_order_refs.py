"""listMarketBook's orders name their customerOrderRef and customerStrategyRef, as API-NG's ``Order`` does.

A bot that trades several strategies on one account reads its orders in the book (``orderProjection``) to
know whose each one is; betfairlightweight's ``RunnerBookOrder`` reads both refs.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import MarketBook

from tests.server.helpers import login, place, rpc

MARKET = "holdem.0"


async def test_the_books_orders_carry_their_refs(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    params = place(MARKET, 1, "BACK", 5.0, 2, customerOrderRef="order-7")
    params["customerStrategyRef"] = "momentum"
    (tagged,) = (await rpc(client, alice, "placeOrders", params))["result"]["instructionReports"]
    (plain,) = (await rpc(client, alice, "placeOrders", place(MARKET, 2, "LAY", 1.5, 2)))["result"][
        "instructionReports"]
    answer = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET], "orderProjection": "ALL"})
    (book,) = [MarketBook(**b) for b in answer["result"]]
    orders = {o.bet_id: (o.customer_order_ref, o.customer_strategy_ref) for r in book.runners for o in r.orders}
    assert orders == {tagged["betId"]: ("order-7", "momentum"), plain["betId"]: (None, None)}


async def test_an_empty_ref_is_no_ref_in_every_answer(client: TestClient) -> None:
    """``customerOrderRef: ""`` (and ``customerStrategyRef: ""``) name nothing: the placement's report, the book's
    orders, listCurrentOrders and a replace's report all leave them out, as for a bet placed without them."""
    alice = await login(client, "alice", "pw-alice")
    params = place(MARKET, 1, "BACK", 5.0, 2, customerOrderRef="")
    params["customerStrategyRef"] = ""
    (report,) = (await rpc(client, alice, "placeOrders", params))["result"]["instructionReports"]
    assert report["status"] == "SUCCESS" and "customerOrderRef" not in report["instruction"], report
    (current,) = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert "customerOrderRef" not in current and "customerStrategyRef" not in current, current
    answer = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET], "orderProjection": "ALL"})
    (book,) = [MarketBook(**b) for b in answer["result"]]
    assert [(o.customer_order_ref, o.customer_strategy_ref) for r in book.runners for o in r.orders] == [(None, None)]
    move = {"marketId": MARKET, "instructions": [{"betId": report["betId"], "newPrice": 5.5}]}
    (replaced,) = (await rpc(client, alice, "replaceOrders", move))["result"]["instructionReports"]
    assert "customerOrderRef" not in replaced["placeInstructionReport"]["instruction"], replaced
