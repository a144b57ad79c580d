"""``serve --header-timeout`` and ``--body-timeout`` as a real server process applies them.

The in-process tests (``test_failsafe_connections``) drive the guard on a virtual clock; this one checks that the
options reach it in a real ``serve``, on the real (monotonic) clock: a half-sent head is cut off, and a body that
does not come is answered 408. Each wait is the server's own deadline, met within a bound, not a sleep.
"""

from __future__ import annotations

import socket
from pathlib import Path

from tests.server.serverproc import ServerProcess

READ_BOUND_S = 30.0  # far beyond the deadlines: only a server that never cuts the connection fails
#: The head's deadline: a whole head sent at once must beat it even when the test is held up between connecting
#: and sending on a loaded machine (it would be cut off then, with nothing answered, where a 408 is looked for).
HEADER_S = "2"


def _send_and_read(port: int, data: bytes) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=READ_BOUND_S) as conn:
        conn.sendall(data)
        got = b""
        while chunk := conn.recv(65536):
            got += chunk
        return got


def test_a_served_head_or_body_that_does_not_arrive_is_cut_off_at_its_deadline(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "ex.db", "--header-timeout", HEADER_S, "--body-timeout", "0.3") as server:
        half_head = b"GET /games/v1/channels HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        assert _send_and_read(server.port, half_head) == b""  # closed, nothing answered
        no_body = (b"POST /exchange/betting/json-rpc/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        answer = _send_and_read(server.port, no_body)
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b'"REQUEST_TIMEOUT"' in answer
