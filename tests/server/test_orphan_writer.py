"""A killed server's journal writer may still commit the batch it was handed: the next server waits for it.

The writer ends when its input ends, so once its server is killed (SIGKILL) it commits what it had read and
exits. Before, the lock the next server takes died with the killed server: the next one could open the
journal, number its records from its end, and then see the old writer commit records under those numbers,
failing its own first commit on a UNIQUE constraint (fail-stop, exit 3). The writer now holds the lock's
descriptor too, so the lock is free only when it has ended; the next start waits for it, and kills it (the
lock file names it) if it does not end in time. Real processes throughout; every wait is bounded.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from exchange.server.dblock import DatabaseInUse, DatabaseLock
from tests.server.helpers import place, wait_until
from tests.server.serverproc import REPO, ServerProcess, gone
from tests.server.test_failstop import BOUND_S, Api, db, servers  # noqa: F401 (fixtures)

# A "server": takes the lock, starts a child holding the lock's descriptor that waits for a byte on the pipe it is
# given (argv[2]), names it in the lock file unless argv[3] says not to, prints the child's pid, and waits.
_SERVER = """
import subprocess, sys
from exchange.server.dblock import DatabaseLock
lock = DatabaseLock.acquire(sys.argv[1])
wait = int(sys.argv[2])
child = subprocess.Popen([sys.executable, "-c", "import os, sys; os.read(int(sys.argv[1]), 1)", str(wait)],
                         pass_fds=(lock.fd, wait), start_new_session=True)
if sys.argv[3] == "named":
    lock.note_child(child.pid)
print(child.pid, flush=True)
sys.stdin.read()
"""


@pytest.fixture
def orphan(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, int, int]]:
    """The database, the pid of the child a killed server left holding its lock, and the pipe that ends it."""
    db_path = str(tmp_path / "ex.db")
    wait_read, wait_write = os.pipe()
    named = getattr(request, "param", "named")
    server = subprocess.Popen([sys.executable, "-c", _SERVER, db_path, str(wait_read), named],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(wait_read,), cwd=REPO,
                              text=True)
    os.close(wait_read)
    assert server.stdout is not None
    child = int(server.stdout.readline())
    server.kill()
    server.wait(BOUND_S)
    try:
        yield db_path, child, wait_write
    finally:
        os.close(wait_write)  # the child reads the end of its pipe and exits, if it was not killed
        wait_until(lambda: gone(child), timeout_s=BOUND_S, what="the orphan ended")
        assert server.stdout is not None
        server.stdout.close()
        if server.stdin is not None:
            server.stdin.close()


def test_a_start_waits_for_what_a_killed_server_left_holding_the_lock(
    orphan: tuple[str, int, int], caplog: pytest.LogCaptureFixture,
) -> None:
    db_path, child, wait_write = orphan
    caplog.set_level(logging.WARNING, logger="exchange.server.dblock")
    taken: list[DatabaseLock] = []
    start = threading.Thread(target=lambda: taken.append(DatabaseLock.acquire(db_path, orphan_wait_s=BOUND_S)))
    start.start()
    wait_until(lambda: any("waiting up to" in r.getMessage() for r in caplog.records), timeout_s=BOUND_S,
               what="the start waiting for the orphan")
    assert not taken and not gone(child)
    os.write(wait_write, b"x")  # the orphan finishes (as a writer commits its last batch) and exits
    start.join(BOUND_S)
    assert len(taken) == 1 and taken[0].held
    assert not any("killing" in r.getMessage() for r in caplog.records)
    taken[0].release()


def test_a_start_kills_the_named_orphan_that_does_not_end_in_time(orphan: tuple[str, int, int]) -> None:
    db_path, child, _ = orphan
    lock = DatabaseLock.acquire(db_path, orphan_wait_s=0)
    assert lock.held
    # its lock went with its files as it exited, a moment before /proc shows it gone
    wait_until(lambda: gone(child), timeout_s=BOUND_S, what="the killed orphan exiting")
    lock.release()


@pytest.mark.parametrize("orphan", ["unnamed"], indirect=True)
def test_an_orphan_the_lock_file_does_not_name_is_never_killed_and_the_start_is_refused(
    orphan: tuple[str, int, int],
) -> None:
    db_path, child, _ = orphan
    with pytest.raises(DatabaseInUse, match=r"has ended, but a process it started \(its journal writer\) still "):
        DatabaseLock.acquire(db_path, orphan_wait_s=0)
    assert not gone(child)


def _unread_bytes(pid: int) -> int:
    """How many bytes wait unread on process ``pid``'s standard input (a pipe), seen through /proc."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        count = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, count)
        return count[0]
    finally:
        os.close(fd)


def test_a_server_killed_with_a_batch_in_its_writers_pipe_restarts_without_a_fail_stop(
    db: Path, servers: list[ServerProcess],  # noqa: F811 (fixtures)
) -> None:
    # (a long journal timeout: the stopped writer must not be failed, and killed, by its own server first)
    first = ServerProcess(db, "--journal-timeout", "120", window_s=1, playing_s=0.2).start()
    servers.append(first)
    (writer,) = first.children()
    os.kill(writer, signal.SIGSTOP)
    try:
        wait_until(lambda: _unread_bytes(writer) > 0, timeout_s=BOUND_S, what="a batch handed to the writer")
        first.kill()  # the writer is left with a batch to commit and the end of its input
        again = ServerProcess(db)  # (30 s windows: time to place an order in one)
        servers.append(again)
        waited = threading.Event()

        def resume_the_writer_once_the_start_waits_for_it() -> None:
            with contextlib.suppress(AssertionError):
                wait_until(lambda: bool(again.runs) and "waiting up to" in again.log(),
                           timeout_s=again.start_timeout_s, what="the new server waiting for the old writer")
                waited.set()
            with contextlib.suppress(ProcessLookupError):  # (the test has failed and killed it)
                os.kill(writer, signal.SIGCONT)  # it commits its batch, reads the end of its input, exits

        resume = threading.Thread(target=resume_the_writer_once_the_start_waits_for_it)
        resume.start()
        again.start()
        resume.join(again.start_timeout_s + BOUND_S)
        assert waited.is_set(), "the new server opened the journal while the old writer could still commit"
        wait_until(lambda: gone(writer), timeout_s=BOUND_S, what="the old writer exiting")
        assert "killing" not in again.log()
        game = requests.get(f"{again.url}/games/v1/channels/holdem/snapshot", timeout=BOUND_S).json()["game"]
        placed = Api(again).call("placeOrders", place(f"holdem.{game['gameNumber']}", 1, "BACK", 1000, 2))
        assert placed["result"]["status"] == "SUCCESS", placed
        assert again.proc is not None and again.proc.poll() is None and "fail-stop" not in again.log()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(writer, signal.SIGKILL)
