"""Connections cannot pile up: head and body timeouts, and a connection cap, on a real server process.

The issue: 3,000 connections that each sent half a request stayed open 23 s and
more (file handles 14 → 4,014). Here a bounded number of raw sockets do the
same against a server with short timeouts, on 127.0.0.1, and every wait is
bounded.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.server.serverproc import ServerProcess, cli

HALF_REQUEST = b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Application: raw\r\n"
SOCKETS = 50


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("conn") / "exchange.db"
    assert cli("accounts", "--db", str(db), "add", "alice", "--password", "pw-a").returncode == 0
    with ServerProcess(db, "--header-timeout", "1", "--body-timeout", "1", "--max-connections", "200") as srv:
        yield srv


def _connect(server: ServerProcess) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    return sock


def _closed_by_server(sock: socket.socket, within_s: float) -> tuple[bool, bytes]:
    """Whether the server closes ``sock`` within ``within_s`` seconds, and what it sent before."""
    sock.settimeout(0.2)
    got = b""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return True, got
        if not chunk:
            return True, got
        got += chunk
    return False, got


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _works(server: ServerProcess) -> bool:
    resp = requests.get(f"{server.url}/games/v1/channels/holdem/snapshot", timeout=5)
    return resp.status_code == 200 and resp.json()["game"] is not None


def test_half_requests_are_closed_after_the_header_timeout(server: ServerProcess) -> None:
    baseline = _open_fds(server.pid)
    socks = [_connect(server) for _ in range(SOCKETS)]
    try:
        for sock in socks:
            sock.sendall(HALF_REQUEST)
        time.sleep(0.3)
        assert _open_fds(server.pid) >= baseline + SOCKETS // 2  # the server holds them for now
        assert _works(server)  # and serves others meanwhile
        start = time.monotonic()
        for sock in socks:
            closed, _ = _closed_by_server(sock, within_s=max(0.5, 4 - (time.monotonic() - start)))
            assert closed, "a half request outlived the header timeout"
        assert time.monotonic() - start < 4
    finally:
        for sock in socks:
            sock.close()
    deadline = time.monotonic() + 3
    while _open_fds(server.pid) > baseline + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _open_fds(server.pid) <= baseline + 2
    assert _works(server)


def test_a_head_trickled_a_byte_at_a_time_is_still_cut_off(server: ServerProcess) -> None:
    with _connect(server) as sock:
        sock.settimeout(0.2)
        start = time.monotonic()
        closed = False
        for byte in HALF_REQUEST * 4:  # data keeps coming, but the head never completes in time
            try:
                sock.sendall(bytes([byte]))
                if sock.recv(4096) == b"":
                    closed = True
            except TimeoutError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                closed = True
            if closed or time.monotonic() - start > 5:
                break
        assert closed and time.monotonic() - start < 3


def test_an_idle_connection_is_closed_after_the_header_timeout(server: ServerProcess) -> None:
    with _connect(server) as sock:
        closed, got = _closed_by_server(sock, within_s=4)
        assert closed and got == b""


@pytest.mark.parametrize("path", ["/exchange/betting/json-rpc/v1", "/api/login"])
def test_a_body_that_does_not_arrive_is_a_408_and_the_connection_closes(server: ServerProcess, path: str) -> None:
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Application: raw\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n").encode()
    with _connect(server) as sock:
        sock.sendall(head + b"username=a")  # 10 of the 100 bytes promised
        start = time.monotonic()
        closed, got = _closed_by_server(sock, within_s=8)
        assert got.startswith(b"HTTP/1.1 408 "), got[:200]
        assert b'"REQUEST_TIMEOUT"' in got
        assert closed and time.monotonic() - start < 8
    assert _works(server)


def test_past_the_connection_cap_a_new_connection_gets_503_at_once(tmp_path: Path) -> None:
    held: list[socket.socket] = []
    with ServerProcess(tmp_path / "exchange.db", "--max-connections", "20", "--header-timeout", "10") as capped:
        try:
            held = [_connect(capped) for _ in range(20)]
            time.sleep(0.3)  # the server has accepted them all
            with _connect(capped) as extra:
                closed, got = _closed_by_server(extra, within_s=3)
            assert closed and got.startswith(b"HTTP/1.1 503 "), got[:200]
            assert b"Retry-After: 1" in got and b'"SERVICE_BUSY"' in got
            for sock in held:
                sock.close()
            deadline = time.monotonic() + 5
            ok = False
            while not ok and time.monotonic() < deadline:  # once the server has seen the closes, it takes more
                try:
                    ok = _works(capped)
                except requests.RequestException:
                    time.sleep(0.1)
            assert ok
        finally:
            for sock in held:
                sock.close()
