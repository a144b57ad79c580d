"""A stream connection the journal's failure closes is told SERVICE_UNAVAILABLE, whatever else falls due."""

from __future__ import annotations

import json

from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import APP_KEY, HEARTBEAT_MS, login


async def test_a_failed_journal_is_said_not_an_idle_timeout(client: TestClient, clock: VirtualClock) -> None:
    """The journal's failure forgets a connection's subscriptions at once and tells it a loop turn later: a look at
    the connections that comes between must not take the quiet subscriber for an idle connection (TIMEOUT)."""
    token = await login(client, "alice", "pw-alice")
    async with client.ws_connect("/stream") as ws:
        await ws.receive_json(timeout=3)
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
        assert (await ws.receive_json(timeout=3))["statusCode"] == "SUCCESS"
        await ws.send_json({"op": "orderSubscription", "id": 2, "heartbeatMs": HEARTBEAT_MS})
        assert (await ws.receive_json(timeout=3))["op"] == "status"
        assert (await ws.receive_json(timeout=3))["ct"] == "SUB_IMAGE"
        clock.advance(20_000)  # a quiet subscriber: heartbeats, no request for 20 s
        client.app[keys.SERVICE]._journal_failed("disk gone")
        clock.advance(HEARTBEAT_MS)  # the look already planned runs before the loop turns
        statuses = []
        while (msg := await ws.receive(timeout=3)).type is WSMsgType.TEXT:
            if (message := json.loads(msg.data))["op"] == "status":
                statuses.append(message["errorCode"])
    assert statuses == ["SERVICE_UNAVAILABLE"]
