"""The ``exchange-poker`` command line.

Each subcommand lives in a module of this package that exposes
``register(subparsers)``; the parser calls the function stored as the
subcommand's ``run`` default with the parsed arguments and exits with its code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS = ("equity", "showdown", "play", "serve", "accounts", "backtest", "replay")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="exchange-poker", description="Exchange Poker simulator")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"exchange.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
