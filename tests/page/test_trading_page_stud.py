"""The trading page on a live 7-Card Stud table in headless Chromium: cards dealt down and up, estimated prices.

One server (a single ``stud7`` channel, no house, on a virtual clock) and one
browser for the module. Stud's later streets are priced by a seeded Monte Carlo
(too many deals to enumerate in a window): the page must not present such an
equity as exact.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from exchange.game.channels import STUD7
from tests.page.harness import LiveServer, watched_page, window_opens

CHANNEL = STUD7.name


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-stud") / "exchange.db", channel=CHANNEL)
    live.start()
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A tab at the table of the server's first game, in its Deal window."""
    with watched_page(browser, f"{server.url}/#/table/{CHANNEL}") as tab:
        yield tab


def test_third_street_shows_each_hands_cards_down_and_up_and_its_equity_as_an_estimate(page: Page,
                                                                                       server: LiveServer) -> None:
    """In the Deal window the equities are exact (a quarter each); on 3rd street each hand shows two cards down
    and one up, as the snapshot marks them, and each equity is the Monte Carlo estimate it is: "≈", to one
    decimal, with its standard error, never as an exact share."""
    equity = page.locator("tr[data-selection='1'] .equity")
    expect(equity).to_have_text("equity 25.00%")
    expect(equity).to_have_attribute("title", "exact share 1/4")
    server.to_game_time(window_opens(2))
    expect(page.locator("#round-name")).to_have_text("3rd street")
    game = server.snapshot()["game"]
    for hand in game["gameData"]["hands"]:
        dealt, faces = hand["cards"][:3], hand["faces"][:3]
        assert faces == ["DOWN", "DOWN", "UP"] and "NOT AVAILABLE" not in dealt
        assert set(hand["cards"][3:]) == {"NOT AVAILABLE"}  # 4th to 7th street, still to come
        shown = page.locator(f"#hands .hand[data-selection='{hand['selectionId']}'] .card")
        expect(shown).to_have_count(7)
        for i, (card, face) in enumerate(zip(dealt, faces, strict=True)):
            expect(shown.nth(i)).to_have_attribute("data-card", card)
            red, down = " red" if card[1] in "hd" else "", " down" if face == "DOWN" else ""
            expect(shown.nth(i)).to_have_class(f"card{red}{down}")
        expect(page.locator(f"#hands .hand[data-selection='{hand['selectionId']}'] .card.back")).to_have_count(4)
    for sel in game["markets"][0]["selections"]:
        assert sel["equityStderr"] > 0
        shown = page.locator(f"tr[data-selection='{sel['selectionId']}'] .equity")
        expect(shown).to_have_text(f"equity ≈{sel['equity'] * 100:.1f}% ±{sel['equityStderr'] * 100:.1f}")
        expect(shown).to_have_attribute("title", f"Monte Carlo estimate, standard error "
                                                 f"{sel['equityStderr'] * 100:.2f}%")
    words = "async (sel) => (await import('/static/table.js')).equityWords(sel)"
    # a hand the sample never saw win is an estimate of 0 (with no error), not an exact 0: only a proof makes it one
    assert page.evaluate(words, {"equity": 0, "equityStderr": 0}) == "equity ≈0.0% ±0.0"
    assert page.evaluate(words, {"equity": 0, "equityExact": "0"}) == "equity 0.00%"
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: "±0.8" ran on under the Back button
    for sel in game["markets"][0]["selections"]:
        row = page.locator(f"tr[data-selection='{sel['selectionId']}']")
        text, cell = row.locator(".equity").bounding_box(), row.locator("td.sel").bounding_box()
        assert text is not None and cell is not None
        assert text["x"] + text["width"] <= cell["x"] + cell["width"] + 0.5, (text, cell)
