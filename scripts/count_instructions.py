"""Instructions per operation of the exchange core and the bare book, counted by valgrind (callgrind).

Usage::

    python scripts/count_instructions.py [--small 5000] [--large 35000] [--selections 4]

Timings on a shared machine move with its load; instruction counts do not
(the same binary and input give the same count whatever else runs). Each side
of ``scripts/bench_exchange.py`` (the exchange through ``execute``, and the
bare book) is run under ``valgrind --tool=callgrind`` on the first ``--small``
and the first ``--large`` operations of one seeded stream; the difference
divided by ``large - small`` is the cost of one operation, without the
interpreter's start and the stream's generation. Prints both and their
ratio (bare / exchange: the same sense as the benchmark's "exchange / bare"
rate ratio). Needs valgrind (Debian's ``valgrind`` package); takes about a
minute.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_exchange  # (this folder is on sys.path when the script runs)

from exchange.cli.options import positive, whole_number_from_to


def run_one(side: str, ops: int, total: int, selections: int) -> None:
    """The measured part: one side over the first ``ops`` operations of a stream of ``total``."""
    stream = bench_exchange.generate(total, 1, 50, selections)
    setup, timed = bench_exchange.to_commands(stream, selections)
    if side == "exchange":
        bench_exchange.run_exchange(setup, timed[:ops])
    else:
        bench_exchange.run_bare(stream[:ops])


def count(side: str, ops: int, total: int, selections: int) -> int:
    """Instructions of a whole process running :func:`run_one`."""
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
            "--run", side, str(ops), str(total), str(selections)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stderr
    found = re.search(r"refs:\s*([\d,]+)", out)
    if found is None:
        raise RuntimeError(f"valgrind printed no instruction count:\n{out[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--run"]:
        run_one(args[1], int(args[2]), int(args[3]), int(args[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=positive, default=5_000,
                        help="operations of the shorter run (default 5000)")
    parser.add_argument("--large", type=positive, default=35_000,
                        help="operations of the longer run, more than --small (default 35000)")
    parser.add_argument("--selections", type=whole_number_from_to(2, bench_exchange.MAX_SELECTIONS), default=4,
                        help=f"selections of the market, 2 to {bench_exchange.MAX_SELECTIONS} as bench_exchange.py "
                             f"allows (default 4)")
    ns = parser.parse_args(args)
    if ns.large <= ns.small:  # the cost of one operation is the difference divided by large - small
        parser.error(f"argument --large: must be more than --small ({ns.small}), not {ns.large}")
    if shutil.which("valgrind") is None:  # before a minute of work, not at the first count
        parser.error("valgrind is needed to count instructions and is not on the PATH "
                     "(Debian's valgrind package: apt-get install valgrind)")
    per_op = {}
    for side in ("exchange", "bare"):
        small, large = (count(side, n, ns.large, ns.selections) for n in (ns.small, ns.large))
        per_op[side] = (large - small) / (ns.large - ns.small)
        print(f"{side:>8}: {per_op[side]:,.0f} instructions per operation")
    print(f"   ratio: bare / exchange = {per_op['bare'] / per_op['exchange']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
