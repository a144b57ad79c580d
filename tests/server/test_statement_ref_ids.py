"""A statement item's ``refId`` names one item over the account's whole history, even after an operator accepted a
damaged journal and the journal numbered its next records with the numbers of the ones it lost or set aside.

A client that stored the refIds it was shown (to read the statement incrementally, or to reconcile) must never
meet a different item under a refId it already has; the refIds of the records that remain do not change.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

from exchange.server.journal import Journal
from exchange.server.statement_index import Item, StatementIndex
from tests.server.test_statement_index import ACCOUNTS, KINDS, _history, _write


def _everything(index: StatementIndex) -> dict[str, dict[str, Item]]:
    """Every account's items by refId (no refId twice within one reading)."""
    out: dict[str, dict[str, Item]] = {}
    for account in ACCOUNTS:
        items, more = index.page(account, KINDS["ALL"], None, None, 0, 100_000)
        assert not more
        out[account] = {i.ref_id: i for i in items}
        assert len(out[account]) == len(items), account
    return out


def _remember(seen: dict[str, dict[str, Item]], now: dict[str, dict[str, Item]]) -> None:
    """What a client that kept every item it was shown holds; no refId may come back as another item."""
    for account, items in now.items():
        for ref_id, item in items.items():
            earlier = seen.setdefault(account, {}).setdefault(ref_id, item)
            assert earlier == item, (account, ref_id, earlier, item)


def _last_seq(path: Path) -> int:
    conn = sqlite3.connect(path)
    (last,) = conn.execute("SELECT MAX(seq) FROM journal").fetchone()
    conn.close()
    return int(last)


def _lose_tail(path: Path, count: int) -> None:
    """The journal's last ``count`` records vanish (as with a lost -wal) while the durable mark still counts them;
    the operator starts with the damage accepted."""
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM journal WHERE seq > ?", (_last_seq(path) - count,))
    conn.commit()
    conn.close()
    journal = Journal.open(str(path))
    assert journal.check(accept_damaged=True).accepted
    journal.close()


def test_ref_ids_stay_unique_across_records_set_aside_and_lost(tmp_path: Path) -> None:
    rng = random.Random(3)
    path = tmp_path / "ex.db"
    history = _history(rng, 1_700_000_000_000, 300, 0)
    _write(path, history)
    index = StatementIndex(str(path))
    seen: dict[str, dict[str, Item]] = {}
    first = _everything(index)
    _remember(seen, first)

    ts = history[-1][0]
    first_damaged = _last_seq(path) - 80
    for round_ in range(2):  # damaged records set aside at a start, twice, their numbers used again each time
        more = _history(rng, ts + 1_000, 120, 1_000 * (round_ + 1))
        _write(path, more, set_aside_from=_last_seq(path) - 80)
        ts = more[-1][0]
        _remember(seen, _everything(index))

    _lose_tail(path, 60)  # acknowledged records lost at the end, the loss accepted
    more = _history(rng, ts + 1_000, 120, 5_000)
    _write(path, more)
    _remember(seen, _everything(index))
    index.close()

    Path(index.index_path).unlink()  # rebuilt from the journal, the index gives every item the same refId
    rebuilt = StatementIndex(str(path))
    _remember(seen, _everything(rebuilt))
    rebuilt._check()
    rebuilt.close()
    # the records before the first damage keep the refIds they had
    final = _everything(StatementIndex(str(path)))
    untouched = {(a, r): i for a, items in first.items() for r, i in items.items()
                 if int(r.removesuffix("-c")) < first_damaged}
    assert len(untouched) > 50 and all(final[a].get(r) == i for (a, r), i in untouched.items())


def test_a_new_database_and_a_clean_restart_record_no_rewind(tmp_path: Path) -> None:
    """refIds stay the plain record numbers while nothing was lost: a first start and a clean one change nothing."""
    path = tmp_path / "ex.db"

    async def start() -> None:
        journal = Journal.open(str(path))
        journal.check()
        journal.start()
        journal.append("event", {"type": "AccountCredited", "ts": 1, "account_id": "alice", "amount": 500,
                                 "reason": "deposit"}, ts_ms=1)
        await journal.sync()
        await journal.stop()
        journal.close()

    asyncio.run(start())
    asyncio.run(start())
    index = StatementIndex(str(path))
    assert [i.ref_id for i in index.page("alice", KINDS["ALL"], None, None, 0, 10)[0]] == ["2", "1"]
    index.close()
