"""A damaged journal is found and reported at start-up, never silently truncated (issue 11).

The issue: with the ``-wal`` file missing, its header spoiled or one frame
damaged, SQLite opened the database without a word and the server started
without the acknowledged records after that point (83 and 479 bets in two
tries). Here a child process commits records through the journal writer and
is killed with its writer (so the WAL is never checkpointed); the WAL is
then damaged the three ways, and the start-up check must refuse, naming the
loss, unless the damage is explicitly accepted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path

import pytest

from exchange.core.commands import Command, CreateMarket, Deposit, OpenAccount, OpenMarket, PlaceOrder
from exchange.core.events import IdsSkipped, Matched, OrderPlaced, event_from_dict
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.server.cashier import JOURNAL_KIND as OPERATOR  # a kind a restart passes over
from exchange.server.journal import Journal
from exchange.server.journal_check import JournalDamaged, JournalFromNewerVersion
from exchange.server.journal_mark import read_mark
from exchange.server.journal_writer import body_crc
from exchange.server.recovery import Restored, restore
from tests.server.helpers import wait_until
from tests.server.serverproc import ServerProcess, cli

RECORDS = 300

_BUILD = textwrap.dedent("""
    import asyncio, os, signal, sys
    from exchange.server.journal import Journal

    async def main(path: str, count: int) -> None:
        journal = Journal.open(path)
        journal.check()
        journal.start(None)
        for i in range(count):
            journal.append("operator", {"i": i, "pad": "x" * 200}, ts_ms=i)
            if i % 10 == 9:
                await journal.sync()  # one commit (several WAL frames) per ten records
        await journal.sync()
        os.kill(journal.writer_pid, signal.SIGKILL)  # nobody closes a connection: no checkpoint
        # wait till it is gone: while it lives it holds its locks, and the test's next connection would then
        # trust its shared WAL index instead of reading the (damaged) WAL afresh
        os.waitpid(journal.writer_pid, 0)
        os._exit(0)

    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
""")


def _crashed_journal(db: Path, count: int = RECORDS) -> Path:
    """A database whose ``count`` acknowledged records are all in its WAL, as a crash leaves it."""
    subprocess.run([sys.executable, "-c", _BUILD, str(db), str(count)], check=True, timeout=60)
    wal = Path(f"{db}-wal")
    assert wal.stat().st_size > 32 * 4096, "the records should be in the WAL, not checkpointed"
    assert read_mark(str(db)) == count
    return wal


def _check(db: Path, *, accept: bool = False, pages: bool = True) -> str:
    journal = Journal.open(str(db))
    try:
        return journal.check(accept_damaged=accept, check_pages=pages).summary()
    finally:
        journal.close()


def _records(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0])


def _newest_snapshot(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM snapshots").fetchone()[0])


def _remove(wal: Path) -> None:
    wal.unlink()
    Path(str(wal).replace("-wal", "-shm")).unlink(missing_ok=True)


def _spoil_header(wal: Path) -> None:
    with wal.open("r+b") as file:
        file.write(b"\0" * 32)


def _spoil_a_frame(wal: Path) -> None:
    """Flip bytes inside the page of a frame half way through the WAL: SQLite stops reading there."""
    with wal.open("r+b") as file:
        page_size = int.from_bytes(file.read(32)[8:12], "big")
        frames = (wal.stat().st_size - 32) // (24 + page_size)
        file.seek(32 + (frames // 2) * (24 + page_size) + 24 + 100)
        data = file.read(16)
        file.seek(-16, os.SEEK_CUR)
        file.write(bytes(b ^ 0xFF for b in data))


def test_a_crash_with_an_intact_wal_passes_the_check(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    _crashed_journal(db)
    assert _check(db) == f"journal checked: {RECORDS} records, all acknowledged records present, pages ok"
    # by default a start does not walk every page (that time grows with the journal); the mark still counts
    assert _check(db, pages=False).endswith("all acknowledged records present, pages not checked")


@pytest.mark.parametrize("damage", [_remove, _spoil_header, _spoil_a_frame], ids=["missing", "header", "frame"])
def test_a_damaged_wal_refuses_the_start_naming_the_lost_records(
    tmp_path: Path, damage: Callable[[Path], object]
) -> None:
    db = tmp_path / "ex.db"
    wal = _crashed_journal(db)
    damage(wal)
    with pytest.raises(JournalDamaged) as caught:
        _check(db)
    message = str(caught.value)
    assert f"records up to seq {RECORDS} were acknowledged" in message
    assert "acknowledged records are missing" in message and "--accept-damaged-journal" in message
    assert "\n" not in message


def test_accepting_the_damage_logs_it_and_resets_the_mark(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    _remove(_crashed_journal(db))
    summary = _check(db, accept=True)
    assert "DAMAGE ACCEPTED" in summary and f"records up to seq {RECORDS} were acknowledged" in summary
    assert read_mark(str(db)) == 1  # record 1: the ids the lost records may have given skipped
    assert "DAMAGE" not in _check(db)  # the next start is clean: the loss was accepted once


def _journal_of(db: Path, count: int) -> Journal:
    journal = Journal.open(str(db))
    for i in range(count):
        journal.append(OPERATOR, {"i": i}, ts_ms=i)
    journal.flush()
    return journal


def test_a_record_whose_body_changed_stops_the_recovery(tmp_path: Path) -> None:
    journal = _journal_of(tmp_path / "ex.db", 10)
    journal._conn.execute("""UPDATE journal SET body = '{"i":999}' WHERE seq = 5""")
    with pytest.raises(JournalDamaged, match="record 5: its body does not match its checksum"):
        restore(journal)
    journal.close()


def test_a_body_that_is_not_json_is_damage_at_that_record(tmp_path: Path) -> None:
    """A journal from before checksums has none to catch a body that is not JSON: the start crashed with a
    JSONDecodeError traceback; it is damage at that record, refused or set aside as any other."""
    journal = _journal_of(tmp_path / "ex.db", 10)
    journal._conn.execute("UPDATE journal SET body = 'not json', crc = NULL WHERE seq = 6")
    with pytest.raises(JournalDamaged, match="record 6: its body is not JSON") as refused:
        restore(journal)
    assert refused.value.first_bad == 6
    assert restore(journal, accept_damaged=True).last_seq == 6  # 6: the ids of those set aside skipped
    journal.close()


def test_a_record_missing_in_the_middle_stops_the_recovery(tmp_path: Path) -> None:
    journal = _journal_of(tmp_path / "ex.db", 10)
    journal._conn.execute("DELETE FROM journal WHERE seq = 3")
    with pytest.raises(JournalDamaged, match="record 3 is missing"):
        restore(journal)
    journal.close()


def test_accepted_record_damage_sets_the_rest_aside_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    journal = _journal_of(db, 10)
    journal._conn.execute("""UPDATE journal SET body = '{"i":999}' WHERE seq = 7""")
    restored = restore(journal, accept_damaged=True)
    assert restored.last_seq == 7 and journal.last_seq == 7 and read_mark(str(db)) == 6  # 7: the ids skipped
    assert "DAMAGED RECORDS SET ASIDE: 4 records from seq 7" in restored.summary()
    (aside,) = journal._conn.execute("SELECT COUNT(*) FROM journal_damaged").fetchone()
    assert aside == 4
    assert restore(journal).last_seq == 7  # and the journal is whole again
    journal.close()


def test_serve_refuses_a_damaged_journal_in_one_line_unless_told_to_accept_it(tmp_path: Path) -> None:
    db = tmp_path / "exchange.db"
    assert cli("accounts", "--db", str(db), "add", "alice", "--password", "pw-a").returncode == 0
    _remove(_crashed_journal(db))
    refused = cli("serve", "--db", str(db), "--port", "1", "--no-house", timeout=60)
    assert refused.returncode == 2, refused
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f"exchange-poker: error: cannot use the database {db}: the journal is damaged: "
                           f"records up to seq {RECORDS} were acknowledged"), line
    with ServerProcess(db, "--accept-damaged-journal") as server:
        pass  # started (its recovery done, a game dealt), then stopped
    log = server.log()
    recovery = next(line for line in log.splitlines() if "recovery:" in line)
    assert "WARNING" in recovery and "DAMAGE ACCEPTED" in recovery and f"seq {RECORDS}" in recovery


@pytest.mark.parametrize(("kind", "body", "says"), [
    ("event", {"type": "OrderPlaced", "ts": 4}, "record 5 (event) does not decode: TypeError"),
    ("result", {"channel": "holdem"}, "record 5 (result) does not decode: ValueError: not a game result"),
    ("ended", {"info": {}}, "record 5 (ended) does not decode: KeyError"),
])
def test_a_record_that_does_not_decode_is_damage_at_that_record(tmp_path: Path, kind: str, body: dict[str, str],
                                                               says: str) -> None:
    """Its checksum holds (another version of the code wrote it), but recovery cannot fold it: the start is refused
    naming it, and an operator who accepts the damage sets it and what follows aside, as for any damaged record."""
    db = tmp_path / "ex.db"
    journal = _journal_of(db, 4)
    journal.append(kind, body, ts_ms=4)
    journal.append(OPERATOR, {"i": 5}, ts_ms=5)
    journal.flush()
    with pytest.raises(JournalDamaged, match=re.escape(says)) as refused:
        restore(journal)
    assert refused.value.first_bad == 5
    restored = restore(journal, accept_damaged=True)
    assert restored.last_seq == 5 and journal.last_seq == 5  # 5: the ids of 5-6 skipped
    assert "DAMAGED RECORDS SET ASIDE: 2 records from seq 5" in restored.summary()
    journal.close()


@pytest.mark.parametrize(("kind", "body", "says"), [
    ("event", {"type": "SomethingNew", "ts": 4}, "record 5 of the journal holds an event 'SomethingNew'"),
    ("audit", {"who": "ops"}, "record 5 of the journal holds a record of kind 'audit'"),
])
def test_a_record_a_newer_version_wrote_refuses_the_start_and_is_never_set_aside(tmp_path: Path, kind: str,
                                                                                  body: dict[str, object],
                                                                                  says: str) -> None:
    """A kind or an event type this code does not know is a newer version's, not damage: the records from it on are
    sound (a rollback after the newer version wrote one), so the start is refused saying so, and accepting damage
    does not set them aside (an older version that took it for damage set aside every order after it)."""
    db = tmp_path / "ex.db"
    journal = _journal_of(db, 6)
    text = json.dumps(body)  # as a newer version wrote it: this one's journal takes no such record
    journal._conn.execute("UPDATE journal SET kind = ?, body = ?, crc = ? WHERE seq = 5", (kind, text, body_crc(text)))
    for accept in (False, True):
        with pytest.raises(JournalFromNewerVersion, match=re.escape(says)) as refused:
            restore(journal, accept_damaged=accept)
        assert "a newer version wrote it" in str(refused.value) and refused.value.seq == 5
    assert journal.last_seq == 6  # nothing set aside
    journal.close()
    refused_cli = cli("accounts", "--db", str(db), "list")
    assert refused_cli.returncode == 2 and "a newer version wrote it" in refused_cli.stderr, refused_cli


def test_the_journal_takes_only_the_kinds_a_restart_knows(tmp_path: Path) -> None:
    """A writer's slip (a kind of its own) is refused when written, not found by the next start, which would take
    the record for a newer version's and refuse the journal."""
    journal = _journal_of(tmp_path / "ex.db", 2)
    with pytest.raises(ValueError, match="kind is one of event, operator, result, ended, not 'audit'"):
        journal.append("audit", {"who": "ops"}, ts_ms=3)
    assert journal.last_seq == 2
    journal.close()


@pytest.mark.parametrize(("kind", "body", "crc", "says"), [
    ("event", '{"type": "SomethingNew", "ts": 4}', "NULL", "record 5 (event) does not decode"),
    ("event", "[1, 2]", "crc", "record 5 (event) does not decode"),
    ("evemt", '{"type": "AccountOpened", "ts": 4, "account_id": "bo"}', "NULL",
     "record 5 is of no kind this version knows ('evemt') and no checksum vouches for it"),
    ("audit", "[1, 2]", "crc", "record 5 is of no kind this version knows ('audit')"),
])
def test_a_record_no_checksum_vouches_for_or_not_an_object_is_damage_not_a_newer_version_s(
    tmp_path: Path, kind: str, body: str, crc: str, says: str,
) -> None:
    """A record of before checksums may have been damaged into any text (a type or a kind garbled into one no
    version wrote), and a body that is not a JSON object no version wrote: damage, which accepting sets aside (a
    kind unknown was passed over without a word, its record lost)."""
    journal = _journal_of(tmp_path / "ex.db", 6)
    journal._conn.execute(f"UPDATE journal SET kind = ?, body = ?, crc = {crc} WHERE seq = 5", (kind, body))
    if crc == "crc":
        journal._conn.execute("UPDATE journal SET crc = ? WHERE seq = 5", (body_crc(body),))
    with pytest.raises(JournalDamaged, match=re.escape(says)):
        restore(journal)
    assert "DAMAGED RECORDS SET ASIDE: 2 records from seq 5" in restore(journal, accept_damaged=True).summary()
    journal.close()


def test_serve_sets_aside_a_damaged_record_after_the_newest_snapshot_when_told_to(tmp_path: Path) -> None:
    """The damage is met while the server recovers, after its journal writer has started: the records are set aside
    all the same (the writer has been handed nothing yet), and the server starts and numbers on from there."""
    db = tmp_path / "exchange.db"
    with ServerProcess(db, "--snapshot-every-records", "20", house=True, window_s=0.5, playing_s=0.1):
        wait_until(lambda: _records(db) > _newest_snapshot(db) + 5 > 5, timeout_s=60,
                   what="the house's bets journalled, a snapshot taken and records after it")
    journal = Journal.open(str(db))
    snapshot_seq = _newest_snapshot(db)
    last = journal.last_seq
    assert last > snapshot_seq > 0, "the test needs records after the newest snapshot"
    journal._conn.execute("""UPDATE journal SET body = replace(body, '"ts"', '"ts1"') WHERE seq = ?""", (last,))
    journal.close()
    refused = cli("serve", "--db", str(db), "--port", "1", "--no-house", timeout=60)
    assert refused.returncode == 2 and f"record {last}" in refused.stderr, refused
    listed = cli("accounts", "--db", str(db), "list")  # it cannot accept the damage itself: it says who can
    assert listed.returncode == 2 and "'exchange-poker serve --accept-damaged-journal'" in listed.stderr, listed
    with ServerProcess(db, "--accept-damaged-journal") as server:
        pass
    recovery = next(line for line in server.log().splitlines() if "recovery:" in line)
    assert f"DAMAGED RECORDS SET ASIDE: 1 records from seq {last}" in recovery, recovery
    assert "all acknowledged records present until damaged ones were set aside" in recovery, recovery
    journal = Journal.open(str(db))
    assert journal._conn.execute("SELECT seq FROM journal_damaged").fetchall() == [(last,)]
    assert journal.last_seq >= last, "the server went on numbering its records from the one set aside"
    journal.close()


def test_a_damaged_record_before_the_newest_snapshot_is_reported_with_what_repairs_it(tmp_path: Path) -> None:
    """A start rebuilds the exchange from its newest snapshot and checks only the records after it, so it neither
    notices nor sets aside a damaged record before it. ``journal`` told the operator to start with
    ``--accept-damaged-journal``, which then changed nothing; it now says the record is behind the snapshot and
    that a backup repairs it."""
    db = tmp_path / "exchange.db"
    with ServerProcess(db, "--snapshot-every-records", "20", house=True, window_s=0.5, playing_s=0.1):
        wait_until(lambda: _newest_snapshot(db) > 10, timeout_s=60, what="a snapshot taken")
    damaged = _newest_snapshot(db) - 5
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("""UPDATE journal SET body = replace(body, '"ts"', '"ts1"') WHERE seq = ?""", (damaged,))
    listed = cli("journal", "--db", str(db))
    assert listed.returncode == 1, listed
    said = listed.stderr.strip().splitlines()[-1]
    assert f"record {damaged}: its body does not match its checksum" in said, said
    assert "lies before the newest sound snapshot" in said and "from a backup" in said, said
    assert cli("journal", "--db", str(db), "--after", str(damaged)).returncode == 0  # the records after it are whole
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:  # that snapshot spoilt: a start would read the record
        conn.execute("UPDATE snapshots SET sha256 = 'spoilt' WHERE seq >= ?", (damaged,))
    said = cli("journal", "--db", str(db)).stderr.strip().splitlines()[-1]
    assert "snapshot" not in said and "'exchange-poker serve --accept-damaged-journal'" in said, said


def test_a_journal_without_its_durable_mark_starts_with_a_warning(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    """A copy of the database without its -durable file: nothing says whether acknowledged records are missing.
    It started with only an INFO clause "no durable mark ... or a new database", as a new database does."""
    db = tmp_path / "ex.db"
    _crashed_journal(db)
    Path(f"{db}-durable").unlink()
    with caplog.at_level("WARNING", logger="exchange.server.journal_check"):
        summary = _check(db)
    assert summary.startswith(f"journal checked: {RECORDS} records, no durable mark")
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning.startswith(f"the journal holds {RECORDS} records but has no durable mark ({db}-durable is "
                              "missing: the database copied without its -durable and -wal files?)"), warning

    fresh = tmp_path / "new.db"  # a new database has no mark either, and nothing to warn about
    caplog.clear()
    with caplog.at_level("WARNING", logger="exchange.server.journal_check"):
        assert "0 records, no durable mark" in _check(fresh)
    assert not caplog.records


def _trading_journal(db: Path, orders: int) -> Journal:
    """A journal of two funded accounts trading on one market: ``orders`` orders, backs and lays in turn, each lay
    meeting the back before it (a bet id an order, a match id a pair), every record acknowledged (the mark says
    the journal's end)."""
    exchange, journal = Exchange(), Journal.open(str(db))
    journal.check()
    commands: list[Command] = [OpenAccount(0, "al"), Deposit(0, "al", 10**6), OpenAccount(0, "bo"),
                               Deposit(0, "bo", 10**6), CreateMarket(0, "1.1", (1, 2, 3, 4)), OpenMarket(0, "1.1")]
    for i in range(orders):
        side, account = (Side.BACK, "al") if i % 2 == 0 else (Side.LAY, "bo")
        commands.append(PlaceOrder(i, account, "1.1", 1, side, Decimal("2.0"), 500))
    for ts, command in enumerate(commands):
        for event in exchange.execute(command):
            journal.append("event", event, ts_ms=ts)
    journal.flush()
    return journal


def _ids(records: Iterable[tuple[str]]) -> tuple[set[int], set[int]]:
    """The bet ids and match ids given by the events among ``records`` (each a JSON body)."""
    events = [event_from_dict(json.loads(body)) for (body,) in records]
    return ({e.bet_id for e in events if isinstance(e, OrderPlaced)},
            {e.match_id for e in events if isinstance(e, Matched)})


def _ids_given_next(restored: Restored) -> tuple[int, int]:
    """The bet id and the match id the restored exchange gives next: a back and a lay that meet."""
    exchange = restored.exchange
    (placed,) = exchange.execute(PlaceOrder(10**6, "al", "1.1", 2, Side.BACK, Decimal("3.0"), 500))
    placed_lay, matched, *_ = exchange.execute(PlaceOrder(10**6, "bo", "1.1", 2, Side.LAY, Decimal("3.0"), 500))
    assert isinstance(placed, OrderPlaced) and isinstance(placed_lay, OrderPlaced) and isinstance(matched, Matched)
    return placed.bet_id, matched.match_id


def test_accepting_lost_records_never_gives_their_bet_or_match_ids_again(tmp_path: Path) -> None:
    """The -wal's last records lost, the loss accepted: the bets and matches in them had been acknowledged to
    clients, whose ids the fold would give to the next bets and matches (a client still holding one would name
    another account's bet). The journal skips as many ids as records were lost, in a record of its own."""
    db = tmp_path / "ex.db"
    journal = _trading_journal(db, 20)
    lost_rows = journal._conn.execute("SELECT body FROM journal WHERE seq > ? ORDER BY seq", (10,)).fetchall()
    journal._conn.execute("DELETE FROM journal WHERE seq > 10")  # as a lost -wal leaves it: the mark says more
    journal.close()
    lost_bets, lost_matches = _ids(lost_rows)
    assert lost_bets and lost_matches, "the test needs bets and matches in the records lost"
    journal = Journal.open(str(db))
    assert "DAMAGE ACCEPTED" in journal.check(accept_damaged=True).summary()
    restored = restore(journal)
    (skip,) = [event_from_dict(dict(r.body)) for r in journal.records(after=10)]
    (kept_ts,) = journal._conn.execute("SELECT ts_ms FROM journal WHERE seq = 10").fetchone()
    assert skip == IdsSkipped(kept_ts, len(lost_rows), f"{len(lost_rows)} acknowledged records lost")
    bet_id, match_id = _ids_given_next(restored)
    assert bet_id > max(lost_bets) and match_id > max(lost_matches)
    journal.close()
    journal = Journal.open(str(db))  # and a later start, which folds the skip like any record, agrees
    assert "DAMAGE" not in journal.check().summary()
    assert _ids_given_next(restore(journal)) == (bet_id, match_id)
    journal.close()


def test_records_set_aside_never_give_their_bet_or_match_ids_again(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    journal = _trading_journal(db, 20)
    journal._conn.execute("""UPDATE journal SET body = replace(body, '"ts"', '"ts1"') WHERE seq = 12""")
    aside = journal._conn.execute("SELECT body FROM journal WHERE seq > 12 ORDER BY seq").fetchall()
    set_aside_bets, set_aside_matches = _ids(aside)
    assert set_aside_bets and set_aside_matches, "the test needs bets and matches in the records set aside"
    restored = restore(journal, accept_damaged=True)
    moved = len(aside) + 1
    assert f"{moved} records from seq 12" in restored.summary() and restored.last_seq == 12
    (skip,) = [event_from_dict(dict(r.body)) for r in journal.records(after=11)]
    assert isinstance(skip, IdsSkipped) and skip.count == moved and skip.reason == f"{moved} records set aside"
    bet_id, match_id = _ids_given_next(restored)
    assert bet_id > max(set_aside_bets) and match_id > max(set_aside_matches)
    journal.close()


def test_a_later_damage_setting_aside_an_earlier_skip_skips_its_ids_too(tmp_path: Path) -> None:
    """A second accepted damage, at a record before the first one's skip, set the skip aside and counted it as one
    id: the bets placed after the first skip got their ids again (found by a review)."""
    db = tmp_path / "ex.db"
    journal = _trading_journal(db, 30)
    journal._conn.execute("""UPDATE journal SET body = replace(body, '"ts"', '"ts1"') WHERE seq = 30""")
    restored = restore(journal, accept_damaged=True)  # record 30 now skips the ids of the records set aside
    exchange, given = restored.exchange, []
    for i in range(6):  # trading goes on after the skip: ids past it
        side, account = (Side.BACK, "al") if i % 2 == 0 else (Side.LAY, "bo")
        for event in exchange.execute(PlaceOrder(100 + i, account, "1.1", 3, side, Decimal("2.0"), 500)):
            journal.append("event", event, ts_ms=100 + i)
            given.append(event)
    journal.flush()
    bets, matches = _ids([(json.dumps(e.to_dict()),) for e in given])
    journal._conn.execute("""UPDATE journal SET body = replace(body, '"ts"', '"ts1"') WHERE seq = 20""")
    bet_id, match_id = _ids_given_next(restore(journal, accept_damaged=True))
    assert bet_id > max(bets) and match_id > max(matches)
    journal.close()
