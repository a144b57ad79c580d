"""Records set aside at a start (damage accepted) take every snapshot that holds them along: no later start loads
their effects back, whatever snapshot the start that set them aside passed over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from exchange.core.commands import Deposit, OpenAccount
from exchange.core.events import Event, event_from_dict
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.snapshot import SnapshotError
from exchange.server import journal as journal_module
from exchange.server import recovery, snapshots
from exchange.server.journal import Journal, JournalDamaged
from exchange.server.journal_check import reset_mark
from exchange.server.journal_mark import read_mark
from exchange.server.recovery import restore, take_snapshot


def _funded(prefix: str, count: int, ts: int) -> list[Event]:
    exchange, events = Exchange(), list[Event]()
    for i in range(count):
        events += exchange.execute(OpenAccount(ts, f"{prefix}{i}")) + exchange.execute(
            Deposit(ts, f"{prefix}{i}", 100 + i, "x"))
    return events


def _balances_folded(journal: Journal) -> dict[str, int]:
    """Every account's balance from the journal's records, record 1 on (no snapshot)."""
    exchange = Exchange()
    for record in journal.records():
        exchange.apply(event_from_dict(dict(record.body)))
    return {name: account.balance for name, account in exchange.accounts.items()}


def test_a_snapshot_after_records_set_aside_is_not_loaded_by_a_later_start(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "ex.db"))
    for event in _funded("a", 10, 1):  # records 1-20
        journal.append("event", event, ts_ms=1)
    journal.flush()
    saved, _ = take_snapshot(journal)
    assert saved is not None and saved.seq == 20
    journal._conn.execute("""UPDATE journal SET body = '{"type":"Deposit"}' WHERE seq = 7""")
    # A start with another exchange config passes the snapshot over, folds from record 1 and sets 7-20 aside.
    restored = restore(journal, ExchangeConfig(commission_bps=500), accept_damaged=True)
    # (record 7 now skips the ids records 7-20 may have given)
    assert restored.snapshot_seq == 0 and restored.last_seq == 7 and "14 records from seq 7" in restored.summary()
    for event in _funded("b", 10, 2):  # the journal carries on: records 7-26
        journal.append("event", event, ts_ms=2)
    journal.flush()
    again = restore(journal)  # a start with the snapshot's config again
    balances = {name: account.balance for name, account in again.exchange.accounts.items()}
    assert balances == _balances_folded(journal)
    assert "a5" not in balances and balances["b9"] == 109
    journal.close()


def test_a_taker_that_folded_records_set_aside_while_it_worked_writes_no_snapshot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A killed server's snapshot taker can outlive it: a new server sets damaged records aside and numbers its own
    from there while the taker still holds a fold of the old ones. Written late, that snapshot would pass for a
    fold of the new records with the same numbers, so the taker checks, as it writes, that the journal has not
    been rewound since it began."""
    db = str(tmp_path / "ex.db")
    journal = Journal.open(db)
    for event in _funded("a", 10, 1):  # records 1-20
        journal.append("event", event, ts_ms=1)
    journal.flush()
    fold = recovery.restore

    def fold_then_a_new_server_starts(*args: Any, **kwargs: Any) -> recovery.Restored:
        restored = fold(*args, **kwargs)  # the taker's fold, records 1-20
        server = Journal.open(db)  # a new server: damage accepted from record 7, then records of its own
        server.set_aside(7, "damaged")
        for event in _funded("b", 10, 2):  # records 7-26
            server.append("event", event, ts_ms=2)
        server.flush()
        server.close()
        return restored

    monkeypatch.setattr(recovery, "restore", fold_then_a_new_server_starts)
    with pytest.raises(SnapshotError, match=r"rewound \(at \[7\]\) after records up to 20 were folded"):
        take_snapshot(journal)
    monkeypatch.undo()
    assert journal.rewinds() == [7] and snapshots.newest_seq(journal._conn) == 0
    balances = {name: account.balance for name, account in restore(journal).exchange.accounts.items()}
    assert balances == _balances_folded(journal) and "a7" not in balances
    journal.close()


def test_a_snapshot_past_a_lost_tail_is_not_loaded_once_the_journal_grows_past_it(tmp_path: Path) -> None:
    db = str(tmp_path / "ex.db")
    journal = Journal.open(db)
    journal.check()
    for event in _funded("a", 10, 1):  # records 1-20, acknowledged: the durable mark says 20
        journal.append("event", event, ts_ms=1)
    journal.flush()
    reset_mark(db, 20)
    saved, _ = take_snapshot(journal)
    assert saved is not None and saved.seq == 20
    journal._conn.execute("DELETE FROM journal WHERE seq > 12")  # the tail lost (a -wal gone), the snapshot not
    journal.close()
    journal = Journal.open(db)
    assert "8 acknowledged records are missing" in " ".join(journal.check(accept_damaged=True).accepted)
    assert restore(journal).snapshot_seq == 0
    for event in _funded("b", 10, 2):  # the journal carries on: records 13-32
        journal.append("event", event, ts_ms=2)
    journal.flush()
    again = restore(journal)
    balances = {name: account.balance for name, account in again.exchange.accounts.items()}
    assert balances == _balances_folded(journal)
    assert "a7" not in balances and balances["b9"] == 109
    journal.close()


class _Crash(BaseException):
    """The process dying at that point (nothing after it runs; an open transaction is rolled back)."""


def test_a_crash_while_records_are_set_aside_never_reports_them_as_lost_acknowledged_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, the records were moved and committed first and the durable mark reset after: a crash between
    left a mark (20) ahead of the journal (6), and the next start refused it, saying 14 acknowledged records
    were lost (restore from a backup), when they had been set aside as damaged. The mark is reset first now:
    a crash in between leaves the journal as it was, and the next start finds the same damaged record."""
    db = str(tmp_path / "ex.db")
    journal = Journal.open(db)
    journal.check()
    for event in _funded("a", 10, 1):  # records 1-20, acknowledged: the durable mark says 20
        journal.append("event", event, ts_ms=1)
    journal.flush()
    journal._conn.execute("""UPDATE journal SET body = '{"type":"Deposit"}' WHERE seq = 7""")

    def crash(path: str, seq: int) -> None:
        raise _Crash

    monkeypatch.setattr(journal_module, "reset_mark", crash)
    with pytest.raises(_Crash):
        restore(journal, accept_damaged=True)
    journal.close()
    monkeypatch.undo()
    journal = Journal.open(db)
    journal.check()  # (before: JournalDamaged, "14 acknowledged records are missing")
    with pytest.raises(JournalDamaged) as damaged:
        restore(journal)
    assert damaged.value.first_bad == 7
    restored = restore(journal, accept_damaged=True)  # accepted again: set aside this time, and the mark with them
    assert restored.last_seq == 7 and "14 records from seq 7" in restored.summary()
    journal.close()
    assert read_mark(db) == 6
    assert Journal.open(db).check().accepted == ()


def test_a_crash_after_an_accepted_loss_still_notes_the_rewind_at_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Accepting lost records resets the mark and notes that the journal numbers from its end again (the rewind,
    which keeps statement refIds unique). Before, the mark was reset first: a crash before the rewind was noted
    left a journal that looked whole, and the records numbered again took the lost ones' refIds."""
    db = str(tmp_path / "ex.db")
    journal = Journal.open(db)
    journal.check()
    for event in _funded("a", 10, 1):  # records 1-20, acknowledged
        journal.append("event", event, ts_ms=1)
    journal.flush()
    journal._conn.execute("DELETE FROM journal WHERE seq > 12")  # the tail lost (a -wal gone)
    journal.close()

    def crash(self: Journal, first_seq: int) -> None:
        raise _Crash

    journal = Journal.open(db)
    monkeypatch.setattr(Journal, "_note_rewind", crash)
    with pytest.raises(_Crash):
        journal.check(accept_damaged=True)
    journal.close()
    monkeypatch.undo()
    journal = Journal.open(db)
    assert "8 acknowledged records are missing" in " ".join(journal.check(accept_damaged=True).accepted)
    assert journal._conn.execute("SELECT first_seq FROM journal_rewinds").fetchall() == [(13,)]
    journal.close()


def test_records_are_not_set_aside_while_others_wait_to_be_written(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "ex.db"))
    for event in _funded("a", 3, 1):
        journal.append("event", event, ts_ms=1)
    with pytest.raises(RuntimeError, match=r"none set aside while others are on their way to the database \(to 6\)"):
        journal.set_aside(2, "damaged")
    journal.flush()
    assert journal.set_aside(2, "damaged") == 5 and journal.last_seq == 2  # 2: the ids of 2-6 skipped
    journal.close()
