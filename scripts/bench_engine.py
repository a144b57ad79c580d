"""Benchmark the Hold'em/Omaha engine against peer evaluators driven by a plain Python loop.

    python scripts/bench_engine.py [--repeats 7] [--peer-repeats 3]

Workloads (ours through the public API, after one warm-up call):

* batched 7-card evaluation (``evaluate_batch`` on 10M random uint8 hands);
* exact four-hand Hold'em equity preflop (AsKs QdQc 7h6h 2c2d, 1,086,008 boards);
* the same four hands on the flop Ah7c2s (820 boards);
* exact four-hand Omaha equity preflop (376,992 boards).

Each installed peer (phevaluator, eval7, treys, pokerkit) runs the same
workloads as a Python loop: evaluate every hand on every board, count wins.
Slow peers run on a random sample of hands or boards and the time is scaled
up to the full workload; the output says so. Figures are the median, min and
max of the repeats (wall clock); CPU time is shown too because the machine may
be shared. Ratios are peer median / our median, for wall and for CPU time.
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
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

import engine
from engine.cards import Card, parse_cards
from engine.evaluator import evaluate_batch
from exchange.cli.options import positive

HOLDEM_HANDS = ("As Ks", "Qd Qc", "7h 6h", "2c 2d")
FLOP = "Ah 7c 2s"
OMAHA_HANDS = ("As Ks Qh Jh", "Qd Qc 9c 8d", "7h 6h 5s 4s", "2c 2d 3h 3d")
BATCH_HANDS = 10_000_000


@dataclass(frozen=True)
class Timing:
    """Seconds for the full workload (scaled up when ``scale`` > 1)."""

    wall: list[float]
    cpu: list[float]
    scale: float = 1.0
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.wall) * self.scale

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu) * self.scale

    def describe(self, unit: Callable[[float], str]) -> str:
        lo, hi = min(self.wall) * self.scale, max(self.wall) * self.scale
        return f"median {unit(self.median)} (min {unit(lo)}, max {unit(hi)}; cpu median {unit(self.cpu_median)})"


def measure(work: Callable[[], object], repeats: int, scale: float = 1.0, note: str = "") -> Timing:
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        work()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return Timing(wall, cpu, scale, note)


def ms(seconds: float) -> str:
    """Milliseconds below ten seconds, else seconds."""
    return f"{seconds * 1e3:.3f} ms" if seconds < 10 else f"{seconds:,.1f} s"


# --------------------------------------------------------------------------- peers: card conversion and evaluation


@dataclass(frozen=True)
class Peer:
    """A peer library: how to convert a card, and strength functions where higher is better."""

    name: str
    card: Callable[[Card], Any]
    holdem: Callable[[Sequence[Any], Sequence[Any]], Any]
    omaha: Callable[[Sequence[Any], Sequence[Any]], Any]
    omaha_note: str = ""


def load_peers() -> list[Peer]:
    """The installed peers, in the order they are reported; a missing library is skipped."""
    loaders = (phevaluator_peer, eval7_peer, treys_peer, pokerkit_peer)
    return [peer for peer in (load() for load in loaders) if peer is not None]


def phevaluator_peer() -> Peer | None:
    """phevaluator: card ids as ours; lower is stronger, so strengths are negated."""
    try:
        from phevaluator import evaluate_cards, evaluate_omaha_cards
    except ImportError:
        return None
    return Peer(
        "phevaluator",
        lambda c: c.id,
        lambda hole, board: -evaluate_cards(*hole, *board),
        lambda hole, board: -evaluate_omaha_cards(*board, *hole),
    )


def eval7_peer() -> Peer | None:
    """eval7: no Omaha evaluator, so Omaha is the best of the 60 two-plus-three five-card hands."""
    try:
        import eval7
    except ImportError:
        return None

    def eval7_omaha(hole: Sequence[Any], board: Sequence[Any]) -> int:
        return max(eval7.evaluate([*two, *three]) for two in combinations(hole, 2) for three in combinations(board, 3))

    return Peer(
        "eval7",
        lambda c: eval7.Card(str(c)),
        lambda hole, board: eval7.evaluate([*hole, *board]),
        eval7_omaha,
        "no Omaha evaluator: max of 60 five-card evaluations",
    )


def treys_peer() -> Peer | None:
    """treys: one evaluator object per game; lower is stronger, so strengths are negated."""
    try:
        from treys import Card as TreysCard
        from treys import Evaluator, PLOEvaluator
    except ImportError:
        return None
    holdem_evaluator, plo_evaluator = Evaluator(), PLOEvaluator()
    return Peer(
        "treys",
        lambda c: TreysCard.new(str(c)),
        lambda hole, board: -holdem_evaluator.evaluate(list(board), list(hole)),
        lambda hole, board: -plo_evaluator.evaluate(list(hole), list(board)),
    )


def pokerkit_peer() -> Peer | None:
    """pokerkit: hand objects that compare by strength."""
    try:
        from pokerkit import Card as PokerkitCard
        from pokerkit import OmahaHoldemHand, StandardHighHand
    except ImportError:
        return None
    return Peer(
        "pokerkit",
        lambda c: next(iter(PokerkitCard.parse(str(c)))),
        lambda hole, board: StandardHighHand.from_game(hole, board),
        lambda hole, board: OmahaHoldemHand.from_game(hole, board),
    )


def loop_equity(
    strength: Callable[..., Any], holes: Sequence[Sequence[Any]], boards: Sequence[Sequence[Any]]
) -> list[int]:
    """The plain loop: every hand on every board; count outright wins and tied boards."""
    wins = [0] * len(holes)
    tied = 0
    for board in boards:
        values = [strength(hole, board) for hole in holes]
        best = max(values)
        if values.count(best) == 1:
            wins[values.index(best)] += 1
        else:
            tied += 1
    return [*wins, tied]


# Samples per peer: (7-card hands, preflop boards, Omaha boards); the flop always runs all 820 boards.
SAMPLES = {
    "phevaluator": (300_000, 100_000, 40_000),
    "eval7": (300_000, 100_000, 1_000),
    "treys": (30_000, 10_000, 2_000),
    "pokerkit": (3_000, 500, 100),
}


def random_boards(deck: Sequence[Card], count: int, size: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(deck, size)) for _ in range(count)]


def remaining(hands: Sequence[str], board: str = "") -> list[Card]:
    used = {c for h in hands for c in parse_cards(h)} | set(parse_cards(board))
    return [Card(i) for i in range(52) if Card(i) not in used]


def bench_peer(peer: Peer, hands7: np.ndarray, flop_counts: list[int], ours: dict[str, Timing], repeats: int) -> None:
    """Time the four workloads through ``peer`` and print them with the ratio to ours."""
    n7, n_pre, n_omaha = SAMPLES.get(peer.name, (10_000, 1_000, 100))
    conv = {Card(i): peer.card(Card(i)) for i in range(52)}
    seven = [[conv[Card(c)] for c in row] for row in hands7[:n7].tolist()]
    holes = [[conv[c] for c in parse_cards(h)] for h in HOLDEM_HANDS]
    omaha_holes = [[conv[c] for c in parse_cards(h)] for h in OMAHA_HANDS]
    pre = [[conv[c] for c in b] for b in random_boards(remaining(HOLDEM_HANDS), n_pre, 5, seed=2)]
    known = parse_cards(FLOP)
    flop = [[conv[c] for c in (*known, *extra)] for extra in combinations(remaining(HOLDEM_HANDS, FLOP), 2)]
    omaha = [[conv[c] for c in b] for b in random_boards(remaining(OMAHA_HANDS), n_omaha, 5, seed=3)]
    strength = peer.holdem
    omaha_note = f"; {peer.omaha_note}" if peer.omaha_note else ""
    runs = {
        "batch": measure(
            lambda: [strength(h[:2], h[2:]) for h in seven],
            repeats,
            BATCH_HANDS / n7,
            f"{n7:,} hands, scaled x{BATCH_HANDS / n7:,.0f}",
        ),
        "preflop": measure(
            lambda: loop_equity(strength, holes, pre),
            repeats,
            1_086_008 / n_pre,
            f"{n_pre:,} random boards, scaled x{1_086_008 / n_pre:,.1f}",
        ),
        "flop": measure(lambda: loop_equity(strength, holes, flop), repeats, 1.0, "all 820 boards"),
        "omaha": measure(
            lambda: loop_equity(peer.omaha, omaha_holes, omaha),
            repeats,
            376_992 / n_omaha,
            f"{n_omaha:,} random boards, scaled x{376_992 / n_omaha:,.1f}{omaha_note}",
        ),
    }
    agrees = loop_equity(strength, holes, flop) == flop_counts
    print(f"\n### {peer.name} (flop counts agree with ours: {agrees})")
    labels = {
        "batch": "7-card evaluation, 10M hands",
        "preflop": "holdem preflop equity",
        "flop": "holdem flop equity",
        "omaha": "omaha preflop equity",
    }
    for name, label in labels.items():
        t = runs[name]
        ratio, cpu_ratio = t.median / ours[name].median, t.cpu_median / ours[name].cpu_median
        print(f"{label:30s} {t.describe(ms)}; ratio {ratio:,.0f}x (cpu {cpu_ratio:,.0f}x)  [{t.note}]")


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=positive, default=7, help="repeats of our workloads (default 7)")
    parser.add_argument("--peer-repeats", type=positive, default=3, help="repeats of each peer loop (default 3)")
    args = parser.parse_args()

    import numba

    print(
        f"# bench_engine: {time.strftime('%Y-%m-%d %H:%M')}  python {platform.python_version()}  "
        f"numpy {np.__version__}  numba {numba.__version__}  cpus {os.cpu_count()}  "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )

    rng = np.random.default_rng(1)
    hands7 = np.argpartition(rng.random((BATCH_HANDS, 52), dtype=np.float32), 6, axis=1)[:, :7].astype(np.uint8)
    workloads: dict[str, tuple[Callable[[], object], int]] = {
        "batch": (lambda: evaluate_batch(hands7), max(3, args.repeats // 2)),
        "preflop": (lambda: engine.equity("holdem", HOLDEM_HANDS), args.repeats),
        "flop": (lambda: engine.equity("holdem", HOLDEM_HANDS, board=FLOP), args.repeats * 10),
        "omaha": (lambda: engine.equity("omaha", OMAHA_HANDS), args.repeats),
    }
    ours: dict[str, Timing] = {}
    for name, (work, repeats) in workloads.items():
        work()  # warm-up: numba loads its cached kernels, tables load
        ours[name] = measure(work, repeats)

    print("\n## ours (engine, public API)")
    rate, cpu_rate = BATCH_HANDS / ours["batch"].median, BATCH_HANDS / ours["batch"].cpu_median
    print(
        f"batched 7-card evaluation, {BATCH_HANDS:,} hands: {ours['batch'].describe(ms)}"
        f"  -> {rate / 1e6:,.0f} M hands/s (per cpu second: {cpu_rate / 1e6:,.0f} M)"
    )
    print(f"holdem preflop exact, 4 hands, 1,086,008 boards: {ours['preflop'].describe(ms)}")
    print(f"holdem flop {FLOP} exact, 4 hands, 820 boards:   {ours['flop'].describe(ms)}")
    print(f"omaha preflop exact, 4 hands, 376,992 boards:    {ours['omaha'].describe(ms)}")

    ours_flop = engine.equity("holdem", HOLDEM_HANDS, board=FLOP)
    flop_counts = [h.wins for h in ours_flop.results] + [ours_flop.boards - sum(h.wins for h in ours_flop.results)]

    print("\n## peers (plain Python loop; ratio = peer median / our median, wall and cpu)")
    for peer in load_peers():
        bench_peer(peer, hands7, flop_counts, ours, args.peer_repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
