"""The WebSocket stream: authentication, market and order subscriptions, heartbeats, and
betfairlightweight's own stream listener reading what we send.

The server's clock stands still until a test moves it: changes are sent when
the test advances it by the conflation interval (:func:`flush`), so every test
knows which changes share a message, and a heartbeat comes only when the test
lets ``heartbeatMs`` pass.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.stream import IDLE_TIMEOUT_MS
from tests.server.helpers import APP_KEY, HEARTBEAT_MS, login, place, rpc, wanted

MARKET = "holdem.0"


async def next_message(ws: ClientWebSocketResponse, timeout: float = 3) -> dict[str, Any]:
    """The next message the server sends; ``timeout`` (seconds) bounds the wait for one already due."""
    message: dict[str, Any] = json.loads((await ws.receive(timeout=timeout)).data)
    return message


async def receive(ws: ClientWebSocketResponse, op: str, *, ct: str | None = None, timeout: float = 3) -> dict[str, Any]:
    """The next message with ``op`` (and ``ct``), skipping the others (see :func:`wanted`)."""
    while True:
        message = await next_message(ws, timeout)
        if wanted(message, op, ct):
            return message


def flush(client: TestClient, clock: VirtualClock) -> None:
    """Let the conflation interval pass: every change made since the last flush goes out in one message."""
    clock.advance(client.app[keys.HUB].conflate_ms)


async def test_stream_auth_subscribe_images_deltas_and_heartbeats(client: TestClient, clock: VirtualClock) -> None:
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
    for session in ({}, {"session": ""}, {"session": 7}):
        async with client.ws_connect("/stream") as ws:
            await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, **session})
            failed = await receive(ws, "status")
            assert failed["errorCode"] == "NO_SESSION" and "'session'" in failed["errorMessage"], failed
            assert failed["connectionClosed"] is True
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
        flush(client, clock)
        delta = await next_message(ws)  # the market's change first, then the orders'
        assert delta["op"] == "mcm" and delta["id"] == 2 and "ct" not in delta and delta["pt"] == clock.now()
        rc = delta["mc"][0]["rc"][0]
        assert rc["id"] == 1 and rc["atb"] == [[3.0, 6.0]] and rc["trd"] == [[3.0, 4.0]] and rc["ltp"] == 3.0
        listener.on_data(json.dumps(delta))
        (book,) = listener.snap([MARKET])
        runner = next(r for r in book.runners if r.selection_id == 1)
        assert runner.ex.available_to_back[0].price == 3.0 and runner.last_price_traded == 3.0

        orders = await next_message(ws)
        assert orders["op"] == "ocm" and orders["id"] == 3 and "ct" not in orders
        (uo,) = orders["oc"][0]["orc"][0]["uo"]
        assert uo["side"] == "L" and uo["sm"] == 4.0 and uo["sr"] == 6.0 and uo["status"] == "E"
        assert orders["oc"][0]["orc"][0]["ml"] == [[3.0, 4.0]]

        clock.advance(HEARTBEAT_MS)  # both subscriptions now idle for exactly heartbeatMs: one heartbeat each
        heartbeat = await next_message(ws)
        assert heartbeat == {"op": "mcm", "id": 2, "clk": f"3:{clock.now()}", "pt": clock.now(), "ct": "HEARTBEAT"}
        assert await next_message(ws) == {"op": "ocm", "id": 3, "clk": f"3:{clock.now()}", "pt": clock.now(),
                                          "ct": "HEARTBEAT"}
        await ws.send_json({"op": "nonsense", "id": 9})
        assert (await receive(ws, "status"))["errorCode"] == "INVALID_INPUT"
        await ws.send_str("{broken")
        assert (await receive(ws, "status"))["errorCode"] == "INVALID_INPUT"


async def test_heartbeats_keep_to_the_servers_clock(client: TestClient, clock: VirtualClock) -> None:
    """A quiet subscription is sent a heartbeat each time it has been quiet for ``heartbeatMs`` by the server's
    clock, whatever the wall clock does: none a millisecond early, three in a jump of three periods, each at its
    own time; and an unsubscribed connection is closed at its idle timeout to the millisecond."""
    opened = clock.now()
    async with client.ws_connect("/stream") as ws, client.ws_connect("/stream") as idle:
        await authenticated(client, ws)
        await ws.send_json({"op": MS, "id": 2, "marketFilter": {"marketIds": [MARKET]}, "heartbeatMs": HEARTBEAT_MS})
        start = (await receive(ws, "mcm", ct="SUB_IMAGE"))["pt"]
        assert (await next_message(idle))["op"] == "connection"
        clock.advance(HEARTBEAT_MS - 1)
        await ws.send_json({"op": "heartbeat", "id": 7})  # a request: it is no change sent, so no heartbeat's
        assert (await next_message(ws))["id"] == 7  # nothing came before its answer
        clock.advance(3 * HEARTBEAT_MS)
        beats = [await next_message(ws) for _ in range(3)]
        assert [(b["ct"], b["pt"]) for b in beats] == [("HEARTBEAT", start + n * HEARTBEAT_MS) for n in (1, 2, 3)]
        clock.run(until_ms=opened + IDLE_TIMEOUT_MS - 1)
        await idle.send_json({"op": "heartbeat", "id": 8})
        assert (await next_message(idle))["id"] == 8
        clock.run(until_ms=opened + IDLE_TIMEOUT_MS - 1 + IDLE_TIMEOUT_MS)
        assert (await next_message(idle))["errorCode"] == "TIMEOUT"


# --- subscription input: every field checked, a wrong one refused by name -------------------------------------

async def authenticated(client: TestClient, ws: ClientWebSocketResponse, name: str = "alice") -> str:
    token = await login(client, name, f"pw-{name}")
    await receive(ws, "connection")
    await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
    assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
    return token


MS, OS = "marketSubscription", "orderSubscription"
BAD_SUBSCRIPTIONS: list[tuple[str, dict[str, Any], str]] = [
    (OS, {"orderFilter": [1]}, "orderFilter must be an object"),
    (MS, {"heartbeatMs": "x"}, "heartbeatMs must be an integer number of milliseconds (500 to 30000"),
    (MS, {"heartbeatMs": True}, "heartbeatMs must be an integer"),
    (OS, {"heartbeatMs": 1500.0}, "heartbeatMs must be an integer"),
    (MS, {"conflateMs": -1}, "conflateMs must be an integer number of milliseconds from 0 to 120000, got -1"),
    (OS, {"conflateMs": 120_001}, "conflateMs must be an integer number of milliseconds from 0 to 120000, got 120001"),
    (OS, {"conflateMs": "0"}, "conflateMs must be an integer"),
    (MS, {"segmentationEnabled": "yes"}, "segmentationEnabled must be true or false"),
    (MS, {"clk": 5}, "clk must be a string"),
    (OS, {"initialClk": ["a"]}, "initialClk must be a string"),
    (MS, {"heartbeatMS": 500}, "marketSubscription: unknown key 'heartbeatMS'; allowed: clk, conflateMs,"),
    (MS, {"marketFilter": ["holdem.0"]}, "marketFilter must be an object"),
    (MS, {"marketFilter": {"marketIds": MARKET}}, "marketFilter.marketIds must be a list of strings"),
    (MS, {"marketFilter": {"marketIds": [f"m{i}" for i in range(1001)]}}, "at most 1000 entries, got 1001"),
    (MS, {"marketFilter": {"eventTypeIds": [990001]}}, "marketFilter.eventTypeIds must be a list of strings"),
    (MS, {"marketFilter": {"bspMarket": 0}}, "marketFilter.bspMarket must be true or false"),
    (MS, {"marketFilter": {"marketId": [MARKET]}}, "marketFilter: unknown key 'marketId'; allowed: bettingTypes"),
    (MS, {"marketDataFilter": "EX_BEST_OFFERS"}, "marketDataFilter must be an object"),
    (MS, {"marketDataFilter": {"fields": ["EX_BEST"]}}, "unknown field 'EX_BEST'; allowed: EX_ALL_OFFERS"),
    (MS, {"marketDataFilter": {"ladderLevels": 0}}, "marketDataFilter.ladderLevels must be an integer from 1 to 10"),
    (MS, {"marketDataFilter": {"ladderLevels": 11}}, "ladderLevels must be an integer from 1 to 10, got 11"),
    (MS, {"marketDataFilter": {"ladderLevels": True}}, "ladderLevels must be an integer from 1 to 10, got True"),
    (MS, {"marketDataFilter": {"ladderLevels": "3"}}, "ladderLevels must be an integer from 1 to 10, got '3'"),
    (MS, {"marketDataFilter": {"ladderLevel": 3}}, "marketDataFilter: unknown key 'ladderLevel'"),
    (OS, {"orderFilter": {"includeOverallPosition": 1}}, "orderFilter.includeOverallPosition must be true or false"),
    (OS, {"orderFilter": {"customerStrategyRefs": ["a", 1]}}, "customerStrategyRefs must be a list of strings"),
    (OS, {"orderFilter": {"partitionMatchedByStrategyRef": "x"}}, "partitionMatchedByStrategyRef must be true or"),
    (OS, {"orderFilter": {"accountIds": [True]}}, "orderFilter.accountIds must be a list of integers, got [True]"),
    (OS, {"orderFilter": {"accountIds": ["1"]}}, "orderFilter.accountIds must be a list of integers"),
    (OS, {"orderFilter": {"accountId": [1]}}, "orderFilter: unknown key 'accountId'; allowed: accountIds,"),
]


async def test_every_wrong_subscription_field_is_refused_with_invalid_input_naming_it(client: TestClient) -> None:
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        for i, (op, extra, expected) in enumerate(BAD_SUBSCRIPTIONS, start=10):
            await ws.send_json({"op": op, "id": i, **extra})
            status = await receive(ws, "status")
            assert status["id"] == i and status["statusCode"] == "FAILURE", (op, extra, status)
            assert status["errorCode"] == "INVALID_INPUT" and status["connectionClosed"] is False, status
            assert expected in status["errorMessage"], (expected, status["errorMessage"])
        # nothing was subscribed, and the connection still takes a good subscription
        await ws.send_json({"op": MS, "id": 99, "marketFilter": {"marketIds": [MARKET]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        assert (await receive(ws, "mcm", ct="SUB_IMAGE"))["id"] == 99


async def test_heartbeat_is_clamped_and_nulls_count_as_not_given(client: TestClient) -> None:
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        # what betfairlightweight's subscribe_to_markets sends when given no clk, conflation or heartbeat
        await ws.send_json({"op": MS, "id": 2, "marketFilter": {"marketIds": [MARKET]},
                            "marketDataFilter": {"fields": ["EX_BEST_OFFERS"], "ladderLevels": None},
                            "initialClk": None, "clk": None, "conflateMs": None, "heartbeatMs": None,
                            "segmentationEnabled": True})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
        assert image["heartbeatMs"] == 500 and image["conflateMs"] == 50  # the server's default and conflation
        for asked, used in ((100, 500), (-5, 500), (1_000_000, 30_000), (2_000, 2_000)):
            await ws.send_json({"op": MS, "id": 3, "heartbeatMs": asked, "conflateMs": 0, "clk": image["clk"],
                                "initialClk": image["initialClk"],
                                "marketFilter": {"marketIds": [MARKET], "bspMarket": False}})
            assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
            assert (await receive(ws, "mcm", ct="SUB_IMAGE"))["heartbeatMs"] == used
        await ws.send_json({"op": OS, "id": 4, "heartbeatMs": 99_999, "orderFilter": {
            "includeOverallPosition": True, "customerStrategyRefs": [], "partitionMatchedByStrategyRef": False,
            "accountIds": [1]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        assert (await receive(ws, "ocm", ct="SUB_IMAGE"))["heartbeatMs"] == 30_000


async def test_order_filter_without_overall_position_drops_mb_ml(client: TestClient, clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        token = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        await ws.send_json({"op": OS, "id": 2, "orderFilter": {"includeOverallPosition": False}})
        assert (await receive(ws, "ocm", ct="SUB_IMAGE"))["oc"] == []
        await rpc(client, token, "placeOrders", place(MARKET, 1, "LAY", 3.0, 10))
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.0, 4))
        flush(client, clock)
        orders = await next_message(ws)
        assert orders["op"] == "ocm" and "ct" not in orders
        orc = orders["oc"][0]["orc"][0]
        assert orc["uo"][0]["sm"] == 4.0 and "mb" not in orc and "ml" not in orc
        # orders carry no strategy ref here: asking for one shows none of them, but the position still
        await ws.send_json({"op": OS, "id": 3, "orderFilter": {"customerStrategyRefs": ["other"]}})
        orc = (await receive(ws, "ocm", ct="SUB_IMAGE"))["oc"][0]["orc"][0]
        assert "uo" not in orc and orc["ml"] == [[3.0, 4.0]]


# --- EX_BEST_OFFERS: batb / batl by level; EX_ALL_OFFERS: atb / atl by price -----------------------------------

async def next_runner_change(ws: ClientWebSocketResponse, selection_id: int = 1) -> dict[str, Any]:
    """The next ``rc`` entry for ``selection_id`` in a market delta (heartbeats and other runners skipped)."""
    while True:
        message = await receive(ws, "mcm")
        for mc in message.get("mc", ()):
            for rc in mc.get("rc", ()):
                if rc["id"] == selection_id:
                    return dict(rc)


async def lay(client: TestClient, token: str, price: float, size: float) -> str:
    result = (await rpc(client, token, "placeOrders", place(MARKET, 1, "LAY", price, size)))["result"]
    return str(result["instructionReports"][0]["betId"])


async def cancel(client: TestClient, token: str, bet_id: str) -> None:
    result = (await rpc(client, token, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet_id}]}))
    assert result["result"]["status"] == "SUCCESS"


async def subscribe_offers(ws: ClientWebSocketResponse, fields: list[str], **data_filter: Any) -> dict[str, Any]:
    await ws.send_json({"op": MS, "id": 2, "marketFilter": {"marketIds": [MARKET]},
                        "marketDataFilter": {"fields": fields, **data_filter}})
    assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
    image = await receive(ws, "mcm", ct="SUB_IMAGE")
    rc: dict[str, Any] = next(rc for rc in image["mc"][0]["rc"] if rc["id"] == 1)
    return rc


async def test_best_offers_default_three_levels_image_and_deltas(client: TestClient, clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        bets = {p: await lay(client, alice, p, s) for p, s in ((3.0, 10), (2.98, 5), (2.96, 4), (2.94, 3))}
        image = await subscribe_offers(ws, ["EX_BEST_OFFERS"])
        assert image == {"id": 1, "batb": [[0, 3.0, 10.0], [1, 2.98, 5.0], [2, 2.96, 4.0]], "batl": []}

        await cancel(client, alice, bets[3.0])  # every level moves up one; 2.94 comes into view
        flush(client, clock)
        assert await next_runner_change(ws) == {"id": 1, "batb": [[0, 2.98, 5.0], [1, 2.96, 4.0], [2, 2.94, 3.0]]}
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.5, 2))  # the lay side only
        flush(client, clock)
        assert await next_runner_change(ws) == {"id": 1, "batl": [[0, 3.5, 2.0]]}
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 2.96, 2))  # matches 2.00 at 2.98
        flush(client, clock)
        assert await next_runner_change(ws) == {"id": 1, "batb": [[0, 2.98, 3.0]]}  # no trd: not asked for
        await cancel(client, alice, bets[2.94])
        await cancel(client, alice, bets[2.96])
        flush(client, clock)  # both cancels in one flush: two levels emptied, each re-sent with size 0
        assert await next_runner_change(ws) == {"id": 1, "batb": [[1, 0, 0], [2, 0, 0]]}


async def test_best_offers_one_level_ignores_deeper_changes(client: TestClient, clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        top = await lay(client, alice, 3.0, 10)
        second = await lay(client, alice, 2.98, 5)
        await ws.send_json({"op": OS, "id": 3})
        assert (await receive(ws, "status"))["id"] == 3
        image = await receive(ws, "ocm", ct="SUB_IMAGE")  # the lays are in it: nothing of them is left to send
        assert image["id"] == 3
        assert {uo["id"]: uo["sr"] for uo in image["oc"][0]["orc"][0]["uo"]} == {top: 10.0, second: 5.0}
        assert await subscribe_offers(ws, ["EX_BEST_OFFERS"], ladderLevels=1) == {
            "id": 1, "batb": [[0, 3.0, 10.0]], "batl": []}
        await cancel(client, alice, second)  # below the one level shown: no market change to send
        flush(client, clock)
        orders = await next_message(ws)  # a market change would have come first: this is the order change alone
        assert orders["op"] == "ocm" and "ct" not in orders
        assert {uo["id"]: uo["sc"] for uo in orders["oc"][0]["orc"][0]["uo"]} == {second: 5.0}  # the changed one
        third = await lay(client, alice, 3.05, 2)
        flush(client, clock)
        assert await next_runner_change(ws) == {"id": 1, "batb": [[0, 3.05, 2.0]]}
        await cancel(client, alice, top)
        await cancel(client, alice, third)
        flush(client, clock)  # both cancels in one flush: the one level shown is empty
        assert await next_runner_change(ws) == {"id": 1, "batb": [[0, 0, 0]]}


async def test_all_offers_are_by_price_and_both_views_come_when_both_are_asked(client: TestClient,
                                                                               clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        await lay(client, alice, 3.0, 10)
        bet = await lay(client, alice, 2.98, 5)
        assert await subscribe_offers(ws, ["EX_ALL_OFFERS"], ladderLevels=1) == {
            "id": 1, "atb": [[2.98, 5.0], [3.0, 10.0]], "atl": []}
        image = await subscribe_offers(ws, ["EX_ALL_OFFERS", "EX_BEST_OFFERS", "EX_BEST_OFFERS_DISP"])
        assert image["atb"] == [[2.98, 5.0], [3.0, 10.0]] and image["batb"] == [[0, 3.0, 10.0], [1, 2.98, 5.0]]
        assert image["bdatb"] == image["batb"] and image["batl"] == image["bdatl"] == image["atl"] == []
        await cancel(client, alice, bet)
        flush(client, clock)
        assert await next_runner_change(ws) == {"id": 1, "atb": [[2.98, 0.0]], "batb": [[1, 0, 0]],
                                                "bdatb": [[1, 0, 0]]}


async def test_a_delta_after_the_image_is_against_what_the_image_showed(client: TestClient,
                                                                       clock: VirtualClock) -> None:
    """An order placed while no client was connected, shown in the image, then cancelled: the delta removes it."""
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bet = await lay(client, alice, 3.0, 10)  # with no subscription yet the hub tracks nothing
        assert (await subscribe_offers(ws, ["EX_ALL_OFFERS", "EX_BEST_OFFERS"]))["atb"] == [[3.0, 10.0]]
        await cancel(client, alice, bet)
        flush(client, clock)
        assert await next_runner_change(ws) == {"id": 1, "atb": [[3.0, 0.0]], "batb": [[0, 0, 0]]}


async def test_betfairlightweight_cache_shows_best_offers_from_batb_batl(client: TestClient,
                                                                         clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        listener = StreamListener(max_latency=None)
        listener.register_stream(2, "marketSubscription")
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        await lay(client, alice, 3.0, 10)
        bet = await lay(client, alice, 2.98, 5)
        await lay(client, alice, 2.96, 4)
        await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.5, 2))
        await ws.send_json({"op": MS, "id": 2, "marketFilter": {"marketIds": [MARKET]},
                            "marketDataFilter": {"fields": ["EX_BEST_OFFERS", "EX_MARKET_DEF"], "ladderLevels": 2}})
        listener.on_data(json.dumps(await receive(ws, "mcm", ct="SUB_IMAGE")))
        (book,) = listener.snap([MARKET])
        runner = next(r for r in book.runners if r.selection_id == 1)
        assert [(p.price, p.size) for p in runner.ex.available_to_back] == [(3.0, 10.0), (2.98, 5.0)]
        assert [(p.price, p.size) for p in runner.ex.available_to_lay] == [(3.5, 2.0)]

        await cancel(client, alice, bet)
        flush(client, clock)
        delta = await next_message(ws)
        assert delta["op"] == "mcm" and "ct" not in delta
        listener.on_data(json.dumps(delta))
        (book,) = listener.snap([MARKET])
        runner = next(r for r in book.runners if r.selection_id == 1)
        assert [(p.price, p.size) for p in runner.ex.available_to_back] == [(3.0, 10.0), (2.96, 4.0)]


async def test_an_authentication_or_heartbeat_with_a_key_it_has_not_is_refused(client: TestClient) -> None:
    """As a subscription's unknown key is: ``heartbeatMs`` sent on a heartbeat (it belongs to a subscription)
    did nothing, said nothing. The connection stays open and unauthenticated until a well-formed authentication."""
    token = await login(client, "alice", "pw-alice")
    async with client.ws_connect("/stream") as ws:
        await receive(ws, "connection")
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token, "sesion": token})
        status = await receive(ws, "status")
        assert (status["id"], status["errorCode"], status["errorMessage"], status["connectionClosed"]) == (
            1, "INVALID_INPUT", "authentication: unknown key 'sesion'; allowed: appKey, id, op, session", False)
        await ws.send_json({"op": "orderSubscription", "id": 2})
        assert (await receive(ws, "status"))["errorCode"] == "NOT_AUTHORIZED"  # the refused one authenticated none
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": "heartbeat", "id": 3, "heartbeatMs": 500})
        status = await receive(ws, "status")
        assert (status["id"], status["errorMessage"]) == (3, "heartbeat: unknown key 'heartbeatMs'; allowed: id, op")
        await ws.send_json({"op": "heartbeat", "id": 4})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"


async def test_a_message_that_is_no_request_is_refused_saying_why(client: TestClient) -> None:
    """Text with half a surrogate pair, nesting past what is read, an id past 64 bits, a message past 64 KiB:
    each refused ``INVALID_INPUT`` in words (they were "not JSON", taken, and a bare 1009 close)."""
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        refusals = [
            ('{"op": "heartbeat", "id": 1, "x": "a\\udc00"}', "the message holds text that is not Unicode: 'a\\udc00'"),
            ("[" * 30_000 + "]" * 30_000, "the message is nested too deeply to be read"),
            (f'{{"op": "heartbeat", "id": {2**70}}}', "id must be an integer of 64 bits"),
            ('{"op": "heartbeat", "id": NaN}', "the message is not JSON: NaN is not a JSON number"),
            ('{"op": "heartbeat", "id": 1, "id": 2}', "the message is ambiguous: one object gives the key 'id' twice"),
        ]
        for text, says in refusals:
            await ws.send_str(text)
            status = await receive(ws, "status")
            assert status["errorCode"] == "INVALID_INPUT" and status["errorMessage"].startswith(says), status
            assert status["connectionClosed"] is False
        # a whole pair is a character: taken, where a subscription takes text
        await ws.send_str('{"op": "orderSubscription", "id": 7, "orderFilter": {"customerStrategyRefs": '
                          '["\\ud83d\\ude00"]}}')
        status = await receive(ws, "status")
        assert (status["id"], status["statusCode"]) == (7, "SUCCESS"), status
        await ws.send_str('{"op": "heartbeat", "x": "' + "x" * 70_000 + '"}')
        status = await receive(ws, "status")
        assert (status["errorCode"], status["errorMessage"], status["connectionClosed"]) == (
            "INVALID_INPUT", "a message is at most 65536 bytes", True)


async def test_a_query_on_the_stream_is_refused_the_token_goes_in_the_authentication(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    response = await client.get(f"/stream?session={token}")
    assert response.status == 400
    assert await response.json() == {
        "error": "INVALID_INPUT_DATA",
        "details": "unknown query parameters ['session']; the stream takes none: send the authentication message"}
