"""The in-process server runs on a :class:`~exchange.clock.VirtualClock` the test advances.

Nothing in the app waits on the wall clock for its outcome: the games' windows
and the stream's conflated flush are scheduled on the injected clock, so a test
moves time to exactly the moment it needs (``clock.advance(ms)`` or
``clock.run(until_ms=...)``) and every callback due by then runs, in order,
before the call returns.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import HEARTBEAT_MS, START_MS, StreamServer, serving


@pytest.fixture
def clock() -> VirtualClock:
    """The server's clock: still until the test advances it."""
    return VirtualClock(start_ms=START_MS)


@pytest.fixture
async def client(tmp_path: Path, clock: VirtualClock) -> AsyncIterator[TestClient]:
    """A server with one Hold'em channel, 3 s windows, no house, alice and bob with 1000.00 each.

    Game ``holdem.0`` has begun at ``START_MS``: its Deal window is open and closes ``WINDOW_MS`` later.
    """
    async with serving(tmp_path / "ex.db", clock, heartbeat_ms=HEARTBEAT_MS) as test_client:
        test_client.app[keys.STORE].add("poor", "pw-poor", deposit=300)
        yield test_client


@pytest.fixture
async def stream_server(tmp_path: Path) -> AsyncIterator[StreamServer]:
    """Start a server with the stream's TLS port (``app[keys.STREAM_PORT]``) whose channel deals no game
    (``run_games=False``, unless changed): nothing moves but what the test does. Alice and bob have 1000.00
    each; keyword arguments change the config (``await stream_server(max_connections=3)``); the server's clock
    is ``virtual_clock(client)``. Each server started is closed when the test ends."""
    numbers = itertools.count()
    async with AsyncExitStack() as stack:

        async def start(**changes: Any) -> TestClient:
            settings = {"heartbeat_ms": HEARTBEAT_MS, "stream_port": 0, "run_games": False, **changes}
            return await stack.enter_async_context(serving(tmp_path / f"stream-{next(numbers)}.db",
                                                           VirtualClock(start_ms=START_MS), **settings))

        yield start


@pytest.fixture
async def tls_client(stream_server: StreamServer) -> TestClient:
    """A server like ``client``'s (alice and bob, 1000.00 each, its games running) that also listens for the
    stream's TLS lines (its port: ``app[keys.STREAM_PORT]``); the test's clock is ``virtual_clock(tls_client)``."""
    return await stream_server(run_games=True)  # its first game dealt at the start
