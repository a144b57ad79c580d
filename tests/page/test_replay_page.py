"""``exchange-poker replay``'s page in headless Chromium: the same table, played from a backtest's files.

A two-game backtest of the example market maker is written once for the
module; the replay's position moves on a fake time the test sets, so each
check looks at an exact instant of the recording.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from exchange.agents.house import MAKER_ACCOUNT
from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from tests.page.harness import SERVER_STOPPED, AppThread, FakeTime, LiveServer, replay_server, shoot, watched_page

ROOT = Path(__file__).resolve().parents[2]


TABLE = "holdem"  # the channel whose table the tests look at (the ``page`` fixture)


@pytest.fixture(scope="module")
def backtest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "maker"
    config = BacktestConfig(strategy=StrategySpec.parse(f"{ROOT}/scripts/market_maker.py:MarketMaker"), games=2,
                            seed=1)
    with InlineExecutor() as executor:
        run_backtest(config, executor, out)
    return out


def test_the_replay_plays_a_recorded_game_with_the_strategys_bets(page: Page, backtest: Path,
                                                                  replay: tuple[AppThread, FakeTime]) -> None:
    _, time = replay
    games = pq.read_table(backtest / "games.parquet").to_pylist()
    expect(page.locator("#replay-controls")).to_be_visible()
    expect(page.locator("#account")).to_be_hidden()
    expect(page.locator("#connection")).to_have_text("● replay")  # its feed is connected, but nothing is live
    expect(page.locator("#orders-title")).to_have_text("The strategy's bets")
    expect(page.locator("#game-id")).to_contain_text(games[0]["market_id"])
    expect(page.locator("#hands .card.back")).to_have_count(8)
    page.get_by_label("Speed").select_option("10")
    expect(page.locator("#replay-state")).to_contain_text("10×")
    page.get_by_role("button", name="Play").click()
    expect(page.locator("#replay-state")).to_contain_text("playing")
    time.now += 7.0  # 70 s of the recording at 10×: the flop is out, the Flop window open
    expect(page.locator("#round-name")).to_have_text("Flop")
    board = games[0]["board"].split()
    expect(page.locator("#board .card:not(.back)")).to_have_count(3)
    assert [page.locator("#board .card").nth(i).get_attribute("data-card") for i in range(3)] == board[:3]
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("#replay-state")).to_contain_text("paused")
    mine = [o for o in pq.read_table(backtest / "orders.parquet").to_pylist()
            if o["account"] == STRATEGY_ACCOUNT and o["market_id"] == games[0]["market_id"]
            and o["placed_ms"] <= games[0]["start_ms"] + 70_000]
    assert mine
    bets = page.locator("#unmatched li[data-bet], #matched li[data-bet]")
    expect(bets.first).to_be_visible()
    shown = {bets.nth(i).get_attribute("data-bet") for i in range(bets.count())}
    assert shown <= {str(o["bet_id"]) for o in mine}
    shoot(page, "replay.png")
    page.get_by_role("button", name="Next game").click()
    expect(page.locator("#game-id")).to_contain_text(games[1]["market_id"])
    expect(page.locator("#results li").first).to_contain_text(games[0]["market_id"])
    expect(page.locator("#settled tr").first).to_contain_text(re.compile(games[0]["market_id"]))
    # The tab holds the strategy's bets on the game shown only: the first game's are forgotten with it.
    held = page.evaluate("async () => (await import('/static/app.js')).held()")
    assert games[0]["market_id"] not in held["orderMarkets"], held


def test_a_replay_of_another_account_says_whose_bets_it_shows(browser: Browser, backtest: Path) -> None:
    """``--account`` (a server's recording names one): the lists are that account's, and say so."""
    with (replay_server(backtest, MAKER_ACCOUNT) as (server, _),
          watched_page(browser, f"{server.url}/#/table/{TABLE}") as tab):
        expect(tab.locator("#orders-title")).to_have_text(f"{MAKER_ACCOUNT}'s bets")
        expect(tab.locator("#settled-title")).to_have_text(f"{MAKER_ACCOUNT}'s settled markets")
        placed = {str(o["bet_id"]) for o in pq.read_table(backtest / "orders.parquet").to_pylist()
                  if o["account"] == MAKER_ACCOUNT}
        bets = tab.locator("#unmatched li[data-bet], #matched li[data-bet]")
        expect(bets.first).to_be_visible()
        assert {bets.nth(i).get_attribute("data-bet") for i in range(bets.count())} <= placed


def test_a_tab_that_was_logged_in_to_a_live_server_on_the_same_address_shows_the_replay_alone(
        page: Page, replay: tuple[AppThread, FakeTime]) -> None:
    """``serve`` and then ``replay`` on the same address, and the tab reloaded: the live server's session, kept by
    the tab, is forgotten, not used against the replay (which has no login, no order stream and no API-NG: every
    try would be refused and logged as an error)."""
    page.evaluate("sessionStorage.setItem('session', JSON.stringify({token: 'a-live-token', account: 'demo'}))")
    page.reload()
    expect(page.locator("#connection")).to_have_text("● replay")
    expect(page.locator("#account")).to_be_hidden()
    page.get_by_role("button", name="Pause").click()  # a round trip to the replay: any refusal would be shown by now
    expect(page.locator("#replay-state")).to_contain_text("paused")
    assert page.evaluate("sessionStorage.getItem('session')") is None
    expect(page.locator("#notice")).to_be_hidden()


def test_a_tab_on_a_replay_follows_a_live_server_started_on_the_same_address(browser: Browser, backtest: Path,
                                                                            tmp_path: Path) -> None:
    """``replay`` stopped and ``serve`` started on the same address, the tab left open: once it has reconnected it
    is a live page (the login, no replay controls, no strategy's bets), not a replay page over a live table."""
    with replay_server(backtest) as (replay, _):
        port = replay.port
        with watched_page(browser, f"{replay.url}/#/table/{TABLE}", browser_says=SERVER_STOPPED) as page:
            expect(page.locator("#connection")).to_have_text("● replay")
            expect(page.locator("#replay-controls")).to_be_visible()
            live = LiveServer(tmp_path / "exchange.db", port=port)
            replay.stop()
            live.start()
            try:
                expect(page.locator("#connection")).to_have_text("● live")
                expect(page.locator("#replay-controls")).to_be_hidden()
                expect(page.locator("#login-form")).to_be_visible()
                expect(page.locator("#orders-title")).to_have_text("My bets")
                expect(page.locator("#game-id")).to_contain_text(live.snapshot()["game"]["id"])
                page.get_by_role("button", name="Log in").click()
                expect(page.locator("#who")).to_have_text("demo")
            finally:
                live.stop()


def test_a_speed_the_list_has_not_is_shown_in_it(browser: Browser, backtest: Path) -> None:
    """``replay --speed 3`` (any speed from 0.1 to 100 is taken): the list offered 0.5 to 30 and showed a blank."""
    with (replay_server(backtest) as (server, _), watched_page(browser, f"{server.url}/#/table/{TABLE}") as tab):
        speed = tab.get_by_label("Speed")
        expect(speed).to_have_value("1")
        assert [o.get_attribute("value") for o in speed.locator("option").all()] == [
            "0.1", "0.25", "0.5", "1", "2", "5", "10", "30", "100"]
        answer = requests.post(f"{server.url}/replay/v1/control", json={"speed": 3}, timeout=5)
        assert answer.json()["speed"] == 3
        expect(speed).to_have_value("3")
        expect(speed.locator("option:checked")).to_have_text("3×")
        expect(tab.locator("#replay-state")).to_contain_text("3×")
        refused = requests.post(f"{server.url}/replay/v1/control", json={"speed": True}, timeout=5).json()
        assert refused["details"] == "speed must be a number from 0.1 to 100, not true"  # (was Python's True)
