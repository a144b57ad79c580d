"""A server in a thread of the test process on a virtual clock, and headless Chromium driven by Playwright.

The browser needs a real listening server, and the test must decide when time
passes: the app runs on its own event loop in a thread, on a
:class:`~exchange.clock.VirtualClock` that only :meth:`LiveServer.advance` moves
(on the server's loop, so every callback runs where it belongs). After each move
the spectators' and the Exchange Stream's conflation interval is let pass too,
so what changed is on its way to the page when ``advance`` returns; the test then
waits for the page with Playwright's bounded ``expect``.

Chromium is Debian's (``/usr/bin/chromium``, installed by ``.ci/run``), launched
by Playwright's Python library; nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import requests
from aiohttp import web
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from exchange.backtest.replay import load_timeline
from exchange.backtest.replay_clock import ReplayClock
from exchange.backtest.replay_server import create_replay_app
from exchange.clock import VirtualClock
from exchange.game.channels import HOLDEM
from exchange.game.rounds import timetable
from exchange.game.table import Phase
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.limits import Limits
from tests.server.helpers import START_MS

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WINDOW_MS = 30_000
PLAYING_MS = 1_000
CALL_TIMEOUT_S = 20  # the first start may build the engine's tables
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
APP_KEY = "page-test"
WAIT_MS = 30_000  # the longest any expectation waits for the page (Chromium on a loaded machine is slow)
T = TypeVar("T")


class AppThread:
    """An aiohttp application listening on 127.0.0.1 from its own event loop, in a thread of the test process."""

    def __init__(self, app: web.Application) -> None:
        self.app = app
        #: 0 until it starts on a port the system chooses (a port chosen here could be taken before the bind)
        self.port = 0
        self.url = ""
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="page-test-server", daemon=True)
        self.runner: web.AppRunner | None = None

    def start(self) -> None:
        self.thread.start()
        self.call(self._start)

    async def _start(self) -> None:
        # A page still connected when the test stops the server (to restart it) is cut off after a second, not
        # after aiohttp's minute of grace for handlers in flight.
        self.runner = web.AppRunner(self.app, shutdown_timeout=1.0)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()
        self.port = self.runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop listening and end the loop; once stopped, nothing more (a test may stop it early, to restart)."""
        if not self.thread.is_alive():
            return
        if self.runner is not None:
            self.call(self.runner.cleanup)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=CALL_TIMEOUT_S)
        self.loop.close()

    def call(self, fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Run ``fn()`` on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(fn(), self.loop).result(timeout=CALL_TIMEOUT_S)

    def run(self, fn: Callable[[], T]) -> T:
        """Run the plain function ``fn`` on the server's loop (the app's objects belong to its thread)."""
        async def inside() -> T:
            return fn()
        return self.call(inside)


class LiveServer(AppThread):
    """``create_app`` with the demo account on 127.0.0.1 running one ``channel`` (Hold'em unless told), and the
    ``others`` after it, under ``limits`` (the server's defaults unless told), its clock moved only by the test;
    ``port`` to listen on (a free one unless told: a restart reuses the last one's); ``settings`` change other
    fields of its :class:`~exchange.server.config.ServerConfig` (``window_ms`` included)."""

    def __init__(self, db: Path, channel: str = HOLDEM.name, limits: Limits | None = None, *,
                 others: tuple[str, ...] = (), port: int | None = None, **settings: Any) -> None:
        self.clock = VirtualClock(start_ms=START_MS)
        self.channel = channel
        config = ServerConfig(**{"db_path": str(db), "channels": (channel, *others), "window_ms": WINDOW_MS,
                                 "playing_ms": PLAYING_MS, "house": False, "seed": 3, "demo": True,
                                 # no games stream heartbeat: a page that heard one takes a silence of 15 s for a
                                 # stalled stream, and here the clock stands still while a slow browser works
                                 "games_heartbeat_ms": 0, **settings})
        super().__init__(create_app(config, clock=self.clock, limits=limits))
        if port is not None:
            self.port, self.url = port, f"http://127.0.0.1:{port}"

    def start(self) -> None:
        super().start()
        self.advance(0)  # the channel scheduled its first game at "now": deal it

    def advance(self, ms: int) -> None:
        """Move the clock ``ms`` on, then let the streams' conflation interval pass so the changes go out."""
        conflate = max(self.app[keys.HUB].conflate_ms, self.app[keys.GAMES].conflate_ms)

        async def move() -> None:
            self.clock.advance(ms)
            await asyncio.sleep(0)  # let what the moves started (reveals' tasks) take their turn
            self.clock.advance(conflate)

        self.call(move)

    def game_start(self) -> int:
        """When the current game on the table began (clock ms)."""

        def start_ms() -> int:
            game = self.app[keys.SERVICE].channels[self.channel].current
            if game is None:
                raise RuntimeError(f"no game has begun on {self.channel} yet: start() deals the first")
            return game.start_ms

        return self.run(start_ms)

    def to_game_time(self, offset_ms: int, *, next_game: bool = False) -> None:
        """Advance to ``offset_ms`` after the start of the current game (or of the next one)."""
        if next_game:
            self._to_next_game()
        self.advance(max(0, self.game_start() + offset_ms - self.clock.now()))

    def _to_next_game(self) -> None:
        """Close the current game's windows one by one until the next game is scheduled (a playing window after
        the close that ended it: the last, or an earlier one that settled it), whatever its number of windows. A
        game already scheduled, its predecessor over, is the next one."""
        first = self.game_start()
        current = self.run(lambda: self.app[keys.SERVICE].channels[self.channel].current)
        if current is not None and current.phase is Phase.SCHEDULED:
            return
        config = self.run(lambda: self.app[keys.SERVICE].channels[self.channel].config)
        for window in timetable(config, first):
            if self.game_start() != first:
                return
            self.advance(max(0, window.closes_ms - self.clock.now()))
        if self.game_start() == first:
            raise RuntimeError(f"no game follows the one that began at {first} on {self.channel}")

    def add_account(self, name: str, password: str, deposit: int, *, operator: bool = False) -> None:
        self.run(lambda: self.app[keys.STORE].add(name, password, deposit=deposit, operator=operator))

    def snapshot(self) -> dict[str, Any]:
        body: dict[str, Any] = requests.get(f"{self.url}/games/v1/channels/{self.channel}/snapshot", timeout=5).json()
        return body


def window_opens(round_number: int) -> int:
    """When betting window ``round_number`` (1 Deal … 4 Turn) opens, after the game's start."""
    return (round_number - 1) * (WINDOW_MS + PLAYING_MS)


def settle(server: LiveServer) -> None:
    """Close the game's windows one by one until its market settles: at the river, or early where a reveal decides
    it (the next game is then a playing window away: the clock stops at the close that settled it)."""
    market = server.snapshot()["game"]["id"]
    for number in (1, 2, 3, 4):
        server.to_game_time(window_opens(number) + WINDOW_MS)
        game = server.snapshot()["game"]
        assert game["id"] == market
        if game["markets"][0]["status"] == "CLOSED":
            return
    raise AssertionError(f"{market} did not settle at the river")


class ApiClient:
    """API-NG over HTTP for one account, as any other client of the server."""

    def __init__(self, url: str, name: str, password: str) -> None:
        self.url = url
        answer = requests.post(f"{url}/api/login", data={"username": name, "password": password},
                               headers={"X-Application": APP_KEY}, timeout=5).json()
        assert answer["status"] == "SUCCESS", answer
        self.headers = {"X-Application": APP_KEY, "X-Authentication": answer["token"],
                        "Content-Type": "application/json"}

    def call(self, method: str, params: dict[str, Any], *, account: bool = False) -> Any:
        path = "/exchange/account/json-rpc/v1" if account else "/exchange/betting/json-rpc/v1"
        prefix = "AccountAPING/v1.0/" if account else "SportsAPING/v1.0/"
        answer = requests.post(f"{self.url}{path}", json={"jsonrpc": "2.0", "id": 1, "method": prefix + method,
                                                          "params": params}, headers=self.headers, timeout=5).json()
        assert "result" in answer, answer
        return answer["result"]

    def place(self, market_id: str, selection: int, side: str, price: float, size: float) -> dict[str, Any]:
        report: dict[str, Any] = self.call("placeOrders", {"marketId": market_id, "instructions": [{
            "selectionId": selection, "side": side, "orderType": "LIMIT",
            "limitOrder": {"size": size, "price": price, "persistenceType": "LAPSE"}}]})
        assert report["status"] == "SUCCESS", report
        return report["instructionReports"][0]

    def current_orders(self, market_id: str) -> list[dict[str, Any]]:
        orders: list[dict[str, Any]] = self.call("listCurrentOrders", {"marketIds": [market_id]})["currentOrders"]
        return orders

    def funds(self) -> dict[str, Any]:
        funds: dict[str, Any] = self.call("getAccountFunds", {}, account=True)
        return funds


def backs_on_every_hand(live: LiveServer, lays: tuple[tuple[float, float], ...] = ((3.0, 200),)
                        ) -> tuple[str, ApiClient]:
    """In the current game of ``live``, demo backs every hand at 3.0 (240.00 on the even hands, 190.00 on the odd),
    into a new account bob's ``lays`` (price, size) on each: the market, and demo's client."""
    live.add_account("bob", "pw-bob", 100_000)
    market = str(live.snapshot()["game"]["id"])
    bob, demo = ApiClient(live.url, "bob", "pw-bob"), ApiClient(live.url, "demo", "demo")
    for hand in (1, 2, 3, 4):
        for price, size in lays:
            bob.place(market, hand, "LAY", price, size)
        demo.place(market, hand, "BACK", 3.0, 240 - 50 * (hand % 2))
    return market, demo


#: What the browser itself logs of a server stopped under an open tab: its requests refused while nothing listens,
#: and one in flight at the stop cut off (reset, or closed with no answer: a request's empty response, a stream's
#: socket closed before its handshake was answered). Not the page's errors: the network's.
SERVER_STOPPED = ("net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET", "net::ERR_EMPTY_RESPONSE",
                  "Connection closed before receiving a handshake response")


@contextlib.contextmanager
def watched_page(browser: Browser, url: str, *, browser_says: tuple[str, ...] = ()) -> Iterator[Page]:
    """A tab in a fresh context at ``url``, laptop-sized; on leaving, no console error may have been logged but
    those with one of ``browser_says`` in them (what the browser itself logs of a failure the test causes, such as
    :data:`SERVER_STOPPED` while the server is down)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda message: _note_error(message, errors))
    tab.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    expect.set_options(timeout=WAIT_MS)
    try:
        tab.goto(url)
        yield tab
    finally:
        context.close()
    unexpected = [e for e in errors if not any(said in e for said in browser_says)]
    assert unexpected == [], unexpected


def _note_error(message: ConsoleMessage, errors: list[str]) -> None:
    if message.type == "error":
        errors.append(message.text)


def shoot(page: Page, name: str) -> None:
    """Save a screenshot of the whole page in ``tests/artifacts/`` (kept by CI as a test artefact)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


class FakeTime:
    """Seconds as a replay's clock reads them; the test moves them."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def replay_server(directory: Path, account: str | None = None) -> Iterator[tuple[AppThread, FakeTime]]:
    """``exchange-poker replay DIRECTORY [--account ACCOUNT]``'s app on a thread, its clock moved by the returned
    :class:`FakeTime`."""
    timeline = load_timeline(directory, account)
    time = FakeTime()
    server = AppThread(create_replay_app(timeline, clock=ReplayClock(timeline.length_ms, now=time)))
    server.start()
    try:
        yield server, time
    finally:
        server.stop()
