"""Shared helpers for the server tests: the in-process app's times, logins and JSON-RPC calls."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from aiohttp.test_utils import TestClient, TestServer

from exchange.agents.host import seat
from exchange.agents.house import NoiseTrader
from exchange.clock import VirtualClock
from exchange.core.commands import CreateMarket, Deposit, OpenAccount, OpenMarket, SettleMarket
from exchange.core.events import Event
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.game.channels import get_channel
from exchange.game.table import EquityFn
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.fallback_equities import river_only_equities
from exchange.server.journal import Journal
from exchange.server.limits import Limits
from exchange.server.service import ExchangeService

T = TypeVar("T")

APP_KEY = "test-app"
BETTING = "/exchange/betting/json-rpc/v1"
ACCOUNT = "/exchange/account/json-rpc/v1"

# The in-process server's times (tests/server/conftest.py): its clock starts at START_MS and moves only when a
# test advances it.
START_MS = 1_700_000_000_000  # an epoch time, so timestamps in answers look like a real server's
WINDOW_MS = 3_000
PLAYING_MS = 100
HEARTBEAT_MS = 500


def trading_service(journal: Journal, clock: VirtualClock, config: ExchangeConfig | None = None) -> ExchangeService:
    """A service on ``journal``: Hold'em with 2 s windows, the house maker and two noise traders who take its prices
    (so orders match), started at ``clock``'s time."""
    service = ExchangeService(journal, clock, [get_channel("holdem").with_times(2_000, 100)], seed=1,
                              equities=river_only_equities, exchange_config=config)
    service.recover()
    service.start()
    channel = service.channels["holdem"]
    for name in ("noise-1", "noise-2"):
        channel.open_account(name, 1_000_000)
        seat(channel, NoiseTrader(name), name)
    return service


def play(service: ExchangeService, clock: VirtualClock, until_ms: int) -> None:
    """Run the service's games until ``until_ms`` and write the journal out."""
    clock.run(until_ms=until_ms)
    service.journal.flush()


def account_events(count: int) -> list[Event]:
    """``count`` real events (opening and funding accounts), for a journal that a snapshot taker can fold."""
    exchange, events = Exchange(), []
    for i in range(count // 2 + 1):
        events += exchange.execute(OpenAccount(i, f"a{i}")) + exchange.execute(Deposit(i, f"a{i}", 100, "x"))
    return events[:count]


@contextlib.asynccontextmanager
async def serving(db: Path, clock: VirtualClock, *, accounts: Sequence[str] = ("alice", "bob"),
                  operators: Sequence[str] = (), equities: EquityFn | None = river_only_equities,
                  on_fatal: Callable[[str], None] | None = None, limits: Limits | None = None,
                  **changes: Any) -> AsyncIterator[TestClient]:
    """A server on 127.0.0.1 keeping its journal in ``db``: one Hold'em channel with the tests' windows, no house,
    seed 1 (``changes``: other :class:`~exchange.server.config.ServerConfig` fields); ``accounts`` opened with
    1000.00 each (password ``pw-<name>``), ``operators`` with nothing (password ``pw-<name>``); its first game
    begun at the clock's now. ``equities``: the prices published in play (default: each hand's 0 or 1 at the
    river only, computed in no time; None: the game's own); ``on_fatal`` and ``limits`` as
    :func:`~exchange.server.app.create_app` takes them. A start that fails raises its error with what it had
    started stopped (the journal's writer among them), as ``serve`` does."""
    fields: dict[str, Any] = {"db_path": str(db), "window_ms": WINDOW_MS, "playing_ms": PLAYING_MS, "house": False,
                              "seed": 1, **changes}
    app = create_app(ServerConfig(**fields), clock=clock, equities=equities, on_fatal=on_fatal, limits=limits)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    try:
        await client.start_server()
    except BaseException:
        if client.server.runner is not None:  # the test server runs no cleanup for a start that failed
            await client.server.runner.cleanup()
        await client.close()
        raise
    async with client:
        for name in accounts:
            app[keys.STORE].add(name, f"pw-{name}", deposit=100_000)
        for name in operators:
            app[keys.STORE].add(name, f"pw-{name}", deposit=0, operator=True)
        clock.advance(0)
        yield client


StreamServer = Callable[..., Awaitable[TestClient]]
"""Starts a server with the stream's TLS port (the ``stream_server`` fixture); keyword arguments are
:class:`~exchange.server.config.ServerConfig` fields."""


def virtual_clock(client: TestClient) -> VirtualClock:
    """The clock an in-process server runs on, which the fixtures make a VirtualClock the test advances."""
    clock = client.app[keys.SERVICE].clock
    assert isinstance(clock, VirtualClock), clock
    return clock


def wait_until(condition: Callable[[], T | None], *, timeout_s: float, what: str, poll_s: float = 0.05) -> T:
    """Return what ``condition()`` gives as soon as it is true (the state found); fail naming ``what`` if it is not
    within ``timeout_s``.

    For the tests that run a real server process on the wall clock: they wait for
    a state, never for a fixed time.
    """
    deadline = time.monotonic() + timeout_s
    while not (found := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout_s} s")
        time.sleep(poll_s)
    return found


async def until(condition: Callable[[], bool], what: str, *, timeout_s: float = 10.0) -> None:
    """:func:`wait_until` for a test inside the server's own loop: polls every 10 ms, letting the loop run between.

    For what the server does as fast as the loop lets it (a connection registered, a stalled client
    dropped): the bound is for a slow machine, the wait is for a state.
    """
    for _ in range(round(timeout_s * 100)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within {timeout_s:g} s: {what}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def login(client: TestClient, name: str, password: str) -> str:
    resp = await client.post("/api/login", data={"username": name, "password": password},
                             headers={"X-Application": APP_KEY})
    body = await resp.json()
    assert body["status"] == "SUCCESS", body
    return str(body["token"])


def headers(token: str | None, app_key: str | None = APP_KEY) -> dict[str, str]:
    out = {"Content-Type": "application/json"}
    if app_key is not None:
        out["X-Application"] = app_key
    if token is not None:
        out["X-Authentication"] = token
    return out


async def rpc(client: TestClient, token: str | None, method: str, params: dict[str, Any] | None = None,
              *, path: str = BETTING, app_key: str | None = APP_KEY) -> dict[str, Any]:
    prefix = "AccountAPING/v1.0/" if path == ACCOUNT else "SportsAPING/v1.0/"
    body = {"jsonrpc": "2.0", "method": prefix + method, "params": params or {}, "id": 1}
    resp = await client.post(path, data=json.dumps(body), headers=headers(token, app_key))
    assert resp.status == 200, await resp.text()
    out: dict[str, Any] = await resp.json()
    return out


def place(market_id: str, selection: int, side: str, price: float, size: float, **extra: Any) -> dict[str, Any]:
    return {"marketId": market_id, "instructions": [{
        "selectionId": selection, "side": side, "orderType": "LIMIT",
        "limitOrder": {"size": size, "price": price, "persistenceType": "LAPSE"}, **extra}]}


async def place_one(client: TestClient, token: str, market_id: str, selection: int, side: str, price: float,
                    size: float, *, ref: str | None = None, matched: float | None = None) -> dict[str, Any]:
    """Place one limit order (``ref``: its customerStrategyRef); assert it was accepted, and matched ``matched``
    if given. Returns its instruction report."""
    params = place(market_id, selection, side, price, size)
    if ref is not None:
        params["customerStrategyRef"] = ref
    (report,) = (await rpc(client, token, "placeOrders", params))["result"]["instructionReports"]
    assert report["status"] == "SUCCESS", report
    if matched is not None:
        assert report["sizeMatched"] == matched, report
    return dict(report)


def journal_matches(client: TestClient, market_id: str, selection: int) -> list[dict[str, Any]]:
    """The journal's ``Matched`` records on one selection that no ``MatchVoided`` undid, in match order."""
    matches: dict[int, dict[str, Any]] = {}
    for record in client.app[keys.JOURNAL].records():
        body = record.body
        kind = body.get("type") if record.kind == "event" else None
        if kind == "Matched" and body["market_id"] == market_id and body["selection_id"] == selection:
            matches[body["match_id"]] = body
        elif kind == "MatchVoided":
            matches.pop(body["match_id"], None)
    return [matches[k] for k in sorted(matches)]


def close_and_forget(service: Any, market_id: str, now: int) -> None:
    """``market_id`` settles, then another market closes and the exchange (keeping one closed market,
    ``keep_closed_markets=1``) forgets the first: all at ``now``, before the stream's next flush."""
    for command in (SettleMarket(now, market_id, (1,)), CreateMarket(now, "other.1", (1, 2)),
                    OpenMarket(now, "other.1"), SettleMarket(now, "other.1", (1,))):
        service.execute(command)
    assert service.exchange.market_status(market_id) is None


def wanted(message: dict[str, Any], op: str, ct: str | None) -> bool:
    """Whether ``message`` is an ``op`` with ``ct``, or with no ``ct`` given any but a heartbeat: a heartbeat due
    while a test moves the clock is sent inside the move, and a flush runs as a task after it, so one can come
    before the change the test is waiting for; a test that wants a heartbeat asks for ``ct="HEARTBEAT"``."""
    return message.get("op") == op and (message.get("ct") == ct if ct is not None else message.get("ct") != "HEARTBEAT")
