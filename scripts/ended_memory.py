"""What the server's memory of forgotten markets' endings costs: bytes a remembered market.

Usage::

    python scripts/ended_memory.py [--games 260] [--keep 100]

Runs an in-process server on a virtual clock (one Hold'em channel, the house
market maker and noise traders, short windows) with ``keep_closed_markets =
--keep`` for ``--games`` games, so that the store of endings
(:mod:`exchange.server.ended_markets`) holds ``--keep`` markets, then prints
its size: every object it reaches, each counted once, less classes, modules
and functions (shared with the rest of the process): the markets remembered,
their bytes, and the bytes a market. The store holds only the markets the
exchange has forgotten, the games beyond the newest ``--keep``: ``--games``
must be more than ``--keep`` (twice it, or more, fills the store).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import types
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiohttp.test_utils import TestClient, TestServer

from exchange.cli.options import positive
from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.fallback_equities import river_only_equities

_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def deep_size(root: object) -> int:
    """Bytes of ``root`` and of everything it reaches, each object once (classes, modules, functions left out)."""
    seen: set[int] = set()
    stack, total = [root], 0
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, _SHARED):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        stack.extend(gc.get_referents(item))
    return total


async def measure(games: int, keep: int, folder: Path) -> tuple[int, int]:
    """``(markets remembered, bytes)`` after ``games`` games."""
    clock = VirtualClock(start_ms=1_767_225_600_000)
    config = ServerConfig(db_path=str(folder / "ex.db"), window_ms=100, playing_ms=10, seed=3,
                          keep_closed_markets=keep)
    app = create_app(config, clock=clock, equities=river_only_equities)
    async with TestClient(TestServer(app, host="127.0.0.1")):
        service = app[keys.SERVICE]
        channel = service.channels["holdem"]
        while channel.games_finished < games:
            clock.advance(50)
            await service.durable()
        return len(service.ended.by_id), deep_size(service.ended.by_id)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive, default=260, help="games played, more than --keep (default 260)")
    parser.add_argument("--keep", type=positive, default=100,
                        help="closed markets the exchange keeps (keep_closed_markets), and the store remembers "
                             "(default 100)")
    args = parser.parse_args(argv)
    if args.games <= args.keep:
        parser.error(f"argument --games: must be more than --keep ({args.keep}), not {args.games}: the store "
                     f"remembers only markets the exchange forgot, those beyond the newest --keep")
    with tempfile.TemporaryDirectory() as folder:
        count, size = asyncio.run(measure(args.games, args.keep, Path(folder)))
    per = size / count if count else 0
    print(f"ended markets remembered: {count}; {size:,} bytes; {per:,.0f} bytes a market")


if __name__ == "__main__":
    main()
