"""What a server's start overlaps with work on other threads: the demo password's check begins before the recovery,
the engine's warm-up a moment after the port is bound."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, web

from exchange.clock import VirtualClock
from exchange.server import app as app_module
from exchange.server import connections, keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.service import ExchangeService
from exchange.server.store import Credentials
from tests.server.helpers import serving

BOUND_S = 10  # the longest the recovery waits to see the check begun


async def test_the_demo_password_is_checked_on_a_thread_while_the_server_recovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check (scrypt: tens of milliseconds on purpose) was a task that began only once the loop ran again,
    after the recovery, and the start then waited for it."""
    begun = threading.Event()
    check = app_module.check_password

    def checking(credentials: Credentials | None, password: str) -> Any:
        begun.set()
        return check(credentials, password)

    recover = ExchangeService.recover
    seen_begun = []

    def recovering(self: ExchangeService, **kwargs: Any) -> Any:
        seen_begun.append(begun.wait(BOUND_S))  # the loop is held here, as by a long recovery
        return recover(self, **kwargs)

    monkeypatch.setattr(app_module, "check_password", checking)
    monkeypatch.setattr(ExchangeService, "recover", recovering)
    async with serving(tmp_path / "ex.db", VirtualClock(1_000_000), accounts=(), demo=True) as client:
        assert client.app[keys.DEMO_PASSWORD_OK] is True
        assert [(c.change, c.by) for c in client.app[keys.STORE].changes("demo")] == [
            ("added (trader, balance 1000.00 GBP)", "serve --demo")]  # the record of who added it
    assert seen_begun == [True]


async def test_the_engine_is_warmed_once_the_server_listens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the wall clock the warm-up (the engine's imports, on the equity thread) waits for the port to be bound:
    begun during the start, the thread's imports took the GIL from the rest of it (about 50 ms of a restart)."""
    warmed_listening = []
    never = asyncio.Event()

    async def warm(runner: object, variants: Sequence[str]) -> float:
        warmed_listening.append(app[connections.LISTENING].is_set())
        await never.wait()  # the games stay unstarted: nothing of the engine is needed
        return 0.0

    monkeypatch.setattr(app_module, "warm_engine", warm)
    monkeypatch.setattr(app_module, "WARM_UP_AFTER_S", 0)
    app = create_app(ServerConfig(db_path=str(tmp_path / "ex.db"), house=False))  # the wall clock, as serve runs
    runner = await connections.listen(app, "127.0.0.1", 0)
    try:
        for _ in range(100):  # the warm-up task runs at one of the loop's next turns
            if warmed_listening:
                break
            await asyncio.sleep(0)
        assert warmed_listening == [True]
    finally:
        await runner.cleanup()


def _warm_up_noted(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The engine's warm-up replaced by one that sets the event returned and never ends (the games stay unstarted:
    nothing of the engine is needed)."""
    begun = asyncio.Event()

    async def warm(runner: object, variants: Sequence[str]) -> float:
        begun.set()
        await asyncio.Event().wait()
        return 0.0

    monkeypatch.setattr(app_module, "warm_engine", warm)
    return begun


async def test_the_first_answers_come_before_the_warm_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients that reconnect as the server listens are answered before the warm-up's imports take the GIL from
    the loop (they held up a restart's first answer by 50-75 ms); the warm-up waits WARM_UP_AFTER_S for them."""
    warming = _warm_up_noted(monkeypatch)
    monkeypatch.setattr(app_module, "WARM_UP_AFTER_S", 3600)  # never, within the test
    app = create_app(ServerConfig(db_path=str(tmp_path / "ex.db"), house=False))
    runner = await connections.listen(app, "127.0.0.1", 0)
    try:
        port = runner.addresses[0][1]
        async with ClientSession() as session, session.get(f"http://127.0.0.1:{port}/games/v1/channels") as answer:
            assert answer.status == 200 and "channels" in await answer.json()
        assert not warming.is_set()
    finally:
        await runner.cleanup()


async def test_a_server_that_never_says_it_listens_still_warms_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """Started by aiohttp's own runner (no connections.listen), the warm-up goes ahead after its wait, with a
    warning: the games are late, not lost."""
    warmed = _warm_up_noted(monkeypatch)
    monkeypatch.setattr(app_module, "LISTEN_WAIT_S", 0)
    app = create_app(ServerConfig(db_path=str(tmp_path / "ex.db"), house=False))
    runner = web.AppRunner(app)
    await runner.setup()
    try:
        await asyncio.wait_for(warmed.wait(), BOUND_S)
        assert not app[connections.LISTENING].is_set()
        assert "did not say it listens within 0 s: warming the poker engine now" in caplog.text
    finally:
        await runner.cleanup()
