"""A real ``exchange-poker serve`` process on 127.0.0.1 for the fail-safe tests; every wait is bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.server.helpers import free_port

START_TIMEOUT_S = 30


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "exchange.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


class ServerProcess:
    """``serve --db DB --port PORT`` with short windows, no house and ``extra`` options; stdout and stderr to files."""

    def __init__(self, db: Path, *extra: str, port: int | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.extra = extra
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.out = db.parent / f"serve-{self.port}.out"
        self.err = db.parent / f"serve-{self.port}.err"

    def start(self) -> ServerProcess:
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "exchange.cli", "serve", "--db", str(self.db), "--port", str(self.port),
                 "--window-seconds", "30", "--playing-seconds", "0.5", "--seed", "7", "--no-house", *self.extra],
                stdout=out, stderr=err)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: {self.err.read_text()}")
            try:
                if requests.get(f"{self.url}/games/v1/channels/holdem/snapshot", timeout=1).json().get("game"):
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not start within {START_TIMEOUT_S} s: {self.err.read_text()}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
