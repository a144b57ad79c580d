"""``exchange-poker accounts``: a refused account is status 2 with one line saying what is allowed, nothing written."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from exchange.core.commands import Deposit, OpenAccount
from exchange.core.exchange import Exchange
from exchange.server.journal import Journal
from exchange.server.store import AccountStore
from tests.cli_helpers import as_a_user_held_to_permissions, run_cli


@pytest.mark.parametrize(
    ("name", "password", "fragment"),
    [
        ("bad name", "pw", "account name 'bad name' is not allowed: use 1-64 letters, digits or _ . @ -"),
        ("", "pw", "account name '' is not allowed"),
        ("HOUSE", "pw", "account name 'HOUSE' is the server's own (HOUSE and names beginning house- are, "
         "in any case)"),
        ("house-maker", "pw", "is the server's own"),
        ("carol", "", "a password must not be empty"),
        ("alice", "pw", "account 'alice' already exists"),
    ],
)
def test_a_refused_account_is_status_2_and_one_line(
    name: str, password: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "x.db")
    assert run_cli(capsys, "accounts", "--db", db, "add", "alice", "--password", "pw-a")[0] == 0
    code, out, err = run_cli(capsys, "accounts", "--db", db, "add", name, "--password", password)
    assert code == 2  # bad input, as every other refusal of the command line
    assert out == "" and err.count("\n") == 1 and fragment in err
    store = AccountStore.open(db)
    try:
        assert [account.name for account in store.list()] == ["alice"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("balance", "fragment"),
    [
        ("1000000000001", "'1000000000001' is more than the largest opening balance, 1,000,000,000,000"),
        ("9" * 20, f"'{'9' * 20}' is more than the largest opening balance"),  # (was "not an amount": too long)
        ("9" * 40 + ".5", "is more than the largest opening balance"),
        ("-5", "'-5' must be a non-negative amount with at most two decimals"),
        ("1.234", "'1.234' must be a non-negative amount with at most two decimals"),
        ("1e3", "'1e3' is not an amount like 1000 or 25.50"),  # written plainly, as the operator's routes take it
        ("1_000", "'1_000' is not an amount like 1000 or 25.50"),
    ],
)
def test_a_bad_balance_says_what_is_allowed(
    balance: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "accounts", "--db", str(tmp_path / "x.db"), "add", "bob", "--password", "p",
                             "--balance", balance)  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1
    assert fragment in err


def test_the_largest_balance_is_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "x.db")
    code, out, _ = run_cli(capsys, "accounts", "--db", db, "add", "bob", "--password", "p", "--balance", str(10**12))
    assert code == 0 and out == "added bob with balance 1000000000000.00 GBP\n"


def test_listing_a_database_that_is_not_there_says_so_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "exchnage.db"
    code, out, err = run_cli(capsys, "accounts", "--db", str(typo), "list")
    assert code == 2 and out == ""
    assert err == f"exchange-poker: error: no database at {typo} (exchange-poker serve or accounts add makes one)\n"
    assert list(tmp_path.iterdir()) == []  # not an empty database that lists no account


def test_the_listing_s_columns_line_up_whatever_the_lengths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A name past 24 characters or a balance past 14 pushed the columns of its row right (on main)."""
    db = str(tmp_path / "x.db")
    long_name = "a-rather-long-account-name-of-40-letters"
    accounts = [("bo", "1000"), (long_name, "5"), ("rich", str(10**12))]
    for name, balance in accounts:
        assert run_cli(capsys, "accounts", "--db", db, "add", name, "--password", "p", "--balance", balance)[0] == 0
    code, out, err = run_cli(capsys, "accounts", "--db", db, "list")
    assert code == 0 and err == ""
    header, *rows = out.splitlines()
    assert header.split() == ["name", "balance", "currency", "role"]
    assert sorted(row.split()[0] for row in rows) == sorted([*(name for name, _ in accounts), "HOUSE"])
    balance_end = header.index("balance") + len("balance")  # balances are right-aligned under their header
    for row in rows:
        name, balance, currency, role = row.split()
        assert row.index(balance) + len(balance) == balance_end, out
        assert row.index(currency, balance_end) == header.index("currency"), out
        assert row.index(role, balance_end + len(currency)) == header.index("role"), out
        assert row.index(name) == 0


@pytest.mark.parametrize(
    ("action", "said"),
    [
        (("role", "HOUSE", "operator"), "HOUSE is the server's own account"),
        (("role", "house", "trader"), "HOUSE is the server's own account"),
        (("password", "House-Maker", "--password", "x"), "house-maker is the server's own account"),
        (("role", "carol", "operator"), "no account 'carol' in"),
        (("history", "HOUSE"), "HOUSE is the server's own account"),
        (("history", "carol"), "no account 'carol' in"),
    ],
)
def test_a_role_or_password_for_an_account_with_no_login_says_why(
    action: tuple[str, ...], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The listing shows HOUSE and the house's traders (role house), yet no login is theirs: ``role HOUSE`` said
    there was no account HOUSE."""
    db = str(tmp_path / "x.db")
    assert run_cli(capsys, "accounts", "--db", db, "add", "alice", "--password", "pw-a")[0] == 0
    code, out, err = run_cli(capsys, "accounts", "--db", db, *action)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert said in err
    if "server's own" in said:
        assert "it has no password and no role to set" in err


def test_every_change_to_an_account_is_recorded_with_when_and_who(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grant of operator rights (``role NAME operator``) left no record anywhere: the journal cannot hold it (the
    command changes the store beside a running server)."""
    db = str(tmp_path / "x.db")
    monkeypatch.setattr("getpass.getuser", lambda: "ops-admin")
    for action in (("add", "alice", "--password", "pw-a"), ("role", "ALICE", "operator"), ("role", "alice", "operator"),
                   ("password", "alice", "--password", "new"), ("add", "bob", "--password", "b", "--operator",
                                                                "--balance", "5"), ("role", "bob", "trader")):
        assert run_cli(capsys, "accounts", "--db", db, *action)[0] == 0
    changes = AccountStore.open(db).changes()
    assert [(c.account, c.change, c.by) for c in changes] == [
        ("alice", "added (trader, balance 1000.00 GBP)", "ops-admin (exchange-poker accounts)"),
        ("alice", "made an operator", "ops-admin (exchange-poker accounts)"),  # once: the second changed nothing
        ("alice", "password changed", "ops-admin (exchange-poker accounts)"),
        ("bob", "added (operator, balance 5.00 GBP)", "ops-admin (exchange-poker accounts)"),
        ("bob", "made a trader", "ops-admin (exchange-poker accounts)")]
    assert changes[0].at_ms <= changes[-1].at_ms
    code, out, _ = run_cli(capsys, "accounts", "--db", db, "history", "Bob")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["when", "account", "change", "by"] and len(lines) == 3
    assert lines[2].endswith("bob     made a trader                      ops-admin (exchange-poker accounts)")
    assert run_cli(capsys, "accounts", "--db", db, "history")[1].count("\n") == 6


def test_who_made_a_change_is_the_user_id_when_it_has_no_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def nameless() -> str:
        raise KeyError("getpwuid(): uid not found: 4242")

    monkeypatch.setattr("getpass.getuser", nameless)
    db = str(tmp_path / "x.db")
    assert run_cli(capsys, "accounts", "--db", db, "add", "alice", "--password", "pw-a")[0] == 0
    assert [c.by for c in AccountStore.open(db).changes("alice")] == [f"uid {os.getuid()} (exchange-poker accounts)"]


def _served_on(db: Path) -> None:
    """alice and bob (an operator) added; alice opened on the exchange with her deposit, then 12.34 more."""
    journal = Journal.open(str(db))
    exchange = Exchange()
    for command in (OpenAccount(0, "alice"), Deposit(0, "alice", 100_000), Deposit(5, "alice", 1_234)):
        for event in exchange.execute(command):
            journal.append("event", event, ts_ms=command.ts)
    journal.flush()
    journal.close()


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("copy", ["vacuumed", "the-file", "with-its-wal"])
def test_listing_reads_a_database_in_a_folder_it_may_not_write(copy: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A backup mounted read-only: ``list`` and ``history`` opened it to write, and failed ("attempt to write a
    readonly database"); they read it as it is, and say what they say of the original. The backup is a copy
    SQLite made (not in WAL mode), the WAL-mode file alone, or the file with the ``-wal`` (holding the last
    records) and ``-shm`` of a server still running."""
    monkeypatch.setattr("getpass.getuser", lambda: "ops")
    db = tmp_path / "exchange.db"
    for added in (("add", "alice", "--password", "a"), ("add", "bob", "--password", "b", "--operator")):
        assert run_cli(capsys, "accounts", "--db", str(db), *added)[0] == 0
    running = sqlite3.connect(db)  # the server's connection: the -wal stays, with what is written meanwhile
    running.execute("SELECT COUNT(*) FROM accounts").fetchone()
    _served_on(db)
    listed = run_cli(capsys, "accounts", "--db", str(db), "list")
    history = run_cli(capsys, "accounts", "--db", str(db), "history")
    assert ["alice", "1012.34", "GBP", "trader"] in [row.split() for row in listed[1].splitlines()]
    assert "bob" in history[1]
    archive = tmp_path / "archive"
    archive.mkdir()
    if copy == "vacuumed":
        sqlite3.connect(db).execute("VACUUM INTO ?", (str(archive / "exchange.db"),)).connection.close()
    else:
        suffixes = ("", "-wal", "-shm") if copy == "with-its-wal" else ("",)
        assert copy == "the-file" or Path(f"{db}-wal").stat().st_size > 0
        for suffix in suffixes:
            shutil.copyfile(f"{db}{suffix}", archive / f"exchange.db{suffix}")
    running.close()
    before = _files(archive)
    for path in archive.iterdir():  # as on a read-only mount (a -shm its reader may write, SQLite writes)
        path.chmod(0o444)
    archive.chmod(0o555)
    try:
        for action, original in (("list", listed), ("history", history)):
            done = as_a_user_held_to_permissions("accounts", "--db", str(archive / "exchange.db"), action)
            if copy == "the-file":  # its records in the -wal not taken: what the file alone holds, the deposits
                assert done.returncode == 0 and done.stderr == "", done
                continue
            assert (done.returncode, done.stdout, done.stderr) == original
    finally:
        archive.chmod(0o755)
    assert _files(archive) == before


def test_listing_an_older_database_adds_nothing_to_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A database from before operators, the changes' records, snapshots' results and checksums: ``list`` and
    ``history`` added the tables and columns they lack (a reading command wrote to the file); they read what is
    there."""
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE accounts (name TEXT PRIMARY KEY, salt BLOB NOT NULL, pw_hash BLOB NOT NULL,
                               deposit INTEGER NOT NULL, currency TEXT NOT NULL, created_ms INTEGER NOT NULL);
        INSERT INTO accounts VALUES ('alice', x'00', x'00', 100000, 'GBP', 0);
        CREATE TABLE journal (seq INTEGER PRIMARY KEY, ts_ms INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);
        INSERT INTO journal VALUES (1, 0, 'event', '{"type":"AccountOpened","ts":0,"account_id":"alice"}');
        INSERT INTO journal VALUES (2, 0, 'event',
            '{"type":"AccountCredited","ts":0,"account_id":"alice","amount":99,"reason":"deposit"}');
        CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, created_ms INTEGER NOT NULL, exchange BLOB NOT NULL,
                                notes BLOB NOT NULL, sha256 TEXT NOT NULL, state_digest TEXT NOT NULL);
    """)
    conn.commit()
    schema = conn.execute("SELECT * FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    code, out, err = run_cli(capsys, "accounts", "--db", str(db), "list")
    assert (code, err) == (0, "") and ["alice", "0.99", "GBP", "trader"] in [row.split() for row in out.splitlines()]
    code, out, err = run_cli(capsys, "accounts", "--db", str(db), "history", "alice")
    assert (code, out.split(), err) == (0, ["when", "account", "change", "by"], "")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT * FROM sqlite_master ORDER BY name").fetchall() == schema
    conn.close()


def test_listing_an_empty_file_lists_the_house_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty file is an empty database, with nobody in it (listed, it was given the accounts' tables; read-only, it
    said "no such table: accounts")."""
    db = tmp_path / "empty.db"
    db.touch()
    code, out, err = run_cli(capsys, "accounts", "--db", str(db), "list")
    assert (code, err) == (0, "")
    assert [row.split() for row in out.splitlines()][1:] == [["HOUSE", "0.00", "GBP", "house"]]
    code, out, err = run_cli(capsys, "accounts", "--db", str(db), "history")
    assert (code, out.split(), err) == (0, ["when", "account", "change", "by"], "")
    assert db.stat().st_size == 0
