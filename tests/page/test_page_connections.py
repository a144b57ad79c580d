"""The page's connections to the server, in headless Chromium against a live server on a virtual clock: a games
stream that stalls (open, carrying nothing) is dropped and connected again, where the page showed a table frozen in
time as live and its slip placed bets at prices long gone; and the page's own list calls keep within the account's
reads in progress (three at once, as Betfair's), where a tab that read its bets and history after every game sent up
to six at once (three tabs on one account, eighteen) and showed the server's TOO_MANY_REQUESTS to a trader who had
clicked nothing.

The page's ``Reconnecting`` (``feeds.js``) and ``Session.read`` (``api.js``) are driven from the page itself: the
feed with a short ``staleMs``, the server's clock standing still but for the moves the test makes (so after the
heartbeat it sends nothing); the reads with sends the test controls (which start when, and what each answers).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from exchange.server.games_stream import HEARTBEAT_MS
from tests.page.harness import WAIT_MS, LiveServer, watched_page

API = "/static/api.js"
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
    live = LiveServer(tmp_path_factory.mktemp("page-connections") / "exchange.db", games_heartbeat_ms=HEARTBEAT_MS)
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


def test_no_more_than_two_list_calls_are_under_way_and_the_others_wait_their_turn(page: Page) -> None:
    """Six reads whose answers the test releases one by one: two are sent, the next starts as one ends, in order."""
    seen = page.evaluate("""async (api) => {
        const { Session } = await import(api);
        const session = new Session("token", "demo");
        const started = [], release = [];
        let under = 0, most = 0;
        const reads = Array.from({ length: 6 }, (_, i) => session.read(() => new Promise((done) => {
            started.push(i); under += 1; most = Math.max(most, under);
            release.push(() => { under -= 1; done(i); });
        })));
        const tick = () => new Promise((r) => setTimeout(r, 0));
        await tick();
        const first = [...started];
        while (release.length) { release.shift()(); await tick(); }
        return { first, started, most, answers: await Promise.all(reads) };
    }""", API)
    assert seen == {"first": [0, 1], "started": [0, 1, 2, 3, 4, 5], "most": 2, "answers": [0, 1, 2, 3, 4, 5]}


def test_a_read_refused_for_too_many_is_sent_again_and_other_refusals_are_not(page: Page) -> None:
    """TOO_MANY_REQUESTS twice, then an answer: the caller gets the answer. Any other refusal comes back at once, and
    TOO_MANY_REQUESTS every time comes back after the sixth try."""
    seen = page.evaluate("""async (api) => {
        const { Session, ApiRefusal } = await import(api);
        const session = new Session("token", "demo");
        let tries = 0;
        const answer = await session.read(async () => {
            tries += 1;
            if (tries <= 2) throw new ApiRefusal("TOO_MANY_REQUESTS", "three list calls in progress");
            return "answered";
        });
        let other = 0;
        const refused = await session.read(async () => {
            other += 1;
            throw new ApiRefusal("INVALID_INPUT_DATA", "no");
        }).catch((err) => err.code);
        let busy = 0;
        const gaveUp = await session.read(async () => {
            busy += 1;
            throw new ApiRefusal("TOO_MANY_REQUESTS", "busy");
        }).catch((err) => err.code);
        return { answer, tries, refused, other, gaveUp, busy, reading: session.reading };
    }""", API)
    assert seen == {"answer": "answered", "tries": 3, "refused": "INVALID_INPUT_DATA", "other": 1,
                    "gaveUp": "TOO_MANY_REQUESTS", "busy": 6, "reading": 0}
