"""A TLS stream tls_client that vanishes without closing is noticed by the system within about a minute.

Waiting out a real vanished peer is not a test (it takes the minute), so this checks what makes it happen:
each accepted connection carries keepalive probes and a limit on unacknowledged data (``TCP_USER_TIMEOUT``),
read back from the server's own socket of a live connection.
"""

from __future__ import annotations

import socket

from aiohttp.test_utils import TestClient

from exchange.server import keys
from exchange.server.stream_socket import VANISHED_AFTER_S, SocketTransport
from tests.server.helpers import until
from tests.server.test_stream_socket import Lines


async def test_an_accepted_connection_is_watched_for_a_vanished_peer(tls_client: TestClient) -> None:
    hub = tls_client.app[keys.HUB]
    lines = await Lines.open(tls_client.app[keys.STREAM_PORT])
    await until(lambda: bool(hub.connections), "the connection is registered once its handshake is done")
    (conn,) = hub.connections
    assert isinstance(conn.transport, SocketTransport)
    sock = conn.transport.writer.get_extra_info("socket")
    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == VANISHED_AFTER_S * 1000
    idle, interval, count = (sock.getsockopt(socket.IPPROTO_TCP, getattr(socket, name))
                             for name in ("TCP_KEEPIDLE", "TCP_KEEPINTVL", "TCP_KEEPCNT"))
    assert idle + interval * count <= VANISHED_AFTER_S  # an idle peer is given up on within the same minute
    await lines.close()
