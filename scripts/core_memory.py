"""Where the exchange core's memory goes as closed markets are forgotten: RSS against what is allocated.

Usage::

    python scripts/core_memory.py [--markets 3000] [--keep 1000] [--orders 240] [--marks 500,1000,1500,2000,3000]

Runs the core alone (no server, no game): one four-selection market after
another, each with ``--orders`` random limit orders from six funded accounts
over four windows, then settled, with ``keep_closed_markets = --keep``. At
each mark it prints the process's resident memory beside what Python has
allocated (objects tracked by the collector, pymalloc's allocated blocks and
arenas) and glibc's own account (``mallinfo2``: heap in use and free, and
memory mapped for large blocks such as big dict tables). RSS growing while
the allocations stay flat is the allocator's, not a leak. Linux with glibc only.

Without ``--marks`` the marks are those of the default list within ``--markets``, and ``--markets`` itself;
marks given beyond ``--markets`` are refused (they would never be reached, and print nothing).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exchange.cli.options import positive
from exchange.core import ladder
from exchange.core.commands import (
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SuspendMarket,
)
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.side import Side

MIB = 1 << 20
#: The market counts reported at without ``--marks`` (those within ``--markets``, and ``--markets`` itself).
DEFAULT_MARKS = (500, 1000, 1500, 2000, 3000)


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def glibc_figures() -> str:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    heap, used, free, mapped = (value / MIB for value in (info.arena, info.uordblks, info.fordblks, info.hblkhd))
    return (f"glibc heap {heap:5.1f} MiB (in use {used:5.1f}, free {free:5.1f}), "
            f"mapped {mapped:5.1f} MiB in {info.hblks} blocks")


def play_market(ex: Exchange, rng: random.Random, market_id: str, accounts: Sequence[str], orders: int,
                ts: int) -> int:
    """One market from creation to settlement; returns the clock after it."""
    ex.execute(CreateMarket(ts, market_id, (1, 2, 3, 4)))
    for _ in range(4):
        ex.execute(OpenMarket(ts, market_id))
        for _ in range(orders // 4):
            ts += 1
            side = Side.BACK if rng.random() < 0.5 else Side.LAY
            ex.execute(PlaceOrder(ts, rng.choice(accounts), market_id, rng.randint(1, 4), side,
                                  ladder.price(rng.randint(40, 80)), rng.randint(2, 20) * 100))
        ex.execute(SuspendMarket(ts, market_id))
    ex.execute(SettleMarket(ts, market_id, (rng.randint(1, 4),)))
    return ts


def mark_list(text: str) -> list[int]:
    """``--marks``: whole numbers from 1, comma-separated."""
    try:
        return [positive(mark) for mark in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be whole numbers from 1, comma-separated, not {text}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--markets", type=positive, default=3000,
                        help="markets played one after another, each settled (default 3000)")
    parser.add_argument("--keep", type=positive, default=1000,
                        help="closed markets kept (keep_closed_markets; default 1000)")
    parser.add_argument("--orders", type=positive, default=240, help="orders a market (default 240)")
    parser.add_argument("--marks", type=mark_list, default=None,
                        help="market counts at which to report memory, comma-separated, none beyond --markets "
                             f"(default {','.join(map(str, DEFAULT_MARKS))} within --markets, and --markets)")
    args = parser.parse_args(argv)
    if args.marks is None:
        marks = {mark for mark in DEFAULT_MARKS if mark <= args.markets} | {args.markets}
    elif max(args.marks) > args.markets:
        beyond = sorted(mark for mark in args.marks if mark > args.markets)
        parser.error(f"argument --marks: must be from 1 to --markets ({args.markets}), not "
                     f"{','.join(map(str, beyond))}: no report is printed at a market never played")
    else:
        marks = set(args.marks)
    rng = random.Random(1)
    ex = Exchange(ExchangeConfig(keep_closed_markets=args.keep))
    accounts = [f"a{i}" for i in range(6)]
    for account in accounts:
        ex.execute(OpenAccount(0, account))
        ex.execute(Deposit(0, account, 10**12))
    ts = 0
    for n in range(1, args.markets + 1):
        ts = play_market(ex, rng, f"1.{n}", accounts, args.orders, ts)
        if n in marks:
            gc.collect()
            print(f"market {n:6}: RSS {rss_mib():6.1f} MiB; objects {len(gc.get_objects()):,}, "
                  f"pymalloc blocks {sys.getallocatedblocks():,}; {glibc_figures()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
