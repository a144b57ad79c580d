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

from exchange.cli.options import fail, one_line_errors

# Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS = ("equity", "showdown", "play", "serve", "accounts", "backtest", "replay")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; given a known ``command``, only that subcommand is registered, so a command
    imports only what it uses (``serve`` does not load pyarrow for ``backtest`` and ``replay``)."""
    parser = argparse.ArgumentParser(prog="exchange-poker", description="Exchange Poker simulator")
    one_line_errors(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (command,) if command in SUBCOMMANDS else SUBCOMMANDS:
        importlib.import_module(f"exchange.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if args.command is None:
        fail(f"give a command: {', '.join(SUBCOMMANDS[:-1])} or {SUBCOMMANDS[-1]} "
              "('exchange-poker COMMAND --help' lists its options)")
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
