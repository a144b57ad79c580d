"""What ``serve --record`` costs its writer thread per game: holding a game's rows, and writing a part.

Usage::

    python scripts/bench_recording.py [--games 100] [--repeats 5] [--dir PATH]

The rows are a backtest's (the example market maker on Hold'em, ``--games`` games, seed 1: the same six tables a
recording writes), split by game. Each repeat takes a fresh recording folder under ``--dir`` (default: a new
folder in the current directory, so on the disk the server would record to; ``/tmp`` may be memory, where a flush
costs nothing) and times, as the server's writer thread does them:

* ``hold``: each game's six Arrow files written, flushed and renamed into ``.pending`` (once per game, when the
  journal has it);
* ``part``: the part of all the games, six Parquet files written, flushed and renamed, and the held games removed
  (once per ``--record-every`` games or ``--record-every-minutes``); and the same part in a folder holding
  nothing (what a part cost before games were held).

Printed: min / median / max over the repeats of the milliseconds per game held and per part written.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow as pa
import pyarrow.compute as pc

from exchange.cli.options import positive
from exchange.server.record_folder import RecordFolder
from exchange.tables.outputs import TABLES, read_tables

REPO = Path(__file__).resolve().parents[1]


def games_rows(games: int, where: Path) -> list[dict[str, pa.Table]]:
    """Each game's six tables, from a backtest of ``games`` games written under ``where``."""
    out = where / "backtest"
    subprocess.run([sys.executable, "-m", "exchange.cli", "backtest", "--strategy",
                    "scripts/market_maker.py:MarketMaker", "--games", str(games), "--seed", "1", "--out", str(out),
                    "--no-streams", "--no-progress"], check=True, cwd=REPO, capture_output=True)
    tables = read_tables(out)
    return [{name: table.filter(pc.equal(table["game_index"], index)) for name, table in tables.items()}
            for index in range(games)]


def one_repeat(rows: list[dict[str, pa.Table]], where: Path) -> tuple[float, float, float]:
    """(ms per game held, ms for the part then, ms for the part with nothing held) in fresh folders."""
    joined = {name: pa.concat_tables([game[name] for game in rows]) for name in TABLES}
    folder = RecordFolder(Path(tempfile.mkdtemp(prefix="rec-", dir=where)))
    try:
        start = time.perf_counter()
        for index, game in enumerate(rows):
            folder.hold(index, game)
        hold_ms = (time.perf_counter() - start) * 1000 / len(rows)
        start = time.perf_counter()
        folder.write(joined, 0, len(rows) - 1)
        part_ms = (time.perf_counter() - start) * 1000
    finally:
        folder.close()
    folder = RecordFolder(Path(tempfile.mkdtemp(prefix="rec-", dir=where)))
    try:
        start = time.perf_counter()
        folder.write(joined, 0, len(rows) - 1)
        bare_part_ms = (time.perf_counter() - start) * 1000
    finally:
        folder.close()
    return hold_ms, part_ms, bare_part_ms


def folder_to_write(text: str) -> Path:
    """``--dir``: a folder that is there and that this user may write in (the scratch folder is made inside)."""
    path = Path(text)
    if not text.strip():
        raise argparse.ArgumentTypeError("give the folder to make the recording folders in, not an empty name")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no folder at {text}: give a folder that is there")
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder: give a folder that is there")
    if not os.access(path, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write in {text}: give a folder this user may write in")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive, default=100, help="games of the backtest held and written "
                                                                    "(default 100)")
    parser.add_argument("--repeats", type=positive, default=5, help="timed repeats (default 5)")
    parser.add_argument("--dir", type=folder_to_write, default=Path.cwd(),
                        help="an existing folder where the recording folders are made (default: the current one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-recording-", dir=args.dir) as scratch:
        rows = games_rows(args.games, Path(scratch))
        sizes = [sum(game[name].num_rows for name in TABLES) for game in rows]
        print(f"{args.games} games of the market maker, {statistics.median(sizes):.0f} rows a game (median), "
              f"folders under {args.dir}")
        holds, parts, bare_parts = zip(*(one_repeat(rows, Path(scratch)) for _ in range(args.repeats)), strict=True)
    for what, figures in (("hold, ms per game", holds), (f"part of {args.games} games, ms", parts),
                          ("the same part, nothing held", bare_parts)):
        print(f"{what:>28}: {min(figures):8.2f} / {statistics.median(figures):8.2f} / {max(figures):8.2f}"
              "  (min / median / max)")


if __name__ == "__main__":
    main()
