"""Operator routes: suspend, resume and void a live market; refusals for everyone else; the journal keeps it all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import APP_KEY, PLAYING_MS, START_MS, WINDOW_MS, headers, login, place, rpc, serving
from tests.server.serverproc import cli


async def act(client: TestClient, token: str | None, action: str, market_id: str = "holdem.0",
              body: object = None) -> tuple[int, dict[str, Any]]:
    payload = {"reason": "video feed lost"} if body is None else body
    resp = await client.post(f"/operator/v1/markets/{market_id}/{action}", data=json.dumps(payload),
                             headers=headers(token))
    return resp.status, await resp.json()


async def snapshot(client: TestClient) -> dict[str, Any]:
    """The Holdem channel's game as the Games API shows it."""
    game: dict[str, Any] = (await (await client.get("/games/v1/channels/holdem/snapshot")).json())["game"]
    return game


async def status(client: TestClient, token: str, market_id: str = "holdem.0") -> str:
    answer = await rpc(client, token, "listMarketBook", {"marketIds": [market_id]})
    return str(answer["result"][0]["status"])


def operator_records(client: TestClient) -> list[dict[str, Any]]:
    journal = client.app[keys.SERVICE].journal
    return [dict(r.body) for r in journal.records() if r.kind == "operator"]


async def test_anyone_but_an_operator_is_refused_and_nothing_changes(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    code, body = await act(client, alice, "suspend")
    assert (code, body["error"]) == (403, "ACCESS_DENIED") and "not an operator" in body["details"]
    code, body = await act(client, None, "void")
    assert (code, body["error"]) == (401, "NO_SESSION")  # no token at all
    assert await status(client, alice) == "OPEN"
    assert operator_records(client) == []


async def test_an_operator_suspends_resumes_and_voids(client: TestClient, clock: VirtualClock,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="exchange.server.operator")
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops, alice, bob = [await login(client, n, f"pw-{n}") for n in ("ops", "alice", "bob")]
    lay = await rpc(client, alice, "placeOrders", place("holdem.0", 2, "LAY", 4.0, 10))
    back = await rpc(client, bob, "placeOrders", place("holdem.0", 2, "BACK", 4.0, 10))
    assert back["result"]["instructionReports"][0]["sizeMatched"] == 10.0

    assert (await snapshot(client))["suspendedReason"] is None
    code, body = await act(client, ops, "suspend")
    assert (code, body["marketStatus"], body["status"], body["operator"]) == (200, "SUSPENDED", "SUSPENDED", "ops")
    assert await status(client, bob) == "SUSPENDED"
    # why, for the traders (they saw SUSPENDED alone, as at a window's close)
    assert (await snapshot(client))["suspendedReason"] == "operator: video feed lost"
    refused = await rpc(client, bob, "placeOrders", place("holdem.0", 2, "BACK", 4.0, 2))
    assert refused["result"]["instructionReports"][0]["errorCode"] == "MARKET_NOT_OPEN_FOR_BETTING"
    code, body = await act(client, ops, "suspend")
    assert (code, body["error"]) == (409, "MARKET_STATE_CONFLICT")

    code, body = await act(client, ops, "resume")
    assert (code, body["marketStatus"], body["status"]) == (200, "ACTIVE", "OPEN")
    assert await status(client, bob) == "OPEN"
    assert (await snapshot(client))["suspendedReason"] is None
    code, body = await act(client, ops, "resume")
    assert (code, body["error"]) == (409, "MARKET_STATE_CONFLICT")

    code, body = await act(client, ops, "void", body={"reason": ""})
    assert (code, body["error"]) == (400, "INVALID_INPUT_DATA")
    code, body = await act(client, ops, "void", body={"reason": "shuffler jammed"})
    assert (code, body["marketStatus"], body["status"]) == (200, "VOID", "CLOSED")
    # each action in the server's log too (there were none: only the journal had them)
    assert [r.getMessage() for r in caplog.records if r.name == "exchange.server.operator"] == [
        f"operator ops {done} holdem.0: {why}" for done, why in (
            ("suspended", "video feed lost"), ("resumed", "video feed lost"), ("voided", "shuffler jammed"))]
    assert await status(client, bob) == "CLOSED"
    (market,) = (await (await client.get("/games/v1/channels/holdem/snapshot")).json())["game"]["markets"]
    assert market["marketStatus"] == "VOID"
    assert {s["status"] for s in market["selections"]} == {"REMOVED"}  # as the stream and the results say
    voided = await rpc(client, bob, "listClearedOrders", {"betStatus": "VOIDED"})
    bet_id = back["result"]["instructionReports"][0]["betId"]
    assert [o["betId"] for o in voided["result"]["clearedOrders"]] == [bet_id]
    assert lay["result"]["instructionReports"][0]["sizeMatched"] == 0.0
    code, body = await act(client, ops, "void")
    assert (code, body["error"]) == (404, "MARKET_NOT_FOUND")
    records = operator_records(client)
    assert [(r["action"], r["reason"]) for r in records] == [
        ("suspend", "video feed lost"), ("resume", "video feed lost"), ("void", "shuffler jammed")]
    # the channel goes on with its next game, one playing window after the void
    clock.run(until_ms=START_MS + PLAYING_MS + 10)
    assert await status(client, bob, "holdem.1") == "OPEN"


async def test_a_suspension_holds_until_the_window_closes_and_the_game_goes_on(client: TestClient,
                                                                               clock: VirtualClock) -> None:
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops, bob = await login(client, "ops", "pw-ops"), await login(client, "bob", "pw-bob")
    assert (await act(client, ops, "suspend"))[0] == 200
    clock.run(until_ms=START_MS + WINDOW_MS + PLAYING_MS + 10)  # the Deal window closed; Pre-flop is open
    assert await status(client, bob) == "OPEN"
    game = client.app[keys.SERVICE].channels["holdem"].game("holdem.0")
    assert game is not None and game.round is not None and int(game.round) == 2


async def test_operator_actions_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    async with serving(db, VirtualClock(start_ms=START_MS), accounts=(), operators=("ops",)) as client:
        ops = await login(client, "ops", "pw-ops")
        assert (await act(client, ops, "suspend", body={"reason": "dealer swap"}))[0] == 200
    async with serving(db, VirtualClock(start_ms=START_MS + 1_000), accounts=()) as client:
        assert [(r["action"], r["reason"], r["operator"]) for r in operator_records(client)] == [
            ("suspend", "dealer swap", "ops")]
        assert client.app[keys.STORE].is_operator("ops")
        resp = await client.get("/openapi.json", headers={"X-Application": APP_KEY})
        paths = (await resp.json())["paths"]
        assert {"/operator/v1/markets/{marketId}/suspend", "/operator/v1/markets/{marketId}/resume",
                "/operator/v1/markets/{marketId}/void"} <= set(paths)


def test_the_accounts_command_makes_and_lists_an_operator(tmp_path: Path, capsys: Any) -> None:
    from exchange.cli import main
    from exchange.server.store import AccountStore

    db = str(tmp_path / "ex.db")
    assert main(["accounts", "--db", db, "add", "ops", "--password", "pw", "--operator"]) == 0
    assert "ops (operator)" in capsys.readouterr().out
    assert main(["accounts", "--db", db, "add", "plain", "--password", "pw", "--balance", "25.50"]) == 0
    capsys.readouterr()
    assert main(["accounts", "--db", db, "list"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows == {"ops": ["1000.00", "GBP", "operator"], "plain": ["25.50", "GBP", "trader"],
                    "HOUSE": ["0.00", "GBP", "house"]}  # the commission account, listed with the logins
    store = AccountStore.open(db)
    try:
        assert store.is_operator("ops") and not store.is_operator("plain")
    finally:
        store.close()


async def test_the_accounts_command_changes_a_role_and_a_password_beside_the_running_server(
        client: TestClient, tmp_path: Path) -> None:
    """Made an operator by ``accounts role`` while the server runs, alice may act at once, and a trader again may
    not; ``accounts password`` changes what logs her in (her session logged in before goes on)."""
    db = str(tmp_path / "ex.db")
    alice = await login(client, "alice", "pw-alice")
    assert (await act(client, alice, "suspend"))[0] == 403
    made = cli("accounts", "--db", db, "role", "alice", "operator")
    assert made.returncode == 0 and made.stdout == "alice is now an operator\n", made
    code, body = await act(client, alice, "suspend")
    assert (code, body["operator"]) == (200, "alice")
    again = cli("accounts", "--db", db, "role", "alice", "trader")
    assert again.returncode == 0 and again.stdout == "alice is now a trader\n", again
    assert (await act(client, alice, "resume"))[0] == 403

    changed = cli("accounts", "--db", db, "password", "alice", "--password", "new-pw")
    assert changed.returncode == 0, changed
    for password, expected in (("pw-alice", "INVALID_USERNAME_OR_PASSWORD"), ("new-pw", "SUCCESS")):
        resp = await client.post("/api/login", data={"username": "alice", "password": password},
                                 headers={"X-Application": APP_KEY})
        answer = await resp.json()
        assert (answer["status"], answer["error"] or "SUCCESS") == (expected if expected == "SUCCESS" else "FAIL",
                                                                     expected), answer
    assert await status(client, alice) == "SUSPENDED"  # the session from before still answers
    unknown = cli("accounts", "--db", db, "role", "nobody", "operator")
    assert unknown.returncode == 2 and unknown.stderr.startswith("exchange-poker: error: no account 'nobody' in ")
    assert operator_records(client)[-1]["operator"] == "alice" and len(operator_records(client)) == 1
