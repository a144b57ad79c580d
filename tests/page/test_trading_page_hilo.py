"""The trading page on a live Omaha Hi/Lo table in headless Chromium: the two markets as a trader meets them.

One server (a single ``omaha-hilo`` channel, no house, on a virtual clock) and
one browser for the module; each test starts from a fresh game in a fresh
browser context and ends by checking the page logged no console error. Bets go
in through the page's own bet slip, and what the page then shows is checked
against what the server's API-NG answers the same account.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from exchange.game.channels import OMAHA_HILO
from tests.page.harness import WINDOW_MS, ApiClient, LiveServer, watched_page

CHANNEL = OMAHA_HILO.name


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-hilo") / "exchange.db", channel=CHANNEL)
    live.start()
    live.add_account("bob", "pw-bob", 100_000)
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A fresh tab, logged in as ``demo``, at the table of a fresh game."""
    server.to_game_time(0, next_game=True)
    with watched_page(browser, f"{server.url}/#/table/{CHANNEL}") as tab:
        tab.get_by_role("button", name="Log in").click()
        expect(tab.locator("#who")).to_have_text("demo")
        expect(tab.locator("#markets .market")).to_have_count(2)
        yield tab


def markets(server: LiveServer) -> tuple[str, str]:
    """The ids of the current game's High and Low markets."""
    high, low = (m["marketId"] for m in server.snapshot()["game"]["markets"])
    return high, low


def slip(page: Page, market: str, selection: int, side: str) -> Locator:
    """Click the best price cell of ``side`` for ``selection`` of ``market``; the bet slip it filled."""
    row = page.locator(f"section[data-market='{market}'] tr[data-selection='{selection}']")
    row.locator(f"button.price.{side.lower()}.best").click()
    expect(page.locator("#slip-form")).to_be_visible()
    return page.locator("#slip-form")


def place(page: Page, market: str, selection: int, side: str, price: str, stake: str) -> None:
    form = slip(page, market, selection, side)
    form.locator("#slip-price").fill(price)
    form.locator("#slip-stake").fill(stake)
    form.locator("#slip-confirm").click()


def test_a_bet_left_unmatched_is_listed_lapsed_when_its_window_closes(page: Page, server: LiveServer) -> None:
    high, _ = markets(server)
    demo = ApiClient(server.url, "demo", "demo")
    place(page, high, 2, "BACK", "80", "2")
    expect(page.locator("#notice")).to_contain_text("£0.00 matched")
    [order] = demo.current_orders(high)
    bet = order["betId"]
    expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_contain_text("£2.00 at 80")

    server.advance(WINDOW_MS)  # the Deal window closes: what rests lapses
    [lapsed] = demo.current_orders(high)
    assert (lapsed["status"], lapsed["sizeLapsed"], lapsed["sizeCancelled"]) == ("EXECUTION_COMPLETE", 2.0, 0.0)
    expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_have_count(0)
    expect(page.locator(f"#cancelled li[data-bet='{bet}']")).to_contain_text("£2.00 at 80 lapsed")


def test_bets_made_before_the_page_was_reloaded_are_listed_again(page: Page, server: LiveServer) -> None:
    """A reload (or a table opened straight from its address) reads the account's bets on the table back: the
    matched one with its "if wins" and the lapsed one, neither of which the order stream's image holds."""
    high, _ = markets(server)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(high, 1, "LAY", 3.0, 10)
    server.advance(0)
    place(page, high, 1, "BACK", "3", "4")
    expect(page.locator("#notice")).to_contain_text("£4.00 matched")
    place(page, high, 2, "BACK", "80", "2")
    expect(page.locator("#notice")).to_contain_text("£0.00 matched")
    server.advance(WINDOW_MS)
    backed, lapsed = (o["betId"] for o in sorted(demo.current_orders(high), key=lambda o: int(o["betId"])))
    for _ in range(3):
        page.reload()
        expect(page.locator(f"#matched li[data-bet='{backed}']")).to_contain_text("£4.00 at 3.00")
        expect(page.locator(f"section[data-market='{high}'] tr[data-selection='1'] .pnl")).to_have_text(
            "if wins +£8.00")
        expect(page.locator(f"#cancelled li[data-bet='{lapsed}']")).to_contain_text("£2.00 at 80 lapsed")
