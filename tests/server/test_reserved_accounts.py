"""The server's own accounts (commission, the house market maker, its noise traders) are no client's: no account
of their names is added, and one added before that rule cannot log in to their money and orders."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.store import AccountExists, AccountStore, hash_password
from tests.server.helpers import ACCOUNT, APP_KEY, START_MS, rpc, serving


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
        for name in ("house", "House-maker"):  # names are the same whatever their case: these are the server's too
            with pytest.raises(ValueError, match="the server's own"):
                app[keys.STORE].add(name, "pw", deposit=0)
        app[keys.STORE].add("housekeeper", "pw", deposit=0)  # a name merely like the house's is a client's


async def test_account_names_are_the_same_whatever_their_case(tmp_path: Path) -> None:
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), accounts=()) as client:
        store = client.app[keys.STORE]
        store.add("Alice", "pw", deposit=100_000)
        with pytest.raises(AccountExists, match="account 'alice' is account 'Alice': names are the same whatever"):
            store.add("alice", "other", deposit=100_000)
        tokens = []
        for typed in ("alice", "ALICE", "Alice"):
            resp = await client.post("/api/login", data={"username": typed, "password": "pw"},
                                     headers={"X-Application": APP_KEY})
            answer = await resp.json()
            assert answer["status"] == "SUCCESS", answer
            tokens.append(answer["token"])
        funds = [await rpc(client, token, "getAccountFunds", {}, path=ACCOUNT) for token in tokens]
        assert {f["result"]["availableToBetBalance"] for f in funds} == {1000.0}  # one account, one deposit
        assert list(client.app[keys.SERVICE].exchange.accounts).count("Alice") == 1
        assert "alice" not in client.app[keys.SERVICE].exchange.accounts
        assert store.set_password("ALICE", "new") == "Alice" and store.verify("alice", "new") is not None
        assert store.set_operator("aLiCe", True) == ("Alice", True) and store.is_operator("Alice")


def test_names_differing_only_in_case_added_before_the_rule_log_in_only_exactly(tmp_path: Path) -> None:
    store = AccountStore.open(str(tmp_path / "ex.db"))
    for name in ("bob", "Bob"):  # as a database from before the rule may hold them: straight into the table
        store._conn.execute("INSERT INTO accounts VALUES (?, ?, ?, 0, 'GBP', 0)",
                            (name, b"s", hash_password(name, b"s")))
    assert store.verify("bob", "bob") is not None and store.verify("Bob", "Bob") is not None
    assert store.named("BOB") is None and store.verify("BOB", "bob") is None  # which one is meant is not known
    store.close()
