"""Benchmark: complete exchange games per second on the virtual clock.

Each game: one house market maker (3 levels a side on every live hand,
requoting after every reveal and every fill), two noise traders, and a simple
strategy (backs the favourite at the best price once per window, 100 ms
latency); exact equities from ``engine.equity`` at every street. Prints
min / median / max over repeats of games per second of wall time and per
second of this process's CPU time (the fairer figure on a shared machine,
where the wall rate also measures the other processes), and the share of the
CPU time spent in the equity engine.

    python scripts/bench_game.py [--games 40] [--repeats 5] [--channel holdem]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cards import Card
from exchange.agents.host import seat
from exchange.agents.house import MarketMaker, NoiseTrader
from exchange.agents.trader import Agent, Trader
from exchange.agents.view import BettorView
from exchange.clock import VirtualClock
from exchange.core.events import Matched, OrderPlaced
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import get_channel
from exchange.game.deal import seeded_decks
from exchange.game.equities import exact_equities
from exchange.game.events import Stamped
from exchange.game.prospects import Prospects


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

    def __call__(self, variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Prospects:
        start = time.process_time()
        try:
            return exact_equities(variant, hands, board)
        finally:
            self.seconds += time.process_time() - start
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
    seat(channel, MarketMaker(), "house-maker")
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
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--channel", default="holdem", help="holdem, holdem-turbo or omaha")
    args = parser.parse_args(argv)
    run(args.channel, 2, seed=-1)  # warm-up: load the engine's tables and compiled kernels
    rates, cpu_rates, shares = [], [], []
    counts: dict[str, int] = {}
    for repeat in range(args.repeats):
        elapsed, cpu, timed, counts = run(args.channel, args.games, seed=repeat)
        rates.append(args.games / elapsed)
        cpu_rates.append(args.games / cpu)
        shares.append(timed.seconds / cpu)
    print(f"channel {args.channel}: {args.games} games x {args.repeats} repeats, virtual clock, one core")
    for label, values in (("games/s (wall)", rates), ("games/CPU-s", cpu_rates)):
        median = statistics.median(values)
        print(
            f"{label:15} min {min(values):.1f}  median {median:.1f}  max {max(values):.1f}"
            f"   (per game {1000 / median:.1f} ms)"
        )
    print(f"equity engine share of the CPU time: median {100 * statistics.median(shares):.0f}%")
    print(
        f"per game (last repeat): {counts['events'] / args.games:.0f} events, "
        f"{counts['orders'] / args.games:.0f} orders placed, {counts['fills'] / args.games:.1f} fills"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
