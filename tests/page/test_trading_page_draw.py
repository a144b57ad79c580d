"""The trading page on a live 2-7 Triple Draw table in headless Chromium: each hand's draws.

One server (a single ``triple-draw-27`` channel, no house, on a virtual clock)
and one browser for the module. The cards a hand threw away are known to every
bettor (they were shown in the hand before the draw) and out of play: the table
keeps showing them, draw by draw, as the snapshot lists them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from exchange.game.channels import TRIPLE_DRAW_27
from tests.page.harness import LiveServer, shoot, watched_page, window_opens

CHANNEL = TRIPLE_DRAW_27.name


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-draw") / "exchange.db", channel=CHANNEL)
    live.start()
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    server.to_game_time(0, next_game=True)
    with watched_page(browser, f"{server.url}/#/table/{CHANNEL}") as tab:
        yield tab


def test_each_hand_shows_what_it_threw_at_each_draw(page: Page, server: LiveServer) -> None:
    """Before any draw a hand shows its five cards only; after draws 1 and 2 each hand lists, per draw, the cards
    it threw (or that it stood pat), in the snapshot's order, beside the five it holds now."""
    server.to_game_time(window_opens(2))
    expect(page.locator("#round-name")).to_have_text("Five cards")
    expect(page.locator("#hands .draws")).to_have_count(0)
    expect(page.locator(".board-wrap", has=page.locator("#board"))).to_be_hidden()  # no board: no "Board"
    for number in (3, 4):
        server.to_game_time(window_opens(number))
        expect(page.locator("#round-name")).to_have_text(f"After draw {number - 2}")
        for hand in server.snapshot()["game"]["gameData"]["hands"]:
            draws = page.locator(f"#hands .hand[data-selection='{hand['selectionId']}'] .draws li")
            expect(draws).to_have_count(len(hand["draws"]))
            assert len(hand["draws"]) == number - 2
            for i, draw in enumerate(hand["draws"]):
                shown = draws.nth(i)
                expect(shown).to_contain_text(f"Draw {i + 1}: " + ("threw" if draw["discarded"] else "stood pat"))
                thrown = shown.locator(".card")
                expect(thrown).to_have_count(len(draw["discarded"]))
                assert [thrown.nth(k).get_attribute("data-card") for k in range(thrown.count())] == draw["discarded"]
    shoot(page, "table-draw.png")
