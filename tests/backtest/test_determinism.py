"""Same seed and strategy -> identical outputs, whether on one process, two, or a Dask cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from exchange.backtest.runner import ChunkResult, run_backtest
from exchange.backtest.workers import DaskExecutor, InlineExecutor, ProcessExecutor
from tests.backtest.backtest_support import ROOT, Run, assert_same_outputs

T = TypeVar("T")
R = TypeVar("R")


def test_two_worker_processes_write_the_same_files(small_run: Run, tmp_path: Path) -> None:
    with ProcessExecutor(2) as executor:
        result = run_backtest(small_run.config, executor, tmp_path, chunk_size=3)
    assert result.summary == small_run.result.summary
    assert_same_outputs(small_run.out, tmp_path)


def test_a_dask_cluster_writes_the_same_files(small_run: Run, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
        DaskExecutor(client) as executor,
    ):
        run_backtest(small_run.config, executor, tmp_path, chunk_size=4)
    assert_same_outputs(small_run.out, tmp_path)


def test_game_ids_and_deals_follow_the_seed_and_index(small_run: Run) -> None:
    games = small_run.result.tables["games"].to_pylist()
    assert [g["market_id"] for g in games] == [f"holdem.{i}" for i in range(len(games))]
    assert all(g["status"] == "SETTLED" for g in games)
    assert len({(g["hand_1"], g["board"]) for g in games}) == len(games)
    assert any(g["dead_heat"] for g in games), "seed 1 deals dead heats in its first ten games"


def test_separate_runs_agree_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Two processes with different string-hash seeds (set and dict-of-set orders differ) write the same files."""
    strategy = tmp_path / "busy.py"
    strategy.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "from market_maker import MarketMaker\n"
        "class Busy(MarketMaker):\n"
        "    def process_orders(self, market, orders):\n"
        "        self.context['seen'] = self.context.get('seen', 0) + len(orders)\n"
    )
    outs = []
    for hash_seed in ("0", "12345"):
        out = tmp_path / f"hash{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run(
            [sys.executable, "-m", "exchange.cli", "backtest", "--strategy", f"{strategy}:Busy", "--games", "4",
             "--seed", "1", "--out", str(out), "--no-progress"],
            check=True, env=env, cwd=ROOT, capture_output=True, timeout=300,
        )  # fmt: skip
        outs.append(out)
    assert_same_outputs(*outs)


class Backwards(InlineExecutor):
    """Runs every chunk here and reports them last first, keeping each result it reported: a slow first chunk."""

    def __init__(self) -> None:
        self.reported: list[ChunkResult] = []

    def imap(self, fn: Callable[[T], R], items: Sequence[T],
             on_progress: Callable[[int], None] | None = None) -> Iterator[tuple[int, R]]:
        results = [fn(item) for item in items]
        for index in reversed(range(len(items))):
            result = results[index]
            assert isinstance(result, ChunkResult)
            self.reported.append(result)
            yield index, result


def test_rows_are_written_in_game_order_as_chunks_arrive_and_not_held(small_run: Run, tmp_path: Path) -> None:
    """The parent writes each chunk's rows to the files once the chunks before it are in, and lets them go: a long
    backtest's rows are never all held in memory at once (about 0.13 MB a game, mostly the house's orders). The
    files are the same, byte for byte, whatever order the chunks came in."""
    executor = Backwards()
    result = run_backtest(small_run.config, executor, tmp_path, chunk_size=2)
    assert_same_outputs(small_run.out, tmp_path)
    assert result.summary == small_run.result.summary
    assert all(len(r.tables["games"]) == 0 for r in executor.reported), "every chunk's rows were let go"
    assert result.tables["games"].num_rows == small_run.config.games  # read back from the files
    with InlineExecutor() as inline:
        in_memory = run_backtest(small_run.config, inline, None)
    assert in_memory.summary == result.summary
    assert all(in_memory.tables[name].equals(result.tables[name]) for name in in_memory.tables)
