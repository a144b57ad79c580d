"""A stop signal that comes while the server starts: the journal writer outlives it and the server stops cleanly.

A service manager (systemd, a container runtime, a kill of the process group
or cgroup) may send SIGTERM to every process at once, so also to a journal
writer whose interpreter is still starting, before its ``main`` ignores the
signal. The writer is launched with SIGINT and SIGTERM blocked (the server
blocks them in its own thread around the spawn): one sent meanwhile waits,
pending, until the writer ignores it. The server's own signal, sent while its
thread blocks it, is held back, not lost.

The signals are sent at exact moments (right after the launch returns, and
from inside the server's spawn), not after a sleep; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from aiohttp import web

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.fallback_equities import river_only_equities
from exchange.server.journal import Journal
from exchange.server.journal_writer import SCHEMA, WriterProcess, connect, signals_blocked
from tests.server.helpers import free_port

REPO = Path(__file__).resolve().parents[2]
BOUND_S = 60  # every wait in these tests


def test_a_writer_signalled_the_moment_it_is_launched_starts_takes_a_write_and_ends_when_closed(
    tmp_path: Path,
) -> None:
    """The writer's interpreter takes a tenth of a second to reach ``main``: these signals arrive long before it
    could ignore them, and would end it with their default action were they not blocked from its spawn."""
    path = str(tmp_path / "j.db")
    conn = connect(path)
    conn.executescript(SCHEMA)
    writer = WriterProcess.launch(path)  # as the server launches it (Journal.start)
    os.kill(writer.pid, signal.SIGTERM)
    os.kill(writer.pid, signal.SIGINT)
    try:
        writer.wait_ready()  # without the blocked signals: "the journal writer did not start"
        writer.send([(1, 5, "place", '{"betId":"1"}')])
        assert writer.read_line_blocking() == "ok 1"
    finally:
        writer.close()
        assert writer.wait(BOUND_S) == 0
    assert conn.execute("SELECT seq, kind, body FROM journal").fetchall() == [(1, "place", '{"betId":"1"}')]
    conn.close()


def test_a_signal_sent_while_blocked_is_held_back_then_handled_and_the_mask_restored() -> None:
    """What the server's thread goes through around the spawn: its signal is not lost, only delayed."""
    seen: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, _frame: seen.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    try:
        with signals_blocked(frozenset({signal.SIGUSR1})):
            signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)  # to this thread: no other may take it
            assert signal.SIGUSR1 in signal.sigpending()
            assert seen == []
        assert seen == [signal.SIGUSR1]
        assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask
    finally:
        signal.signal(signal.SIGUSR1, previous)


# The server's command line, with SIGTERM sent to the journal writer and to the server itself the moment the
# writer's spawn returns: inside the server's blocked window, before the writer can ignore it.
_SIGNAL_AT_SPAWN = """
import os, runpy, signal, subprocess, sys

class SignalledAtSpawn(subprocess.Popen):
    def __init__(self, args, *rest, **kwargs):
        super().__init__(args, *rest, **kwargs)
        if "exchange.server.journal_writer" in args:
            os.kill(self.pid, signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            print(f"SIGTERM sent to the writer {self.pid} and the server", flush=True)

subprocess.Popen = SignalledAtSpawn
sys.argv = ["exchange.cli", *sys.argv[1:]]
runpy.run_module("exchange.cli", run_name="__main__", alter_sys=True)
"""


def test_a_sigterm_to_every_process_as_the_journal_writer_starts_stops_the_server_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "exchange.db"
    argv = ["serve", "--db", str(db), "--port", str(free_port()), "--no-house"]
    done = subprocess.run([sys.executable, "-c", _SIGNAL_AT_SPAWN, *argv], capture_output=True, text=True,
                          timeout=BOUND_S, cwd=REPO)
    assert "SIGTERM sent to the writer" in done.stdout
    assert "Exchange Poker server on" not in done.stdout  # it stopped while starting
    assert done.returncode == 0, done.stderr
    assert "did not start" not in done.stderr and "journal writer exited" not in done.stderr
    stopped = re.search(r"journal: (\d+) records in \d+ commits", done.stderr)  # the clean stop's line
    assert stopped is not None, done.stderr
    journal = Journal.open(str(db))
    try:
        checked = journal.check()  # the next start's check: nothing acknowledged is missing
        assert checked.last_seq == int(stopped.group(1)) > 0  # what the start journaled was written before the stop
        assert checked.mark == checked.last_seq
    finally:
        journal.close()


def _app(db: Path, clock: VirtualClock) -> web.Application:
    config = ServerConfig(db_path=str(db), window_ms=3_000, playing_ms=100, house=False, seed=1)
    return create_app(config, clock=clock, equities=river_only_equities)


async def test_a_start_ended_at_its_first_wait_stops_the_games_it_started_and_the_journal(tmp_path: Path) -> None:
    """What a stop signal during the start does in the server (``run_app`` cancels the start, then cleans up): the
    games already dealing are halted and the journal is stopped, as at a stop after the start.

    The start waits for the records its recovery wrote (it voids the game a first run left open), so it is
    still starting, its games dealing, when the stop comes."""
    first = _app(tmp_path / "ex.db", clock := VirtualClock())
    runner = web.AppRunner(first)
    await runner.setup()
    clock.advance(1_000)  # a game dealt, its window open
    await first[keys.SERVICE].durable()
    await runner.cleanup()

    app = _app(tmp_path / "ex.db", clock := VirtualClock())
    runner = web.AppRunner(app)
    setup = asyncio.get_running_loop().create_task(runner.setup())
    await asyncio.sleep(0)  # the start runs to its first wait
    journal = app[keys.JOURNAL]
    assert not setup.done() and clock.pending > 0 and journal.durable_seq < journal.last_seq  # games dealing
    setup.cancel()
    with pytest.raises(asyncio.CancelledError):
        await setup
    await runner.cleanup()
    assert clock.pending == 0  # no game goes on
    assert journal.writer_pid is None and journal.durable_seq == journal.last_seq
