"""Fixtures for the backtester's tests: one small backtest, run once per session and shared."""

from __future__ import annotations

import pytest

from exchange.backtest.runner import run_backtest
from exchange.backtest.workers import InlineExecutor
from tests.backtest.backtest_support import Run, session_config, small_config


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Ten games of the example market maker (it trades every window), written to a temporary directory."""
    out = tmp_path_factory.mktemp("backtest") / "inline"
    config = small_config()
    with InlineExecutor() as executor:
        result = run_backtest(config, executor, out)
    return Run(config, result, out)


@pytest.fixture(scope="session")
def session_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Three sessions of five games of the fixed-fraction example, written to a temporary directory."""
    out = tmp_path_factory.mktemp("backtest") / "sessions"
    config = session_config()
    with InlineExecutor() as executor:
        result = run_backtest(config, executor, out)
    return Run(config, result, out)
