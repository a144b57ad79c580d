"""Benchmark the exchange core's order flow against a bare order book.

Usage::

    python scripts/bench_exchange.py [--ops 200000] [--repeats 5] [--seed 1] [--profile]

One seeded stream of operations on one market with four selections (``--selections N``, 2 to 8), from 50
funded accounts: about 60 % passive limit orders (resting near the touch),
30 % crossing orders (taking one or more resting orders), 10 % cancels of a
recent order.  The stream is generated up front (as a driver would receive
it: commands already built) and fed to

* ``exchange``: :class:`exchange.core.exchange.Exchange` through ``execute(command)``,
  with validation, exposure checks, accounts, and every event created and
  returned (the loop counts them and drops them, as a driver that writes its
  journal out would; ``--keep-journal`` keeps them all in a list instead);
* ``bare``: a minimal book — price levels in a ``sortedcontainers.SortedDict``
  of ``deque``\\ s per side and selection, lazy cancels, no accounts, no
  events, no validation.

Each is timed ``--repeats`` times (alternating); min / median / max of
operations per second are printed, by wall clock and by CPU time of the
process (steadier on a shared machine), with the ratio of medians.
``--no-gc`` disables the garbage collector during the timed loops (a
diagnostic: the collector's share of the cost).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sortedcontainers import SortedDict

from exchange.cli.options import positive
from exchange.core import ladder
from exchange.core.commands import CancelOrder, Command, CreateMarket, Deposit, OpenAccount, OpenMarket, PlaceOrder
from exchange.core.events import Event, Matched, OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side

#: The most selections a market is benchmarked with (``--selections``, default 4 as Exchange Poker).
MAX_SELECTIONS = 8
MARKET = "1.1"

# An operation: ("P", account, selection index, is_back, tick, size) or ("C", account, bet_id).
Place = tuple[Literal["P"], int, int, bool, int, int]
Cancel = tuple[Literal["C"], int, int]
Op = Place | Cancel


def generate(n: int, seed: int, accounts: int, selections: int = 4) -> list[Op]:
    """A seeded operation stream on ``selections`` selections; bet ids are predicted (every placement is accepted)."""
    rng = random.Random(seed)
    mids = [120 + 25 * i for i in range(selections)]
    owners: list[int] = []
    ops: list[Op] = []
    for _ in range(n):
        r = rng.random()
        sel = rng.randrange(selections)
        if rng.random() < 0.02:
            mids[sel] = max(30, min(320, mids[sel] + rng.choice((-1, 1))))
        mid = mids[sel]
        if r < 0.10 and owners:
            bet_id = rng.randrange(max(0, len(owners) - 500), len(owners)) + 1
            ops.append(("C", owners[bet_id - 1], bet_id))
            continue
        account = rng.randrange(accounts)
        is_back = rng.random() < 0.5
        if r < 0.40:  # crossing: reaches into the other side's resting orders
            k = rng.randint(1, 3)
            tick = mid - k if is_back else mid - 1 + k
            size = rng.randint(200, 6000)
        else:  # passive: rests on its own side of the mid
            k = rng.randint(0, 8)
            tick = mid + k if is_back else mid - 1 - k
            size = rng.randint(200, 3000)
        owners.append(account)
        ops.append(("P", account, sel, is_back, tick, size))
    return ops


def to_commands(ops: Sequence[Op], selections: int = 4) -> tuple[list[Command], list[Command]]:
    """(setup commands, timed commands) for the exchange: one market of ``selections`` selections 1, 2, ..."""
    selection_ids = tuple(range(1, selections + 1))
    names = [f"acct{i:02d}" for i in range(max(op[1] for op in ops) + 1)]
    setup: list[Command] = []
    for name in names:
        setup += [OpenAccount(0, name), Deposit(0, name, 10**12)]
    setup += [CreateMarket(0, MARKET, selection_ids), OpenMarket(0, MARKET)]
    timed: list[Command] = []
    for ts, op in enumerate(ops, start=1):
        if op[0] == "P":
            _, account, sel, is_back, tick, size = op
            timed.append(
                PlaceOrder(
                    ts, names[account], MARKET, selection_ids[sel],
                    Side.BACK if is_back else Side.LAY, ladder.PRICES[tick], size,
                )
            )  # fmt: skip
        else:
            timed.append(CancelOrder(ts, names[op[1]], op[2]))
    return setup, timed


def run_exchange(
    setup: Sequence[Command], timed: Sequence[Command], keep_journal: bool = False
) -> tuple[float, float, int, Exchange]:
    """(wall seconds, CPU seconds, events produced, the exchange) for one timed run."""
    ex = Exchange()
    for cmd in setup:
        ex.execute(cmd)
    execute = ex.execute
    gc.collect()
    if keep_journal:
        journal: list[Event] = []
        append = journal.extend
        wall, cpu = time.perf_counter(), time.process_time()
        for cmd in timed:
            append(execute(cmd))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return wall, cpu, len(journal), ex
    events = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for cmd in timed:
        events += len(execute(cmd))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, events, ex


class BareBook:
    """The baseline: SortedDict of deques per side and selection, lazy cancels, nothing else."""

    def __init__(self, selections: int) -> None:
        self.backs: list[SortedDict] = [SortedDict() for _ in range(selections)]  # resting backs, best = lowest
        self.lays: list[SortedDict] = [SortedDict() for _ in range(selections)]  # resting lays, best = highest
        # Resting size by (is_back, tick); a cancel reads is_back back from the order's int list as 0 or 1,
        # the same key as False or True.
        self.sizes: list[dict[tuple[int, int], int]] = [{} for _ in range(selections)]
        self.orders: dict[int, list[int]] = {}  # bet id -> [unmatched size, tick, is_back, selection index]
        self.next_id = 1
        self.fills = 0

    def place(self, sel: int, is_back: bool, tick: int, size: int) -> int:
        oid = self.next_id
        self.next_id += 1
        order = [size, tick, is_back, sel]
        self.orders[oid] = order
        book = self.lays[sel] if is_back else self.backs[sel]
        sizes = self.sizes[sel]
        while size and book:
            t, q = book.peekitem(-1) if is_back else book.peekitem(0)
            if (t < tick) if is_back else (t > tick):
                break
            key = (not is_back, t)
            while size:
                r = q[0]
                if not r[0]:
                    q.popleft()
                    continue
                m = r[0] if r[0] < size else size
                r[0] -= m
                size -= m
                sizes[key] -= m
                self.fills += 1
                if not r[0]:
                    q.popleft()
                if not sizes[key]:
                    break
            if not sizes[key]:
                del book[t]
        order[0] = size
        if size:
            own = self.backs[sel] if is_back else self.lays[sel]
            q = own.get(tick)
            if q is None:
                q = own[tick] = deque()
            q.append(order)
            sizes[(is_back, tick)] = sizes.get((is_back, tick), 0) + size
        return oid

    def cancel(self, oid: int) -> bool:
        order = self.orders.get(oid)
        if order is None or not order[0]:
            return False
        size, tick, is_back, sel = order
        order[0] = 0
        sizes = self.sizes[sel]
        sizes[(is_back, tick)] -= size
        if not sizes[(is_back, tick)]:
            del (self.backs[sel] if is_back else self.lays[sel])[tick]
        return True


def run_bare(ops: Sequence[Op]) -> tuple[float, float, BareBook]:
    """(wall seconds, CPU seconds, the book) for one timed run."""
    book = BareBook(MAX_SELECTIONS)
    place = book.place
    cancel = book.cancel
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    for op in ops:
        if op[0] == "P":
            place(op[2], op[3], op[4], op[5])
        else:
            cancel(op[2])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, book


@dataclass(frozen=True)
class Flow:
    """What one untimed run of the stream did: the exchange's journal, checked against the bare book."""

    journal: list[Event]
    places: int
    matches: list[Matched]
    rejected: list[OrderRejected]
    takers: int


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=positive, default=200_000)
    parser.add_argument("--repeats", type=positive, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--accounts", type=positive, default=50)
    parser.add_argument("--selections", type=int, default=4, choices=range(2, MAX_SELECTIONS + 1),
                        help="selections in the market (default 4, as Exchange Poker)")
    parser.add_argument("--profile", action="store_true", help="profile one exchange run instead of timing")
    parser.add_argument("--keep-journal", action="store_true", help="keep every event in a list while timing")
    parser.add_argument("--no-gc", action="store_true", help="disable the garbage collector while timing")
    return parser.parse_args(argv)


def profile(setup: Sequence[Command], timed: Sequence[Command]) -> None:
    """Print the 15 functions with the most own time in one exchange run."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    run_exchange(setup, timed)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def check_flow(ops: Sequence[Op], setup: Sequence[Command], timed: Sequence[Command]) -> Flow:
    """Run the stream once untimed through both, keeping the journal.

    Asserts the exchange's invariants, that the only refusals are cancels of
    orders already gone, and that the exchange and the bare book fill alike.
    """
    ex = Exchange()
    journal: list[Event] = []
    for cmd in setup:
        ex.execute(cmd)
    for cmd in timed:
        journal.extend(ex.execute(cmd))
    ex._check()
    bare = BareBook(MAX_SELECTIONS)
    for op in ops:
        if op[0] == "P":
            bare.place(op[2], op[3], op[4], op[5])
        else:
            bare.cancel(op[2])
    places = sum(1 for op in ops if op[0] == "P")
    matches = [e for e in journal if isinstance(e, Matched)]
    rejected = [e for e in journal if isinstance(e, OrderRejected)]
    assert all(e.error_code == "BET_TAKEN_OR_LAPSED" for e in rejected), rejected[:3]
    assert len(matches) == bare.fills, (len(matches), bare.fills)
    takers = len({e.back_bet_id if e.taker_side is Side.BACK else e.lay_bet_id for e in matches})
    return Flow(journal, places, matches, rejected, takers)


def time_runs(
    ops: Sequence[Op], setup: Sequence[Command], timed: Sequence[Command], args: argparse.Namespace, events: int
) -> dict[str, list[float]]:
    """Operations per second, wall and CPU, of ``--repeats`` alternating exchange and bare-book runs."""
    rates: dict[str, list[float]] = {"exchange": [], "bare book": [], "exchange cpu": [], "bare book cpu": []}
    if args.no_gc:
        gc.disable()
    for _ in range(args.repeats):
        wall, cpu, produced, _ex = run_exchange(setup, timed, args.keep_journal)
        assert produced == events
        rates["exchange"].append(len(timed) / wall)
        rates["exchange cpu"].append(len(timed) / cpu)
        wall, cpu, _bare = run_bare(ops)
        rates["bare book"].append(len(ops) / wall)
        rates["bare book cpu"].append(len(ops) / cpu)
    gc.enable()
    return rates


def report(ops: Sequence[Op], flow: Flow, rates: dict[str, list[float]], args: argparse.Namespace) -> None:
    """Print the stream's shape, then min / median / max rates and the ratio of medians, wall and CPU."""
    print(f"operations: {len(ops):,} ({flow.places:,} placements, {len(ops) - flow.places:,} cancels), "
          f"{args.accounts} accounts, {args.selections} selections")  # fmt: skip
    print(f"orders that took liquidity: {flow.takers:,} ({flow.takers / len(ops):.0%} of operations); "
          f"fills: {len(flow.matches):,}")  # fmt: skip
    print(f"events per run: {len(flow.journal):,}; cancels refused (already filled/cancelled): {len(flow.rejected):,}")
    print(f"journal kept in memory: {args.keep_journal}; garbage collector: {'off' if args.no_gc else 'on'}")
    for clock in ("wall clock", "CPU time"):
        suffix = "" if clock == "wall clock" else " cpu"
        print(f"{clock}:")
        for name in ("exchange", "bare book"):
            r = rates[name + suffix]
            print(
                f"  {name:>10}: median {statistics.median(r):>10,.0f} ops/s"
                f"   (min {min(r):,.0f}, max {max(r):,.0f}, {len(r)} repeats)"
            )
        ratio = statistics.median(rates["exchange" + suffix]) / statistics.median(rates["bare book" + suffix])
        print(f"       ratio: exchange / bare = {ratio:.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    ops = generate(args.ops, args.seed, args.accounts, args.selections)
    setup, timed = to_commands(ops, args.selections)
    if args.profile:
        profile(setup, timed)
        return 0
    flow = check_flow(ops, setup, timed)
    rates = time_runs(ops, setup, timed, args, len(flow.journal))
    report(ops, flow, rates, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
