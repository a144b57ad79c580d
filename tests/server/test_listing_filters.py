"""Filters, sorts and groupings of the list methods: honoured, or refused with INVALID_INPUT_DATA, never ignored.

The in-process server of ``conftest.py`` (game ``holdem.0`` open in its Deal window, the clock still until a
test moves it). Expected figures are worked out by hand from the bets each test places.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import ACCOUNT, PLAYING_MS, START_MS, WINDOW_MS, login, place, rpc

MARKET = "holdem.0"


def _error(answer: dict[str, Any]) -> str:
    return str(answer["error"]["data"]["APINGException"]["errorCode"])


async def _settle(client: TestClient, clock: VirtualClock) -> None:
    service = client.app[keys.SERVICE]
    for _ in range(12):
        if MARKET not in service.live_market_ids():
            return
        clock.advance(WINDOW_MS + PLAYING_MS)
    raise AssertionError(f"{MARKET} did not settle")


async def test_market_filter_fields_are_honoured_or_refused(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")

    async def listed(market_filter: dict[str, Any], **extra: Any) -> list[str]:
        answer = await rpc(client, alice, "listMarketCatalogue", {"filter": market_filter, "maxResults": 10, **extra})
        return [m["marketId"] for m in answer["result"]]

    assert await listed({}) == [MARKET]
    assert await listed({"marketTypeCodes": ["WIN"], "inPlayOnly": False, "marketCountries": ["GB"]}) == [MARKET]
    assert await listed({"inPlayOnly": True}) == []  # the Deal window is before the off
    assert await listed({"marketTypeCodes": ["PLACE"]}) == []
    assert await listed({"venues": ["Ascot"]}) == [] and await listed({"bspOnly": True}) == []
    assert await listed({"marketStartTime": {"from": "2000-01-01T00:00:00Z"}}) == [MARKET]
    assert await listed({"marketStartTime": {"to": "2000-01-01T00:00:00Z"}}) == []
    assert await listed({"withOrders": ["EXECUTABLE"]}) == []
    await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 5.0, 2))
    assert await listed({"withOrders": ["EXECUTABLE"]}) == [MARKET]
    assert await listed({}, sort="MAXIMUM_AVAILABLE") == [MARKET]
    for bad in ({"marketTypes": ["WIN"]}, {"inPlayOnly": "yes"}, {"marketStartTime": {"from": "yesterday"}},
                {"withOrders": ["ALL"]}):
        assert _error(await rpc(client, alice, "listMarketCatalogue", {"filter": bad, "maxResults": 1})) == \
            "INVALID_INPUT_DATA", bad
    assert _error(await rpc(client, alice, "listMarketCatalogue", {"filter": {}, "maxResults": 1,
                                                                   "sort": "BY_NAME"})) == "INVALID_INPUT_DATA"
    events = (await rpc(client, alice, "listEvents", {"filter": {"eventIds": [MARKET]}}))["result"]
    assert [(e["event"]["id"], e["marketCount"]) for e in events] == [(MARKET, 1)]
    assert _error(await rpc(client, alice, "listEvents", {})) == "INVALID_INPUT_DATA"  # filter is required


async def test_current_orders_date_range(client: TestClient, clock: VirtualClock) -> None:
    alice = await login(client, "alice", "pw-alice")
    first = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 5.0, 2)))["result"]
    clock.advance(1_000)
    await rpc(client, alice, "placeOrders", place(MARKET, 2, "BACK", 5.0, 2))
    cut = "2023-11-14T22:13:20.500Z"  # START_MS + 500 ms
    assert START_MS == 1_700_000_000_000
    early = (await rpc(client, alice, "listCurrentOrders", {"dateRange": {"to": cut}}))["result"]["currentOrders"]
    assert [o["betId"] for o in early] == [first["instructionReports"][0]["betId"]]
    late = (await rpc(client, alice, "listCurrentOrders", {"dateRange": {"from": cut}}))["result"]["currentOrders"]
    assert [o["selectionId"] for o in late] == [2]
    matched = (await rpc(client, alice, "listCurrentOrders", {"orderBy": "BY_MATCH_TIME",
                                                               "dateRange": {"from": cut}}))["result"]
    assert matched["currentOrders"] == []  # nothing is matched: no matched date falls in any range
    # API-NG's deprecated placedDateRange, still in its signature: the placed date, whatever orderBy sorts by
    placed = (await rpc(client, alice, "listCurrentOrders", {"placedDateRange": {"from": cut}}))["result"]
    assert [o["selectionId"] for o in placed["currentOrders"]] == [2]
    by_match = (await rpc(client, alice, "listCurrentOrders", {"orderBy": "BY_MATCH_TIME",
                                                                "placedDateRange": {"to": cut}}))["result"]
    assert by_match["currentOrders"] == []  # orderBy still lists only the orders with a match


async def test_cleared_orders_group_by_side_and_runner_roll_up(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    await rpc(client, bob, "placeOrders", place(MARKET, 1, "LAY", 4.0, 2))
    await rpc(client, bob, "placeOrders", place(MARKET, 1, "LAY", 3.0, 6))
    await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 4.0, 2))  # takes the 4.0
    await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 3.0, 6))  # takes the 3.0
    await rpc(client, alice, "placeOrders", place(MARKET, 1, "LAY", 2.0, 4))
    await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 2.0, 4))  # takes alice's lay
    await _settle(client, clock)
    by_bet = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED"}))["result"]["clearedOrders"]
    assert len(by_bet) == 3
    sides = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": "SIDE",
                                                            "includeItemDescription": True}))["result"]
    rows = {r["side"]: r for r in sides["clearedOrders"]}
    assert rows["BACK"]["betCount"] == 2 and rows["BACK"]["sizeSettled"] == 8.0
    assert rows["BACK"]["priceMatched"] == (2 * 4.0 + 6 * 3.0) / 8  # stake-weighted: 3.25
    assert rows["LAY"]["betCount"] == 1 and rows["LAY"]["priceMatched"] == 2.0
    assert rows["BACK"]["itemDescription"]["runnerDesc"] == "Hand 1"
    profits = {o["side"]: 0.0 for o in by_bet}
    for o in by_bet:
        profits[o["side"]] += o["profit"]
    assert {side: rows[side]["profit"] for side in rows} == profits
    (runner,) = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": "RUNNER"})
                 )["result"]["clearedOrders"]
    assert runner["betCount"] == 3 and runner["selectionId"] == 1 and "side" not in runner
    # backs of 8 and a lay of 4: no sizeSettled, as Betfair's, where it would add a lay's stake to the backs'
    assert runner["profit"] == round(sum(profits.values()), 2) and "sizeSettled" not in runner
    described = {}
    for group in ("MARKET", "EVENT", "EVENT_TYPE"):
        answer = await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": group,
                                                                "includeItemDescription": True})
        (row,) = answer["result"]["clearedOrders"]
        described[group] = row["itemDescription"]
    # each rolled-up row is described down to what its bets share: the market, the event, the event type
    market = rows["BACK"]["itemDescription"]
    assert described["MARKET"] == {k: v for k, v in market.items() if k != "runnerDesc"}
    assert described["MARKET"]["marketDesc"] and "runnerDesc" not in described["MARKET"]
    assert described["EVENT"] == {"eventTypeDesc": market["eventTypeDesc"], "eventDesc": market["eventDesc"]}
    assert described["EVENT_TYPE"] == {"eventTypeDesc": market["eventTypeDesc"]}
    none = await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "eventIds": ["holdem.9"]})
    assert none["result"]["clearedOrders"] == []
    later = await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED",
                                                           "settledDateRange": {"from": "2100-01-01T00:00:00Z"}})
    assert later["result"]["clearedOrders"] == []
    items = (await rpc(client, alice, "getAccountStatement", {"includeItem": "EXCHANGE"}, path=ACCOUNT)
             )["result"]["accountStatement"]
    funds = (await rpc(client, alice, "getAccountFunds", {}, path=ACCOUNT))["result"]
    assert items and round(sum(i["amount"] for i in items), 2) == round(funds["availableToBetBalance"] - 1000, 2)
    assert items[0]["balance"] == funds["availableToBetBalance"]  # newest first, after the opening 1000.00


async def test_profit_and_loss_and_update_orders(client: TestClient) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    await rpc(client, bob, "placeOrders", place(MARKET, 2, "LAY", 5.0, 10))
    back = (await rpc(client, alice, "placeOrders", place(MARKET, 2, "BACK", 5.0, 10)))["result"]
    rest = (await rpc(client, alice, "placeOrders", place(MARKET, 3, "BACK", 20.0, 2)))["result"]
    (gross,) = (await rpc(client, alice, "listMarketProfitAndLoss", {"marketIds": [MARKET]}))["result"]
    assert {p["selectionId"]: p["ifWin"] for p in gross["profitAndLosses"]} == {1: -10.0, 2: 40.0, 3: -10.0,
                                                                                  4: -10.0}
    (net,) = (await rpc(client, alice, "listMarketProfitAndLoss", {"marketIds": [MARKET],
                                                                    "netOfCommission": True}))["result"]
    assert net["commissionApplied"] == 2.5 and net["profitAndLosses"][1]["ifWin"] == 39.0  # 40 less 2.5 %
    bet_id = rest["instructionReports"][0]["betId"]
    done = back["instructionReports"][0]["betId"]
    update = (await rpc(client, alice, "updateOrders", {"marketId": MARKET, "instructions": [
        {"betId": bet_id, "newPersistenceType": "LAPSE"}, {"betId": bet_id, "newPersistenceType": "PERSIST"},
        {"betId": done, "newPersistenceType": "LAPSE"}, {"betId": "999", "newPersistenceType": "LAPSE"}]}))
    codes = [r["errorCode"] for r in update["result"]["instructionReports"]]
    assert codes == ["NO_ACTION_REQUIRED", "INVALID_PERSISTENCE_TYPE", "BET_TAKEN_OR_LAPSED", "INVALID_BET_ID"]
    bad = await rpc(client, alice, "updateOrders", {"marketId": MARKET, "instructions": [
        {"betId": bet_id, "newPersistenceType": "FOREVER"}]})
    assert _error(bad) == "INVALID_INPUT_DATA"


async def test_the_catalogue_needs_a_filter_as_the_navigation_calls_do(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    answer = await rpc(client, alice, "listMarketCatalogue", {"maxResults": 10})  # Betfair's filter is mandatory
    assert _error(answer) == "INVALID_INPUT_DATA" and "filter" in answer["error"]["data"]["APINGException"][
        "errorDetails"]
    assert [m["marketId"] for m in (await rpc(client, alice, "listMarketCatalogue", {
        "filter": {}, "maxResults": 10}))["result"]] == [MARKET]
