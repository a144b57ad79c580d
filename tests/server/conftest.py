from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.service import river_only_equities


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    """A server with one Hold'em channel, 3 s windows, no house, alice and bob with 1000.00 each."""
    config = ServerConfig(db_path=str(tmp_path / "ex.db"), window_ms=3_000, playing_ms=100, house=False, seed=1,
                          heartbeat_ms=500)
    app = create_app(config, equities=river_only_equities)
    async with TestClient(TestServer(app, host="127.0.0.1")) as test_client:
        store = app[keys.STORE]
        store.add("alice", "pw-alice", deposit=100_000)
        store.add("bob", "pw-bob", deposit=100_000)
        store.add("poor", "pw-poor", deposit=300)
        yield test_client
