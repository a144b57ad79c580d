"""Benchmark: what the snapshot taker spends on a core with a thousand closed markets kept.

Builds, on the core alone (the flow of ``scripts/core_memory.py``: four-selection
markets, ``--orders`` random orders each from six accounts, then settled),
``--markets`` markets with ``keep_closed_markets = --keep``, and prints min /
median / max CPU seconds over ``--repeats`` of:

* ``state_digest()`` of the state freshly loaded from a snapshot whose cleared
  orders carry no digest (written live, or before digests were carried: the
  digest reads every account's packed cleared orders), and from one whose
  cleared orders carry theirs (the snapshot taker's steady state);
* the snapshot's ``dump`` and ``load``;
* ``exchange.server.snapshots.save`` into an in-memory SQLite of each of those
  two states: what the taker process does once it has folded the journal (the
  state's digest, the dump, the reload and its digest, the checks).

CPU seconds (``time.process_time``) rather than wall time, so other work on the
machine counts less; nothing is written to disk.

    python scripts/bench_snapshot.py --markets 1100 --orders 120 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core_memory import play_market

from exchange.cli.options import positive
from exchange.core import snapshot
from exchange.core.commands import Deposit, OpenAccount
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.server import snapshots
from exchange.server.ended_markets import EndedMarkets
from exchange.server.kept_results import KeptResults
from exchange.server.notes import MarketNotes


def build(markets: int, keep: int, orders: int) -> Exchange:
    """The core after ``markets`` markets of ``orders`` orders each, ``keep`` closed ones kept (seeded)."""
    rng = random.Random(1)
    ex = Exchange(ExchangeConfig(keep_closed_markets=keep))
    accounts = [f"a{i}" for i in range(6)]
    for account in accounts:
        ex.execute(OpenAccount(0, account))
        ex.execute(Deposit(0, account, 10**12))
    ts = 0
    for n in range(1, markets + 1):
        ts = play_market(ex, rng, f"1.{n}", accounts, orders, ts)
    return ex


def timed(run: Callable[[], object], repeats: int) -> list[float]:
    seconds = []
    for _ in range(repeats):
        started = time.process_time()
        run()
        seconds.append(time.process_time() - started)
    return seconds


def save(data: bytes) -> None:
    """The taker's save, of the state loaded from ``data`` (packed, as the taker's restored state mostly is)."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(snapshots.SCHEMA)
    snapshots.save(conn, 1, snapshot.load(data), MarketNotes(), KeptResults(), EndedMarkets(0))
    conn.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markets", type=positive, default=1100)
    parser.add_argument("--keep", type=positive, default=1000, help="closed markets kept (keep_closed_markets)")
    parser.add_argument("--orders", type=positive, default=120, help="orders a market")
    parser.add_argument("--repeats", type=positive, default=5)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    ex = build(args.markets, args.keep, args.orders)
    data = snapshot.dump(ex)  # cleared orders packed without their digests
    digested = snapshot.load(data)
    digested.state_digest()
    carried = snapshot.dump(digested)  # ... and with them
    ex = snapshot.load(data)
    print(f"{args.markets} markets, {args.keep} kept closed, {len(ex.cleared):,} cleared orders, "
          f"{len(data) / 1e6:.1f} MB snapshot (built in {time.perf_counter() - started:.0f} s); "
          f"CPU seconds, min / median / max of {args.repeats}")
    rows: list[tuple[str, Callable[[], object]]] = [
        ("load + state_digest, no digests carried", lambda: snapshot.load(data).state_digest()),
        ("load + state_digest, digests carried", lambda: snapshot.load(carried).state_digest()),
        ("dump", lambda: snapshot.dump(ex)),
        ("load", lambda: snapshot.load(data)),
        ("save, no digests carried", lambda: save(data)),
        ("save, digests carried (the taker's steady state)", lambda: save(carried)),
    ]
    for name, run in rows:
        seconds = timed(run, args.repeats)
        print(f"{name:50} {min(seconds):6.3f} / {statistics.median(seconds):6.3f} / {max(seconds):6.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
