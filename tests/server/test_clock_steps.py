"""A step of the wall clock (NTP, an operator setting the date) moves no timeout, expiry or rate window.

They ran on the wall clock: a step of a day forward ended every session at once (a bot's next call was
``INVALID_SESSION_INFORMATION``), and a step back kept a stalled connection open past its header timeout.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from exchange.clock import MonotonicClock, VirtualClock, WallClock, for_durations
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.connections import GUARD
from tests.server.helpers import ACCOUNT, login, rpc

DAY_NS = 24 * 60 * 60 * 10**9


def test_only_a_wall_clock_is_replaced_for_durations() -> None:
    virtual = VirtualClock(start_ms=5)
    assert for_durations(virtual) is virtual  # a test's clock still drives every timeout
    assert type(for_durations(WallClock())) is MonotonicClock


async def test_a_step_of_the_wall_clock_ends_no_session_and_moves_no_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ServerConfig(db_path=str(tmp_path / "ex.db"), house=False, seed=1, run_games=False)
    app = create_app(config)  # the wall clock, as serve runs
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        app[keys.STORE].add("alice", "pw-alice", deposit=100_000)
        alice = await login(client, "alice", "pw-alice")
        deadline_clock = app[GUARD].clock
        before = deadline_clock.now()
        stepped = time.time_ns() + DAY_NS
        monkeypatch.setattr(time, "time_ns", lambda: stepped)  # the date set a day on (sessions live 12 hours)
        assert deadline_clock.now() - before < 60_000
        funds = await rpc(client, alice, "getAccountFunds", path=ACCOUNT)
        assert funds["result"]["availableToBetBalance"] == 1000.0, funds
