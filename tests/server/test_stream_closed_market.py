"""A market that closed before any stream client followed it (or while none was connected) stays out of the other
subscribers' streams when one client subscribes to it by id; one that a client follows is shown ``CLOSED`` to it,
even when the exchange forgets it before the stream's next message."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from exchange.betfair.stream import iso_ms
from exchange.clock import VirtualClock
from exchange.core.commands import SettleMarket
from exchange.server import keys
from tests.server.helpers import (
    HEARTBEAT_MS,
    PLAYING_MS,
    START_MS,
    WINDOW_MS,
    StreamServer,
    close_and_forget,
    virtual_clock,
)
from tests.server.test_stream import MARKET, authenticated, flush, next_message, receive

GAME_0_SETTLED = START_MS + 4 * (WINDOW_MS + PLAYING_MS)


async def test_subscribing_to_a_closed_market_by_id_sends_it_to_no_one_else(client: TestClient,
                                                                           clock: VirtualClock) -> None:
    clock.run(until_ms=GAME_0_SETTLED + 10)  # holdem.0 has closed with no stream client connected
    async with client.ws_connect("/stream") as everything, client.ws_connect("/stream") as one:
        await authenticated(client, everything)
        await everything.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {}})
        assert (await receive(everything, "status"))["statusCode"] == "SUCCESS"
        image = await receive(everything, "mcm", ct="SUB_IMAGE")
        assert [mc["id"] for mc in image["mc"]] == ["holdem.1"]  # the open markets only

        await authenticated(client, one, "bob")
        await one.send_json({"op": "marketSubscription", "id": 3, "marketFilter": {"marketIds": ["holdem.0"]}})
        assert (await receive(one, "status"))["statusCode"] == "SUCCESS"
        closed = await receive(one, "mcm", ct="SUB_IMAGE")
        assert [(mc["id"], mc["marketDefinition"]["status"]) for mc in closed["mc"]] == [("holdem.0", "CLOSED")]

        clock.advance(HEARTBEAT_MS)  # nothing changed for the first client: its next message is a heartbeat
        assert (await next_message(everything)).get("ct") == "HEARTBEAT"


async def test_a_closed_markets_settled_time_is_when_it_closed_whenever_it_is_imaged(client: TestClient,
                                                                                      clock: VirtualClock) -> None:
    closed_ms = client.app[keys.SERVICE].exchange.markets["holdem.0"].settled_ts
    assert closed_ms is None
    clock.run(until_ms=GAME_0_SETTLED + 10)
    closed_ms = client.app[keys.SERVICE].exchange.markets["holdem.0"].settled_ts
    assert closed_ms is not None and closed_ms < GAME_0_SETTLED
    clock.advance(60_000)  # a minute later a client subscribes to it
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": ["holdem.0"]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        (mc,) = (await receive(ws, "mcm", ct="SUB_IMAGE"))["mc"]
    assert mc["marketDefinition"]["settledTime"] == iso_ms(closed_ms)


async def test_a_followed_market_forgotten_before_the_flush_is_still_shown_closed(stream_server: StreamServer) -> None:
    client = await stream_server(keep_closed_markets=1, run_games=True)
    clock = virtual_clock(client)
    clock.advance(0)  # holdem.0 is dealt: its Deal window is open
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
        assert [mc["id"] for mc in image["mc"]] == [MARKET]
        close_and_forget(client.app[keys.SERVICE], MARKET, clock.now())
        flush(client, clock)
        changes = (await receive(ws, "mcm"))["mc"]
    status = {mc["id"]: mc["marketDefinition"]["status"] for mc in changes if "marketDefinition" in mc}
    assert status[MARKET] == "CLOSED"


async def test_a_followed_market_forgotten_as_it_closes_is_still_shown_closed(stream_server: StreamServer) -> None:
    """Keeping no closed market, the exchange forgets a market in the step that closes it: its market
    subscribers still see it ``CLOSED``, with its winner."""
    client = await stream_server(keep_closed_markets=0, run_games=True)
    clock = virtual_clock(client)
    clock.advance(0)
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        await receive(ws, "mcm", ct="SUB_IMAGE")
        service = client.app[keys.SERVICE]
        service.execute(SettleMarket(clock.now(), MARKET, (1,)))
        assert service.exchange.market_status(MARKET) is None
        flush(client, clock)
        (change,) = (await receive(ws, "mcm"))["mc"]
    definition = change["marketDefinition"]
    assert definition["status"] == "CLOSED"
    assert {r["id"]: r["status"] for r in definition["runners"]}[1] == "WINNER"



async def test_a_market_followed_then_closed_while_no_client_was_connected_is_news_to_nobody(
    client: TestClient, clock: VirtualClock
) -> None:
    """As above, for a market a client had followed before it closed: the recorder left as that client last saw
    it was diffed at the by-id subscription, and the delta (its close, its ladder emptied) went to the other
    subscriber, which had never been shown the market."""
    async with client.ws_connect("/stream") as ws:  # a client follows holdem.0 for a while, then goes
        await authenticated(client, ws)
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {}})
        assert [mc["id"] for mc in (await receive(ws, "mcm", ct="SUB_IMAGE"))["mc"]] == ["holdem.0"]
    clock.run(until_ms=GAME_0_SETTLED + 10)  # holdem.0 closes with no stream client connected
    async with client.ws_connect("/stream") as everything, client.ws_connect("/stream") as one:
        await authenticated(client, everything)
        await everything.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {}})
        image = await receive(everything, "mcm", ct="SUB_IMAGE")
        assert [mc["id"] for mc in image["mc"]] == ["holdem.1"]
        await authenticated(client, one, "bob")
        await one.send_json({"op": "marketSubscription", "id": 3, "marketFilter": {"marketIds": ["holdem.0"]}})
        closed = await receive(one, "mcm", ct="SUB_IMAGE")
        assert [(mc["id"], mc["marketDefinition"]["status"]) for mc in closed["mc"]] == [("holdem.0", "CLOSED")]
        clock.advance(HEARTBEAT_MS)  # nothing changed for the first client: its next message is a heartbeat
        assert (await next_message(everything)).get("ct") == "HEARTBEAT"
