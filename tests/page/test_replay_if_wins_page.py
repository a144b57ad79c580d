"""The replay's "if wins" of a strategy's bet matched at several prices is exact, as the live page's is.

A one-game backtest of :class:`tests.page.sweeping_backer.SweepingBacker`: £333 backed on hand 1 takes the
house's lays at four prices. Its average price to API-NG's four decimals would make the sum a penny short; the
page sums the fills' own prices, which the replay gives with the strategy's orders.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Page, expect

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from tests.page.harness import AppThread, FakeTime

HERE = Path(__file__).resolve().parent
TABLE = "holdem"


@pytest.fixture(scope="module")
def backtest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay-if-wins") / "sweep"
    config = BacktestConfig(strategy=StrategySpec.parse(f"{HERE / 'sweeping_backer.py'}:SweepingBacker"), games=1,
                            seed=1)
    with InlineExecutor() as executor:
        run_backtest(config, executor, out)
    return out


def pounds(pennies: int) -> str:
    return f"{'+' if pennies > 0 else '−' if pennies < 0 else ''}£{abs(pennies) // 100:,}.{abs(pennies) % 100:02d}"


def test_if_wins_of_a_bet_matched_at_several_prices_is_exact(page: Page, backtest: Path,
                                                            replay: tuple[AppThread, FakeTime]) -> None:
    fills = [f for f in pq.read_table(backtest / "fills.parquet").to_pylist()
             if f["back_account"] == STRATEGY_ACCOUNT and not f["voided"]]
    assert len({f["tick"] for f in fills}) > 2
    stake = sum(f["size"] for f in fills)
    won = sum(f["size"] * (Fraction(str(f["price"])) - 1) for f in fills)  # in pennies, exact
    expected = math.ceil(won - Fraction(1, 2))  # to the penny as settlement rounds it: a half down
    page.get_by_role("button", name="Next game").click()  # to the end of the recording: every fill made
    expect(page.locator("#replay-state")).to_contain_text("game 1 of 1")
    expect(page.locator("#matched li[data-bet]")).to_have_count(1)
    expect(page.locator("tr[data-selection='1'] .pnl")).to_have_text(f"if wins {pounds(expected)}")
    expect(page.locator("tr[data-selection='2'] .pnl")).to_have_text(f"if wins {pounds(-stake)}")
