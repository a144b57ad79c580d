"""``exchange-poker compare DIR DIR ...``: backtests side by side, each against the first game by game.

    exchange-poker backtest --strategy scripts/market_maker.py:MarketMaker --games 500 --seed 1 --out out/edge0
    exchange-poker backtest --strategy scripts/market_maker.py:MarketMaker --params '{"edge_ticks": 1}' \\
        --games 500 --seed 1 --out out/edge1
    exchange-poker compare out/edge0 out/edge1

Prints each run's games, matched volume, net P&L, ROI and net P&L per game with its standard error, then each
run's difference from the first per game. Backtests with the same channel, seed and irregularity rate were
dealt the same games, so the difference is taken game by game (paired): the luck of the cards cancels out and
its standard error is a fraction of either run's. Others are compared on their means alone (unpaired).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from exchange.cli.commands import SUMMARIES
from exchange.cli.options import fail, help_text, one_line_errors


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("compare", help=SUMMARIES["compare"],
                                   description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", type=Path, nargs="+", metavar="DIR",
                        help="backtests' output folders (backtest --out); the first is the one the others are "
                             "measured against")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from exchange.backtest.compare import CompareError, compare, report

    for folder in args.dirs:
        if not folder.is_dir():
            what = "a file, not a folder" if folder.exists() else "no such folder"
            fail(f"{folder}: {what}; give backtests' output folders (their --out)")
    try:
        runs, differences = compare(args.dirs)
    except (CompareError, OSError, ValueError) as exc:
        fail(str(exc))
    print(report(runs, differences))
    return 0
