"""The replay of a 7-Card Stud Hi/Lo backtest in headless Chromium: both markets, stud's cards, a cancel in time.

A one-game backtest of a test strategy that rests a long shot and cancels it
five seconds later (``cancelling_maker.py``) is written once for the module;
the replay's position moves on a fake time the test sets, so each check looks
at an exact instant of the recording: before the cancel the bet is unmatched,
from the cancel's own time (long before its window closes) it is cancelled.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Page, expect

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.game.channels import STUD7_HILO
from exchange.game.rounds import timetable
from tests.page.harness import AppThread, FakeTime, shoot

HERE = Path(__file__).resolve().parent


TABLE = "stud7-hilo"  # the channel whose table the tests look at (the ``page`` fixture)


@pytest.fixture(scope="module")
def backtest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "stud"
    config = BacktestConfig(strategy=StrategySpec.parse(f"{HERE}/cancelling_maker.py:CancellingMaker"), games=1,
                            seed=2, channel=STUD7_HILO.name)
    with InlineExecutor() as executor:
        run_backtest(config, executor, out)
    return out


def cancelled_order(backtest: Path) -> dict[str, Any]:
    """The strategy's first order cancelled whole inside its window."""
    orders = pq.read_table(backtest / "orders.parquet").to_pylist()
    return next(o for o in orders if o["account"] == STRATEGY_ACCOUNT and o["cancels"]
                and o["cancels"][0]["size"] == o["size"])


def test_both_markets_stud_cards_and_a_cancel_at_its_time(page: Page, backtest: Path,
                                                          replay: tuple[AppThread, FakeTime]) -> None:
    _, time = replay
    game = pq.read_table(backtest / "games.parquet").to_pylist()[0]
    order = cancelled_order(backtest)
    placed, cancelled = order["placed_ms"], order["cancels"][0]["at_ms"]
    window = timetable(STUD7_HILO, game["start_ms"])[order["round"] - 1]
    assert window.opens_ms <= placed < cancelled < window.closes_ms
    bet = f"li[data-bet='{order['bet_id']}']"

    page.get_by_role("button", name="Play").click()
    expect(page.locator("#replay-state")).to_contain_text("playing")
    time.now = (placed - game["start_ms"] + 1) / 1000  # 1× speed: a second of fake time is a second of the game
    expect(page.locator(f"#unmatched {bet}")).to_contain_text("£2.00 at 1000")
    expect(page.locator(f"#cancelled {bet}")).to_have_count(0)

    markets = page.locator("#markets .market")
    expect(markets).to_have_count(2)
    expect(markets.nth(0).locator("h2")).to_have_text("High")
    expect(markets.nth(1).locator("h2")).to_have_text("Low")
    expect(markets.nth(0).locator("tbody tr.sel-row")).to_have_count(4)
    expect(markets.nth(1).locator("tbody tr.sel-row")).to_have_count(5)
    expect(markets.nth(1).locator("tr[data-selection='5'] .sel-name")).to_have_text("No low")
    expect(markets.nth(1).locator(".equity").first).to_contain_text("equity")

    dealt = 1 + order["round"]  # three cards in the 3rd street window (round 2), then one more a window
    first = page.locator("#hands .hand").first
    expect(first.locator(".card:not(.back)")).to_have_count(dealt)
    shown = [first.locator(".card").nth(i).get_attribute("data-card") for i in range(dealt)]
    assert shown == game["hand_1"].split()[:dealt]
    expect(first.locator(".card.down")).to_have_count(2)  # the two down cards of 3rd street; the rest dealt up
    expect(first.locator(".card.down").first).to_have_attribute("aria-label", re.compile(r"\(down\)$"))
    expect(page.locator("#board .card")).to_have_count(0)  # stud has no board

    time.now = (cancelled - game["start_ms"] + 1) / 1000  # the cancel, long before the window's close
    expect(page.locator(f"#cancelled {bet}")).to_contain_text("£2.00 at 1000 cancelled")
    expect(page.locator(f"#unmatched {bet}")).to_have_count(0)
    page.get_by_role("button", name="Pause").click()
    shoot(page, "replay-stud-hilo.png")

    page.get_by_role("button", name="Next game").click()  # the last game: to the end of the recording
    result = page.locator(f"#results li[data-game='{game['market_id']}']")
    high = ", ".join(f"Hand {w}" for w in game["winners"].split(","))
    low = ", ".join("No low" if w == "5" else f"Hand {w}" for w in game["low_winners"].split(","))
    expect(result).to_contain_text(f"High: won by {high}")
    expect(result).to_contain_text(f"Low: won by {low}")
