"""``python -m exchange.server serve|accounts ...``: the server's own commands without the rest of the CLI."""

from __future__ import annotations

import argparse
import sys

from exchange.cli import accounts, serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m exchange.server")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve.register(subparsers)
    accounts.register(subparsers)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
