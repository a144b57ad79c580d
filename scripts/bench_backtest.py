"""Benchmark: games per second of a backtest with the house liquidity and one example strategy.

Times :func:`exchange.backtest.runner.run_backtest` end to end — games,
Parquet tables and stream files written to a temporary directory — on 1 and on
2 local worker processes, and prints min / median / max over the repeats::

    python scripts/bench_backtest.py                      # 1,000 games, market maker, 3 repeats
    python scripts/bench_backtest.py --games 200 --repeats 1 --strategy scripts/flop_mover.py:FlopMover

The equity engine's JIT compilation is warmed up once before timing (worker
processes are forked from the warmed parent).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import make_executor


def time_once(config: BacktestConfig, workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp, make_executor(workers) as executor:
        start = time.perf_counter()
        run_backtest(config, executor, Path(tmp))
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strategy", default="scripts/market_maker.py:MarketMaker")
    parser.add_argument("--params", default="{}")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-streams", action="store_true", help="skip the Betfair stream files")
    args = parser.parse_args(argv)

    spec = StrategySpec.parse(args.strategy, args.params)
    config = BacktestConfig(strategy=spec, games=args.games, seed=args.seed, record_streams=not args.no_streams)
    time_once(BacktestConfig(strategy=spec, games=2, seed=args.seed), 1)  # compile the equity kernels

    print(f"backtest of {args.games} games, {args.strategy}, house maker + noise, "
          f"streams {'off' if args.no_streams else 'on'}; {args.repeats} repeat(s)")  # fmt: skip
    print(f"{'workers':>7}  {'min s':>7}  {'median s':>8}  {'max s':>7}  {'games/s (best)':>14}  "
          f"{'games/s (median)':>16}")
    for workers in args.workers:
        times = [time_once(config, workers) for _ in range(args.repeats)]
        best, median, worst = min(times), statistics.median(times), max(times)
        print(f"{workers:>7}  {best:7.2f}  {median:8.2f}  {worst:7.2f}  {args.games / best:14.1f}  "
              f"{args.games / median:16.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
