"""A market that closed before any stream client followed it stays out of the other subscribers' streams when
one client subscribes to it by id."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from tests.server.helpers import HEARTBEAT_MS, PLAYING_MS, START_MS, WINDOW_MS
from tests.server.test_stream import authenticated, next_message, receive

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
