"""One server per database: a second ``serve`` on the same ``--db`` is refused and leaves the first one's game alone.

The issue: ``serve --db X --port A``, then ``serve --db X --port B``; B started,
folded the journal and voided A's live game as if A had crashed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from exchange.server.database import DatabaseUnusable
from exchange.server.dblock import DatabaseInUse, DatabaseLock
from tests.server.helpers import free_port
from tests.server.serverproc import ServerProcess, cli

NOT_RUNNING = 4_194_305  # a process id past Linux's largest: no process has it


@pytest.fixture
def first(tmp_path: Path) -> Iterator[ServerProcess]:
    db = tmp_path / "exchange.db"
    assert cli("accounts", "--db", str(db), "add", "alice", "--password", "pw-a").returncode == 0
    with ServerProcess(db) as server:
        yield server


def _game(server: ServerProcess) -> dict[str, Any]:
    game = requests.get(f"{server.url}/games/v1/channels/holdem/snapshot", timeout=5).json()["game"]
    assert isinstance(game, dict)
    return game


def test_a_second_server_on_the_same_database_is_refused_in_one_line(first: ServerProcess) -> None:
    before = _game(first)
    # a port no one listens on (first.port + 1 was, at times: another test's server, and the refusal was the port's)
    second = cli("serve", "--db", str(first.db), "--port", str(free_port()), "--no-house", timeout=30)
    assert second.returncode == 2, second
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1, second.stderr
    assert lines[0].startswith(
        f"exchange-poker: error: cannot use the database {first.db}: another server (process {first.pid})"
    )
    assert f"{first.db}.lock" in lines[0] and "Traceback" not in second.stderr
    assert second.stdout == ""
    after = _game(first)  # the first server's game runs on: not voided, same game, same round
    assert after["id"] == before["id"] and after["markets"][0]["status"] == "OPEN"


def test_the_lock_dies_with_a_killed_server(first: ServerProcess) -> None:
    killed = first.pid
    first.kill()  # SIGKILL: no clean-up ran, the kernel dropped the lock
    lock = DatabaseLock.acquire(str(first.db))
    assert lock.unreleased == killed  # the file still names it: it did not stop cleanly
    lock.release()
    with ServerProcess(first.db) as again:
        assert _game(again)["id"] == "holdem.1"  # it recovered: the killed server's game was voided


def test_a_cleanly_stopped_server_frees_the_database(first: ServerProcess) -> None:
    first.stop()
    assert first.proc is not None and first.proc.returncode == 0
    lock = DatabaseLock.acquire(str(first.db))
    assert lock.held and lock.unreleased is None  # its stop emptied the lock file
    lock.release()


def test_the_lock_is_per_database_and_refuses_within_one_process(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    held = DatabaseLock.acquire(a)
    try:
        DatabaseLock.acquire(b).release()
        with pytest.raises(DatabaseInUse, match="another server"):
            DatabaseLock.acquire(a)
    finally:
        held.release()
    assert not DatabaseLock.acquire(":memory:").held


def test_one_lock_whatever_way_the_database_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second server on the same file named through a symbolic link, or another relative path, was not refused:
    both folded the journal, and the first fail-stopped on a journal record number the second had written."""
    db = tmp_path / "data" / "exchange.db"
    db.parent.mkdir()
    (tmp_path / "link.db").symlink_to(db)
    (tmp_path / "folder").symlink_to(db.parent)
    monkeypatch.chdir(tmp_path)
    held = DatabaseLock.acquire(str(db))
    try:
        for other in ("link.db", "folder/exchange.db", "data/../data/exchange.db", "./data/exchange.db"):
            with pytest.raises(DatabaseInUse, match="another server"):
                DatabaseLock.acquire(other)
    finally:
        held.release()


@pytest.mark.parametrize(("uri", "path"), [("file:exchange.db", "exchange.db"),
                                           ("file:///srv/ex%20one.db?mode=rwc", "/srv/ex one.db")])
def test_a_sqlite_uri_is_refused_saying_what_to_give(uri: str, path: str) -> None:
    """SQLite opens the file a ``file:`` URI names; the lock would have been beside no file at all, or none taken."""
    with pytest.raises(DatabaseUnusable) as refused:
        DatabaseLock.acquire(uri)
    assert str(refused.value) == (f"cannot use the database {uri}: a SQLite URI is not taken; give the database "
                                  f"file's path, such as {path}")


def test_a_crash_is_said_again_by_each_start_until_one_has_recovered_from_it(tmp_path: Path) -> None:
    """A start after a SIGKILL said so, then was refused (a damaged journal) and stopped cleanly: its stop emptied the
    lock file, and the start that did void the killed server's markets said nothing of the crash."""
    db = str(tmp_path / "ex.db")
    Path(db + ".lock").write_text(f"{NOT_RUNNING}\n")  # what a killed server leaves
    refused = DatabaseLock.acquire(db)
    assert refused.unreleased == NOT_RUNNING
    refused.release()  # stopped before recovering
    again = DatabaseLock.acquire(db)
    assert again.unreleased == NOT_RUNNING  # said again
    again.recovered()
    again.release()
    assert DatabaseLock.acquire(db).unreleased is None
