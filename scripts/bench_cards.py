"""Benchmark the Python side of a card: ``Card.rank`` and ``Card.suit``, alone and in a hot loop.

    python scripts/bench_cards.py [--repeats 7] [--loops 20000]

Workloads (each ``loops`` times over the 52 cards, after one warm-up pass):

* ``card.rank`` and ``card.suit`` read on every card;
* :func:`exchange.game.lowcheck.low_ranks` of four Omaha hands plus a board, a
  Python loop the game runs at every Hi/Lo reveal that reads ``rank`` per card.

Printed: nanoseconds per card (per call for ``low_ranks``), median, min and max
over the repeats on the wall clock, and the CPU-time median (the machine may be shared).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cards import deck52, parse_cards
from exchange.cli.options import positive
from exchange.game.lowcheck import low_ranks


def measure(work: Callable[[], object], repeats: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    work()
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        work()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=positive, default=7)
    parser.add_argument("--loops", type=positive, default=20_000)
    args = parser.parse_args()
    cards = deck52()
    loops = range(args.loops)
    hands = [parse_cards(h) for h in ("As 2d Kh Kc", "Ac 3h Qd Qs", "4c 5d 6h 7h", "Jc Jd Tc Th", "8s 9s 2c 5s 7d")]

    def ranks() -> None:
        for _ in loops:
            for card in cards:
                card.rank  # noqa: B018 (the read is the work)

    def suits() -> None:
        for _ in loops:
            for card in cards:
                card.suit  # noqa: B018

    low_loops = max(1, args.loops // 10)  # low_ranks is slower: a tenth of the loops, at least one

    def lows() -> None:
        for _ in range(low_loops):
            for hand in hands:
                low_ranks(hand)

    print(f"python {platform.python_version()}, {args.loops:,} loops x 52 cards, {args.repeats} repeats")
    print(f"{'workload':<34} {'median':>9} {'min':>9} {'max':>9} {'CPU median':>11}  unit")
    for name, work, count in (("Card.rank", ranks, args.loops * 52), ("Card.suit", suits, args.loops * 52),
                              ("low_ranks (4-5 cards)", lows, low_loops * len(hands))):
        wall, cpu = measure(work, args.repeats)
        per = [1e9 * t / count for t in wall]
        print(f"{name:<34} {statistics.median(per):>9.1f} {min(per):>9.1f} {max(per):>9.1f} "
              f"{1e9 * statistics.median(cpu) / count:>11.1f}  ns per {'card' if 'Card' in name else 'call'}")


if __name__ == "__main__":
    main()
