"""Benchmark: games per second of a backtest with the house liquidity and one example strategy.

Times :func:`exchange.backtest.runner.run_backtest` end to end — games,
Parquet tables and stream files written to a temporary directory, pool start
and shutdown included — on 1 and on 2 local worker processes, and prints wall
time min / median / max over the repeats, the games per second they give, and
the CPU time per game of all processes (the figure that does not depend on
whatever else the machine is running)::

    python scripts/bench_backtest.py                      # 1,000 games, market maker, 3 repeats
    python scripts/bench_backtest.py --games 200 --repeats 1 --strategy scripts/flop_mover.py:FlopMover
    python scripts/bench_backtest.py --sessions 10        # the same 1,000 games as 10 sessions of 100, and alone

The default strategy is ``scripts/market_maker.py:MarketMaker`` of the checkout this script is in (the
repository root), wherever it is run from; a ``--strategy`` file given relative is found from the current folder.

With ``--sessions K`` every repeat times the games twice, interleaved: as
one-game worlds and as K sessions of ``games / K`` games each (one world, one
account and one strategy instance per session), so the per-game figures of the
two can be compared under the same load.

The equity engine's JIT compilation is warmed up once before timing (worker
processes are forked from the warmed parent).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exchange.backtest.loading import StrategyLoadError, StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.strategy import Strategy
from exchange.backtest.workers import make_executor
from exchange.cli.options import positive, whole_number

ROOT = Path(__file__).resolve().parents[1]
#: The strategy timed when none is given: the example market maker of this script's own checkout.
DEFAULT_STRATEGY = "scripts/market_maker.py:MarketMaker"


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process, and of its children that have exited (the pool's workers, once shut down)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def time_once(config: BacktestConfig, workers: int) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds of all processes, and of this (the merging) process, for one backtest.

    Pool start and shutdown are included.
    """
    with tempfile.TemporaryDirectory() as tmp:
        (own, children), start = _cpu(), time.perf_counter()
        with make_executor(workers) as executor:
            run_backtest(config, executor, Path(tmp))
        wall = time.perf_counter() - start
        own_after, children_after = _cpu()
        return wall, own_after - own + children_after - children, own_after - own


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, StrategySpec]:
    """The command line, and the strategy it names, loaded and built once: bad input is refused on one line
    before anything is timed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive, default=1000, help="games a backtest plays (default 1000)")
    parser.add_argument("--seed", type=whole_number, default=1, help="the backtests' seed (default 1)")
    parser.add_argument("--strategy", default=None, metavar="FILE.py:CLASS|MODULE:CLASS",
                        help=f"the strategy timed (default {DEFAULT_STRATEGY} of this script's checkout, the "
                             f"repository root {ROOT}, wherever it is run from)")
    parser.add_argument("--params", default="{}", help="the strategy's keyword parameters, a JSON object "
                                                       "(default {})")
    parser.add_argument("--workers", type=positive, nargs="+", default=[1, 2],
                        help="local worker process counts, each timed in turn (default 1 2)")
    parser.add_argument("--repeats", type=positive, default=3, help="timed backtests of each kind (default 3)")
    parser.add_argument("--no-streams", action="store_true", help="skip the Betfair stream files (default: write "
                                                                  "them)")
    parser.add_argument("--sessions", type=positive, default=None, metavar="K",
                        help="also time the games as K sessions of games/K games (interleaved with one-game "
                             "worlds); K must divide --games (default: one-game worlds only)")
    args = parser.parse_args(argv)
    if args.sessions is not None and args.games % args.sessions:
        parser.error(f"argument --sessions: must divide --games ({args.games}), not {args.sessions}")
    file, _, name = DEFAULT_STRATEGY.partition(":")
    reference = f"{ROOT / file}:{name}" if args.strategy is None else args.strategy
    args.strategy = args.strategy or DEFAULT_STRATEGY  # as the report names it
    try:
        spec = StrategySpec.parse(reference, args.params)
        if not isinstance(spec.build(), Strategy):  # a wrong class or params fail here, not after the warm-up
            raise StrategyLoadError(f"{args.strategy} is not a subclass of exchange.backtest.strategy.Strategy")
    except StrategyLoadError as exc:
        parser.error(str(exc))
    except (SyntaxError, ImportError) as exc:  # a strategy file that cannot run, or a module it needs
        parser.error(f"strategy {args.strategy!r}: {exc}")
    return args, spec


def main(argv: list[str] | None = None) -> int:
    args, spec = parse_args(argv)
    config = BacktestConfig(strategy=spec, games=args.games, seed=args.seed, record_streams=not args.no_streams)
    modes = {"worlds": config}
    if args.sessions is not None:
        modes["sessions"] = replace(config, games_per_session=args.games // args.sessions)
    time_once(BacktestConfig(strategy=spec, games=2, seed=args.seed), 1)  # compile the equity kernels

    shape = "" if args.sessions is None else f" (and as {args.sessions} sessions of {args.games // args.sessions})"
    print(f"backtest of {args.games} games{shape}, {args.strategy}, house maker + noise, "
          f"streams {'off' if args.no_streams else 'on'}; {args.repeats} repeat(s)")  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print("mode     workers | wall s min / median / max | games/s wall (max / median / min) | CPU ms/game all | parent")
    for workers in args.workers:
        runs: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in modes}
        for _ in range(args.repeats):
            for mode, mode_config in modes.items():
                runs[mode].append(time_once(mode_config, workers))
        for mode in modes:
            print(_line(mode, workers, runs[mode], args.games))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _line(mode: str, workers: int, runs: list[tuple[float, float, float]], games: int) -> str:
    walls = sorted(wall for wall, _, _ in runs)
    cpu = statistics.median(c for _, c, _ in runs)
    parent = statistics.median(p for _, _, p in runs)
    best, median, worst = walls[0], statistics.median(walls), walls[-1]
    return (f"{mode:<8} {workers:>7} | {best:6.2f} / {median:6.2f} / {worst:6.2f} | "
            f"{games / best:6.1f} / {games / median:6.1f} / {games / worst:6.1f} | "
            f"{1000 * cpu / games:15.1f} | {1000 * parent / games:6.1f}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
