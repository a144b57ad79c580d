"""Benchmark: complete exchange games per second on the virtual clock.

Each game: one house market maker (3 levels a side on every live hand,
requoting after every reveal and every fill), two noise traders, and a simple
strategy (backs the favourite at the best price once per window, 100 ms
latency); the game's equities (``exchange.game.equities.game_equities``) at
every reveal. A hi/lo channel's house quotes both markets. Prints min / median
/ max over repeats of games per second of wall time and per second of this
process's CPU time (the fairer figure on a shared machine, where the wall rate
also measures the other processes), the share of the CPU time spent in the
equity engine, and the slowest single equity computation.

    python scripts/bench_game.py [--games 40] [--repeats 5] [--channel holdem]
    python scripts/bench_game.py --all  # every channel
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any

from engine.cards import Card
from exchange.agents.host import seat
from exchange.agents.house import NoiseTrader, seat_house_makers
from exchange.agents.trader import Agent, Trader
from exchange.agents.view import BettorView
from exchange.cli.options import positive
from exchange.clock import VirtualClock
from exchange.core.events import Matched, OrderPlaced
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import CHANNELS, get_channel
from exchange.game.deal import seeded_decks
from exchange.game.equities import GameProspects, game_equities
from exchange.game.events import Stamped


class BackTheFavourite(Agent):
    """The simple strategy: once per window, back the likeliest live hand at the best price."""

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        live = [h for h in view.live_hands if h.best_to_back is not None]
        if live:
            best = max(live, key=lambda h: h.equity)
            assert best.best_to_back is not None
            trader.place(best.hand, Side.BACK, best.best_to_back, 500)


class Timed:
    """Wraps the equity function to measure the time spent in it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.slowest = 0.0

    def __call__(
        self, variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card], **draws: Any
    ) -> GameProspects:
        start = time.process_time()
        try:
            return game_equities(variant, hands, board, **draws)
        finally:
            took = time.process_time() - start
            self.seconds += took
            self.slowest = max(self.slowest, took)
            self.calls += 1


def run(channel_name: str, games: int, seed: int) -> tuple[float, float, Timed, dict[str, int]]:
    """Play ``games`` games; returns (wall seconds, CPU seconds, equity timer, counts)."""
    clock = VirtualClock()
    timed = Timed()
    channel = Channel(get_channel(channel_name), clock, Exchange(), decks=seeded_decks(seed), equities=timed)
    counts = {"events": 0, "orders": 0, "fills": 0}

    def count(stamped: Stamped) -> None:
        counts["events"] += 1
        if isinstance(stamped.event, OrderPlaced):
            counts["orders"] += 1
        elif isinstance(stamped.event, Matched):
            counts["fills"] += 1

    channel.subscribe(count)
    channel.open_account("house-maker", 10**10)
    seat_house_makers(channel, "house-maker")
    for i in range(2):
        channel.open_account(f"noise-{i}", 10**8)
        seat(channel, NoiseTrader(seed=f"{seed}/{i}"), f"noise-{i}")
    channel.open_account("strategy", 10**7)
    seat(channel, BackTheFavourite(), "strategy", latency_ms=100)
    channel.start(at_ms=0, games=games)
    start, start_cpu = time.perf_counter(), time.process_time()
    clock.run()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    assert channel.games_finished == games
    return elapsed, cpu, timed, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive, default=40)
    parser.add_argument("--repeats", type=positive, default=5)
    parser.add_argument("--channel", default="holdem", choices=sorted(CHANNELS), help="the channel (default holdem)")
    parser.add_argument("--all", action="store_true", help="every channel in turn")
    args = parser.parse_args(argv)
    for name in CHANNELS if args.all else [args.channel]:
        bench(name, args.games, args.repeats)
    return 0


def bench(name: str, games: int, repeats: int) -> None:
    run(name, 2, seed=-1)  # warm-up: load the engine's tables and compiled kernels
    rates, cpu_rates, shares, slowest = [], [], [], []
    counts: dict[str, int] = {}
    for repeat in range(repeats):
        elapsed, cpu, timed, counts = run(name, games, seed=repeat)
        rates.append(games / elapsed)
        cpu_rates.append(games / cpu)
        shares.append(timed.seconds / cpu)
        slowest.append(timed.slowest)
    print(f"channel {name}: {games} games x {repeats} repeats, virtual clock, one core")
    for label, values in (("games/s (wall)", rates), ("games/CPU-s", cpu_rates)):
        median = statistics.median(values)
        print(
            f"{label:15} min {min(values):.1f}  median {median:.1f}  max {max(values):.1f}"
            f"   (per game {1000 / median:.1f} ms)"
        )
    print(f"equity engine share of the CPU time: median {100 * statistics.median(shares):.0f}%; "
          f"slowest single equity computation {1000 * max(slowest):.1f} ms")
    print(
        f"per game (last repeat): {counts['events'] / games:.0f} events, "
        f"{counts['orders'] / games:.0f} orders placed, {counts['fills'] / games:.1f} fills"
    )


if __name__ == "__main__":
    sys.exit(main())
