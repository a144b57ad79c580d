"""An operator moves money into and out of a trader's account, as a cashier: ``POST
/operator/v1/accounts/{account}/deposit`` and ``/withdraw``. Each is journaled (the core's credit or debit, and
who moved it and why), shows on the account's statement and survives a restart; no one else may, and a withdrawal
is at most what the account has available to bet."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.betfair import apiformat
from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.config import ServerConfig
from exchange.server.journal import Journal
from exchange.server.kept_results import KEEP_RESULTS
from exchange.server.recovery import take_snapshot
from tests.server.helpers import ACCOUNT, APP_KEY, START_MS, headers, login, place, rpc, serving, until


async def move(client: TestClient, token: str | None, action: str, account: str, body: Any) -> tuple[int, Any]:
    """``body``: JSON to send, or bytes sent as they are."""
    data = body if isinstance(body, bytes) else json.dumps(body)
    resp = await client.post(f"/operator/v1/accounts/{account}/{action}", data=data,
                             headers=headers(token))
    return resp.status, await resp.json()


async def funds(client: TestClient, token: str) -> tuple[float, float]:
    answer = (await rpc(client, token, "getAccountFunds", {}, path=ACCOUNT))["result"]
    return answer["availableToBetBalance"], answer["exposure"]


async def test_an_operator_deposits_and_withdraws_and_the_statement_shows_it(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    async with serving(db, VirtualClock(start_ms=START_MS), operators=("ops",)) as client:
        ops = await login(client, "ops", "pw-ops")
        code, body = await move(client, ops, "deposit", "ALICE", {"amount": 25.5, "reason": "top-up"})
        assert code == 200, body  # alice never logged in: opened first with her 1000.00, then credited
        assert (body["account"], body["amount"], body["balance"], body["availableToBetBalance"]) == (
            "alice", 25.5, 1025.5, 1025.5)
        alice = await login(client, "alice", "pw-alice")
        assert await funds(client, alice) == (1025.5, 0)
        await rpc(client, alice, "placeOrders", place("holdem.0", 1, "LAY", 3.0, 100))  # resting: £200 exposed
        code, body = await move(client, ops, "withdraw", "alice", {"amount": "825.51", "reason": "cash out"})
        assert (code, body["error"]) == (409, "INSUFFICIENT_FUNDS") and "available 825.50" in body["details"]
        code, body = await move(client, ops, "withdraw", "alice", {"amount": "825.50", "reason": "cash out"})
        assert (code, body["balance"], body["availableToBetBalance"]) == (200, 200.0, 0.0)
        statement = (await rpc(client, alice, "getAccountStatement", {"includeItem": "DEPOSITS_WITHDRAWALS"},
                               path=ACCOUNT))["result"]["accountStatement"]
        assert [(item["amount"], item["balance"]) for item in statement] == [(-825.5, 200.0), (25.5, 1025.5),
                                                                             (1000.0, 1000.0)]
    async with serving(db, VirtualClock(start_ms=START_MS + 60_000), accounts=()) as client:
        records = [dict(r.body) for r in client.app[keys.SERVICE].journal.records() if r.kind == "operator"]
        assert [(r["action"], r["account"], r["amount"], r["operator"], r["reason"]) for r in records] == [
            ("deposit", "alice", 25.5, "ops", "top-up"), ("withdraw", "alice", 825.5, "ops", "cash out")]
        assert client.app[keys.SERVICE].funds("alice").balance == 20_000  # the lay voided with its game: all back


@pytest.mark.parametrize(("body", "says"), [
    ({"amount": 0, "reason": "r"}, "amount must be a number of pounds, more than 0"),
    ({"amount": -5, "reason": "r"}, "not -5"),
    ({"amount": 1.001, "reason": "r"}, "with at most two decimals, not 1.001"),
    ({"amount": "ten", "reason": "r"}, "not 'ten'"),
    ({"amount": True, "reason": "r"}, "not True"),
    ({"amount": 1e12, "reason": "r"}, "at most 1000000000.00"),
    ({"reason": "r"}, "not None"),
    ({"amount": 5}, "reason must be a non-empty string"),
    ({"amount": 5, "reason": "r", "to": "bob"}, """unknown fields ['to']; the body is {"amount": 25.50, "reason\""""),
    ([5], 'the body must be a JSON object: {"amount": 25.50, "reason": "...", "reference": "pay-1234"}, '
          'reference optional'),
    *[({"amount": text, "reason": "r"}, f"not {text!r} (as text: digits, and a point and decimals if any, as 25.50)")
      for text in ("1e2", " 1", "+0.01", "\u0660.\u0660\u0661", "0.0_1", "1.5\n")],
    ({"amount": 1e-300, "reason": "r"}, "with at most two decimals, not 1e-300"),
    ({"amount": 5, "reason": "a\u0000b"}, "reason must be one line of text, without control characters ('\\x00' here)"),
    ({"amount": 5, "reason": "a\nb"}, "without control characters ('\\n' here)"),
    ({"amount": 5, "reason": "cash\udc00"}, "the body holds text that is not Unicode: 'cash\\udc00' has half"),
    ({"amount": float("inf"), "reason": "r"}, "the body is not JSON: Infinity is not a JSON number"),
    # (both were "the body must be a JSON object", and the second deposited 2.00, the last amount)
    (b'{"amount": 1, "reason": "caf\xe9"}', "the body is not JSON ('utf-8' codec can't decode byte 0xe9"),
    (b'{"amount": 1, "reason": "r", "amount": 2}', "the body is ambiguous: one object gives the key 'amount' twice"),
])
async def test_a_bad_body_is_refused_and_moves_nothing(client: TestClient, body: Any, says: str) -> None:
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops = await login(client, "ops", "pw-ops")
    code, answer = await move(client, ops, "deposit", "alice", body)
    assert (code, answer["error"]) == (400, "INVALID_INPUT_DATA") and says in answer["details"], answer
    assert "send 0.00" not in answer["details"]  # (a tiny amount was told to send an amount refused)
    assert "alice" not in client.app[keys.SERVICE].exchange.accounts  # not even opened


async def test_a_movement_is_logged_with_who_made_it_and_why(client: TestClient,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="exchange.server.operator")
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops = await login(client, "ops", "pw-ops")
    assert (await move(client, ops, "deposit", "alice", {"amount": 25.5, "reason": "top-up", "reference": "p-1"}))[0] \
        == 200
    assert (await move(client, ops, "withdraw", "alice", {"amount": 5, "reason": "cash out"}))[0] == 200
    assert [r.getMessage() for r in caplog.records if r.name == "exchange.server.operator"] == [
        "operator ops deposited 25.50 into alice (reference 'p-1'): top-up",
        "operator ops withdrew 5.00 from alice: cash out"]


async def test_only_an_operator_moves_money_and_only_a_traders(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    code, answer = await move(client, alice, "deposit", "alice", {"amount": 5, "reason": "mine"})
    assert (code, answer["error"]) == (403, "ACCESS_DENIED") and "accounts role NAME operator" in answer["details"]
    code, answer = await move(client, None, "deposit", "alice", {"amount": 5, "reason": "mine"})
    assert code == 401
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops = await login(client, "ops", "pw-ops")
    for name in ("nobody", "HOUSE", "house-maker"):
        code, answer = await move(client, ops, "withdraw", name, {"amount": 5, "reason": "r"})
        assert (code, answer["error"]) == (404, "ACCOUNT_NOT_FOUND"), (name, answer)
    code, answer = await move(client, ops, "deposit", "OPS", {"amount": 5, "reason": "mine"})
    assert (code, answer["error"]) == (403, "ACCESS_DENIED") and "on their own account ('ops')" in answer["details"]
    client.app[keys.STORE].add("ops2", "pw-ops2", deposit=0, operator=True)
    code, answer = await move(client, await login(client, "ops2", "pw-ops2"), "deposit", "ops", {"amount": 5,
                                                                                                "reason": "float"})
    assert (code, answer["balance"]) == (200, 5.0)  # another operator may (an operator's account trades too)
    resp = await client.post("/operator/v1/accounts/alice/steal", data="{}", headers=headers(ops))
    assert resp.status == 404
    assert await funds(client, alice) == (1000.0, 0)
    resp = await client.get("/openapi.json", headers={"X-Application": APP_KEY})
    paths = (await resp.json())["paths"]
    assert "409" in paths["/operator/v1/accounts/{account}/withdraw"]["post"]["responses"]
    assert "/operator/v1/accounts/{account}/deposit" in paths


async def test_the_opening_deposit_is_dated_when_the_account_was_added(tmp_path: Path) -> None:
    """The core opens an account at its first login, a day after it was added here: its opening balance is
    listed on the statement when it was put in, not at the login."""
    day_later = VirtualClock(start_ms=int(time.time() * 1000) + 86_400_000)
    async with serving(tmp_path / "ex.db", day_later) as client:
        added = client.app[keys.STORE].get("alice").created_ms
        alice = await login(client, "alice", "pw-alice")
        statement = (await rpc(client, alice, "getAccountStatement", {}, path=ACCOUNT))["result"]["accountStatement"]
        assert [(item["itemDate"], item["amount"]) for item in statement] == [(apiformat.iso(added), 1000.0)]
        assert added < day_later.now()
    async with serving(tmp_path / "behind.db", VirtualClock(start_ms=START_MS)) as client:  # a clock behind
        alice = await login(client, "alice", "pw-alice")  # the day the account was added: dated now, not ahead
        statement = (await rpc(client, alice, "getAccountStatement", {}, path=ACCOUNT))["result"]["accountStatement"]
        assert [item["itemDate"] for item in statement] == [apiformat.iso(START_MS)]


async def test_a_movement_sent_again_with_its_reference_is_made_once_across_a_restart(tmp_path: Path) -> None:
    """A cashier whose connection dropped before the answer sends the deposit again: with the same reference the
    money moves once, and the answer is the first one's record (it moved twice)."""
    db = tmp_path / "ex.db"
    pay = {"amount": 25.5, "reason": "card payment", "reference": "pay-0001"}
    async with serving(db, VirtualClock(start_ms=START_MS), operators=("ops", "ops2")) as client:
        ops = await login(client, "ops", "pw-ops")
        code, first = await move(client, ops, "deposit", "alice", pay)
        assert (code, first["reference"], first["balance"]) == (200, "pay-0001", 1025.5) and "repeated" not in first
        code, again = await move(client, await login(client, "ops2", "pw-ops2"), "deposit", "ALICE", pay)
        assert (code, again["repeated"], again["balance"]) == (200, True, 1025.5)
        assert {k: again[k] for k in first} == first  # the first one's record: its operator and time
        # refused movements leave their reference free; the same reference for another movement is refused
        code, answer = await move(client, ops, "withdraw", "alice", {"amount": 5000, "reason": "r", "reference": "w1"})
        assert (code, answer["error"]) == (409, "INSUFFICIENT_FUNDS")
        code, answer = await move(client, ops, "withdraw", "alice", {"amount": 5, "reason": "r", "reference": "w1"})
        assert (code, answer["balance"]) == (200, 1020.5)
        for action, account, amount in (("withdraw", "alice", 25.5), ("deposit", "bob", 25.5),
                                        ("deposit", "alice", 25.51)):
            code, answer = await move(client, ops, action, account, {**pay, "amount": amount})
            assert (code, answer["error"]) == (409, "DUPLICATE_REFERENCE"), answer
            assert answer["details"] == (f"reference 'pay-0001' names a deposit of 25.50 for 'alice' by 'ops', not "
                                         f"a {action} of {amount:.2f} for '{account}'; a reference names one "
                                         "movement (nothing moved)")
        code, answer = await move(client, ops, "deposit", "alice", {**pay, "reference": "pay-0002"})
        assert (code, answer["balance"]) == (200, 1046.0)  # another reference, another movement
    async with serving(db, VirtualClock(start_ms=START_MS + 60_000), accounts=(), operators=()) as client:
        ops = await login(client, "ops", "pw-ops")
        code, again = await move(client, ops, "deposit", "alice", pay)  # the journal remembers it
        assert (code, again["repeated"], again["at"], again["balance"]) == (200, True, first["at"], 1046.0)
        statement = (await rpc(client, await login(client, "alice", "pw-alice"), "getAccountStatement",
                               {"includeItem": "DEPOSITS_WITHDRAWALS"}, path=ACCOUNT))["result"]["accountStatement"]
        assert [item["amount"] for item in statement] == [25.5, -5.0, 25.5, 1000.0]


async def test_a_movement_sent_again_while_the_first_is_being_made_durable_is_made_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The handler waits for the journal before it logs the movement: a repeat that comes meanwhile finds its
    reference taken (noted before the wait), and is answered as a repeat."""
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops = await login(client, "ops", "pw-ops")
    service = client.app[keys.SERVICE]
    disk = asyncio.Event()
    durable, waits = service.durable, []

    async def held_until_told(through: int | None = None) -> None:
        waits.append(through)
        await disk.wait()
        await durable(through)

    monkeypatch.setattr(service, "durable", held_until_told)
    pay = {"amount": 25.5, "reason": "card payment", "reference": "pay-0001"}
    first = asyncio.ensure_future(move(client, ops, "deposit", "alice", pay))
    records = service.journal.records
    await until(lambda: any(r.kind == "operator" for r in records()), "the first movement journaled, not durable")
    again = asyncio.ensure_future(move(client, ops, "deposit", "alice", pay))
    await until(lambda: len(waits) == 2, "the repeat handled (moved again, or answered as a repeat) and waiting too")
    disk.set()
    (code, body), (code_again, body_again) = await asyncio.gather(first, again)
    assert (code, code_again, body_again.get("repeated"), body_again["balance"]) == (200, 200, True, 1025.5)
    assert {key: body_again[key] for key in body} == body  # the first one's record
    assert service.funds("alice").balance == 102_550  # moved once
    assert sum(r.kind == "operator" for r in records()) == 1


@pytest.mark.parametrize(("reference", "says"), [
    ("", "reference must be a non-empty string of at most 64 characters, not ''"),
    (" ", "not ' '"),
    ("x" * 65, "of at most 64 characters"),
    (17, "not 17"),
    ("a\tb", "reference must be one line of text, without control characters ('\\t' here)"),
])
async def test_a_bad_reference_is_refused_and_moves_nothing(client: TestClient, reference: Any, says: str) -> None:
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops = await login(client, "ops", "pw-ops")
    code, answer = await move(client, ops, "deposit", "alice", {"amount": 5, "reason": "r", "reference": reference})
    assert (code, answer["error"]) == (400, "INVALID_INPUT_DATA") and says in answer["details"], answer
    assert "alice" not in client.app[keys.SERVICE].exchange.accounts


async def test_a_reference_is_not_taken_while_the_operator_records_are_damaged(tmp_path: Path) -> None:
    """A damaged operator record (its body no longer its checksum's) made a deposit with a reference answer 500."""
    db = tmp_path / "ex.db"
    async with serving(db, VirtualClock(start_ms=START_MS), operators=("ops",)) as client:
        ops = await login(client, "ops", "pw-ops")
        assert (await move(client, ops, "deposit", "alice", {"amount": 5, "reason": "r", "reference": "a"}))[0] == 200
    journal = Journal.open(str(db))
    # a restart folds from a snapshot after the operator's record: that record is not read again
    take_snapshot(journal, ServerConfig(db_path=str(db)).exchange_config(), keep_results=KEEP_RESULTS)
    journal.close()
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        (seq,) = conn.execute("SELECT seq FROM journal WHERE kind = 'operator'").fetchone()
        conn.execute("""UPDATE journal SET body = replace(body, '"reason":"r"', '"reason":"R"') WHERE seq = ?""",
                     (seq,))
    async with serving(db, VirtualClock(start_ms=START_MS + 60_000), accounts=(), operators=()) as client:
        ops = await login(client, "ops", "pw-ops")
        code, answer = await move(client, ops, "deposit", "alice", {"amount": 5, "reason": "r", "reference": "b"})
        assert (code, answer["error"]) == (503, "SERVICE_UNAVAILABLE"), answer
        assert answer["details"].startswith(f"the references of earlier movements cannot be read (record {seq}: its "
                                            "body does not match its checksum")
        code, answer = await move(client, ops, "deposit", "alice", {"amount": 5, "reason": "r"})
        assert (code, answer["balance"]) == (200, 1010.0)  # without a reference: as ever
