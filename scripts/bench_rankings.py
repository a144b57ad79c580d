"""Benchmark every ranking, the showdown and four-hand equity for the games beyond Hold'em/Omaha.

    python scripts/bench_rankings.py [--repeats 5] [--hands 1000000]

Workloads, each after one warm-up call (so numba compilation is not timed):

* batched keys (``engine.rankings.fast.keys_batch``, numba) over random hands of
  each ranking's pack: five cards for every ranking, plus best-of-7 for the
  standard high and eight-or-better low, best-of-6 for Telesina;
* the scalar Python API (``Ranking.evaluate``, one call per five-card hand);
* ``engine.showdown`` for four 7-card Stud Hi/Lo hands;
* four-hand equity through ``engine.equity`` at typical points of each game.

Figures are evaluations (or calls) per second: median, min and max over the
repeats, wall clock; CPU time is shown too because the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

import engine
from engine.rankings import AMERICANA, DEUCE_TO_SEVEN, DRAW32, EIGHT_OR_BETTER, HIGH, SOKO, TELESINA, Ranking
from engine.rankings.fast import keys_batch
from exchange.cli.options import positive

EQUITY_CASES = (
    ("omaha-hilo", ("As 2d Kh Kc", "Ac 3h Qd Qs", "4c 5d 6h 7h", "Jc Jd Tc Th"), "", "preflop, exact"),
    ("omaha-hilo", ("As 2d Kh Kc", "Ac 3h Qd Qs", "4c 5d 6h 7h", "Jc Jd Tc Th"), "8s 9s 2c", "flop, exact"),
    ("stud7", ("As Ad Kc Kd 2h 3h", "9c Tc Jc Qc 2c 4d", "5s 5d 5h 7c 8c Td", "6s 6d 7s 8s 9h Th"), "", "6th street"),
    ("stud7", ("As Ad Kc", "9c Tc Jc", "5s 5d 5h", "2c 3d 4h"), "", "3rd street, sampled"),
    ("stud7-hilo", ("As 2d 3c Kd", "9c Tc Jc Qc", "4s 5s 6c 7d", "Ks Kh 8d 8h"), "", "4th street, sampled"),
    ("soko", ("As Ks 9s 4s", "Qc Qd 8h 5c", "7d 8d 9c Tc", "2h 2s 3c 3d"), "", "4th card, exact"),
    ("soko", ("As Ks 9s", "Qc Qd 8h", "7d 8d 9c", "2h 2s 3c"), "", "3rd card, sampled"),
    ("americana", ("Ah 7c 8d 9s", "Th Jc Qd Ks", "7h 7d 8c 9h", "Ac Ad Kh Qh"), "", "4th card, exact"),
    ("telesina", ("Ah Qc 9d 8s", "Ad Kc 9h 8c", "Tc Td Jh Js", "Ac As Kh Qh"), "", "4th card + vela, exact"),
    ("telesina", ("Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d", "Tc Td Jh Js 7c", "Ac As Kh Qh 9s"), "", "vela to come"),
)


def measure(work: Callable[[], object], repeats: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        work()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return wall, cpu


def rate_line(name: str, count: int, wall: list[float], cpu: list[float], unit: str) -> str:
    rates = sorted(count / w for w in wall)
    cpu_rate = count / statistics.median(cpu)
    return (
        f"| {name} | {statistics.median(rates):,.0f} | {rates[0]:,.0f} | {rates[-1]:,.0f} | {cpu_rate:,.0f} | {unit} |"
    )


def random_hands(ranking: Ranking, n: int, size: int, rng: random.Random) -> np.ndarray:
    deck = [c.id for c in ranking.deck.cards()]
    return np.array([rng.sample(deck, size) for _ in range(n)], dtype=np.int64)


def evaluate_each(ranking: Ranking, hands: Sequence[Sequence[int]]) -> list[object]:
    """The scalar API once per hand (what one timed repeat of the scalar rows does)."""
    return [ranking.evaluate(hand) for hand in hands]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=positive, default=5)
    parser.add_argument("--hands", type=positive, default=1_000_000, help="hands per batched workload")
    parser.add_argument("--scalar-hands", type=positive, default=20_000)
    args = parser.parse_args()
    rng = random.Random(2024)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus, load {load:.1f}")
    print(f"# repeats {args.repeats}; rates are per second: median, min, max (wall) and median per CPU-second\n")

    print("| batched keys (numba) | median | min | max | per CPU-s | unit |")
    print("|---|---|---|---|---|---|")
    workloads = [(r, 5) for r in (HIGH, EIGHT_OR_BETTER, DEUCE_TO_SEVEN, SOKO, AMERICANA, TELESINA, DRAW32)]
    workloads += [(HIGH, 7), (EIGHT_OR_BETTER, 7), (TELESINA, 6)]
    for ranking, size in workloads:
        hands = random_hands(ranking, args.hands, size, rng)
        keys_batch(ranking.code, hands[:10])
        wall, cpu = measure(partial(keys_batch, ranking.code, hands), args.repeats)
        label = f"{ranking.name}, {'5 cards' if size == 5 else f'best of {size}'}"
        print(rate_line(label, len(hands), wall, cpu, "hands"), flush=True)

    print("\n| scalar Python API | median | min | max | per CPU-s | unit |")
    print("|---|---|---|---|---|---|")
    for ranking in (HIGH, EIGHT_OR_BETTER, DEUCE_TO_SEVEN, SOKO, AMERICANA, TELESINA, DRAW32):
        rows: list[list[int]] = random_hands(ranking, args.scalar_hands, 5, rng).tolist()
        ranking.evaluate(rows[0])
        wall, cpu = measure(partial(evaluate_each, ranking, rows), args.repeats)
        print(rate_line(f"{ranking.name} `evaluate`", len(rows), wall, cpu, "hands"), flush=True)
    deals = [rng.sample(range(52), 28) for _ in range(2_000)]
    seats = [[d[7 * i : 7 * i + 7] for i in range(4)] for d in deals]
    engine.showdown("stud7-hilo", seats[0])
    wall, cpu = measure(lambda: [engine.showdown("stud7-hilo", s) for s in seats], args.repeats)
    print(rate_line("`showdown`, four stud7-hilo hands", len(seats), wall, cpu, "showdowns"), flush=True)

    print("\n| four-hand equity (`engine.equity`) | deals | exact | median s | min s | max s | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for variant, texts, board, note in EQUITY_CASES:
        result = engine.equity(variant, list(texts), board, seed=1)
        wall, cpu = measure(partial(engine.equity, variant, list(texts), board, seed=1), args.repeats)
        print(
            f"| {variant}: {note} | {result.boards:,} | {result.exact} | {statistics.median(wall):.3f} "
            f"| {min(wall):.3f} | {max(wall):.3f} | {statistics.median(cpu):.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
