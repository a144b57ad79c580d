"""The replay shows each equity as the live game published it: exact, or a Monte Carlo estimate with its error.

One game of 7-Card Stud: its Deal window and 7th-street settlement are priced exactly,
its 3rd to 5th streets by a seeded Monte Carlo, whose standard error
``equities.parquet`` records. The replay's snapshot at each publication carries what
the live snapshot carried: ``equityExact`` for an exact share, ``equityStderr`` (and
no ``equityExact``) for an estimate, so the page marks an estimate as one.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq

from exchange.backtest.loading import StrategySpec
from exchange.backtest.replay import game_snapshot, load_timeline
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.game.channels import STUD7
from tests.backtest.backtest_support import ROOT


def test_each_equity_is_shown_exact_or_as_the_estimate_it_was(tmp_path: Path) -> None:
    config = BacktestConfig(strategy=StrategySpec.parse(f"{ROOT}/scripts/market_maker.py:MarketMaker"), games=1,
                            seed=1, channel=STUD7.name)
    with InlineExecutor() as executor:
        run_backtest(config, executor, tmp_path)
    published = pq.read_table(tmp_path / "equities.parquet").to_pylist()
    assert {row["stderr"] is None for row in published} == {True, False}  # exact and estimated publications
    [game] = load_timeline(tmp_path).games
    for row in published:
        [market] = game_snapshot(game, row["at_ms"])["game"]["markets"]
        shown = market["selections"][row["selection_id"] - 1]
        share = Fraction(row["equity_exact"])
        assert shown["equity"] == round(float(share), 6), row
        if row["stderr"] is None:
            assert Fraction(shown["equityExact"]) == share and "equityStderr" not in shown, row
        else:
            assert shown["equityStderr"] == round(float(Fraction(row["stderr"])), 6) > 0, row
            assert "equityExact" not in shown, row
