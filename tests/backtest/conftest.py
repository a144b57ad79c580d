"""Fixtures for the backtester's tests: one small backtest, run once per session and shared."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, BacktestResult, run_backtest
from exchange.backtest.workers import InlineExecutor

# tests/backtest/backtest_support.py is imported by name.
sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parents[2]
#: Seed 1 deals dead heats in games 0, 4 and 8: the dead-heat rule is exercised in every run.
SEED = 1
GAMES = 10


@dataclass(frozen=True)
class Run:
    config: BacktestConfig
    result: BacktestResult
    out: Path


def small_config(reference: str = "scripts/market_maker.py:MarketMaker", params: str = "{}") -> BacktestConfig:
    spec = StrategySpec.parse(str(ROOT / reference.split(":")[0]) + ":" + reference.split(":")[1], params)
    return BacktestConfig(strategy=spec, games=GAMES, seed=SEED)


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Ten games of the example market maker (it trades every window), written to a temporary directory."""
    out = tmp_path_factory.mktemp("backtest") / "inline"
    config = small_config()
    with InlineExecutor() as executor:
        result = run_backtest(config, executor, out)
    return Run(config, result, out)
