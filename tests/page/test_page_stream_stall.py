"""A games stream that stalls (open, carrying nothing) is dropped and connected again, in headless Chromium against a
live server on a virtual clock: the page showed a table frozen in time as live, and its slip placed bets at prices
long gone.

The page's ``Reconnecting`` (``feeds.js``) is driven from the page itself with a short ``staleMs``; the server's
clock stands still but for the moves the test makes, so after the heartbeat it sends nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from exchange.server.games_stream import HEARTBEAT_MS
from tests.page.harness import WAIT_MS, LiveServer, watched_page

OPEN_FEED = """async () => {
    const { Reconnecting } = await import("/static/feeds.js");
    window.states = [];
    window.beats = 0;
    const feed = new Reconnecting("/games/v1/stream", {
        staleMs: 400,
        onState: (state) => window.states.push(state),
        onMessage: (message) => { if (message.op === "heartbeat") { feed.beating = true; window.beats += 1; } },
    });
    window.feed = feed;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-stall") / "exchange.db", games_heartbeat_ms=HEARTBEAT_MS)
    live.start()
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    with watched_page(browser, f"{server.url}/#/lobby") as tab:
        yield tab


def test_a_silent_stream_that_beat_before_is_connected_again(page: Page, server: LiveServer) -> None:
    page.evaluate(OPEN_FEED)
    page.wait_for_function("window.states.length === 1", timeout=WAIT_MS)
    page.wait_for_timeout(1_200)  # three times staleMs without a heartbeat heard: silence means nothing yet
    assert page.evaluate("window.states") == ["live"]
    server.advance(HEARTBEAT_MS)  # the heartbeat; then nothing, the clock standing still
    page.wait_for_function("window.beats >= 1", timeout=WAIT_MS)
    page.wait_for_function("window.states.length >= 3", timeout=WAIT_MS)
    assert page.evaluate("window.states.slice(0, 3)") == ["live", "reconnecting", "live"]
    page.evaluate("window.feed.stop()")
