"""What a tab holds and shows over time, in headless Chromium against a live server on a virtual clock: a tab left
open over many games, one opened after its market closed, a restart that drops a channel, windows of a fractional
number of seconds.

What the tab holds is read from ``held()``, which the page's ``app.js`` exports for this (the module a dynamic
import gives is the one the page runs: the same state).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from exchange.core.commands import VoidMatchedSince
from exchange.game.channels import HOLDEM, OMAHA
from exchange.server import keys
from tests.page.harness import (
    SERVER_STOPPED,
    WINDOW_MS,
    ApiClient,
    LiveServer,
    backs_on_every_hand,
    settle,
    watched_page,
    window_opens,
)

HELD = "async () => (await import('/static/app.js')).held()"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-state") / "exchange.db")
    live.start()
    live.add_account("bob", "pw-bob", 1_000_000)
    yield live
    live.stop()


def log_in(page: Page) -> None:
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who")).to_have_text("demo")
    expect(page.locator("body")).to_have_attribute("data-orders-feed", "live")


def test_a_tab_open_over_many_games_holds_the_bets_of_the_games_it_shows_only(browser: Browser,
                                                                             server: LiveServer) -> None:
    """Six games, each with a bet matched and one left to lapse, all seen by the tab as they happen (the order
    stream brings each). Once the next game is on the table the tab holds none of the past games' bets, positions
    or figures: a tab open for hours holds what it shows, however many games went by. The recent results and the
    settled markets (the history the page shows) still list the past games."""
    server.to_game_time(0, next_game=True)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    with watched_page(browser, f"{server.url}/#/table/holdem") as page:
        log_in(page)
        played = []
        for _ in range(6):
            market = server.snapshot()["game"]["id"]
            played.append(market)
            expect(page.locator("#game-id")).to_contain_text(market)
            bob.place(market, 1, "LAY", 3.0, 2)
            matched = demo.place(market, 1, "BACK", 3.0, 2)["betId"]
            demo.place(market, 2, "BACK", 50, 2)
            server.advance(0)
            expect(page.locator(f"#matched li[data-bet='{matched}']")).to_contain_text("£2.00 at 3.00")
            settle(server)
            expect(page.locator(f"#results li[data-game='{market}']")).to_be_visible()
            server.to_game_time(0, next_game=True)
            fresh = server.snapshot()["game"]["id"]
            expect(page.locator("#game-id")).to_contain_text(fresh)
            expect(page.locator("#matched li[data-bet]")).to_have_count(0)
            held = page.evaluate(HELD)
            assert held["orderMarkets"] == [], held
            assert (held["orders"], held["positions"], held["streamedAt"], held["pnl"]) == (0, 0, 0, 0), held
            assert held["settledWhileOpen"] <= 1, held  # the game on the table's own market
        expect(page.locator("#settled tr").first).to_contain_text(played[-1])
        for market in played:
            expect(page.locator(f"#results li[data-game='{market}']")).to_be_visible()


def pounds(pennies: int) -> str:
    return f"{'+' if pennies > 0 else '−' if pennies < 0 else ''}£{abs(pennies) // 100:,}.{abs(pennies) % 100:02d}"


def test_a_tab_opened_after_its_market_closed_lists_its_fills_and_if_wins(browser: Browser,
                                                                         server: LiveServer) -> None:
    """The account's bets were matched, then the market settled, all before the tab opened: the order stream's
    image holds executable orders only and listCurrentOrders no settled ones, so the tab reads the market's
    cleared orders when it first meets it. Its bets are listed matched, a bet's unmatched part as not matched
    (the cleared row says only that it was cancelled or lapsed; it was not listed at all), and the winner's "if
    wins" is what the account won on the market (its cleared profit before commission)."""
    server.to_game_time(0, next_game=True)
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(market, 1, "LAY", 3.0, 4)
    bob.place(market, 2, "BACK", 4.0, 2)
    backed = demo.place(market, 1, "BACK", 3.0, 4)["betId"]
    laid = demo.place(market, 2, "LAY", 4.0, 2)["betId"]
    bob.place(market, 3, "LAY", 5.0, 2)
    part = demo.place(market, 3, "BACK", 5.0, 6)["betId"]  # 2.00 matched, 4.00 rests and lapses
    settle(server)
    [closed] = server.snapshot()["game"]["markets"]
    winners = [s["selectionId"] for s in closed["selections"] if s["status"] in ("WINNER", "TIED_DEAD_HEAT")]
    assert len(winners) == 1, f"seed 3's game {market} is a dead heat: the winner's figure is no single profit"
    [row] = demo.call("listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET",
                                            "marketIds": [market]})["clearedOrders"]
    with watched_page(browser, f"{server.url}/#/table/holdem") as page:
        expect(page.locator(".market-status")).to_have_text("settled")
        log_in(page)
        expect(page.locator(f"#matched li[data-bet='{backed}']")).to_contain_text("£4.00 at 3.00")
        expect(page.locator(f"#matched li[data-bet='{laid}']")).to_contain_text("£2.00 at 4.00")
        expect(page.locator(f"#matched li[data-bet='{part}']")).to_contain_text("£2.00 at 5.00")
        expect(page.locator(f"#cancelled li[data-bet='{part}']")).to_contain_text("£4.00 at 5.00 not matched")
        expect(page.locator(f"tr[data-selection='{winners[0]}'] .pnl")).to_have_text(
            f"if wins {pounds(round(row['profit'] * 100))}")


def test_a_tab_opened_after_its_market_closed_shows_a_bet_settled_after_a_void_whole(browser: Browser,
                                                                                   server: LiveServer) -> None:
    """A back matched in two parts, the second voided (as a card exposed between them would), then the market
    settled, all before the tab opened. listClearedOrders lists the bet twice, under SETTLED with the stake that
    stood and under VOIDED with the voided one: the tab joins the two rows into one bet, matched for the first part
    and voided for the second."""
    server.to_game_time(0, next_game=True)
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(market, 1, "LAY", 5.0, 2)
    backed = demo.place(market, 1, "BACK", 5.0, 6)["betId"]  # 2.00 matched now, 4.00 rests
    server.advance(100)
    second_ms = server.clock.now()
    bob.place(market, 1, "LAY", 5.0, 4)  # the rest matched, and voided below
    service = server.app[keys.SERVICE]
    server.run(lambda: service.execute(VoidMatchedSince(service.now(), market, second_ms, "card exposed")))
    settle(server)
    rows = {status: demo.call("listClearedOrders", {"betStatus": status, "marketIds": [market]})["clearedOrders"]
            for status in ("SETTLED", "VOIDED")}
    assert [(r["betId"], r["sizeSettled"]) for r in rows["SETTLED"]] == [(backed, 2.0)]
    assert [(r["betId"], r["sizeSettled"]) for r in rows["VOIDED"]] == [(backed, 4.0)]
    with watched_page(browser, f"{server.url}/#/table/holdem") as page:
        expect(page.locator(".market-status")).to_have_text("settled")
        log_in(page)
        expect(page.locator(f"#matched li[data-bet='{backed}']")).to_contain_text("£2.00 at 5.00")
        expect(page.locator(f"#cancelled li[data-bet='{backed}']")).to_contain_text("£4.00 matched, voided")


def test_a_tab_opened_after_its_market_closed_counts_the_hands_settled_early_as_the_server_did(
    browser: Browser, tmp_path: Path
) -> None:
    """Bets on every hand, two of them settled early (out at the Turn), the market then settled, all before the
    tab opened. The tab never saw which hands settled early, so it counted them alive: their bets' results are
    fixed whatever wins, and each hand's "if wins" must be the server's of the Turn (settled bets included). The
    server's record of the game (its results route) names them."""
    live = LiveServer(tmp_path / "exchange.db")
    live.start()
    try:
        market, demo = backs_on_every_hand(live)
        live.to_game_time(window_opens(4))
        [shown] = live.snapshot()["game"]["markets"]
        assert shown["status"] == "OPEN" and {s["status"] for s in shown["selections"]} == {"IN_PLAY", "CAN_NOT_WIN"}
        [answer] = demo.call("listMarketProfitAndLoss", {"marketIds": [market], "includeSettledBets": True})
        live.to_game_time(window_opens(4) + WINDOW_MS)
        with watched_page(browser, f"{live.url}/#/table/holdem") as page:
            expect(page.locator(".market-status")).to_have_text("settled")
            log_in(page)
            for figure in answer["profitAndLosses"]:
                words = f"if wins {pounds(round(figure['ifWin'] * 100))}"
                expect(page.locator(f"tr[data-selection='{figure['selectionId']}'] .pnl")).to_have_text(words)
    finally:
        live.stop()


def test_a_channel_gone_after_a_restart_is_no_longer_shown_as_a_table(browser: Browser, tmp_path: Path) -> None:
    """A tab on the Omaha table; the server restarts running Hold'em only. Once the tab has reconnected, the
    Omaha table says it is not on this server (no hands, no markets, no bets of the old game) and the lobby
    lists Hold'em alone, rather than the last snapshot of a game that will never move again."""
    first = LiveServer(tmp_path / "exchange.db", others=(OMAHA.name,))
    first.start()
    second: LiveServer | None = None
    try:
        # While the server is down the tab's tries to reconnect are refused: the browser logs those.
        with watched_page(browser, f"{first.url}/#/table/{OMAHA.name}", browser_says=SERVER_STOPPED) as page:
            expect(page.locator("#table-title")).to_have_text(OMAHA.title)
            expect(page.locator("#markets .market")).to_have_count(1)
            page.locator("tr[data-selection='1'] button.price.back.best").click()
            expect(page.locator("#slip-form")).to_be_visible()
            second = LiveServer(tmp_path / "exchange.db", port=first.port)
            first.stop()
            second.start()
            expect(page.locator("#table-title")).to_have_text(f"No table {OMAHA.name} on this server")
            expect(page.locator("#markets .market")).to_have_count(0)
            expect(page.locator("#hands .hand")).to_have_count(0)
            expect(page.locator("#slip-form")).to_be_hidden()
            expect(page.locator("#countdown-text")).to_have_text("—")
            page.get_by_role("link", name="← All tables").click()
            expect(page.locator(".lobby-card")).to_have_count(1)
            expect(page.locator(f".lobby-card[data-channel='{HOLDEM.name}']")).to_be_visible()
            held = page.evaluate(HELD)
            assert held["snapshots"] == [HOLDEM.name], held
    finally:
        for server in (first, second):
            if server is not None:
                server.stop()


def test_the_countdown_bar_fills_in_step_with_a_window_of_two_and_a_half_seconds(browser: Browser,
                                                                                 tmp_path: Path) -> None:
    """``serve --window-ms 2500``: the channel's windows are 2.5 s, which the Games API's whole seconds
    (``bettingWindowTime``) cannot say. The bar shows the share of the window gone by, the lobby the window's
    length. The tab's own clock is stopped, so the bar shows exactly what the last snapshot says."""
    window = 2_500
    live = LiveServer(tmp_path / "exchange.db", window_ms=window)
    live.start()
    try:
        live.add_account("bob", "pw-bob", 100_000)
        with watched_page(browser, f"{live.url}/") as page:
            page.clock.install()
            page.clock.pause_at(page.evaluate("Date.now()") + 1000)
            page.reload()
            expect(page.locator(".lobby-card[data-channel='holdem']")).to_contain_text("2.5 s betting, 1 s playing")
            page.locator(".lobby-card[data-channel='holdem']").click()
            bar = page.locator("#countdown-bar")
            for at in (window // 4, window // 2):
                live.to_game_time(at)
                ApiClient(live.url, "bob", "pw-bob").place(live.snapshot()["game"]["id"], 1, "LAY", 3.0, 2)
                live.advance(0)  # the price goes out with the snapshot of now
                game: dict[str, Any] = live.snapshot()["game"]
                assert game["bettingOpen"]
                share = round((1 - game["bettingWindowRemainingMs"] / window) * 100)
                expect(bar).to_have_attribute("style", re.compile(rf"width: {share}%"))
    finally:
        live.stop()


def test_following_a_table_by_keyboard_lands_on_its_heading_and_back(browser: Browser, server: LiveServer) -> None:
    """Enter on a lobby card shows the table; the focus goes to its heading (it was left on the page's body, the
    card being hidden), and back to the lobby's heading by the "All tables" link."""
    with watched_page(browser, f"{server.url}/") as page:
        card = page.locator(".lobby-card[data-channel='holdem']")
        card.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#table-title")).to_be_focused()
        page.get_by_role("link", name="← All tables").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#lobby-title")).to_be_focused()
        expect(card).to_be_visible()
