"""What ``serve`` prints at start-up, and that its standard output is not what it serves: a reader that has gone
(``serve | head -1``) leaves it serving, where it once stopped saying it could not listen ("Broken pipe")."""

from __future__ import annotations

import functools
import json
import re
import signal
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import requests

from tests.server.helpers import free_port, wait_until
from tests.server.serverproc import ADDRESS_IN_USE, PORT_TRIES, REPO, ServerProcess, cli


def _tried(proc: subprocess.Popen[bytes], err: Path) -> bool:
    """Whether ``serve`` has tried its start-up lines on a pipe nobody reads, or has ended."""
    return "reader is gone" in err.read_text() or proc.poll() is not None


def _serve_with_its_reader_gone(tmp_path: Path, err: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``serve`` with its standard output's reader gone before the first line, once it has tried its start-up lines;
    on another port while the one it was given is taken first by another process (``free_port`` finds one free only
    *now*), as :class:`ServerProcess` does."""
    for _ in range(PORT_TRIES):
        port = free_port()
        with err.open("wb") as err_file:
            proc = subprocess.Popen([sys.executable, "-m", "exchange.cli", "serve", "--db", str(tmp_path / "ex.db"),
                                     "--port", str(port), "--no-house"], stdout=subprocess.PIPE, stderr=err_file,
                                    cwd=REPO)
        assert proc.stdout is not None
        proc.stdout.close()  # the reader gone before the first line: every write to the pipe fails
        wait_until(functools.partial(_tried, proc, err), timeout_s=60, what="the start-up lines tried")
        if proc.poll() is None or ADDRESS_IN_USE not in err.read_text().lower():
            return proc, port
        proc.wait(timeout=10)
    raise AssertionError(f"every port given was taken first: {err.read_text()[-2000:]}")


def test_serve_goes_on_serving_when_the_reader_of_its_output_has_gone(tmp_path: Path) -> None:
    err = tmp_path / "serve.err"
    proc, port = _serve_with_its_reader_gone(tmp_path, err)
    try:
        assert proc.poll() is None, err.read_text()[-2000:]
        answer = requests.get(f"http://127.0.0.1:{port}/games/v1/channels", timeout=5)
        assert answer.status_code == 200 and answer.json()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    log = err.read_text()
    assert "WARNING exchange.cli.serve: standard output's reader is gone: serving on" in log
    assert "cannot listen" not in log and "Traceback" not in log
    # the last word, once all is done
    assert log.rstrip().endswith("INFO exchange.cli.serve: stopped on SIGINT"), log[-1000:]


def test_demo_on_an_account_with_another_password_shows_no_login_with_the_demo_password(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    assert cli("accounts", "--db", str(db), "add", "demo", "--password", "mine").returncode == 0
    with ServerProcess(db, "--demo") as server:
        wait_until(lambda: "OpenAPI:" in server.out.read_text(), timeout_s=30, what="the start-up lines")
        said = server.out.read_text()
    assert "account 'demo' exists with another password (--demo left it as it was)" in said
    assert "password=demo" not in said and "login:" not in said


def test_stream_port_0_takes_a_free_port_and_names_it(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "ex.db", "--stream-port", "0") as server:
        wait_until(lambda: "OpenAPI:" in server.out.read_text(), timeout_s=30, what="the start-up lines")
        found = re.search(r"stream:   TLS on port (\d+) ", server.out.read_text())
        assert found and int(found[1]) > 0, server.out.read_text()
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # self-signed, as betfairlightweight
        with socket.create_connection(("127.0.0.1", int(found[1])), timeout=10) as raw, \
                context.wrap_socket(raw) as tls:
            first = tls.makefile("rb").readline()
    assert json.loads(first)["op"] == "connection" and first.endswith(b"\r\n")
