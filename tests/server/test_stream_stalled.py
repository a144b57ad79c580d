"""A stream tls_client that stops reading holds up nobody else, and is dropped once it is too far behind.

The stalled tls_client is a TLS connection that reads nothing, with the smallest socket buffers on both
sides, asking for one subscription image after another; a healthy tls_client subscribed beside it must
go on receiving its changes, and a new tls_client must still get its image. The server runs on the test's
clock on 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl

from aiohttp.test_utils import TestClient

from exchange.server import keys
from exchange.server.stream_connection import StreamConnection
from exchange.server.stream_socket import SocketTransport
from tests.server.helpers import APP_KEY, login, place, rpc, until, virtual_clock
from tests.server.test_stream_socket import Lines

MARKET = "holdem.0"
SUBSCRIPTIONS = 3000  # each answered with a status and an image: megabytes, more than the socket buffers hold


async def _subscribed(tls_client: TestClient, token: str, request_id: int) -> Lines:
    lines = await Lines.open(tls_client.app[keys.STREAM_PORT])
    await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
    await lines.send({"op": "marketSubscription", "id": request_id, "marketFilter": {"marketIds": [MARKET]}})
    assert (await lines.receive("mcm", "SUB_IMAGE"))["id"] == request_id
    return lines


async def _stall(tls_client: TestClient, token: str) -> tuple[socket.socket, StreamConnection]:
    """A connection that asks for image after image and reads none, with its buffers at the smallest."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    raw.setblocking(False)
    hub = tls_client.app[keys.HUB]
    before = set(hub.connections)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    reader, writer = await asyncio.open_connection(sock=_connected(raw, tls_client.app[keys.STREAM_PORT]), ssl=context,
                                                   server_hostname="localhost")
    await until(lambda: len(hub.connections) > len(before), "the stalled tls_client is connected")
    conn = next(iter(hub.connections - before))
    assert isinstance(conn.transport, SocketTransport)
    server_socket = conn.transport.writer.get_extra_info("socket")
    server_socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
    lines = [{"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token}]
    lines += [{"op": "marketSubscription", "id": i, "marketFilter": {}} for i in range(2, SUBSCRIPTIONS + 2)]
    writer.write(b"".join(json.dumps(line).encode() + b"\r\n" for line in lines))
    await writer.drain()
    del reader  # never read
    return raw, conn


def _connected(raw: socket.socket, port: int) -> socket.socket:
    raw.setblocking(True)
    raw.connect(("127.0.0.1", port))
    raw.setblocking(False)
    return raw


async def test_a_client_that_stops_reading_holds_up_nobody_else(tls_client: TestClient) -> None:
    clock = virtual_clock(tls_client)
    alice, bob = await login(tls_client, "alice", "pw-alice"), await login(tls_client, "bob", "pw-bob")
    tls_client.app[keys.HUB].max_queued_bytes = 1 << 26  # room for every image: the stalled tls_client is never dropped
    tls_client.app[keys.HUB].gate = None  # and its 3,000 subscriptions never paced (the clock here stands still)
    healthy = await _subscribed(tls_client, alice, 1)
    raw, stalled = await _stall(tls_client, bob)
    await until(lambda: stalled.market_sub is not None and stalled.market_sub.id == SUBSCRIPTIONS + 1,
                 "the hub handles every request of the stalled tls_client",
                 timeout_s=60)  # 3,000 images: about 1 s on a quiet host, over 10 s on a loaded one
    await rpc(tls_client, alice, "placeOrders", place(MARKET, 2, "LAY", 3.0, 10))
    clock.advance(tls_client.app[keys.HUB].conflate_ms)
    delta = await healthy.receive("mcm")
    assert delta["mc"][0]["id"] == MARKET and "ct" not in delta  # the change, not a heartbeat
    newcomer = await _subscribed(tls_client, alice, 7)  # and a new subscriber still gets its image
    for lines in (healthy, newcomer):
        await lines.close()
    raw.close()


async def test_a_client_too_far_behind_is_dropped(tls_client: TestClient) -> None:
    tls_client.app[keys.HUB].max_queued_bytes = 20_000  # a few dozen images
    raw, stalled = await _stall(tls_client, await login(tls_client, "bob", "pw-bob"))
    await until(lambda: stalled not in tls_client.app[keys.HUB].connections, "the stalled tls_client is dropped")
    assert stalled.closed and stalled.outbox.gone
    raw.close()
