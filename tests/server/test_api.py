"""The HTTP API in-process: identity, every JSON-RPC method, the error codes and the snapshot."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.core.market import MarketStatus
from exchange.server import keys
from tests.server.helpers import (
    ACCOUNT,
    APP_KEY,
    BETTING,
    PLAYING_MS,
    START_MS,
    WINDOW_MS,
    headers,
    login,
    place,
    rpc,
)

MARKET = "holdem.0"


async def test_login_succeeds_and_refuses_bad_passwords(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    assert len(token) > 20
    resp = await client.post("/api/login", data={"username": "alice", "password": "nope"},
                             headers={"X-Application": APP_KEY})
    assert (await resp.json()) == {"token": "", "product": APP_KEY, "status": "FAIL",
                                   "error": "INVALID_USERNAME_OR_PASSWORD"}
    resp = await client.post("/api/login", data={"username": "alice", "password": "pw-alice"})
    assert (await resp.json())["error"] == "INVALID_APP_KEY"
    resp = await client.post("/api/login", data={"username": "alice"}, headers={"X-Application": APP_KEY})
    assert (await resp.json())["error"] == "INPUT_VALIDATION_ERROR"
    resp = await client.post("/api/login", data={"username": "ghost", "password": "x"},
                             headers={"X-Application": APP_KEY})
    assert (await resp.json())["error"] == "INVALID_USERNAME_OR_PASSWORD"


async def test_a_malformed_multipart_login_is_an_input_error_not_a_500(client: TestClient) -> None:
    resp = await client.post("/api/login", data=b"--x\r\n", headers={
        "X-Application": APP_KEY, "Content-Type": "multipart/form-data; boundary=x"})
    assert resp.status < 500
    body = await resp.json()
    assert body["status"] == "FAIL"
    assert body["error"] == "INPUT_VALIDATION_ERROR"


async def test_keep_alive_and_logout(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    auth = {"X-Application": APP_KEY, "X-Authentication": token}
    body = await (await client.post("/api/keepAlive", headers=auth)).json()
    assert body == {"token": token, "product": APP_KEY, "status": "SUCCESS", "error": ""}
    assert (await (await client.post("/api/logout", headers=auth)).json())["status"] == "SUCCESS"
    assert (await (await client.post("/api/keepAlive", headers=auth)).json())["error"] == "NO_SESSION"
    answer = await rpc(client, token, "listCurrentOrders")
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "INVALID_SESSION_INFORMATION"


async def test_missing_or_bad_auth_is_an_aping_error(client: TestClient) -> None:
    cases = {(None, APP_KEY): "NO_SESSION", ("junk", APP_KEY): "INVALID_SESSION_INFORMATION",
             ("junk", None): "NO_APP_KEY"}
    for (token, app_key), code in cases.items():
        answer = await rpc(client, token, "listCurrentOrders", app_key=app_key)
        assert answer["error"]["code"] == -32099
        assert answer["error"]["data"]["APINGException"]["errorCode"] == code
        assert answer["error"]["message"].startswith("ANGX-")
    token = await login(client, "alice", "pw-alice")
    answer = await rpc(client, token, "listCurrentOrders", app_key="another-app")
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "INVALID_APP_KEY"
    answer = await rpc(client, None, "getAccountFunds", path=ACCOUNT)
    assert answer["error"]["data"]["exceptionname"] == "AccountAPINGException"


async def test_place_match_cancel_replace_and_lists(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    lay = await rpc(client, alice, "placeOrders", place(MARKET, 1, "LAY", 3.0, 10, customerOrderRef="a1"))
    report = lay["result"]
    assert report["status"] == "SUCCESS", report
    lay_id = report["instructionReports"][0]["betId"]
    assert report["instructionReports"][0]["orderStatus"] == "EXECUTABLE"
    back = (await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 2.5, 4)))["result"]
    first = back["instructionReports"][0]
    assert first["status"] == "SUCCESS" and first["sizeMatched"] == 4.0 and first["averagePriceMatched"] == 3.0
    assert first["orderStatus"] == "EXECUTION_COMPLETE"

    current = (await rpc(client, alice, "listCurrentOrders", {"betIds": [lay_id]}))["result"]
    (order,) = current["currentOrders"]
    assert order["sizeMatched"] == 4.0 and order["sizeRemaining"] == 6.0 and order["customerOrderRef"] == "a1"
    assert current["moreAvailable"] is False

    book = (await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET], "priceProjection": {
        "priceData": ["EX_BEST_OFFERS", "EX_TRADED"]}, "orderProjection": "ALL"}))["result"][0]
    runner = next(r for r in book["runners"] if r["selectionId"] == 1)
    assert runner["ex"]["availableToBack"] == [{"price": 3.0, "size": 6.0}]
    assert runner["ex"]["tradedVolume"] == [{"price": 3.0, "size": 4.0}]
    assert runner["lastPriceTraded"] == 3.0 and [o["betId"] for o in runner["orders"]] == [lay_id]
    assert book["status"] == "OPEN" and book["totalMatched"] == 4.0

    replaced = (await rpc(client, alice, "replaceOrders", {"marketId": MARKET, "instructions": [
        {"betId": lay_id, "newPrice": 3.5}]}))["result"]
    assert replaced["status"] == "SUCCESS", replaced
    new_id = replaced["instructionReports"][0]["placeInstructionReport"]["betId"]
    assert replaced["instructionReports"][0]["cancelInstructionReport"]["sizeCancelled"] == 6.0
    cancelled = (await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [
        {"betId": new_id, "sizeReduction": 2}]}))["result"]
    assert cancelled["instructionReports"][0]["sizeCancelled"] == 2.0
    everything = (await rpc(client, alice, "cancelOrders", {}))["result"]
    assert everything == {"status": "SUCCESS", "instructionReports": []}  # no report a bet, as Betfair's
    left = (await rpc(client, alice, "listCurrentOrders"))["result"]["currentOrders"]
    assert all(o["sizeRemaining"] == 0 for o in left)
    assert next(o for o in left if o["betId"] == new_id)["sizeCancelled"] == 6.0  # 2 above, the 4 left now

    funds = (await rpc(client, alice, "getAccountFunds", path=ACCOUNT))["result"]
    assert funds["exposure"] == -8.0 and funds["availableToBetBalance"] == 992.0

    catalogue = (await rpc(client, alice, "listMarketCatalogue", {"filter": {}, "maxResults": 10,
                 "marketProjection": ["RUNNER_DESCRIPTION", "EVENT", "MARKET_DESCRIPTION"]}))["result"]
    assert catalogue[0]["marketId"] == MARKET and catalogue[0]["runners"][0]["runnerName"] == "Hand 1"


async def test_one_account_cannot_touch_or_see_anothers_bet(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    bet = (await rpc(client, alice, "placeOrders", place(MARKET, 2, "BACK", 5.0, 2)))["result"]
    bet_id = bet["instructionReports"][0]["betId"]
    cancel = (await rpc(client, bob, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet_id}]}))
    report = cancel["result"]["instructionReports"][0]
    assert report["errorCode"] == "INVALID_BET_ID" and "sizeCancelled" not in report
    replace = (await rpc(client, bob, "replaceOrders", {"marketId": MARKET, "instructions": [
        {"betId": bet_id, "newPrice": 6.0}]}))["result"]
    assert replace["instructionReports"][0]["errorCode"] == "INVALID_BET_ID"
    seen = (await rpc(client, bob, "listCurrentOrders", {"betIds": [bet_id]}))["result"]
    assert seen["currentOrders"] == []
    book = (await rpc(client, bob, "listMarketBook", {"marketIds": [MARKET], "orderProjection": "ALL"}))["result"]
    assert all(r["orders"] == [] for r in book[0]["runners"])
    still = (await rpc(client, alice, "listCurrentOrders", {"betIds": [bet_id]}))["result"]["currentOrders"]
    assert still[0]["sizeRemaining"] == 2.0


async def test_error_codes(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    poor = await login(client, "poor", "pw-poor")

    async def code(token: str, params: dict[str, object], method: str = "placeOrders") -> tuple[str, str]:
        result = (await rpc(client, token, method, params))["result"]
        return result["errorCode"], result["instructionReports"][0]["errorCode"] if result["instructionReports"] else ""

    assert await code(alice, place(MARKET, 1, "BACK", 2.03, 2)) == ("BET_ACTION_ERROR", "INVALID_ODDS")
    assert await code(alice, place(MARKET, 1, "BACK", 1e308, 2)) == ("BET_ACTION_ERROR", "INVALID_ODDS")
    assert await code(alice, place(MARKET, 1, "BACK", -3, 2)) == ("BET_ACTION_ERROR", "INVALID_ODDS")
    for price, size, says in ((3 * 1.1, 2, "price 3.3000000000000003 is not on the ladder: it is 3.3 with a "
                                           "floating-point error, send 3.3"),
                              (2.0, 0.1 + 2.2, "amount 2.3000000000000003 has more than two decimals: it is 2.30 "
                                               "with a floating-point error, send 2.30"),
                              # at the ladder's ends too (they were "below the lowest price 1.01", no more said)
                              (1.0099999999999998, 2, "it is 1.01 with a floating-point error, send 1.01"),
                              (1000.0000000000001, 2, "it is 1000 with a floating-point error, send 1000")):
        result = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", price, size)))["result"]
        assert says in result["errorMessage"], result  # a computed price or size: what to send instead
    assert await code(alice, place(MARKET, 1, "BACK", 2.0, 1.5)) == ("BET_ACTION_ERROR", "INVALID_BET_SIZE")
    assert await code(alice, place(MARKET, 1, "BACK", 2.0, 2.001)) == ("BET_ACTION_ERROR", "INVALID_BET_SIZE")
    assert await code(alice, place(MARKET, 1, "BACK", 2.0, 1e300)) == ("BET_ACTION_ERROR", "INVALID_BET_SIZE")
    assert await code(alice, place(MARKET, 9, "BACK", 2.0, 2)) == ("BET_ACTION_ERROR", "INVALID_RUNNER")
    assert await code(poor, place(MARKET, 1, "LAY", 10.0, 2)) == ("INSUFFICIENT_FUNDS", "INSUFFICIENT_FUNDS")
    # INVALID_MARKET_ID is an ExecutionReportErrorCode only: the instruction failed because its order did
    assert await code(alice, place("holdem.999", 1, "BACK", 2.0, 2)) == ("INVALID_MARKET_ID", "ERROR_IN_ORDER")
    bad = place(MARKET, 1, "BACK", 2.0, 2)
    bad["instructions"][0]["limitOrder"]["persistenceType"] = "PERSIST"
    assert (await code(alice, bad))[1] == "INVALID_PERSISTENCE_TYPE"
    del bad["instructions"][0]["limitOrder"]["persistenceType"]  # optional in Betfair's schema: LAPSE, as offered
    (left_out,) = (await rpc(client, alice, "placeOrders", bad))["result"]["instructionReports"]
    assert (left_out["status"], left_out["instruction"]["limitOrder"]["persistenceType"]) == ("SUCCESS", "LAPSE")
    many = {"marketId": MARKET, "instructions": place(MARKET, 1, "BACK", 2.0, 2)["instructions"] * 201}
    result = (await rpc(client, alice, "placeOrders", many))["result"]
    assert result["errorCode"] == "TOO_MANY_INSTRUCTIONS" and result["status"] == "FAILURE"
    ok = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 1000, 2)))["result"]
    bet_id = ok["instructionReports"][0]["betId"]
    await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet_id}]})
    again = (await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet_id}]}))
    assert again["result"]["instructionReports"][0]["errorCode"] == "BET_TAKEN_OR_LAPSED"
    assert (await code(alice, {"marketId": MARKET, "instructions": [{"betId": "abc"}]}, "cancelOrders"))[1] == (
        "INVALID_BET_ID")
    too_much = await rpc(client, alice, "listMarketCatalogue", {"filter": {}, "maxResults": 10**6})
    assert too_much["error"]["data"]["APINGException"]["errorCode"] == "TOO_MUCH_DATA"


async def test_place_orders_is_all_or_nothing(client: TestClient) -> None:
    poor = await login(client, "poor", "pw-poor")  # 3.00: one back of 2.00 fits, two on different hands do not
    batch = place(MARKET, 1, "BACK", 1000, 2)
    batch["instructions"] += place(MARKET, 2, "BACK", 1000, 2)["instructions"]
    result = (await rpc(client, poor, "placeOrders", batch))["result"]
    assert result["status"] == "FAILURE" and result["errorCode"] == "INSUFFICIENT_FUNDS"
    reports = result["instructionReports"]
    assert [(r["status"], r["errorCode"]) for r in reports] == [
        ("FAILURE", "RELATED_ACTION_FAILED"), ("FAILURE", "INSUFFICIENT_FUNDS")]
    assert all("betId" not in r for r in reports)
    assert (await rpc(client, poor, "listCurrentOrders"))["result"]["currentOrders"] == []
    funds = (await rpc(client, poor, "getAccountFunds", path=ACCOUNT))["result"]
    assert funds["exposure"] == 0 and funds["availableToBetBalance"] == 3
    alone = (await rpc(client, poor, "placeOrders", place(MARKET, 2, "BACK", 1000, 2)))["result"]
    assert alone["status"] == "SUCCESS"  # each instruction alone would have been accepted
    alice = await login(client, "alice", "pw-alice")
    result = (await rpc(client, alice, "placeOrders", batch))["result"]
    assert result["status"] == "SUCCESS" and [r["status"] for r in result["instructionReports"]] == ["SUCCESS"] * 2


async def test_market_not_open_between_windows(client: TestClient, clock: VirtualClock) -> None:
    alice = await login(client, "alice", "pw-alice")
    service = client.app[keys.SERVICE]
    game = service.current_game("holdem")
    assert game is not None and game.market_id == MARKET
    deal, flop = game.windows[0], game.windows[1]
    assert (deal.opens_ms, deal.closes_ms, flop.opens_ms) == (START_MS, START_MS + WINDOW_MS,
                                                              START_MS + WINDOW_MS + PLAYING_MS)

    clock.run(until_ms=deal.closes_ms - 1)  # the last millisecond of the Deal window: still open
    assert service.exchange.market_status(MARKET) is MarketStatus.ACTIVE
    clock.run(until_ms=deal.closes_ms)  # the window closes: suspended while the hole cards are turned
    assert service.exchange.market_status(MARKET) is MarketStatus.SUSPENDED
    result = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 2.0, 2)))["result"]
    assert result["errorCode"] == "MARKET_NOT_OPEN_FOR_BETTING"
    assert result["instructionReports"][0]["errorCode"] == "MARKET_NOT_OPEN_FOR_BETTING"

    clock.run(until_ms=flop.opens_ms - 1)
    result = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 2.0, 2)))["result"]
    assert result["errorCode"] == "MARKET_NOT_OPEN_FOR_BETTING"
    clock.run(until_ms=flop.opens_ms)  # the Flop window opens: the same order is taken
    assert service.exchange.market_status(MARKET) is MarketStatus.ACTIVE
    result = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 2.0, 2)))["result"]
    assert result["status"] == "SUCCESS", result


async def test_malformed_requests_get_json_rpc_errors(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    h = headers(alice)

    async def post(body: str | bytes) -> Any:  # a JSON answer
        resp = await client.post(BETTING, data=body, headers=h)
        assert resp.status == 200
        return await resp.json()

    assert (await post("{not json"))["error"]["code"] == -32700
    assert (await post("[" * 100_000))["error"]["code"] == -32700
    assert (await post('"a string"'))["error"]["code"] == -32600
    assert (await post('{"jsonrpc":"2.0","method":"SportsAPING/v1.0/nothing","id":3}'))["error"]["code"] == -32601
    assert (await post('{"jsonrpc":"2.0","method":"SportsAPING/v1.0/placeOrders","params":[1],"id":3}'))[
        "error"]["code"] == -32602
    wrong = {"jsonrpc": "2.0", "method": "SportsAPING/v1.0/placeOrders", "id": 4,
             "params": {"marketId": MARKET, "instructions": [{"selectionId": "one", "side": "BACK"}]}}
    answer = await post(json.dumps(wrong))
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"
    assert "selectionId" in answer["error"]["data"]["APINGException"]["errorDetails"]
    batch = [{"jsonrpc": "2.0", "method": "SportsAPING/v1.0/listCurrentOrders", "id": i} for i in range(3)]
    answers = await post(json.dumps(batch))
    assert isinstance(answers, list)
    assert [a["id"] for a in answers] == [0, 1, 2] and all("result" in a for a in answers)
    resp = await client.post(BETTING, data=b"x" * (2 * 1024 * 1024), headers=h)
    too_large = (await resp.json())["error"]["data"]["APINGException"]["errorCode"]
    assert resp.status == 200 and too_large == "REQUEST_SIZE_EXCEEDS_LIMIT"
    resp = await client.get("/nowhere")
    assert resp.status == 404 and "error" in await resp.json()


async def test_snapshot_channels_and_openapi(client: TestClient, clock: VirtualClock) -> None:
    channels = await (await client.get("/games/v1/channels")).json()
    assert channels["channels"][0]["id"] == "holdem"
    snap = await (await client.get("/games/v1/channels/holdem/snapshot")).json()
    game = snap["game"]
    assert game["id"] == MARKET and game["round"] == 1 and game["bettingWindowTime"] == 3
    assert game["bettingWindowPercentageComplete"] == 0
    clock.advance(WINDOW_MS * 2 // 5)
    snap = await (await client.get("/games/v1/channels/holdem/snapshot")).json()
    assert snap["game"]["bettingWindowPercentageComplete"] == 40 and snap["game"]["bettingOpen"] is True
    assert all(card == "NOT AVAILABLE" for hand in game["gameData"]["hands"] for card in hand["cards"])
    assert game["gameData"]["communityCards"] == ["NOT AVAILABLE"] * 5
    assert [s["status"] for s in game["markets"][0]["selections"]] == ["IN_PLAY"] * 4
    resp = await client.get("/games/v1/channels/nope/snapshot")
    assert resp.status == 404 and (await resp.json())["error"] == "CHANNEL_NOT_FOUND"
    doc = await (await client.get("/openapi.json")).json()
    assert "/api/login" in doc["paths"] and doc["openapi"].startswith("3.")


async def test_the_channel_list_never_shows_a_game_before_it_is_dealt(client: TestClient, clock: VirtualClock) -> None:
    service = client.app[keys.SERVICE]
    first = service.current_game("holdem")
    assert first is not None and first.market_id == MARKET
    for _ in range(10_000):  # bounded: a game lasts a few virtual seconds
        if first.over:
            break
        clock.advance(50)
    assert first.over
    following = service.current_game("holdem")
    assert following is not None and following.market_id != MARKET
    assert service.exchange.market_status(following.market_id) is None  # scheduled, not yet dealt
    listed = await (await client.get("/games/v1/channels")).json()
    assert [c["gameId"] for c in listed["channels"]] == [MARKET]
    clock.run(until_ms=following.start_ms)
    listed = await (await client.get("/games/v1/channels")).json()
    assert [c["gameId"] for c in listed["channels"]] == [following.market_id]
