"""How many stream connections a client may hold: ten per account, as Betfair's ``connectionsAvailable`` says.

Betfair tells each authentication how many more connections the account may open
(``connectionsAvailable``) and refuses one past the limit with ``MAX_CONNECTION_LIMIT_EXCEEDED``, closing it.
The server's limit is :data:`exchange.server.stream.MAX_CONNECTIONS_PER_ACCOUNT`; a connection that closes
frees its place.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from aiohttp.test_utils import TestClient

from exchange.server import keys
from exchange.server.stream_connection import MAX_CONNECTIONS_PER_ACCOUNT
from tests.server.helpers import APP_KEY, StreamServer, login, until
from tests.server.test_stream_socket import Lines


@pytest.fixture
async def client(stream_server: StreamServer) -> TestClient:
    return await stream_server()


async def _authenticated(client: TestClient, token: str) -> tuple[Lines, dict[str, object]]:
    lines = await Lines.open(client.app[keys.STREAM_PORT])
    assert json.loads(await lines.line())["op"] == "connection"
    await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
    return lines, await lines.receive("status")


async def test_an_account_may_hold_ten_connections_and_is_told_how_many_are_left(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    held = []
    for n in range(1, MAX_CONNECTIONS_PER_ACCOUNT + 1):
        lines, status = await _authenticated(client, alice)
        assert status["statusCode"] == "SUCCESS" and status["connectionsAvailable"] == MAX_CONNECTIONS_PER_ACCOUNT - n
        held.append(lines)
    extra, refused = await _authenticated(client, await login(client, "alice", "pw-alice"))  # another session too
    assert refused["statusCode"] == "FAILURE" and refused["errorCode"] == "MAX_CONNECTION_LIMIT_EXCEEDED"
    assert refused["connectionClosed"] is True and str(MAX_CONNECTIONS_PER_ACCOUNT) in str(refused["errorMessage"])
    assert await asyncio.wait_for(extra.reader.read(), 3) == b""
    other, status = await _authenticated(client, await login(client, "bob", "pw-bob"))  # another account is not held
    assert status["statusCode"] == "SUCCESS" and status["connectionsAvailable"] == MAX_CONNECTIONS_PER_ACCOUNT - 1
    await held.pop().close()
    await _hub_holds(client, MAX_CONNECTIONS_PER_ACCOUNT)  # nine of alice's and bob's one
    again, status = await _authenticated(client, alice)  # a place freed
    assert status["statusCode"] == "SUCCESS" and status["connectionsAvailable"] == 0
    for lines in [*held, other, again]:
        await lines.close()


async def _hub_holds(client: TestClient, count: int) -> None:
    """Wait (at most 3 s) until the hub has noticed closed connections go and holds ``count``."""
    hub = client.app[keys.HUB]
    await until(lambda: len(hub.connections) == count, f"the hub holds {count} connections", timeout_s=3)


@pytest.fixture
async def small(stream_server: StreamServer) -> TestClient:
    """A server whose stream port takes three connections at once (``max_connections``)."""
    return await stream_server(max_connections=3)


async def test_the_stream_port_takes_at_most_max_connections_whoever_opens_them(small: TestClient) -> None:
    port = small.app[keys.STREAM_PORT]
    held = [await Lines.open(port) for _ in range(3)]
    for lines in held:
        assert json.loads(await lines.line())["op"] == "connection"
    refused_lines = await Lines.open(port)
    refused = json.loads(await refused_lines.line())
    assert refused["op"] == "status" and refused["errorCode"] == "MAX_CONNECTION_LIMIT_EXCEEDED"
    assert refused["connectionClosed"] is True and "try again" in refused["errorMessage"]
    assert await asyncio.wait_for(refused_lines.reader.read(), 3) == b""
    assert len(small.app[keys.HUB].connections) == 3  # the refused one never reached the hub
    await held.pop().close()
    await _hub_holds(small, 2)
    again = await Lines.open(port)
    assert json.loads(await again.line())["op"] == "connection"
    for lines in [*held, again]:
        await lines.close()


async def test_a_client_dropped_for_reading_too_slowly_frees_its_place_on_the_stream_port(small: TestClient) -> None:
    port, hub = small.app[keys.STREAM_PORT], small.app[keys.HUB]
    held = [await Lines.open(port) for _ in range(3)]
    for lines in held:
        assert json.loads(await lines.line())["op"] == "connection"
    await until(lambda: len(hub.connections) == 3, "the hub holds the three connections", timeout_s=3)
    slow = next(iter(hub.connections))
    slow.outbox.abort()  # what put() does to a client too far behind
    await _hub_holds(small, 2)
    again = await Lines.open(port)
    assert json.loads(await again.line())["op"] == "connection"  # not MAX_CONNECTION_LIMIT_EXCEEDED
    for lines in [*held, again]:
        await lines.close()


@pytest.fixture
async def hasty(stream_server: StreamServer) -> TestClient:
    """A server whose stream port gives a connection 0.3 s to finish its TLS handshake (``header_timeout_ms``)."""
    return await stream_server(header_timeout_ms=300)


async def test_a_connection_that_never_finishes_its_tls_handshake_is_closed(hasty: TestClient) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", hasty.app[keys.STREAM_PORT])  # TCP, then silence
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server (60 s on main), well within 5 s
    writer.close()
