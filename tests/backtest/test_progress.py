"""A backtest's progress bar moves a game at a time, while the chunks of games are under way, on every executor
that can carry what its workers say (this process, a local pool); a Dask cluster's moves a chunk at a time."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Generator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest

from exchange.backtest import runner, workers
from exchange.backtest.runner import run_backtest
from exchange.backtest.workers import DaskExecutor, InlineExecutor, ProcessExecutor, report_progress, run_ordered
from tests.backtest.backtest_support import session_config, small_config


def _says_two_then_waits_to_be_heard(item: tuple[int, str]) -> str:
    """Reports 2 units, then waits (bounded) for the command to have heard them: the mark its ``on_progress``
    leaves. Returns whether it was heard while the item was still under way."""
    _, folder = item
    report_progress(2)
    heard = Path(folder, "heard")
    for _ in range(3000):  # at most 30 s: the command looks every half second
        if heard.exists():
            return "heard"
        time.sleep(0.01)
    return "not heard"


def test_a_pools_workers_are_heard_while_their_items_run(tmp_path: Path) -> None:
    said: list[int] = []

    def on_progress(units: int) -> None:
        said.append(units)
        (tmp_path / "heard").touch()

    with ProcessExecutor(2) as pool:
        results = run_ordered(pool, _says_two_then_waits_to_be_heard, [(i, str(tmp_path)) for i in range(3)],
                              on_progress=on_progress)
    assert results == ["heard"] * 3
    assert sum(said) == 6


def _says_two(item: int) -> int:
    report_progress(2)
    return item


def test_items_run_here_are_heard_as_they_say_it(tmp_path: Path) -> None:
    said: list[tuple[int, int]] = []
    results: list[int] = []
    with InlineExecutor() as inline:
        for _, result in inline.imap(_says_two, [7, 8], on_progress=lambda units: said.append((len(results), units))):
            results.append(result)
        assert said == [(0, 2), (1, 2)]  # each before its own result
        report_progress(5)  # outside an item: nowhere to go
        assert run_ordered(inline, _says_two, [9]) == [9]  # nor without anyone to hear
    assert said == [(0, 2), (1, 2)]


class Bar:
    """A progress bar that keeps its moves."""

    def __init__(self) -> None:
        self.moves: list[int] = []
        self.closed = False

    def update(self, n: int = 1) -> None:
        self.moves.append(n)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def bar(monkeypatch: pytest.MonkeyPatch) -> Bar:
    made = Bar()
    monkeypatch.setattr(runner, "_progress_bar", lambda total: made)
    return made


def test_the_bar_moves_a_game_at_a_time_in_chunks_of_three(bar: Bar) -> None:
    config = replace(small_config(), games=5)
    run_backtest(config, InlineExecutor(), None, progress=True, chunk_size=3)
    assert bar.moves == [1] * 5 and bar.closed


def test_in_sessions_the_bar_moves_a_game_at_a_time_and_counts_the_games_a_session_passed_over(bar: Bar) -> None:
    """Three sessions of five games; the second ends after four (its drawdown limit): its fifth is passed over."""
    result = run_backtest(session_config(), InlineExecutor(), None, progress=True)
    assert [s.games for s in result.sessions] == [5, 4, 5]
    assert bar.moves == [1] * 15


def test_with_a_pool_the_bar_reaches_every_game_once(bar: Bar) -> None:
    with ProcessExecutor(2) as pool:
        run_backtest(replace(small_config(), games=6), pool, None, progress=True, chunk_size=3)
    assert sum(bar.moves) == 6 and all(move > 0 for move in bar.moves) and bar.closed


def test_a_dask_clusters_bar_moves_a_chunk_at_a_time(bar: Bar) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
        DaskExecutor(client) as executor,
    ):
        run_backtest(replace(small_config(), games=5), executor, None, progress=True, chunk_size=3)
    assert sorted(bar.moves) == [2, 3] and bar.closed


def _dies_holding_the_counter(item: int) -> int:
    """As a worker killed (out of memory, say) inside :func:`workers._add`, the counter's lock held."""
    counter = workers._progress.args[0]  # type: ignore[union-attr]  # the worker's partial(_add, counter)
    counter.get_lock().acquire()
    os.kill(os.getpid(), signal.SIGKILL)
    return item


@pytest.mark.timeout(120)
def test_a_worker_killed_holding_the_counter_breaks_the_pool_and_does_not_hang_the_command() -> None:
    with ProcessExecutor(1) as pool, pytest.raises(BrokenProcessPool):
        run_ordered(pool, _dies_holding_the_counter, [0], on_progress=lambda units: None)


def _says_five_twice(item: int) -> int:
    report_progress(5)
    time.sleep(0.3)  # still running when its run is abandoned
    report_progress(5)
    return item


def test_a_run_after_an_abandoned_one_hears_only_its_own_items() -> None:
    """Items of a run whose reader stopped (its on_result raised, say) may still be running: the next run on the
    executor does not count what they say."""
    said: list[int] = []
    with ProcessExecutor(2) as pool:
        abandoned = cast("Generator[tuple[int, int], None, None]", pool.imap(_says_five_twice, [0, 1, 2, 3]))
        next(abandoned)
        abandoned.close()
        assert run_ordered(pool, _says_two, [0, 1], on_progress=said.append) == [0, 1]
    assert sum(said) == 4
