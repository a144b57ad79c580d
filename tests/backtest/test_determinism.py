"""Same seed and strategy -> identical outputs, whether on one process, two, or a Dask cluster."""

from __future__ import annotations

from pathlib import Path

import pytest
from backtest_support import Run

from exchange.backtest.outputs import TABLES, read_tables
from exchange.backtest.runner import run_backtest
from exchange.backtest.workers import DaskExecutor, ProcessExecutor


def assert_same_outputs(a: Path, b: Path) -> None:
    left, right = read_tables(a), read_tables(b)
    for name in TABLES:
        assert left[name].num_rows > 0, name
        assert left[name].equals(right[name]), f"{name}.parquet differs"
        assert (a / TABLES[name].file_name).read_bytes() == (b / TABLES[name].file_name).read_bytes(), name
    streams_a = sorted(p.name for p in (a / "streams").iterdir())
    assert streams_a == sorted(p.name for p in (b / "streams").iterdir())
    for name in streams_a:
        assert (a / "streams" / name).read_bytes() == (b / "streams" / name).read_bytes(), name


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
