"""getAccountStatement's cost as the journal grows: the whole-journal scan it used to make against its index.

For each journal size, a journal of that many records is written (one in five a money movement of one of 50
accounts, the rest orders, as a live server's journal holds them), then timed, each as the median of
``--repeats`` runs:

* ``scan``: the statement read the way it was before the index: every movement record of the journal read and
  folded for one account, then its newest page cut (what each call cost);
* ``index first``: a fresh index built from the whole journal (once per journal, ever: the first call);
* ``index page``: a page of 100 from an index up to date (every later call), at ``fromRecord`` 0 and 1000;
* ``index +100``: a page after 100 more records were committed (the usual call on a live server).

    python scripts/bench_statement.py [--sizes 20000 100000 300000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's exchange, not an installed copy

from exchange.cli.options import positive
from exchange.core.events import AccountCredited, AccountResult, MarketSettled
from exchange.server import jsoncodec
from exchange.server.journal import Journal
from exchange.server.statement_index import StatementIndex, movements

ACCOUNTS = tuple(f"trader-{i}" for i in range(50))
KINDS = ("DEPOSIT", "WITHDRAWAL", "RESULT", "COMMISSION")


def _write(path: Path, count: int, seq0: int, rng: random.Random) -> None:
    async def write() -> None:
        journal = Journal.open(str(path))
        journal.start()
        for i in range(count):
            ts = 1_700_000_000_000 + (seq0 + i) * 10
            roll = rng.random()
            if roll < 0.02:
                journal.append("event", AccountCredited(ts, rng.choice(ACCOUNTS), 10_000, "deposit"), ts_ms=ts)
            elif roll < 0.2:
                results = tuple(AccountResult(a, rng.randint(-500, 500), rng.choice((0, 5)))
                                for a in rng.sample(ACCOUNTS, 3))
                journal.append("event", MarketSettled(ts, f"holdem.{seq0 + i}", (1,), (), results, 0, "house"),
                               ts_ms=ts)
            else:
                journal.append("event", {"type": "OrderPlaced", "ts": ts, "bet_id": seq0 + i}, ts_ms=ts)
            if i % 5_000 == 4_999:
                await journal.sync()
        await journal.sync()
        await journal.stop()
        journal.close()

    asyncio.run(write())


def _scan(path: Path, account: str) -> int:
    """The statement as each call read it before the index: the movement records folded, the newest page cut."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    types = ("AccountCredited", "AccountDebited", "MarketSettled", "MarketVoided")
    rows = conn.execute("SELECT seq, ts_ms, body FROM journal WHERE kind = 'event' AND ("
                        + " OR ".join(f"body LIKE '{{\"type\":\"{t}\"%'" for t in types) + ") ORDER BY seq").fetchall()
    conn.close()
    balance, items = 0, []
    for seq, ts, body in rows:
        for who, _, amount, kind, _ in movements(jsoncodec.loads(body)):
            if who == account:
                balance += amount
                items.append((seq, ts, amount, balance, kind))
    return len(list(reversed(items))[:100])


def _median_ms(run: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=positive, nargs="+", default=[20_000, 100_000, 300_000])
    parser.add_argument("--repeats", type=positive, default=5)
    args = parser.parse_args()
    print(f"{'records':>8} {'what':<22} {'median ms':>10} {'min':>8} {'max':>8}")
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            for what, (median, low, high) in _bench(Path(folder) / "ex.db", size, args.repeats):
                print(f"{size:>8} {what:<22} {median:>10.2f} {low:>8.2f} {high:>8.2f}")


def _bench(path: Path, size: int, repeats: int) -> list[tuple[str, tuple[float, float, float]]]:
    rng = random.Random(size)
    _write(path, size, 0, rng)
    account = ACCOUNTS[0]
    rows = [("scan (before)", _median_ms(lambda: _scan(path, account), repeats))]

    def first() -> None:
        Path(f"{path}-statement").unlink(missing_ok=True)
        fresh = StatementIndex(str(path))
        fresh.page(account, KINDS, None, None, 0, 100)
        fresh.close()

    rows.append(("index first (build)", _median_ms(first, max(1, repeats // 2))))
    index = StatementIndex(str(path))
    index.page(account, KINDS, None, None, 0, 100)
    rows.append(("index page 0", _median_ms(lambda: index.page(account, KINDS, None, None, 0, 100), repeats)))
    rows.append(("index page from 1000", _median_ms(lambda: index.page(account, KINDS, None, None, 1000, 100),
                                                    repeats)))
    added = []
    for r in range(repeats):
        _write(path, 100, size + 100 * r, rng)
        added.append(_median_ms(lambda: index.page(account, KINDS, None, None, 0, 100), 1)[0])
    rows.append(("index +100 records", (statistics.median(added), min(added), max(added))))
    index.close()
    return rows

if __name__ == "__main__":
    main()
