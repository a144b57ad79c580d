"""listCurrentOrders as API-NG documents it: ``orderBy`` sorts and filters, ``includeItemDescription`` describes.

The in-process server of ``conftest.py`` (game ``holdem.0`` open in its Deal window, the clock still until a
test moves it). alice rests one back and gets one matched by bob, so which order has which date is known.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient
from betfairlightweight.resources import CurrentOrders

from exchange.betfair.apiformat import iso
from exchange.clock import VirtualClock
from exchange.core.commands import VoidMatchedSince
from exchange.server import keys
from tests.server.helpers import login, place_one, rpc

MARKET = "holdem.0"


async def _bet_ids(client: TestClient, token: str, **params: object) -> list[str]:
    answer = (await rpc(client, token, "listCurrentOrders", dict(params)))["result"]
    return [o["betId"] for o in answer["currentOrders"]]


async def test_order_by_a_date_lists_only_the_orders_that_have_it(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    resting = (await place_one(client, alice, MARKET, 2, "BACK", 5.0, 2, matched=0.0))["betId"]
    clock.advance(100)
    await place_one(client, bob, MARKET, 1, "LAY", 3.0, 4)
    clock.advance(100)
    first = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2, matched=2.0))["betId"]
    clock.advance(100)
    second = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2, matched=2.0))["betId"]

    assert await _bet_ids(client, alice) == [resting, first, second]
    assert await _bet_ids(client, alice, orderBy="BY_BET") == [resting, first, second]
    # BY_MATCH_TIME sorts by the matched date and lists only the orders that have one: not the resting bet
    assert await _bet_ids(client, alice, orderBy="BY_MATCH_TIME") == [first, second]
    assert await _bet_ids(client, alice, orderBy="BY_MATCH_TIME", sortDir="LATEST_TO_EARLIEST") == [second, first]
    assert await _bet_ids(client, alice, orderBy="BY_MATCH_TIME", recordCount=1, fromRecord=1) == [second]
    # nothing is voided, and no selection of the open market is settled
    assert await _bet_ids(client, alice, orderBy="BY_VOID_TIME") == []
    assert await _bet_ids(client, alice, orderBy="BY_SETTLED_TIME") == []


async def test_order_by_void_time_sorts_and_bounds_by_the_voided_date(client: TestClient, clock: VirtualClock) -> None:
    """BY_VOID_TIME orders by "the time of the last voided fragment" and applies ``dateRange`` to it, as API-NG
    documents it: two bets voided in the reverse of their placing come in the order of their voids."""
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    service = client.app[keys.SERVICE]
    await place_one(client, bob, MARKET, 1, "LAY", 3.0, 20)
    start = service.now()
    first = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2, matched=2.0))["betId"]
    clock.advance(100)
    second = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2, matched=2.0))["betId"]
    clock.advance(100)
    service.execute(VoidMatchedSince(service.now(), MARKET, start + 50))  # voids the second bet's match
    clock.advance(100)
    late = service.now()
    service.execute(VoidMatchedSince(late, MARKET, start))  # then the first's
    assert await _bet_ids(client, alice, orderBy="BY_VOID_TIME") == [second, first]
    assert await _bet_ids(client, alice, orderBy="BY_VOID_TIME", sortDir="LATEST_TO_EARLIEST") == [first, second]
    assert await _bet_ids(client, alice, orderBy="BY_VOID_TIME", dateRange={"from": iso(late)}) == [first]
    assert await _bet_ids(client, alice, orderBy="BY_VOID_TIME", dateRange={"to": iso(late - 1)}) == [second]


async def test_include_item_description_gives_each_order_its_markets_version(client: TestClient,
                                                                              clock: VirtualClock) -> None:
    alice = await login(client, "alice", "pw-alice")
    await place_one(client, alice, MARKET, 1, "BACK", 5.0, 2)
    (book,) = (await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET]}))["result"]
    answer = (await rpc(client, alice, "listCurrentOrders", {"includeItemDescription": True}))["result"]
    assert [o["currentItemDescription"] for o in answer["currentOrders"]] == [{"marketVersion": {
        "version": book["version"]}}]
    (order,) = CurrentOrders(**answer).orders  # as betfairlightweight reads it
    assert order.current_item_description.market_version == {"version": book["version"]}
    plain = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert "currentItemDescription" not in plain[0]
    refused = await rpc(client, alice, "listCurrentOrders", {"includeItemDescription": "yes"})
    assert refused["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"


async def test_include_source_id_is_refused_when_true_not_ignored(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    for method, params in (("listCurrentOrders", {}), ("listClearedOrders", {"betStatus": "SETTLED"})):
        for bad in (True, "yes"):
            answer = await rpc(client, alice, method, {**params, "includeSourceId": bad})
            error = answer["error"]["data"]["APINGException"]
            assert error["errorCode"] == "INVALID_INPUT_DATA" and "includeSourceId" in error["errorDetails"], method
        assert "result" in await rpc(client, alice, method, {**params, "includeSourceId": False})


async def test_cleared_orders_read_locale_as_every_method_does(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    answer = await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "locale": {"lang": "en"}})
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"
    assert "result" in await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "locale": "en"})
