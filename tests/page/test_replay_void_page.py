"""The replay of a game where a dealer's error voids the strategy's matches, in headless Chromium.

The folder comes from ``tests/voided_backtest.py`` (the turn seen at the opening of the
Flop window, noticed at its close: every match of the window voided then). The
replay's position moves on a fake time the test sets: from its match to the void a bet
is in the matched list; from the void's own time it has left it and is listed voided.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Page, expect

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from tests.page.harness import AppThread, FakeTime, shoot
from tests.voided_backtest import write_voided_backtest

TABLE = "holdem"  # the channel whose table the tests look at (the ``page`` fixture)


@pytest.fixture(scope="module")
def backtest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_voided_backtest(tmp_path_factory.mktemp("replay") / "voided").out


def voided_bet(backtest: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The strategy's first order whose every match was voided, and those matches."""
    orders = pq.read_table(backtest / "orders.parquet").to_pylist()
    fills = pq.read_table(backtest / "fills.parquet").to_pylist()
    order = next(o for o in orders if o["account"] == STRATEGY_ACCOUNT and o["size_voided"] and not o["size_matched"])
    return order, [f for f in fills if order["bet_id"] in (f["back_bet_id"], f["lay_bet_id"])]


def test_a_match_is_shown_matched_then_voided_at_the_voids_time(page: Page, backtest: Path,
                                                               replay: tuple[AppThread, FakeTime]) -> None:
    _, time = replay
    game = pq.read_table(backtest / "games.parquet").to_pylist()[0]
    order, fills = voided_bet(backtest)
    matched_ms, [void_ms] = max(f["at_ms"] for f in fills), {f["voided_ms"] for f in fills}
    assert matched_ms < void_ms and all(f["voided"] for f in fills)
    stake = f"£{order['size_voided'] // 100}.{order['size_voided'] % 100:02d}"
    bet = f"li[data-bet='{order['bet_id']}']"

    page.get_by_role("button", name="Play").click()
    expect(page.locator("#replay-state")).to_contain_text("playing")
    time.now = (matched_ms - game["start_ms"] + 1) / 1000  # 1× speed: a second of fake time is one of the game
    expect(page.locator(f"#matched {bet}")).to_contain_text(f"{stake} at")
    expect(page.locator(f"#cancelled {bet}")).to_have_count(0)

    time.now = (void_ms - game["start_ms"]) / 1000  # the void, at the Flop window's close
    expect(page.locator(f"#cancelled {bet}")).to_contain_text(f"{stake} matched, voided")
    expect(page.locator(f"#matched {bet}")).to_have_count(0)
    page.get_by_role("button", name="Pause").click()
    shoot(page, "replay-voided.png")
