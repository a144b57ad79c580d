"""customerStrategyRef kept on the order and filtered on everywhere; FILL_OR_KILL with minFillSize; refusals
of what the exchange does not offer come per instruction.

The in-process server of ``conftest.py``: game ``holdem.0`` has its Deal window open at the start, and the
clock moves only when a test advances it.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import APP_KEY, PLAYING_MS, WINDOW_MS, login, place, rpc

MARKET = "holdem.0"


def _with_ref(params: dict[str, Any], ref: str | None) -> dict[str, Any]:
    return params if ref is None else {**params, "customerStrategyRef": ref}


async def _place(client: TestClient, token: str, selection: int, side: str, price: float, size: float,
                 ref: str | None = None, **limit: Any) -> dict[str, Any]:
    """Place one LIMIT instruction; ``limit`` adds to (or, with None, removes from) its ``limitOrder``."""
    params = _with_ref(place(MARKET, selection, side, price, size), ref)
    order = params["instructions"][0]["limitOrder"]
    order.update(limit)
    for key in [k for k, v in order.items() if v is None]:
        del order[key]
    answer = await rpc(client, token, "placeOrders", params)
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


async def _settle(client: TestClient, clock: VirtualClock) -> None:
    """Play ``holdem.0`` out: four betting windows and their playing windows, then the settlement."""
    service = client.app[keys.SERVICE]
    for _ in range(12):
        if MARKET not in service.live_market_ids():
            return
        clock.advance(WINDOW_MS + PLAYING_MS)
    raise AssertionError(f"{MARKET} did not settle")


async def test_strategy_refs_are_kept_echoed_and_filtered(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    await _place(client, bob, 1, "LAY", 3.0, 30)
    s1 = (await _place(client, alice, 1, "BACK", 3.0, 4, ref="s1"))["instructionReports"][0]["betId"]
    s2 = (await _place(client, alice, 2, "BACK", 9.0, 2, ref="s2"))["instructionReports"][0]["betId"]
    none = (await _place(client, alice, 3, "BACK", 9.0, 2))["instructionReports"][0]["betId"]
    current = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert {o["betId"]: o.get("customerStrategyRef") for o in current} == {s1: "s1", s2: "s2", none: None}
    only = (await rpc(client, alice, "listCurrentOrders", {"customerStrategyRefs": ["s2", "s1"]}))["result"]
    assert sorted(o["betId"] for o in only["currentOrders"]) == sorted([s1, s2])

    async with client.ws_connect("/stream") as ws:
        await ws.receive()
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
        await ws.receive()
        await ws.send_json({"op": "orderSubscription", "id": 2, "orderFilter": {"customerStrategyRefs": ["s1"]}})
        assert json.loads((await ws.receive(timeout=3)).data)["statusCode"] == "SUCCESS"
        image = json.loads((await ws.receive(timeout=3)).data)
    (market,) = image["oc"]
    # s1 is fully matched (in the position, not among the executable orders); s2's and the unreffed one are
    # executable, but filtered out: each runner's image is empty of orders
    assert [(orc["id"], orc.get("uo"), orc.get("mb")) for orc in market["orc"]] == [
        (1, None, [[3.0, 4.0]]), (2, None, None), (3, None, None)]

    await _settle(client, clock)
    cleared = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED"}))["result"]["clearedOrders"]
    assert {o["betId"]: o.get("customerStrategyRef") for o in cleared} == {s1: "s1"}  # the others lapsed
    lapsed = (await rpc(client, alice, "listClearedOrders", {"betStatus": "LAPSED",
                                                              "customerStrategyRefs": ["s2"]}))["result"]
    assert [o["betId"] for o in lapsed["clearedOrders"]] == [s2]


async def test_fill_or_kill_matches_at_least_its_minimum_or_nothing(client: TestClient) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    await _place(client, bob, 1, "LAY", 3.0, 10)  # 10.00 available to back at 3.0
    killed = (await _place(client, alice, 1, "BACK", 3.0, 20, timeInForce="FILL_OR_KILL"))["instructionReports"][0]
    assert killed["status"] == "SUCCESS" and killed["orderStatus"] == "EXPIRED" and killed["sizeMatched"] == 0
    part = await _place(client, alice, 1, "BACK", 3.0, 20, timeInForce="FILL_OR_KILL", minFillSize=6)
    report = part["instructionReports"][0]
    assert report["orderStatus"] == "EXECUTION_COMPLETE" and report["sizeMatched"] == 10
    whole = await _place(client, alice, 1, "BACK", 2.0, 4, timeInForce="FILL_OR_KILL")  # nothing left at 3.0
    assert whole["instructionReports"][0]["orderStatus"] == "EXPIRED"
    current = {o["betId"]: o for o in (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]}
    # the rest of a killed order is cancelled, as Betfair reports it (flumine's simulation does the same)
    assert (current[killed["betId"]]["sizeCancelled"], current[killed["betId"]]["sizeLapsed"],
            current[killed["betId"]]["status"]) == (20, 0, "EXECUTION_COMPLETE")
    assert current[report["betId"]]["sizeMatched"] == 10 and current[report["betId"]]["sizeCancelled"] == 10
    funds = (await rpc(client, alice, "getAccountFunds", {}, path="/exchange/account/json-rpc/v1"))["result"]
    assert funds["exposure"] == -10.0  # only the matched back is at risk: nothing of the killed orders rests


async def test_refusals_of_what_is_not_offered_are_per_instruction(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"timeInForce": None, "minFillSize": 1}, "UNEXPECTED_MIN_FILL_SIZE"),
        ({"timeInForce": "FILL_OR_KILL", "minFillSize": 5}, "INVALID_MIN_FILL_SIZE"),
        ({"timeInForce": "FILL_OR_KILL", "minFillSize": 0}, "INVALID_MIN_FILL_SIZE"),
        ({"betTargetType": "PAYOUT", "betTargetSize": 10}, "INVALID_ORDER_TYPE"),
    ]
    for limit, code in cases:
        size: Any = None if "betTargetType" in limit else 4  # a payout target comes without a size
        result = await _place(client, alice, 1, "BACK", 3.0, size, **limit)
        assert result["status"] == "FAILURE", (limit, result)
        assert result["instructionReports"][0]["errorCode"] == code, (limit, result)
    unknown = await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "BACK", 3.0, 4)} | {
        "instructions": [{**place(MARKET, 1, "BACK", 3.0, 4)["instructions"][0],
                          "limitOrder": {"size": 4, "price": 3.0, "timeInForce": "GOOD_TILL_DONE"}}]})
    assert unknown["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"
    long_ref = await rpc(client, alice, "placeOrders", _with_ref(place(MARKET, 1, "BACK", 3.0, 4), "x" * 16))
    assert long_ref["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"


async def test_market_version_lapses_orders_sent_against_an_earlier_window(client: TestClient,
                                                                           clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")

    async def version() -> int:
        (book,) = (await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET]}))["result"]
        return int(book["version"])

    seen = await version()
    placed = (await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "BACK", 9.0, 2),
                                                       "marketVersion": {"version": seen}}))["result"]
    assert placed["status"] == "SUCCESS"
    clock.advance(WINDOW_MS + PLAYING_MS)  # the Deal window closed and the Pre-flop opened: two new versions
    assert await version() == seen + 2
    resting = (await _place(client, bob, 2, "BACK", 9.0, 2))["instructionReports"][0]["betId"]
    lapsed = (await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "BACK", 9.0, 2), "async": False,
                                                       "marketVersion": {"version": seen}}))["result"]
    assert lapsed["status"] == "FAILURE"
    assert lapsed["instructionReports"][0]["errorCode"] == "BET_TAKEN_OR_LAPSED"
    fresh = await rpc(client, alice, "placeOrders", {**place(MARKET, 1, "BACK", 9.0, 2),
                                                     "marketVersion": {"version": str(seen + 2)}})
    assert fresh["result"]["status"] == "SUCCESS"
    replaced = (await rpc(client, bob, "replaceOrders", {"marketId": MARKET, "marketVersion": {"version": seen},
                                                         "instructions": [{"betId": resting, "newPrice": 8.0}]}))
    assert replaced["result"]["status"] == "FAILURE"  # no new bet placed, though the old one was cancelled
    report = replaced["result"]["instructionReports"][0]
    assert report["errorCode"] == "CANCELLED_NOT_PLACED" and report["cancelInstructionReport"]["sizeCancelled"] == 2
    current = (await rpc(client, bob, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert [(o["betId"], o["sizeCancelled"]) for o in current if o["selectionId"] == 2] == [(resting, 2)]
