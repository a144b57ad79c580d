"""A stream connection that subscribes to nothing is closed after 15 s without a request, as Betfair closes it.

Betfair answers such a connection ``{"op": "status", "statusCode": "FAILURE", "errorCode": "TIMEOUT",
"connectionClosed": true}`` ("not subscribed and idle: 15000 ms"); without that, a client could hold
connections that cost the server a socket each for as long as it liked. A subscribed connection is never
idle (it is sent heartbeats), and every request restarts the count. Time is the server's virtual clock, and
the hub looks at its connections on it (:meth:`StreamHub.check_by`): each outcome is decided as the test moves
the clock, not raced.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.server import keys
from exchange.server.stream import IDLE_TIMEOUT_MS
from tests.server.helpers import APP_KEY, StreamServer, login, virtual_clock
from tests.server.test_stream_socket import Lines


@pytest.fixture
async def client(stream_server: StreamServer) -> TestClient:
    return await stream_server()


def _after(client: TestClient, ms: int) -> None:
    """Move the server's clock ``ms`` on: whatever falls due meanwhile is done before this returns."""
    virtual_clock(client).advance(ms)


async def _open(client: TestClient, token: str | None = None) -> Lines:
    lines = await Lines.open(client.app[keys.STREAM_PORT])
    assert json.loads(await lines.line())["op"] == "connection"
    if token is not None:
        await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
        assert (await lines.receive("status"))["statusCode"] == "SUCCESS"
    return lines


async def _timed_out(lines: Lines) -> dict[str, Any]:
    status = await lines.receive("status")
    assert await asyncio.wait_for(lines.reader.read(), 3) == b""  # and closed by the server
    return status


async def test_a_connection_that_never_authenticates_is_closed_with_timeout(client: TestClient) -> None:
    lines = await _open(client)
    _after(client, IDLE_TIMEOUT_MS - 1)
    await lines.send({"op": "heartbeat", "id": 5})  # still open a millisecond before
    assert (await lines.receive("status"))["id"] == 5
    _after(client, IDLE_TIMEOUT_MS)
    status = await _timed_out(lines)
    assert status["statusCode"] == "FAILURE" and status["errorCode"] == "TIMEOUT"
    assert status["connectionClosed"] is True and "15000 ms" in status["errorMessage"]


async def test_an_authenticated_connection_without_a_subscription_times_out_too(client: TestClient) -> None:
    lines = await _open(client, await login(client, "alice", "pw-alice"))
    _after(client, IDLE_TIMEOUT_MS)
    assert (await _timed_out(lines))["errorCode"] == "TIMEOUT"
    assert not client.app[keys.HUB].connections


async def test_each_request_restarts_the_count(client: TestClient) -> None:
    lines = await _open(client, await login(client, "alice", "pw-alice"))
    for i in range(3):
        _after(client, IDLE_TIMEOUT_MS - 1)
        await lines.send({"op": "heartbeat", "id": 10 + i})
        assert (await lines.receive("status"))["id"] == 10 + i
    await lines.close()


async def test_a_subscribed_connection_is_never_idle(client: TestClient) -> None:
    lines = await _open(client, await login(client, "alice", "pw-alice"))
    await lines.send({"op": "orderSubscription", "id": 2})
    assert (await lines.receive("ocm", "SUB_IMAGE"))["id"] == 2
    _after(client, 2 * IDLE_TIMEOUT_MS)
    assert (await lines.receive("ocm", "HEARTBEAT"))["id"] == 2  # a heartbeat, not a TIMEOUT
    await lines.send({"op": "heartbeat", "id": 3})
    assert (await lines.receive("status"))["statusCode"] == "SUCCESS"
    await lines.close()


async def test_a_websocket_that_subscribes_to_nothing_times_out_the_same(client: TestClient) -> None:
    async with client.ws_connect("/stream") as ws:
        assert (await ws.receive_json(timeout=3))["op"] == "connection"
        _after(client, IDLE_TIMEOUT_MS)
        status = await ws.receive_json(timeout=3)
        assert status["errorCode"] == "TIMEOUT" and status["connectionClosed"] is True
