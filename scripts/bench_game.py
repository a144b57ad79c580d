"""Benchmark: complete exchange games per second on the virtual clock.

Each game: one house market maker (3 levels a side on every live hand,
requoting after every reveal and every fill), two noise traders, and a simple
strategy (backs the favourite at the best price once per window, 100 ms
latency); exact equities from ``engine.equity`` at every street. Prints
min / median / max over repeats, and the share of time spent in the equity
engine.

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

from engine.cards import Card  # noqa: E402
from exchange.agents import Agent, Trader  # noqa: E402
from exchange.channels import get_channel  # noqa: E402
from exchange.clock import VirtualClock  # noqa: E402
from exchange.core import Exchange  # noqa: E402
from exchange.events import Matched, OrderPlaced  # noqa: E402
from exchange.game.channel import Channel  # noqa: E402
from exchange.game.deal import seeded_decks  # noqa: E402
from exchange.game.equities import exact_equities  # noqa: E402
from exchange.game.events import Stamped  # noqa: E402
from exchange.game.prospects import Prospects  # noqa: E402
from exchange.house import MarketMaker, NoiseTrader  # noqa: E402
from exchange.side import Side  # noqa: E402
from exchange.view import BettorView  # noqa: E402


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
        start = time.perf_counter()
        try:
            return exact_equities(variant, hands, board)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def run(channel_name: str, games: int, seed: int) -> tuple[float, Timed, dict[str, int]]:
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
    channel.attach(MarketMaker(), "house-maker")
    for i in range(2):
        channel.open_account(f"noise-{i}", 10**8)
        channel.attach(NoiseTrader(seed=f"{seed}/{i}"), f"noise-{i}")
    channel.open_account("strategy", 10**7)
    channel.attach(BackTheFavourite(), "strategy", latency_ms=100)
    channel.start(at_ms=0, games=games)
    start = time.perf_counter()
    clock.run()
    elapsed = time.perf_counter() - start
    assert channel.games_finished == games
    return elapsed, timed, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--channel", default="holdem", help="holdem, holdem-turbo or omaha")
    args = parser.parse_args(argv)
    run(args.channel, 2, seed=-1)  # warm-up: load the engine's tables and compiled kernels
    rates, shares = [], []
    counts: dict[str, int] = {}
    for repeat in range(args.repeats):
        elapsed, timed, counts = run(args.channel, args.games, seed=repeat)
        rates.append(args.games / elapsed)
        shares.append(timed.seconds / elapsed)
    print(f"channel {args.channel}: {args.games} games x {args.repeats} repeats, virtual clock, one core")
    print(
        f"games/s  min {min(rates):.1f}  median {statistics.median(rates):.1f}  max {max(rates):.1f}"
        f"   (per game {1000 / statistics.median(rates):.1f} ms)"
    )
    print(f"equity engine share of the time: median {100 * statistics.median(shares):.0f}%")
    print(
        f"per game (last repeat): {counts['events'] / args.games:.0f} events, "
        f"{counts['orders'] / args.games:.0f} orders placed, {counts['fills'] / args.games:.1f} fills"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
