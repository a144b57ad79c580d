"""A real server takes snapshots as it runs; SIGKILLed and restarted, it starts from one and says so, lists the
results it listed before, and the state it rebuilds is the state a full replay of the journal gives."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from exchange.server.journal import Journal
from exchange.server.kept_results import KEEP_RESULTS, KeptResults
from exchange.server.recovery import restore
from tests.server.helpers import account_events, wait_until
from tests.server.serverproc import ServerProcess


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """``exchange-poker serve`` with the house, 0.3 s windows and a snapshot every 200 records; not yet started."""
    srv = ServerProcess(tmp_path / "exchange.db", "--snapshot-every-records", "200", "--snapshot-every-minutes", "0",
                        window_s=0.3, playing_s=0.05, house=True)
    yield srv
    srv.stop()


def _snapshot_seqs(db: Path) -> list[int]:
    conn = sqlite3.connect(db)
    try:
        return [seq for (seq,) in conn.execute("SELECT seq FROM snapshots ORDER BY seq")]
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        conn.close()


def _wait_for_snapshots(db: Path, count: int, *, after: int = 0, within_s: float = 60) -> list[int]:
    """The snapshots' seqs once ``count`` of them are newer than ``after``."""
    deadline = time.time() + within_s
    while time.time() < deadline:
        seqs = _snapshot_seqs(db)
        if len([seq for seq in seqs if seq > after]) >= count:
            return seqs
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} snapshots after seq {after} within {within_s} s: {_snapshot_seqs(db)}")


def _takers(db: Path) -> list[int]:
    """The snapshot takers (``python -m exchange.server.recovery DB``) still running on ``db``, orphans included."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:  # not a process, or gone
            continue
        if b"exchange.server.recovery" in argv and str(db).encode() in argv:
            pids.append(int(proc.name))
    return pids


def _mid_window(server: ServerProcess) -> str | None:
    """The game whose betting window is open and not half gone (killed now, the server dies with a market open);
    None if there is none."""
    try:
        game = requests.get(f"{server.url}/games/v1/channels/holdem/snapshot", timeout=1).json()["game"]
    except requests.RequestException:
        return None
    return game["id"] if game and game["bettingOpen"] and game["bettingWindowPercentageComplete"] < 50 else None


def _kill_mid_game(server: ServerProcess) -> list[dict[str, Any]]:
    """Kill the server inside a game's betting window; the results it listed just before, inside that window. The
    window is looked at again after the listing: on a loaded machine the game could end while the results were read
    (CI saw a kill land between two games, so no market was open to void)."""
    for _ in range(20):
        wait_until(lambda: _mid_window(server) is not None, timeout_s=10, what="a betting window in its first half")
        game = _mid_window(server)
        listed = _results(server)  # no game can end in the half window before the kill
        if game is not None and _mid_window(server) == game:
            server.kill()
            return listed
    raise AssertionError("no betting window stayed open while the results were read")


def _results(server: ServerProcess) -> list[dict[str, Any]]:
    """Every result the route keeps for Hold'em (the server keeps the default number)."""
    answer = requests.get(f"{server.url}/games/v1/channels/holdem/results?limit={KEEP_RESULTS}", timeout=5).json()
    results: list[dict[str, Any]] = answer["results"]
    return results


def _digests(db: Path, tmp_path: Path) -> tuple[tuple[str, KeptResults], tuple[str, KeptResults]]:
    """The state (its digest and the recent results) restored from the newest snapshot, and from a copy of the
    database without snapshots."""
    journal = Journal.open(str(db))
    try:
        restored = restore(journal)
        assert restored.snapshot_seq > 0 and not restored.damaged
        with_snapshot = restored.exchange.state_digest(), restored.results
        config = restored.exchange.config  # the server's (keep_closed_markets): a full replay folds with it too
    finally:
        journal.close()
    bare = tmp_path / "bare.db"
    shutil.copy(db, bare)
    conn = sqlite3.connect(bare)
    conn.execute("DELETE FROM snapshots")
    conn.commit()
    conn.close()
    journal = Journal.open(str(bare))
    try:
        full = restore(journal, config, keep_results=with_snapshot[1].keep)
        assert full.snapshot_seq == 0
        return with_snapshot, (full.exchange.state_digest(), full.results)
    finally:
        journal.close()


def test_a_killed_server_restarts_from_its_snapshot_and_rebuilds_the_full_replays_state(
    server: ServerProcess, tmp_path: Path,
) -> None:
    server.start()
    assert "recovery: full replay of 0 journal records (no snapshot)" in server.log()
    _wait_for_snapshots(server.db, 2)
    assert "snapshot taken at seq" in server.log()
    listed = _kill_mid_game(server)
    # a snapshot taker at work ends with the server: reading the newest once it has
    wait_until(lambda: not _takers(server.db), timeout_s=30, what="the snapshot taker exiting after the kill")
    newest = _snapshot_seqs(server.db)[-1]

    server.start()
    (line,) = [line for line in server.log().splitlines() if "recovery:" in line]
    found = re.search(r"recovery: snapshot at seq (\d+) \+ (\d+) journal records", line)
    assert found is not None, line
    assert int(found[1]) == newest
    voided = re.search(r"markets voided: holdem\.(\d+)", line)
    assert voided is not None, line  # the kill came in the middle of a game
    assert listed, "games should have ended before the kill"
    # what was listed, below any game ended since the restart (numbered after the one the kill interrupted)
    assert [r for r in _results(server) if r["gameNumber"] < int(voided[1])] == listed
    _wait_for_snapshots(server.db, 1, after=int(found[1]))  # the restarted server takes snapshots too
    server.stop()
    assert server.proc is not None and server.proc.returncode == 0

    with_snapshot, full = _digests(server.db, tmp_path)
    assert with_snapshot == full and len(list(full[1])) >= len(listed)


def test_a_taker_whose_server_is_gone_ends_quietly(tmp_path: Path) -> None:
    """A server SIGKILLed while its snapshot taker runs leaves no reader of the taker's report: the taker ended with
    a BrokenPipeError traceback in the dead server's log. Its report's pipe is closed before it starts here."""
    Journal.open(str(tmp_path / "exchange.db")).close()
    read, write = os.pipe()
    os.close(read)
    try:
        taker = subprocess.run([sys.executable, "-m", "exchange.server.recovery", str(tmp_path / "exchange.db")],
                               stdout=write, stderr=subprocess.PIPE, timeout=60, check=False)
    finally:
        os.close(write)
    assert (taker.returncode, taker.stderr.decode()) == (0, "")


#: A stand-in for the server: starts a snapshot taker on the database ``argv[1]`` as the journal does, prints its
#: process id, and waits to be killed.
_STARTS_A_TAKER = """
import sys, time
from exchange.server.snapshots import SnapshotTaker
print(SnapshotTaker.start(sys.argv[1]).pid, flush=True)
time.sleep(120)
"""


def _has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has the file at ``path`` open."""
    try:
        return any(os.readlink(fd) == str(path) for fd in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:  # gone, or a descriptor closed while read
        return False


def test_a_taker_at_work_ends_with_the_server_that_started_it_and_writes_nothing(tmp_path: Path) -> None:
    """A taker outlived a SIGKILLed server: it went on folding the journal beside the restarted server's recovery
    and wrote its snapshot after the restart had begun. Its stdin is a pipe from the server, which the kernel
    closes when the server dies, and it ends then. The test holds the database's write lock, so the taker is at
    work (waiting to write its snapshot) when its server is killed."""
    db = tmp_path / "exchange.db"
    journal = Journal.open(str(db))
    for i, event in enumerate(account_events(30)):
        journal.append("event", event, ts_ms=i)
    journal.flush()
    journal.close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with subprocess.Popen([sys.executable, "-c", _STARTS_A_TAKER, str(db)], stdout=subprocess.PIPE) as server:
            assert server.stdout is not None
            taker = int(server.stdout.readline())
            # its process id is printed as its exec finishes, when /proc may not show its command line yet (CI
            # saw none on a loaded machine); once it has the database open it is the taker, at work
            wait_until(lambda: _has_open(taker, db), timeout_s=30, what="the taker opening the database")
            assert _takers(db) == [taker]  # at work: waiting for the write lock to write its snapshot
            server.kill()
        wait_until(lambda: not _takers(db), timeout_s=10, what="the taker ending with its server")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _snapshot_seqs(db) == []
