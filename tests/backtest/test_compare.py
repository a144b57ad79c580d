"""exchange-poker compare: backtests side by side, each against the first game by game on the same deals.

The oracle reads the settlements with pandas, by ``game_index`` (the module goes by the market id's game number),
and takes its statistics from :mod:`statistics`.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import statistics
from fractions import Fraction
from pathlib import Path

import pytest

from exchange.backtest.compare import against, read_run
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.tables.outputs import read_table
from tests.backtest.backtest_support import BOTH_MARKETS, SEED, Run, small_config
from tests.cli_helpers import run_cli


def backtest(config: BacktestConfig, out: Path) -> Path:
    with InlineExecutor() as executor:
        run_backtest(dataclasses.replace(config, record_streams=False), executor, out)
    return out


def net_per_game(folder: Path) -> dict[int, int]:
    """The strategy's net P&L in each game (every game, 0 where it has no row), read another way."""
    settlements = read_table(folder, "settlements").to_pandas()
    games = read_table(folder, "games").to_pandas()
    mine = settlements[settlements.account == "strategy"].groupby("game_index").net_profit.sum()
    return {int(g): int(mine.get(g, 0)) for g in games.game_index}


def test_runs_dealt_alike_are_compared_game_by_game(small_run: Run, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    bigger = backtest(small_config(params='{"stake": 900}'), tmp_path / "bigger")  # the same seed: the same deals
    first, second = net_per_game(small_run.out), net_per_game(bigger)
    cards = ["hand_1", "hand_2", "hand_3", "hand_4", "board"]  # what pairing rests on: the strategy changes no deal
    assert read_table(small_run.out, "games", cards) == read_table(bigger, "games", cards)
    differences = [second[g] - first[g] for g in first]
    assert any(differences)  # the stake changed what it made: a comparison that can tell

    difference = against(read_run(small_run.out), read_run(bigger))
    assert difference.paired == len(first) == 10 and difference.unpaired is None
    assert difference.mean == Fraction(sum(differences), len(differences))
    assert math.isclose(difference.stderr, statistics.stdev(differences) / math.sqrt(len(differences)))

    code, out, err = run_cli(capsys, "compare", str(small_run.out), str(bigger))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    a, b = lines[1], lines[2]
    assert a.startswith("A ") and str(small_run.out) in a and b.startswith("B ") and '{"stake": 900}' in b
    summary = small_run.result.summary
    assert f" {sum(first.values()) / 100:.2f} " in a and f" {summary.matched_volume / 100:.2f} " in a
    assert difference.mean.denominator != 2  # not an exact half penny, which floats would round either way
    shown = f"{float(difference.mean) / 100:+.2f}"
    assert f"B    {shown} ± {difference.stderr / 100:.2f}  (paired: the same 10 deals)" in out


def test_runs_of_more_games_are_compared_over_the_deals_both_played(small_run: Run, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Runs of 10 and 6 games on one seed: the difference is over the 6 deals both played, and the line says which
    run's other games it left out (it said "the same 6 deals" under a row showing all 10 games' figures)."""
    shorter = backtest(dataclasses.replace(small_config(params='{"stake": 900}'), games=6), tmp_path / "shorter")
    first, second = net_per_game(small_run.out), net_per_game(shorter)
    assert (len(first), len(second)) == (10, 6)
    difference = against(read_run(small_run.out), read_run(shorter))
    assert (difference.paired, difference.left_out) == (6, (4, 0))
    assert difference.mean == Fraction(sum(second[g] - first[g] for g in second), 6)
    out = run_cli(capsys, "compare", str(small_run.out), str(shorter))[1]
    assert "(paired: the same 6 deals; A's other 4 games left out)" in out
    out = run_cli(capsys, "compare", str(shorter), str(small_run.out), str(shorter))[1]
    assert "B " in out and "(paired: the same 6 deals; B's other 4 games left out)" in out
    assert "C " in out and "(paired: the same 6 deals)" in out


def test_runs_dealt_differently_are_compared_on_their_means(small_run: Run, tmp_path: Path) -> None:
    other_seed = backtest(dataclasses.replace(small_config(), seed=SEED + 1, games=6), tmp_path / "seed")
    first, second = read_run(small_run.out), read_run(other_seed)
    difference = against(first, second)
    assert difference.paired == 0 and difference.unpaired == f"dealt differently: seed {SEED} against {SEED + 1}"
    assert difference.played_differently == ()  # fewer games are not another way of playing them
    per_game = net_per_game(small_run.out), net_per_game(other_seed)
    assert difference.mean == (Fraction(sum(per_game[1].values()), 6) - Fraction(sum(per_game[0].values()), 10))
    errors = [statistics.stdev(p.values()) / math.sqrt(len(p)) for p in per_game]
    assert math.isclose(difference.stderr, math.hypot(*errors))


def test_a_hi_lo_games_two_markets_are_one_games_pnl(tmp_path: Path) -> None:
    source = tmp_path / "both_markets.py"
    source.write_text(BOTH_MARKETS)
    config = BacktestConfig(strategy=StrategySpec.parse(f"{source}:BothMarkets", '{"lay": false}'), games=3, seed=5,
                            channel="omaha-hilo")  # fmt: skip
    folder = backtest(config, tmp_path / "hilo")
    settlements = read_table(folder, "settlements").to_pandas()
    low = settlements[(settlements.account == "strategy") & settlements.market_id.str.endswith("-low")]
    assert low.net_profit.any()  # the Low market made or lost something: left out, the sums would differ
    run = read_run(folder)
    assert run.pnl == net_per_game(folder)  # (one-game worlds: a game's index is its number)
    assert sum(run.pnl.values()) == run.summary.net_profit
    itself = against(run, run)
    assert (itself.mean, itself.stderr, itself.paired) == (0, 0.0, 3)


def test_what_cannot_be_compared_is_refused_on_one_line(small_run: Run, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "recording").mkdir()
    (tmp_path / "notes.txt").write_text("mine\n")
    damaged = {"torn": '{"strategy": "scripts/x.py:X"', "listed": "[1, 2]"}  # each a backtest.json, and no tables
    for name, text in damaged.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "backtest.json").write_text(text, encoding="utf-8")
    shutil.copytree(small_run.out, tmp_path / "untabled")
    (tmp_path / "untabled" / "settlements.parquet").unlink()
    for argv, says in [
        ([str(small_run.out)], "give two backtests' output folders or more"),
        ([str(small_run.out), str(tmp_path / "nowhere")], "nowhere: no such folder"),
        ([str(small_run.out), str(tmp_path / "notes.txt")], "notes.txt: a file, not a folder"),
        ([str(small_run.out), str(tmp_path / "recording")], "recording has no backtest.json: compare reads "
                                                            "backtests' output folders"),
        ([str(small_run.out), str(tmp_path / "torn")],
         f"{tmp_path / 'torn' / 'backtest.json'} is not a backtest's record of its run: Expecting"),
        ([str(small_run.out), str(tmp_path / "listed")],
         f"{tmp_path / 'listed' / 'backtest.json'} is not a backtest's record of its run (an object naming its "
         "strategy)"),
        ([str(small_run.out), str(tmp_path / "untabled")],
         f"{tmp_path / 'untabled'} has its backtest.json but not its tables: "
         f"{tmp_path / 'untabled' / 'settlements.parquet'} is missing"),
    ]:
        code, out, err = run_cli(capsys, "compare", *argv)
        assert (code, out) == (2, "") and says in err and err.count("\n") == 1, err


def test_what_else_the_runs_were_played_with_is_said(small_run: Run, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The same deals with another latency: paired, and the line says the runs were not played alike (the
    difference is not the strategies' alone). A run without ``--latency-ms`` records its strategy's own; a record
    from before it did holds none, which differs from nothing."""
    quick, slower = (backtest(dataclasses.replace(small_config(), latency_ms=ms), tmp_path / f"{ms}ms")
                     for ms in (50, 250))
    difference = against(read_run(quick), read_run(slower))
    assert difference.paired == 10
    assert difference.played_differently == ("latency_ms 50 against 250",)
    code, out, _ = run_cli(capsys, "compare", str(quick), str(slower))
    assert code == 0 and "(paired: the same 10 deals; played differently: latency_ms 50 against 250)" in out
    own = read_run(small_run.out)
    assert small_run.config.latency_ms is None  # played at the strategy's own, which the record holds
    assert own.record["latency_ms"] == small_config().strategy.build().latency_ms == 100
    assert against(own, read_run(slower)).played_differently == ("latency_ms 100 against 250",)
    assert against(own, own).played_differently == ()
    poorer = dataclasses.replace(own, record={**own.record, "balance": 10_000})  # as from --balance 100
    assert against(own, poorer).played_differently == (f"balance {own.record['balance'] // 100}.00 against 100.00",)
    older = dataclasses.replace(own, record={**own.record, "latency_ms": None})
    assert against(older, read_run(slower)).played_differently == ()
