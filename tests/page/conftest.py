"""One headless Chromium per test module (Debian's, driven by Playwright; see :mod:`tests.page.harness`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.page.harness import CHROMIUM, CHROMIUM_ARGS, AppThread, FakeTime, replay_server, watched_page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def replay(backtest: Path) -> Iterator[tuple[AppThread, FakeTime]]:
    """The module's backtest folder (its ``backtest`` fixture) served as ``exchange-poker replay`` serves it."""
    with replay_server(backtest) as served:
        yield served


@pytest.fixture
def page(browser: Browser, replay: tuple[AppThread, FakeTime], request: pytest.FixtureRequest) -> Iterator[Page]:
    """A tab on the replay's table of channel ``TABLE`` (a constant of the test module); the live page's tests
    define their own."""
    with watched_page(browser, f"{replay[0].url}/#/table/{request.module.TABLE}") as tab:
        yield tab
