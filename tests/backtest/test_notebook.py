"""notebooks/settlements.ipynb runs end to end on a small backtest's Parquet (fails on any cell error).

Once on one-game worlds and once on sessions, whose bankroll section has real paths to draw.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.tables.outputs import TABLES
from tests.backtest.backtest_support import BOTH_MARKETS, ROOT, Run, run_notebook, session_config


def test_settlements_notebook_runs(small_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    outputs, images = run_notebook(small_run.out, monkeypatch)
    assert f"{small_run.config.games} games" in outputs
    assert "dead heats:" in outputs
    assert f"{small_run.config.games} sessions of up to 1 game (0 ended early)" in outputs
    assert images >= 4
    roi = small_run.result.summary.roi  # the command's "ROI +1.23% of matched stake", in the same unit
    assert roi is not None
    shown = next(line for line in outputs.splitlines() if line.startswith("ROI on matched stake (%)"))
    assert abs(float(shown.split()[-1]) - float(roi) * 100) <= 0.005, shown  # shown to two decimals
    assert re.search(rf"games {{2,}}{small_run.config.games}$", outputs, re.MULTILINE), outputs  # not 10.000000
    assert "stake matched on hands that dead-heated, every account's fills:" in outputs


def test_a_relative_data_dir_is_the_repository_roots_as_the_readme_gives_it(
    small_run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jupyter runs the notebook in notebooks/; ``BACKTEST_DIR=out/maker``, as the README says after a backtest run
    from the repository root, was looked for in notebooks/out/maker."""
    relative = os.path.relpath(small_run.out, ROOT)
    outputs, _ = run_notebook(relative, monkeypatch, folder=ROOT / "notebooks")
    assert f"{small_run.config.games} games" in outputs


def test_a_data_dir_that_is_no_folder_says_where_it_was_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """A backtest run elsewhere and its relative ``--out`` given as is: the notebook looked for it under the
    repository root and stopped on pyarrow's bare "no such file"; it says where it looked, and what to give."""
    nbclient = pytest.importorskip("nbclient")
    with pytest.raises(nbclient.exceptions.CellExecutionError) as refused:
        run_notebook("out/no-such-backtest", monkeypatch, folder=ROOT / "notebooks")
    assert (f"DATA_DIR 'out/no-such-backtest': there is no folder {ROOT / 'out/no-such-backtest'} (a relative path "
            f"is read from the repository root, {ROOT}; give the absolute path of a folder elsewhere)"
            ) in str(refused.value)


def test_the_calibration_is_of_the_accounts_own_matches(small_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """It took every account's fills (the house's, the noise trader's) as the account's."""
    fills = pq.read_table(small_run.out / "fills.parquet").to_pandas()
    live = fills[~fills.voided & fills.equity.notna()]
    mine = int(((live.back_account == "strategy") | (live.lay_account == "strategy")).sum())
    assert mine < len(live)  # others matched too: the test can tell the two apart
    outputs, _ = run_notebook(small_run.out, monkeypatch)
    assert f"strategy: {mine} matches with an equity" in outputs


def test_settlements_notebook_draws_the_bankroll_of_sessions(session_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    outputs, images = run_notebook(session_run.out, monkeypatch)
    config = session_run.config
    ended = sum(o.ended_by is not None for o in session_run.result.sessions)
    assert f"{config.sessions} sessions of up to {config.games_per_session} games ({ended} ended early)" in outputs
    assert "risk of ruin (balance below the 2.00 minimum stake): 0.0% of sessions" in outputs
    assert "final bankroll: median" in outputs and "max drawdown: median" in outputs
    assert images >= 4


def test_settlements_notebook_reads_the_minimum_stake_from_the_games_table(
    session_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Risk of ruin is "the balance fell below the minimum stake": the notebook had 2.00 written in, whatever the
    markets' minimum was. Here the games table says 5,000.00, above every balance, so every session is ruined."""
    out = tmp_path / "run"
    shutil.copytree(session_run.out, out)
    games = pq.read_table(out / "games.parquet")
    at = games.schema.get_field_index("min_stake")
    games = games.set_column(at, games.schema.field(at), pa.array([500_000] * games.num_rows, pa.int64()))
    pq.write_table(games, out / "games.parquet")
    outputs, _ = run_notebook(out, monkeypatch)
    assert "risk of ruin (balance below the 5000.00 minimum stake): 100.0% of sessions" in outputs


def test_the_notebooks_medians_are_the_summarys_to_the_penny(
    session_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions ending on 7.00 and 9.01: the median is 8.005, which the backtest's summary rounds up to 8.01 (an
    exact half up, in whole pennies). The notebook took the median of floats in pounds and printed 8.00."""
    out = tmp_path / "run"
    shutil.copytree(session_run.out, out)
    rows = pq.read_table(out / "settlements.parquet").to_pylist()
    ending = {0: 700, 1: 901}  # the strategy's balance after each game of sessions 0 and 1; session 2 left out
    kept = [r | {"balance_after": ending[r["session"]]} if r["account"] == "strategy" else r
            for r in rows if r["account"] != "strategy" or r["session"] in ending]
    pq.write_table(pa.Table.from_pylist(kept, schema=TABLES["settlements"].schema), out / "settlements.parquet")
    outputs, _ = run_notebook(out, monkeypatch)
    assert "2 sessions of up to" in outputs
    assert "final bankroll: median 8.01," in outputs


def test_settlements_notebook_names_a_stud_hi_lo_games_rounds_and_both_markets_hands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The channel's own names: a 7-Card Stud game's streets (not Hold'em's Pre-flop and Flop), and each market's
    selections apart, the Low market's "No low" among them."""
    source = tmp_path / "both_markets.py"
    source.write_text(BOTH_MARKETS)
    config = BacktestConfig(strategy=StrategySpec.parse(f"{source}:BothMarkets"), games=2, seed=5,
                            channel="stud7-hilo", record_streams=False)  # fmt: skip
    out = tmp_path / "out"
    with InlineExecutor() as executor:
        run_backtest(config, executor, out)
    outputs, _ = run_notebook(out, monkeypatch)
    for name in ("3rd street", "4th street", "High: Hand 1", "Low: No low"):
        assert name in outputs
    assert "Pre-flop" not in outputs and "Round 5" not in outputs


def test_sessions_that_all_ended_early_are_counted_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session's length is the one the backtest was run with (its ``backtest.json``), not the longest session
    played: when every session ended early, the notebook said none had, and that sessions were one game long."""
    config = session_config("tests/backtest/test_sessions.py:Quitter", "{}")
    with InlineExecutor() as executor:
        result = run_backtest(config, executor, tmp_path)
    assert all(s.games < config.games_per_session for s in result.sessions)
    outputs, _ = run_notebook(tmp_path, monkeypatch)
    assert (f"{config.sessions} sessions of up to {config.games_per_session} games ({config.sessions} ended early)"
            in outputs), outputs
