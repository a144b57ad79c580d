"""Records set aside at a start (damage accepted) take every snapshot that holds them along: no later start loads
their effects back, whatever snapshot the start that set them aside passed over."""

from __future__ import annotations

from pathlib import Path

from exchange.core.commands import Deposit, OpenAccount
from exchange.core.events import Event, event_from_dict
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.server.journal import Journal
from exchange.server.journal_check import reset_mark
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
    assert restored.snapshot_seq == 0 and restored.last_seq == 6 and "14 records from seq 7" in restored.summary()
    for event in _funded("b", 10, 2):  # the journal carries on: records 7-26
        journal.append("event", event, ts_ms=2)
    journal.flush()
    again = restore(journal)  # a start with the snapshot's config again
    balances = {name: account.balance for name, account in again.exchange.accounts.items()}
    assert balances == _balances_folded(journal)
    assert "a5" not in balances and balances["b9"] == 109
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
