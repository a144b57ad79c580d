"""``exchange-poker journal``'s searches of the audit trail as the journal grows.

A journal is written from a real exchange's events: ``--markets`` markets of four selections, each with 100
placements from 200 funded accounts (about 200 records a market: the placements, their fills and lapses, the
settlement), as a live server's journal holds them. Then each search is run as the command runs it (in this
process, its output counted and dropped), timed as the median of ``--repeats`` runs:

* ``account``: one account's records (the journal's text searched for its name first, then each found judged);
* ``bet``: one bet's records;
* ``market + type``: one market's fills;
* ``every record``: the whole journal, each record checked and decoded;
* ``last 20``: the last 20 records (read from the end back);
* ``last 20 of an account``: the last 20 of one account's;
* ``20 after a late time``: the first 20 records at or after a time nine tenths of the way through (``--since``);
* ``a tenth by time``: the records of a tenth of the journal's time, in its middle (``--since`` / ``--until``).

    python scripts/bench_journal.py [--markets 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's exchange, not an installed copy

from exchange.cli import main as cli
from exchange.cli.options import positive
from exchange.core.commands import (
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SuspendMarket,
)
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.server.journal import Journal

ACCOUNTS = tuple(f"trader-{i}" for i in range(200))
PRICES = tuple(Decimal(p) for p in ("3", "3.5", "4", "4.5", "5"))
START_MS = 1_796_000_000_000
PLACEMENTS = 100  # a market's placements
STEP_MS = 10  # between two placements
Written = OpenAccount | Deposit | CreateMarket | OpenMarket | PlaceOrder | SuspendMarket | SettleMarket


def write(path: Path, markets: int, seed: int = 1) -> int:
    """A journal of ``markets`` markets' trading; the number of records."""
    rng = random.Random(seed)
    journal, exchange, written, ts = Journal.open(str(path)), Exchange(), 0, 0
    commands: list[Written] = [c for a in ACCOUNTS for c in (OpenAccount(0, a), Deposit(0, a, 10**9))]
    for m in range(markets):
        market = f"holdem.{m}"
        commands += [CreateMarket(ts, market, (1, 2, 3, 4)), OpenMarket(ts, market)]
        for _ in range(PLACEMENTS):
            ts += STEP_MS
            commands.append(PlaceOrder(ts, rng.choice(ACCOUNTS), market, rng.randint(1, 4),
                                       rng.choice((Side.BACK, Side.LAY)), rng.choice(PRICES), rng.randint(2, 50) * 100))
        commands += [SuspendMarket(ts, market), SettleMarket(ts, market, (rng.randint(1, 4),))]
        for command in commands:
            for event in exchange.execute(command):
                journal.append("event", event, ts_ms=START_MS + command.ts)
                written += 1
        commands = []
        journal.flush()
    journal.close()
    return written


def timed(argv: Sequence[str], repeats: int) -> tuple[float, int]:
    """The median seconds of ``exchange-poker journal ARGV`` over ``repeats`` runs, and the lines it printed."""
    seconds, lines = [], 0
    for _ in range(repeats):
        out = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = cli(["journal", *argv])
        seconds.append(time.perf_counter() - start)
        if code != 0:
            raise SystemExit(f"exchange-poker journal {' '.join(argv)} ended with status {code}")
        lines = out.getvalue().count("\n")
    return statistics.median(seconds), lines


def _at(markets: int, share: float) -> str:
    """The time ``share`` of the way through the journal :func:`write` makes, as ``--since`` takes it."""
    ms = START_MS + round(markets * PLACEMENTS * STEP_MS * share)
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markets", type=positive, default=2000, help="markets in the journal (default 2000)")
    parser.add_argument("--repeats", type=positive, default=5, help="runs of each search (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "exchange.db"
        start = time.perf_counter()
        records = write(db, args.markets)
        print(f"journal: {records:,} records of {args.markets:,} markets, written in "
              f"{time.perf_counter() - start:.1f} s")
        searches = {
            "account": ["--account", "trader-7"],
            "bet": ["--bet", str(args.markets * 50)],
            "market + type": ["--market", f"holdem.{args.markets - 1}", "--type", "Matched"],
            "every record": [],
            "last 20": ["--last", "20"],
            "last 20 of an account": ["--account", "trader-7", "--last", "20"],
            "20 after a late time": ["--since", _at(args.markets, 0.9), "--limit", "20"],
            "a tenth by time": ["--since", _at(args.markets, 0.45), "--until", _at(args.markets, 0.55)],
        }
        print(f"{'search':<24}{'median s':>10}{'records':>10}   ({args.repeats} runs each)")
        for name, options in searches.items():
            seconds, lines = timed(["--db", str(db), *options], args.repeats)
            print(f"{name:<24}{seconds:>10.3f}{lines:>10,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
