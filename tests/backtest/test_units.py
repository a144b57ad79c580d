"""Small pieces: executors, strategy loading, the recorder's deltas, summaries, and the package's doctests."""

from __future__ import annotations

import doctest
import importlib
import json
import multiprocessing
import os
import random
import signal
import statistics
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from exchange.backtest import workers
from exchange.backtest.loading import StrategyLoadError, StrategySpec
from exchange.backtest.runner import run_backtest
from exchange.backtest.summary import max_drawdown, session_figures
from exchange.backtest.workers import DaskExecutor, InlineExecutor, ProcessExecutor, run_ordered
from exchange.betfair.stream import (
    BetfairMarketStatus,
    MarketInfo,
    MarketRecorder,
    MarketSnapshot,
    RunnerSnapshot,
    RunnerStatus,
)
from exchange.tables import outputs
from tests.backtest.backtest_support import Run, small_config

MODULES = [
    "exchange.backtest.agent",
    "exchange.tables.collector",
    "exchange.backtest.instructions",
    "exchange.backtest.loading",
    "exchange.tables.outputs",
    "exchange.betfair.projection",
    "exchange.betfair.stream",
    "exchange.backtest.runner",
    "exchange.backtest.strategy",
    "exchange.backtest.summary",
    "exchange.backtest.workers",
    "exchange.backtest.world",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def _square(x: int) -> int:
    if x < 0:
        raise ValueError(f"negative {x}")
    return x * x


def test_process_executor_returns_results_in_input_order() -> None:
    seen: list[int] = []
    with ProcessExecutor(2) as pool:
        assert run_ordered(pool, _square, list(range(9)), lambda i, _: seen.append(i)) == [i * i for i in range(9)]
        assert sorted(seen) == list(range(9))
        with pytest.raises(ValueError, match="negative -1"):
            run_ordered(pool, _square, [1, -1, 2])
    with InlineExecutor() as inline:
        assert run_ordered(inline, _square, [3]) == [9]


class _Holding(Exception):
    """A strategy's own error holding what does not pickle (a lock, as a market handle holds one): it cannot cross
    from a worker process as it is, wherever it is read."""


def _raises(kind: str) -> int:
    if kind == "value":
        raise ValueError("plain")
    if kind == "json":  # its own pickling, which leaves its notes behind
        try:
            json.loads("{")
        except json.JSONDecodeError as torn:
            torn.add_note("raised in the strategy's on_market_open")
            raise
    error = _Holding("holdem.3: no edge")
    error.lock = threading.Lock()  # type: ignore[attr-defined]  # what it holds
    error.add_note("raised in the strategy's on_window_open")
    raise error


def test_a_workers_error_comes_back_as_it_was_or_said_by_name() -> None:
    """An error a worker process can send back comes as it was raised (its type, for a script that catches it);
    one that cannot cross as it is broke the process pool, and comes as a ``WorkerError`` naming its class, with its
    text and notes; either has the worker's traceback as its cause."""
    with ProcessExecutor(2) as pool:
        with pytest.raises(ValueError, match="plain") as plain:
            run_ordered(pool, _raises, ["value"])
        with pytest.raises(workers.WorkerError) as unbuildable:
            run_ordered(pool, _raises, ["holding"])
        with pytest.raises(json.JSONDecodeError) as decoding:
            run_ordered(pool, _raises, ["json"])
    assert decoding.value.__notes__ == ["raised in the strategy's on_market_open"]  # the hook the CLI names
    assert isinstance(plain.value.__cause__, workers.WorkerTraceback)
    assert 'raise ValueError("plain")' in str(plain.value.__cause__)
    error = unbuildable.value
    assert (error.name, error.text, str(error)) == ("_Holding", "holdem.3: no edge", "_Holding: holdem.3: no edge")
    assert error.__notes__ == ["raised in the strategy's on_window_open"]
    assert "raise error" in str(error.__cause__)


def test_a_pool_that_outlives_a_run_leaves_its_folder_free(tmp_path: Path) -> None:
    """The pool's workers are forked as the first run begins, with the folder's lock open: a lock goes only once
    every copy is closed, so the next run into the folder on the same pool was refused ("another backtest is
    writing into it"), with none running. The workers close their copies."""
    config = replace(small_config(), games=2, record_streams=False)
    with ProcessExecutor(2) as pool:
        first = run_backtest(config, pool, tmp_path)
        again = run_backtest(config, pool, tmp_path)
    assert again.summary == first.summary


def _fails_late_or_early(item: tuple[int, str]) -> int:
    """Item 1 fails at once (leaving a mark); item 0 fails too, but only once item 1 has failed."""
    index, mark = item
    if index == 1:
        Path(mark).write_text("failed")
        raise ValueError("item 1")
    if index == 0:
        for _ in range(2000):  # bounded: item 1 marks its failure within moments
            if Path(mark).exists():
                raise ValueError("item 0")
            time.sleep(0.01)
        raise AssertionError("item 1 never failed")
    return index


def test_the_error_reported_is_the_first_items_not_the_first_to_come(tmp_path: Path) -> None:
    """A strategy that raises in several games: the run says the first game's error, whichever worker was quicker
    (item 1's error comes first here)."""
    mark = str(tmp_path / "item-1-failed")
    with ProcessExecutor(2) as pool, pytest.raises(ValueError, match="item 0"):
        run_ordered(pool, _fails_late_or_early, [(i, mark) for i in range(6)])
    assert Path(mark).exists()
    distributed = pytest.importorskip("distributed")
    Path(mark).unlink()
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
        DaskExecutor(client) as executor,
        pytest.raises(ValueError, match="item 0"),
    ):
        run_ordered(executor, _fails_late_or_early, [(i, mark) for i in range(6)])
    assert Path(mark).exists()


def _finishes_with_a_mark(item: tuple[int, str]) -> int:
    """Item 0 is done at once; item 1 marks that it started, runs on a moment, then leaves a mark: it was not
    stopped."""
    index, folder = item
    if index == 0:
        return index
    Path(folder, f"item-{index}-started").write_text("started")
    time.sleep(0.3)
    Path(folder, f"item-{index}-finished").write_text("done")
    return index


def test_a_commands_exit_on_an_error_lets_the_chunks_under_way_finish(tmp_path: Path) -> None:
    """A command that fails on a strategy's error exits with ``SystemExit`` inside the pool's ``with``: that is an
    error closing, not an interruption. Terminated as if by Ctrl-C, a worker writing its result could stop
    between the writes of a large one, and the pool waited for the rest for ever (a CI run hung so)."""
    with pytest.raises(SystemExit), ProcessExecutor(2) as pool:
        items = iter(pool.imap(_finishes_with_a_mark, [(0, str(tmp_path)), (1, str(tmp_path))]))
        assert next(items) == (0, 0)
        for _ in range(6000):  # bounded: item 1 is under way within moments (on a busy host, not always at once)
            if Path(tmp_path, "item-1-started").exists():
                break
            time.sleep(0.01)
        raise SystemExit(2)  # as options.fail does, saying why
    assert Path(tmp_path, "item-1-finished").read_text() == "done"


class _FailsItsCleanUp:
    """As a library's object left half-built by a stopped chunk (numba's, say): its clean-up raises."""

    def __del__(self) -> None:
        raise AttributeError("half-built")


def _runs_until_stopped(item: tuple[int, str]) -> int:
    """Item 0 is done at once; the others leave a mark that they started, then run on for up to a minute
    (bounded) holding an object whose clean-up fails, and mark the end if they get there."""
    index, folder = item
    if index == 0:
        return index
    fragile = _FailsItsCleanUp()
    Path(folder, f"item-{index}-started").write_text("started")
    for _ in range(6000):
        time.sleep(0.01)
    Path(folder, f"item-{index}-finished").write_text("done")
    del fragile
    return index


def test_an_interruption_stops_the_chunks_under_way_and_runs_no_more(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM) in the command stops its workers' chunks at once, saying nothing of what the stopped
    chunks left half-built; those handed to a worker already never start; the pool closes and its workers are
    gone."""
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # the workers', as outside pytest
    with pytest.raises(KeyboardInterrupt), ProcessExecutor(2) as pool:
        results = iter(pool.imap(_runs_until_stopped, [(i, str(tmp_path)) for i in range(8)]))
        assert next(results) == (0, 0)  # items 1 and 2 are under way, more are queued
        for _ in range(6000):  # bounded: both workers start their chunk within moments
            if len(list(tmp_path.glob("item-*-started"))) == 2:
                break
            time.sleep(0.01)
        workers_running = set(multiprocessing.active_children())
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["item-1-started", "item-2-started"]
    assert workers_running and not any(worker.is_alive() for worker in workers_running)
    assert "half-built" not in capfd.readouterr().err  # (the workers' own stderr: "Exception ignored in ...")


def test_a_worker_stopped_between_chunks_lives_to_say_so() -> None:
    """A worker signalled outside a chunk (as it writes a result, say) is not killed: killed mid-write, it left
    the pool's reader waiting for the rest of the result for ever. It is marked stopped: its next chunk stops
    before it starts, and says why."""
    before = set(multiprocessing.active_children())
    with ProcessExecutor(1) as pool:
        assert run_ordered(pool, _square, [3]) == [9]
        (worker,) = set(multiprocessing.active_children()) - before
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGTERM)  # idle, waiting for its next chunk
        with pytest.raises(workers.ChunkStopped, match="the command stopped its workers"):
            run_ordered(pool, _square, [4])
        assert worker.is_alive()


def test_a_strategy_file_is_shipped_as_source(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(
        "from exchange.backtest.strategy import Strategy\n"
        "class Mine(Strategy):\n"
        "    def __init__(self, *, edge=1, **kw):\n"
        "        super().__init__(**kw)\n"
        "        self.edge = edge\n"
    )
    spec = StrategySpec.parse(f"{path}:Mine", '{"edge": 3, "latency_ms": 20}')
    path.unlink()  # a worker elsewhere never sees the file
    built = spec.build()
    assert (built.edge, built.latency_ms, type(built).__name__) == (3, 20, "Mine")
    with pytest.raises(StrategyLoadError, match="cannot build") as refused:
        replace(spec, params_json='{"x": 1}').build()
    # what it takes, its own and those it hands on to Strategy: a misspelt name is found at a glance
    assert str(refused.value).endswith("; Mine takes edge, latency_ms, name, context")
    with pytest.raises(StrategyLoadError, match=r"context must be a dict of settings \(a JSON object\), not 5"):
        replace(spec, params_json='{"context": 5}').build()
    path.write_text("class Bad:\n    def __init__(self):\n        raise ValueError('no init')\n")
    with pytest.raises(StrategyLoadError) as refused:  # no params: none named (play has no --params)
        StrategySpec.parse(f"{path}:Bad").build()
    assert str(refused.value) == f"cannot build {path}:Bad: no init"


def _snap(status: BetfairMarketStatus, *runners: RunnerSnapshot) -> MarketSnapshot:
    return MarketSnapshot(status, False, runners, sum(r.tv for r in runners))


def test_recorder_sends_only_what_changed_and_a_new_definition_on_status_changes() -> None:
    info = MarketInfo("m.1", "m.1", "Event", "Market", 0, 0, 10, ("Hand 1", "Hand 2"))
    rec = MarketRecorder(info)
    a = RunnerSnapshot(1, RunnerStatus.ACTIVE, ((10, 300), (9, 200)), ((12, 100),), (), None, 0)
    b = RunnerSnapshot(2, RunnerStatus.ACTIVE, (), (), (), None, 0)
    first = json.loads(rec.update(_snap(BetfairMarketStatus.OPEN, a, b), 1) or "")["mc"][0]
    assert first["img"] and first["marketDefinition"]["version"] == 1
    assert first["rc"][0]["atb"] == [[1.1, 2.0], [1.11, 3.0]] and first["rc"][0]["atl"] == [[1.13, 1.0]]
    a2 = RunnerSnapshot(1, RunnerStatus.ACTIVE, ((10, 300),), ((12, 100),), ((9, 200),), 9, 200)
    second = json.loads(rec.update(_snap(BetfairMarketStatus.OPEN, a2, b), 2) or "")["mc"][0]
    assert second == {"id": "m.1", "rc": [{"id": 1, "atb": [[1.1, 0.0]], "trd": [[1.1, 2.0]], "ltp": 1.1, "tv": 2.0}],
                      "tv": 2.0}  # fmt: skip
    closed = RunnerSnapshot(1, RunnerStatus.WINNER, (), (), ((9, 200),), 9, 200)
    third = json.loads(rec.update(_snap(BetfairMarketStatus.CLOSED, closed, b), 3) or "")["mc"][0]
    definition = third["marketDefinition"]
    assert definition["version"] == 2 and definition["status"] == "CLOSED" and "settledTime" in definition
    assert [r["status"] for r in definition["runners"]] == ["WINNER", "ACTIVE"]
    assert rec.update(_snap(BetfairMarketStatus.CLOSED, closed, b), 4) is None
    assert len(rec.text().splitlines()) == 3


def test_max_drawdown() -> None:
    assert max_drawdown([5, -10, 3, -4, 20, -1]) == 11
    assert max_drawdown([-3, -3]) == 6


@pytest.mark.parametrize(
    ("finals", "median"),
    [((7476, 7920, 7920, 8483, 8897, 13060), "82.02"), ((900, 1200, 700), "9.00"), ((150, 700), "4.25"),
     ((100, 300), "2.00"), ((5000,), "50.00")],
)
def test_the_median_final_bankroll_is_the_middle_of_the_sessions(finals: tuple[int, ...], median: str) -> None:
    """An even number of sessions has the mean of the two middle bankrolls for its median, as pandas (the
    settlements notebook) computes it, not the lower of the two; shown to the penny as every other figure, a half
    penny up (it was shown to the half penny, 82.015)."""
    paths = {s: [final] for s, final in enumerate(finals)}
    line = session_figures(paths, starting=10_000, ruin_below=200).lines()[1]
    assert line.startswith(f"final bankroll  median {median}, ")
    assert abs(float(median) - statistics.median(finals) / 100) <= 0.005


def test_a_table_written_in_parts_is_the_same_file_however_it_was_cut(
    small_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row groups of a fixed size whatever the parts (chunks of sessions) that brought the rows."""
    monkeypatch.setattr(outputs, "ROW_GROUP", 97)
    orders = pq.read_table(small_run.out / "orders.parquet")
    files = []
    for seed in range(3):
        rng, start = random.Random(seed), 0
        writer = outputs.TableWriter(outputs.ORDERS, tmp_path / str(seed))
        while start < orders.num_rows:
            size = rng.randrange(0, 300)
            writer.write(orders.slice(start, size))
            start += size
        files.append(writer.close().read_bytes())
    assert files[0] == files[1] == files[2]
    written = pq.ParquetFile(tmp_path / "0" / "orders.parquet")
    sizes = [written.metadata.row_group(i).num_rows for i in range(written.num_row_groups)]
    assert sizes[:-1] == [97] * (len(sizes) - 1) and sum(sizes) == orders.num_rows
    assert written.read().equals(orders)


def test_updates_at_one_instant_are_counted_in_a_row_and_start_again_when_the_clock_moves() -> None:
    """The count that stops a strategy stuck at one instant: as many as allowed at one instant and then a later one
    is one, not one past the limit (which would stop a strategy the clock had moved on for)."""
    from exchange.backtest.agent import UPDATES_AT_ONE_INSTANT, Instant

    instant = Instant()
    assert [instant.count(5) for _ in range(UPDATES_AT_ONE_INSTANT)][-1] == UPDATES_AT_ONE_INSTANT
    assert instant.count(6) == 1 and instant.count(6) == 2 and instant.count(5) == 1
