"""A real ``python -m exchange.cli serve`` process on 127.0.0.1, for the tests that need one; every wait is bounded.

One class serves every such test: the crash and restart tests (``kill()`` and
``start()`` again on the same database and port), the fail-stop tests (the
journal writer among ``children()``, the exit code from ``wait()``), the
snapshot tests (the log of each start through ``log()``) and the warm-up test
(a cold cache through ``env``, a long ``start_timeout_s``). Usage::

    with ServerProcess(db, "--demo", window_s=1) as server:
        requests.get(f"{server.url}/games/v1/channels", timeout=5)
        assert "recovery:" in server.log()

Each start writes the server's stdout and stderr to two new files beside the
database (``serve-PORT.N.out`` and ``.err``), so a restart keeps the first
run's log and a test reads what its server said after the fact. Python's
logging goes to stderr: that is what ``log()`` returns.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import requests

from tests.processes import alive
from tests.server.helpers import free_port, wait_until

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 30.0  # a warm engine cache: the server listens within a few seconds
#: A cold one (a fresh machine whose first server test runs before any test has used the engine): the server says so
#: and builds the tables and kernels before it listens: 20 s on a quiet machine, a minute or more on a loaded one.
COLD_START_TIMEOUT_S = 200.0  # (under the suite's 300 s a test)
COLD_START = "first run: "  # building its tables and compiling its kernels, or the kernels alone
STOP_TIMEOUT_S = 20.0  # SIGINT to exit: the server stops its games, syncs the journal and ends its children
KILL_TIMEOUT_S = 10.0
PORT_TRIES = 3  # starts on a port of its own choosing, each taken by another process before the server bound it
ADDRESS_IN_USE = "address already in use"  # what the server says then, in its one line of error


def cli(*args: str, timeout: float = 60, check: bool = False,
        max_file_bytes: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m exchange.cli ARGS`` to its end (at most ``timeout`` seconds), its output captured as text.

    ``max_file_bytes``: no file it writes may grow past that size (``RLIMIT_FSIZE``; Python ignores ``SIGXFSZ``,
    so a write past it fails as one on a full disk would), for it and the processes it starts.
    """
    def limit_files() -> None:
        if max_file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    return subprocess.run([sys.executable, "-m", "exchange.cli", *args], capture_output=True, text=True,
                          timeout=timeout, check=check, cwd=REPO, preexec_fn=limit_files)


def listening(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself holds a socket listening on TCP ``port`` (any address): what answers on the
    port is then that process, not another that took the port first (``free_port`` only finds one free *now*)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except FileNotFoundError:
        return False
    sockets = set()
    for fd in fds:
        try:
            target = os.readlink(fd)
        except FileNotFoundError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            sockets.add(target[len("socket:["):-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError), open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()  # sl, local address:port (hex), remote, state (0A: LISTEN), ..., inode
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A" and fields[9] in sockets:
                    return True
    return False


def gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie waiting to be reaped has)."""
    return not alive(pid)


class ServerProcess:
    """``serve --db DB --port PORT`` on 127.0.0.1 with the given times, seed, house and ``extra`` options.

    The defaults suit a test that trades by hand: 30 s betting windows (time to
    place orders in one), 0.5 s between them, seed 7 and no house. ``extra``
    comes last on the command line, so it may add any other option. Nothing
    runs until ``start()`` (or ``with``); ``start()`` may be called again after
    ``kill()`` or ``stop()`` to restart on the same database and port.
    """

    def __init__(self, db: Path, *extra: str, port: int | None = None, window_s: float = 30,
                 playing_s: float = 0.5, seed: int = 7, house: bool = False, stream: bool = False,
                 start_timeout_s: float = START_TIMEOUT_S, env: Mapping[str, str] | None = None) -> None:
        self.db = db
        self.chose_port = port is None  # then a port another process took first is given up for a free one
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        #: With ``stream``, the stream's TLS port (``--stream-port``), chosen and given up the same way.
        self.stream_port = free_port() if stream else None
        self.argv = [sys.executable, "-m", "exchange.cli", "serve", "--db", str(db), "--port", str(self.port),
                     "--window-seconds", str(window_s), "--playing-seconds", str(playing_s), "--seed", str(seed),
                     *([] if house else ["--no-house"]),
                     *([] if self.stream_port is None else ["--stream-port", str(self.stream_port)]), *extra]
        self.start_timeout_s = start_timeout_s
        self.env = {**os.environ, **env} if env is not None else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs: list[tuple[Path, Path]] = []  # each start's (stdout, stderr) files, oldest first

    def start(self) -> ServerProcess:
        """Start the server and return once it has a game on its table (its own: it listens on the port).

        Raises ``AssertionError`` with the end of its log if it exits first, or
        if it is not dealing within ``start_timeout_s`` (it is killed then). If
        it could not listen because another process took the port it was given
        by :func:`free_port` (not one the test chose), it starts again on
        others (``port``, ``url`` and ``stream_port`` change).
        """
        for _ in range(PORT_TRIES - 1):
            try:
                return self._start_once()
            except AssertionError:
                if not (self.chose_port and ADDRESS_IN_USE in self.log().lower()):
                    raise
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.argv[self.argv.index("--port") + 1] = str(self.port)
            if self.stream_port is not None:
                self.stream_port = free_port()
                self.argv[self.argv.index("--stream-port") + 1] = str(self.stream_port)
        return self._start_once()

    def _start_once(self) -> ServerProcess:
        n = len(self.runs)
        while self.db.with_name(f"serve-{self.port}.{n}.err").exists():  # another server's files, same port
            n += 1
        out, err = self.db.with_name(f"serve-{self.port}.{n}.out"), self.db.with_name(f"serve-{self.port}.{n}.err")
        self.runs.append((out, err))
        with out.open("wb") as out_file, err.open("wb") as err_file:
            self.proc = subprocess.Popen(self.argv, stdout=out_file, stderr=err_file, env=self.env, cwd=REPO)
        try:
            wait_until(lambda: self._dealing() or COLD_START in self.log(), timeout_s=self.start_timeout_s,
                       what=f"the server on {self.url} dealing", poll_s=0.1)
            if not self._dealing():  # building the engine's cache first
                wait_until(self._dealing, timeout_s=max(self.start_timeout_s, COLD_START_TIMEOUT_S),
                           what=f"the server on {self.url} dealing once its engine cache is built", poll_s=0.1)
        except AssertionError as exc:
            self.kill()
            raise AssertionError(f"{exc}; its log ends: {self.log()[-3000:]}") from None
        return self

    def _dealing(self) -> bool:
        """Whether the server answers with a game on its table; raises if it has exited. Only once it listens on
        the port itself: until then another process may answer there (one that took the port first)."""
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited with {self.proc.returncode}; its log ends: {self.log()[-3000:]}")
        return listening(self.proc.pid, self.port) and bool(self.game(timeout_s=1))

    def game(self, timeout_s: float = 5) -> dict[str, Any] | None:
        """The Hold'em channel's game as its snapshot shows it now; None if there is none, or the server is slow to
        say (ask again)."""
        try:
            game: dict[str, Any] | None = requests.get(f"{self.url}/games/v1/channels/holdem/snapshot",
                                                       timeout=timeout_s).json().get("game")
        except requests.RequestException:
            return None
        return game

    def game_in_early_window(self, gone_below_pct: int = 25) -> dict[str, Any] | None:
        """The game if its betting window is open and less than ``gone_below_pct`` % of it has gone (seconds in
        which an order is sure to be accepted), else None: a condition for :func:`wait_until`, which returns it."""
        game = self.game()
        if game and game["bettingOpen"] and game["bettingWindowPercentageComplete"] < gone_below_pct:
            return game
        return None

    @property
    def out(self) -> Path:
        """The file the latest start's stdout goes to."""
        return self.runs[-1][0]

    @property
    def err(self) -> Path:
        """The file the latest start's stderr (its log) goes to."""
        return self.runs[-1][1]

    def log(self) -> str:
        """What the latest start has logged so far (its stderr)."""
        return self.err.read_text()

    @property
    def pid(self) -> int:
        assert self.proc is not None, "the server was never started"
        return self.proc.pid

    def children(self) -> list[int]:
        """The server's child processes (the journal writer among them); none once it has been reaped."""
        try:
            return [int(pid) for pid in Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()]
        except FileNotFoundError:
            return []

    def wait(self, timeout_s: float = KILL_TIMEOUT_S) -> int:
        """The server's exit code once it exits by itself; ``subprocess.TimeoutExpired`` after ``timeout_s``."""
        assert self.proc is not None, "the server was never started"
        return self.proc.wait(timeout=timeout_s)

    def kill(self) -> None:
        """SIGKILL the server, as a crash would, and reap it; its children are left to notice by themselves."""
        assert self.proc is not None, "the server was never started"
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=KILL_TIMEOUT_S)

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """SIGINT, as Ctrl-C would, and wait up to ``timeout_s`` for a clean exit; SIGKILL if it does not come.

        Does nothing if the server is not running: a fixture may call it after a
        test that stopped or killed the server itself.
        """
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self) -> ServerProcess:
        """Start the server unless it is running already."""
        return self if self.proc is not None and self.proc.poll() is None else self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
