"""The server's own accounts (commission, the house market maker, its noise traders) are no client's: no account
of their names is added, and one added before that rule cannot log in to their money and orders."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.store import hash_password
from tests.server.helpers import APP_KEY, START_MS, serving


async def test_no_client_account_is_one_of_the_servers_own(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    db = tmp_path / "ex.db"
    async with serving(db, clock, accounts=(), house=True, noise_traders=1) as client:
        app = client.app
        service = app[keys.SERVICE]
        own = sorted(name for name in service.exchange.accounts if service.funds(name).balance > 0)
        assert own == ["house-maker", "house-noise-1"]
        for name in (*own, "HOUSE"):
            with pytest.raises(ValueError, match="the server's own"):
                app[keys.STORE].add(name, "pw", deposit=0)
            conn = sqlite3.connect(db)  # as an account added before the rule: straight into the table
            conn.execute("INSERT INTO accounts VALUES (?, ?, ?, 0, 'GBP', 0)", (name, b"s", hash_password("pw", b"s")))
            conn.commit()
            conn.close()
            resp = await client.post("/api/login", data={"username": name, "password": "pw"},
                                     headers={"X-Application": APP_KEY})
            assert (await resp.json())["error"] == "INVALID_USERNAME_OR_PASSWORD"
        app[keys.STORE].add("house", "pw", deposit=0)  # a name merely like the house's is a client's
