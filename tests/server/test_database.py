"""An unusable ``--db`` is one line on stderr naming the file and the problem, and exit code 2, never a traceback."""

from __future__ import annotations

import contextlib
import re
import select
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from exchange.server import database
from exchange.server.database import DatabaseUnusable
from exchange.server.journal import Journal
from exchange.server.journal_check import JournalDamaged
from exchange.server.store import AccountStore
from tests.cli_helpers import run_cli
from tests.server.helpers import free_port
from tests.server.serverproc import cli

PAGE = 4096  # SQLite's default page size

HOLD_OPEN = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("CREATE TABLE t (x)")
conn.execute("INSERT INTO t VALUES (1)")
print("open", flush=True)
sys.stdin.read()  # held open until the test is done with it (it kills the holder), however long that takes
"""


@pytest.fixture
def deleted_while_open(tmp_path: Path) -> Iterator[Path]:
    """The issue's case: a database deleted while a process still has it open, its -wal and -shm left beside."""
    db = tmp_path / "exchange.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_OPEN, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None
        readable, _, _ = select.select([holder.stdout], [], [], 30)  # a bounded wait for "open", not a fixed sleep
        assert readable and holder.stdout.readline() == b"open\n", "the holder did not open the database in 30 s"
        db.unlink()
        yield db
    finally:
        holder.kill()
        holder.wait(timeout=10)
        assert holder.stdin is not None
        holder.stdin.close()


def _assert_refused(result: subprocess.CompletedProcess[str], db: Path, problem: str) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"exchange-poker: error: cannot use the database {db}: "), lines[0]
    assert problem in lines[0], lines[0]
    assert "Traceback" not in result.stderr


def test_serve_and_accounts_refuse_a_database_deleted_while_open(deleted_while_open: Path) -> None:
    db = deleted_while_open
    expected = "exchange.db-wal and exchange.db-shm beside it belong to a database that was deleted"
    _assert_refused(cli("accounts", "--db", str(db), "list"), db, expected)
    _assert_refused(cli("accounts", "--db", str(db), "add", "x", "--password", "p"), db, expected)
    _assert_refused(cli("serve", "--db", str(db), "--port", str(free_port())), db, expected)


def test_serve_refuses_a_directory(tmp_path: Path) -> None:
    _assert_refused(cli("serve", "--db", str(tmp_path), "--port", str(free_port())), tmp_path, "it is a directory")


def test_serve_refuses_a_database_whose_durable_mark_is_a_directory(tmp_path: Path) -> None:
    """Not "cannot listen on the port": the mark beside the database is what is wrong, and the line says so."""
    db = tmp_path / "x.db"
    (tmp_path / "x.db-durable").mkdir()
    _assert_refused(cli("serve", "--db", str(db), "--port", str(free_port())), db,
                    f"its durable mark {db}-durable cannot be used (Is a directory)")


def _wal_is_a_directory(tmp_path: Path) -> Path:
    (tmp_path / "x.db-wal").mkdir()
    return tmp_path / "x.db"


def _not_sqlite(tmp_path: Path) -> Path:
    (tmp_path / "x.db").write_text("not a database " * 100)
    return tmp_path / "x.db"


def _journal_of(db: Path, count: int) -> Path:
    """A database of ``count`` journal records, all in its main file (checkpointed), 4 KiB pages."""
    journal = Journal.open(str(db))
    for i in range(count):
        journal.append("operator", {"i": i, "pad": "x" * 200}, ts_ms=i)
    journal.flush()
    journal.close()
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def _spoil(db: Path, pages: Iterable[int], offset: int) -> None:
    with db.open("r+b") as file:
        for page in pages:
            file.seek(page * PAGE + offset)
            file.write(b"\xff" * 40)


def _malformed(tmp_path: Path) -> Path:
    db = _journal_of(tmp_path / "x.db", 50)
    _spoil(db, [0], 108)  # the schema's page, past the file header: SQLite cannot read its tables
    return db


def _another_programs(tmp_path: Path) -> Path:
    with contextlib.closing(sqlite3.connect(tmp_path / "x.db")) as conn:
        conn.executescript("CREATE TABLE photos (id); CREATE TABLE albums (id);")
    return tmp_path / "x.db"


CASES: list[tuple[Callable[[Path], Path], str]] = [
    (lambda tmp: tmp, "it is a directory; give a file name"),
    (lambda tmp: tmp / "missing" / "x.db", "the folder"),
    (_wal_is_a_directory, "x.db-wal beside it should be SQLite's own files"),
    (_not_sqlite, "it is not an SQLite database"),
    (_malformed, "the file is damaged; restore it"),
    (_another_programs, "it is another program's SQLite database (its tables: albums, photos), not the exchange's"),
]


@pytest.mark.parametrize(("make", "problem"), CASES)
def test_accounts_refuses_each_unusable_file_in_one_line(tmp_path: Path, make: Callable[[Path], Path],
                                                         problem: str) -> None:
    db = make(tmp_path)
    _assert_refused(cli("accounts", "--db", str(db), "list"), db, problem)


@pytest.mark.parametrize(("make", "problem"), CASES)
def test_store_and_journal_raise_database_unusable(tmp_path: Path, make: Callable[[Path], Path],
                                                   problem: str) -> None:
    db = make(tmp_path)
    for opener in (AccountStore.open, Journal.open):
        with pytest.raises(DatabaseUnusable, match=re.escape(problem)):
            opener(str(db))


def test_a_usable_database_still_opens(tmp_path: Path) -> None:
    result = cli("accounts", "--db", str(tmp_path / "x.db"), "add", "alice", "--password", "pw")
    assert result.returncode == 0 and "added alice" in result.stdout


def test_the_page_check_names_the_damaged_pages_and_the_first_problem_whole(tmp_path: Path) -> None:
    db = _journal_of(tmp_path / "x.db", 3000)
    _spoil(db, range(20, 60, 3), 8)  # cell pointers of 14 of the journal's pages
    journal = Journal.open(str(db))
    try:
        with pytest.raises(JournalDamaged) as refused:
            journal.check(check_pages=True)
    finally:
        journal.close()
    said = str(refused.value)
    found = re.search(r"quick_check found damaged pages \(pages ([\d, ]+)(?: and (\d+) more)?; "
                      r"(\d+) problems( or more)?, the first: (On tree page \d+ cell \d+: [^;)]*)\); restore", said)
    assert found, said
    named = [int(n) for n in found[1].split(", ")]
    assert named == sorted(named) and set(named) <= set(range(21, 61, 3)) and len(named) <= 10  # SQLite counts from 1
    assert found[3] == "100" and found[4]  # SQLite lists 100 problems at most
    assert found[5].endswith("4092")  # the first problem whole, not cut mid-word


def test_another_programs_database_is_left_as_it_was(tmp_path: Path) -> None:
    db = _another_programs(tmp_path)
    _assert_refused(cli("serve", "--db", str(db), "--port", str(free_port())), db, "another program's")
    with contextlib.closing(sqlite3.connect(db)) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"albums", "photos"}


@pytest.mark.parametrize("said", ["database or disk is full", "disk I/O error"])
def test_a_full_disk_is_named_not_blamed_on_the_files_beside_it(
        tmp_path: Path, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a full disk SQLite says "full" or only "disk I/O error" (making its -shm file); its -wal and -shm are
    there as after any crash. The refusal said to stop the other process using them, or remove them."""
    db = tmp_path / "exchange.db"
    for leftover in ("-wal", "-shm"):
        Path(f"{db}{leftover}").write_bytes(b"")
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(database.shutil, "disk_usage", lambda folder: usage._replace(free=4096))
    problem = database.diagnose(str(db), sqlite3.OperationalError(said))
    assert problem.startswith("the disk it is on is full (4,096 bytes free); make room"), problem
    assert problem.endswith(f"(SQLite: {said})")


def test_a_sqlite_uri_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    """SQLite opens the file a ``file:`` URI names, but no lock is held on it: refused, and nothing made (the
    accounts were opened, making the file, before the server refused it)."""
    uri = f"file:{tmp_path / 'ex.db'}?mode=rwc"
    for argv in (("serve", "--db", uri, "--port", str(free_port())), ("accounts", "--db", uri, "add", "x",
                                                                       "--password", "p")):
        result = cli(*argv)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result
        assert result.stderr == (f"exchange-poker: error: cannot use the database {uri}: a SQLite URI is not taken; "
                                 f"give the database file's path, such as {tmp_path / 'ex.db'}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [("serve", "--port", "1"), ("accounts", "list"), ("accounts", "add", "zed"),
                                  ("journal",)])
def test_an_empty_database_path_is_refused(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """SQLite opens a throw-away database for an empty path: ``accounts --db '' add zed`` said "added zed" and the
    next ``list`` had no zed, and ``serve --db ''`` ran with nothing kept (an unset shell variable does that)."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, *argv[:1], "--db", "", *argv[1:])
    assert code == 2 and err == ("exchange-poker: error: argument --db: give the database file's path, such as "
                                 "exchange.db, not an empty name (SQLite would open a throw-away database, and "
                                 "nothing would be kept)\n"), err
    assert list(tmp_path.iterdir()) == []
