"""A :class:`BacktestConfig` built from Python (a notebook, a script) refuses what the command line refuses.

The command checks its arguments; a config built directly went on with a fractional latency (the virtual
clock, whose every timestamp is a whole millisecond, then ran on fractions) or a balance that is no whole
number of pennies or below zero (money in the exchange is whole minor units). A seed is hashed as text, so a
seed of 1.0 (or ``True``) dealt other games than ``--seed 1``; only whole numbers are seeds.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from exchange.backtest.loading import StrategyLoadError, StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.strategy import MarketHandle, Strategy
from exchange.backtest.workers import InlineExecutor

SPEC = StrategySpec.parse("exchange.backtest.strategy:Strategy")


BALANCE = "balance must be a whole number of minor units above 0 and at most 1000000000000000, not "


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"latency_ms": 1.5}, "latency must be a whole number of ms, 0 or more, not 1.5"),
        ({"latency_ms": -5}, "latency must be a whole number of ms, 0 or more, not -5"),
        ({"latency_ms": True}, "latency must be a whole number of ms, 0 or more, not True"),
        ({"balance": 100.5}, BALANCE + "100.5"),
        ({"balance": -5}, BALANCE + "-5"),
        ({"balance": 0}, BALANCE + "0"),
        ({"balance": 10**15 + 1}, BALANCE + "1000000000000001"),
        ({"games": 2.0}, "games must be a whole number, not 2.0"),
        ({"games_per_session": True}, "games_per_session must be a whole number, not True"),
        ({"seed": 1.5}, "seed must be a whole number, not 1.5"),
        ({"seed": 1.0}, "seed must be a whole number, not 1.0"),
        ({"seed": "7"}, "seed must be a whole number, not '7'"),
        ({"seed": True}, "seed must be a whole number, not True"),
        ({"irregularity_rate": "0.1"}, "the irregularity rate is a share of games, 0 to 1, not '0.1'"),
        ({"irregularity_rate": 1.5}, "the irregularity rate is a share of games, 0 to 1, not 1.5"),
    ],
)
def test_a_config_refuses_values_the_command_refuses(changes: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {"strategy": SPEC, "games": 2, "seed": 1, **changes}
    with pytest.raises(ValueError) as refused:
        BacktestConfig(**settings)
    assert str(refused.value) == message


def test_a_config_of_sound_values_is_taken() -> None:
    config = BacktestConfig(strategy=SPEC, games=4, seed=1, latency_ms=0, balance=1, games_per_session=2)
    assert (config.sessions, config.latency_ms, config.balance) == (2, 0, 1)


@pytest.mark.parametrize("current_first", [True, False])
def test_a_missing_module_says_where_it_was_looked_for_in_that_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, current_first: bool) -> None:  # fmt: skip
    """``python -m`` puts the current folder before the installed packages; the command puts it after them, so a
    module there named like an installed one is not the one loaded: the message names the places in the order
    they were searched."""
    monkeypatch.chdir(tmp_path)
    rest = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != str(tmp_path)]
    monkeypatch.setattr(sys, "path", ["", *rest] if current_first else [*rest, str(tmp_path)])
    with pytest.raises(StrategyLoadError) as caught:
        StrategySpec.parse("no_module_here_at_all:Bot").build()
    places = [f"in the current folder ({tmp_path})", "among the installed packages"]
    searched = " or ".join(places if current_first else places[::-1])
    assert str(caught.value) == f"no module 'no_module_here_at_all' {searched}"


class LatencyAfterInit(Strategy):
    """Sets its own latency after ``Strategy.__init__`` checked the one it was given."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.latency_ms = 50.0  # type: ignore[assignment]  # what the test is about


def test_a_latency_a_strategy_set_itself_is_checked_when_it_is_seated(tmp_path: Path) -> None:
    """Refused before a game is played, the output folder left as it was: it went on to play every game and then
    failed to write the run's record (a numpy integer), leaving the run's files in the folder."""
    config = BacktestConfig(strategy=StrategySpec.parse(f"{__name__}:LatencyAfterInit"), games=2, seed=1)
    out = tmp_path / "out"
    refusal = re.escape("latency must be a whole number of ms, 0 or more, not 50.0")
    with InlineExecutor() as executor, pytest.raises(ValueError, match=refusal):
        run_backtest(config, executor, out)
    assert not out.exists()


class RaisesInItsSecondGame(Strategy):
    def on_market_open(self, market: MarketHandle) -> None:
        if market.market_id.endswith(".1"):
            raise ZeroDivisionError("a strategy's own bug")


def test_a_run_that_fails_takes_away_the_folders_it_made(tmp_path: Path) -> None:
    """The Python API leaves the folder as it was, as the command does: a folder it made for a run that failed
    (and its parents it made) is not left behind empty; one that was there stays."""
    config = BacktestConfig(strategy=StrategySpec.parse(f"{__name__}:RaisesInItsSecondGame"), games=3, seed=1)
    out = tmp_path / "new" / "deeper"
    with InlineExecutor() as executor, pytest.raises(ZeroDivisionError, match="own bug"):
        run_backtest(config, executor, out)
    assert not (tmp_path / "new").exists()
    out.mkdir(parents=True)
    with InlineExecutor() as executor, pytest.raises(ZeroDivisionError, match="own bug"):
        run_backtest(config, executor, out)
    assert out.is_dir() and not any(out.iterdir())
