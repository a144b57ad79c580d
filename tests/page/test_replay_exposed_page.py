"""The replay of a game dealt with an exposed hole card and voided mid-game, in headless Chromium.

The folder comes from ``tests/voided_backtest.py``: the third hole card is exposed at the deal
and burned (rule 1: dead for the rest of the game), and an operator voids the game a second
into its Turn window. The exposed card is drawn beside the board from the deal, marked dead;
from the void's own time the market reads void, not settled.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Page, expect

from exchange.core.events import MarketVoided
from tests.page.harness import AppThread, FakeTime, replay_server, shoot
from tests.voided_backtest import VoidedBacktest, write_exposed_backtest

TABLE = "holdem"  # the channel whose table the tests look at (the ``page`` fixture)


@pytest.fixture(scope="module")
def backtest(tmp_path_factory: pytest.TempPathFactory) -> VoidedBacktest:
    return write_exposed_backtest(tmp_path_factory.mktemp("replay") / "exposed")


@pytest.fixture(scope="module")
def replay(backtest: VoidedBacktest) -> Iterator[tuple[AppThread, FakeTime]]:
    with replay_server(backtest.out) as served:
        yield served


def test_the_exposed_card_is_shown_dead_from_the_deal_and_the_market_void_from_the_void(
        page: Page, backtest: VoidedBacktest, replay: tuple[AppThread, FakeTime]) -> None:  # fmt: skip
    _, time = replay
    [row] = pq.read_table(backtest.out / "irregularities.parquet").to_pylist()
    [start_ms] = [g["start_ms"] for g in pq.read_table(backtest.out / "games.parquet").to_pylist()]
    [void_ms] = [s.at_ms for s in backtest.log if isinstance(s.event, MarketVoided)]
    assert row["at_ms"] == start_ms and row["cards"] == row["dead_cards"] != ""

    card = page.locator(f"#exposed [data-card='{row['cards']}']")
    expect(card).to_have_class(re.compile(r"\bdead\b"))
    expect(card).to_have_attribute("aria-label", f"{_name(row['cards'])}, exposed, dead")
    expect(page.locator("#markets .market-status")).not_to_have_text("void")

    page.get_by_role("button", name="Play").click()
    expect(page.locator("#replay-state")).to_contain_text("playing")
    time.now = (void_ms - start_ms) / 1000  # 1× speed: a second of fake time is one of the game
    expect(page.locator("#markets .market-status")).to_have_text("void")
    expect(page.locator("#round-name")).to_have_text("Turn · void")
    expect(page.locator("#countdown-text")).to_have_text("void")
    expect(page.locator("#hands .status")).to_have_text(["void"] * 4)  # each hand's bets were refunded
    expect(card).to_have_class(re.compile(r"\bdead\b"))
    page.get_by_role("button", name="Pause").click()
    shoot(page, "replay-exposed.png")


def _name(code: str) -> str:
    """A card's spoken name as the page gives it (``6d``: six of diamonds)."""
    ranks = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten"}
    suits = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
    return f"{ranks.get(code[0], code[0])} of {suits[code[1]]}"
