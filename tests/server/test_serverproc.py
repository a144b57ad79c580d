"""The test servers' own harness: a ``ServerProcess`` talks to its own server, never to another process that took
its port first (``free_port`` finds a port free only at the moment it asks)."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

import tests.server.serverproc as serverproc
from tests.server.helpers import free_port
from tests.server.serverproc import ServerProcess


class _Impostor(http.server.BaseHTTPRequestHandler):
    """Answers every request as a dealing server would, with a game that is not the server's."""

    def do_GET(self) -> None:
        body = json.dumps({"game": {"id": "impostor.0"}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another process (here a thread's HTTP server) listens on, answering as a dealing server."""
    impostor = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Impostor)
    thread = threading.Thread(target=impostor.serve_forever, daemon=True)
    thread.start()
    yield int(impostor.server_address[1])
    impostor.shutdown()
    impostor.server_close()
    thread.join(5)


@pytest.mark.parametrize("which", ["http", "stream"])
def test_a_port_taken_before_the_server_binds_it_is_given_up_for_another(
        tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch, which: str) -> None:
    # the HTTP port, or the stream's, that the harness picks first is taken by the time the server binds it
    ports = iter([taken_port] if which == "http" else [free_port(), taken_port])
    monkeypatch.setattr(serverproc, "free_port", lambda: next(ports, None) or free_port())
    with ServerProcess(tmp_path / "ex.db", stream=True) as server:
        assert taken_port not in (server.port, server.stream_port)
        game = requests.get(f"{server.url}/games/v1/channels/holdem/snapshot", timeout=5).json()["game"]
        assert game["id"] == "holdem.0"
        assert f"TLS on port {server.stream_port}" in server.out.read_text()
    assert "address already in use" in server.runs[0][1].read_text().lower()
