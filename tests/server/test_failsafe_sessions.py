"""Sessions end cleanly: logout and expiry close the session's streams, expired sessions are purged on the
clock, logins are rate limited, and the demo account exists only when ``serve --demo`` asks for it.

Every in-process server here runs on a :class:`~exchange.clock.VirtualClock`: twelve hours pass in one call.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import requests
from aiohttp import ClientWebSocketResponse, WSMsgType
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import APP_KEY, login, place, rpc, serving
from tests.server.serverproc import ServerProcess

MARKET = "holdem.0"
TTL_MS = 60_000
SWEEP_MS = 5_000


@contextlib.asynccontextmanager
async def _client(tmp_path: Path, clock: VirtualClock, **settings: Any) -> AsyncIterator[TestClient]:
    settings = {"session_ttl_ms": TTL_MS, "session_sweep_ms": SWEEP_MS, **settings}
    async with serving(tmp_path / "ex.db", clock, accounts=("alice", "bob", "carol", "dave", "erin", "frank"),
                       **settings) as client:
        yield client


@pytest.fixture
async def client(tmp_path: Path, clock: VirtualClock) -> AsyncIterator[TestClient]:
    async with _client(tmp_path, clock) as c:
        yield c


async def _frame(ws: ClientWebSocketResponse) -> dict[str, Any] | None:
    """The next JSON message, or None once the server has closed the connection."""
    msg = await ws.receive(timeout=3)
    if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
        return None
    assert msg.type is WSMsgType.TEXT, msg
    out: dict[str, Any] = json.loads(msg.data)
    return out


async def _until(ws: ClientWebSocketResponse, op: str, limit: int = 20) -> dict[str, Any]:
    for _ in range(limit):
        message = await _frame(ws)
        assert message is not None, f"closed before an {op!r}"
        if message["op"] == op:
            return message
    raise AssertionError(f"no {op!r} in {limit} messages")


async def _subscribed(client: TestClient, token: str) -> ClientWebSocketResponse:
    ws = await client.ws_connect("/stream")
    await _until(ws, "connection")
    await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
    assert (await _until(ws, "status"))["statusCode"] == "SUCCESS"
    await ws.send_json({"op": "orderSubscription", "id": 2})
    assert (await _until(ws, "status"))["statusCode"] == "SUCCESS"
    assert (await _until(ws, "ocm"))["ct"] == "SUB_IMAGE"
    return ws


async def _closed_with_session_error(ws: ClientWebSocketResponse) -> None:
    """The server says the session ended, then closes; nothing else (no ocm but heartbeats) comes first or after."""
    status = await _frame(ws)
    while status is not None and status.get("ct") == "HEARTBEAT":
        status = await _frame(ws)
    assert status is not None and status["op"] == "status", status
    assert status["errorCode"] == "INVALID_SESSION_INFORMATION" and status["connectionClosed"] is True
    assert await _frame(ws) is None
    assert ws.closed


async def test_logout_closes_the_sessions_stream_and_stops_its_order_updates(client: TestClient,
                                                                              clock: VirtualClock) -> None:
    token = await login(client, "alice", "pw-alice")
    other = await login(client, "alice", "pw-alice")  # a second session of the same account
    ws, kept = await _subscribed(client, token), await _subscribed(client, other)
    resp = await client.post("/api/logout", headers={"X-Application": APP_KEY, "X-Authentication": token})
    assert (await resp.json())["status"] == "SUCCESS"
    placed = await rpc(client, other, "placeOrders", place(MARKET, 1, "BACK", 1000, 2))  # an order update for alice
    assert placed["result"]["status"] == "SUCCESS"
    clock.advance(client.app[keys.HUB].conflate_ms)  # the stream's flush is on the clock
    await _closed_with_session_error(ws)
    assert (await _until(kept, "ocm"))["oc"][0]["id"] == MARKET  # the other session's stream carries on
    await kept.close()


async def test_expiry_closes_the_stream_at_the_next_sweep(client: TestClient, clock: VirtualClock) -> None:
    ws = await _subscribed(client, await login(client, "alice", "pw-alice"))
    clock.advance(TTL_MS + SWEEP_MS)
    await _closed_with_session_error(ws)
    assert len(client.app[keys.SESSIONS]) == 0


async def test_a_connection_whose_session_ended_is_looked_at_no_more(client: TestClient, clock: VirtualClock,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub looks at its connections when one is due a heartbeat; a connection whose session it finds ended has
    nothing more due (it is told and closed as soon as the loop turns), so a long jump of the clock past the
    expiry takes a look per heartbeat before it and none after, not one every millisecond."""
    hub = client.app[keys.HUB]
    looks: list[int] = []
    beat = hub.beat

    def counted() -> None:
        looks.append(clock.now())
        beat()

    monkeypatch.setattr(hub, "beat", counted)
    ws = await _subscribed(client, await login(client, "alice", "pw-alice"))
    start, every = clock.now(), hub.heartbeat_ms
    clock.advance(TTL_MS + 10 * every)
    await _closed_with_session_error(ws)
    assert len(looks) <= TTL_MS // every + 2, (len(looks), looks[-3:])
    assert looks and looks[-1] - start <= TTL_MS + every


async def test_an_expired_session_cannot_subscribe_even_before_the_sweep(tmp_path: Path,
                                                                          clock: VirtualClock) -> None:
    # no games: a game's change would be flushed on the clock as it advances, and that flush, finding the session
    # expired, would end the stream before the subscription could be refused
    async with _client(tmp_path, clock, session_sweep_ms=10 * TTL_MS, run_games=False) as client:
        token = await login(client, "alice", "pw-alice")
        ws = await client.ws_connect("/stream")
        await _until(ws, "connection")
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
        assert (await _until(ws, "status"))["statusCode"] == "SUCCESS"
        for request_id in range(10, 14):  # a request every 12 s keeps the connection from its 15 s idle timeout
            clock.advance(TTL_MS // 5)
            await ws.send_json({"op": "heartbeat", "id": request_id})
            assert (await _until(ws, "status"))["id"] == request_id
        clock.advance(TTL_MS // 5)  # expired; no sweep has run
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {}})
        refused = await _until(ws, "status")
        assert refused["id"] == 2 and refused["errorCode"] == "INVALID_SESSION_INFORMATION"
        assert refused["connectionClosed"] is True and await _frame(ws) is None


async def test_expired_sessions_are_purged_on_the_clock_without_any_request(client: TestClient,
                                                                             clock: VirtualClock) -> None:
    sessions = client.app[keys.SESSIONS]
    for _ in range(5):
        await login(client, "alice", "pw-alice")
    assert len(sessions) == 5
    clock.advance(TTL_MS - 1)
    assert len(sessions) == 5  # none expired yet
    fresh = await login(client, "bob", "pw-bob")
    clock.advance(1 + SWEEP_MS)  # the first five expired; a sweep ran
    assert len(sessions) == 1
    assert "result" in await rpc(client, fresh, "listCurrentOrders")
    clock.advance(TTL_MS)
    assert len(sessions) == 0
    assert len(client.app[keys.LOGIN_LIMITS].accounts) == 0  # old login counts go too


async def _login_answer(client: TestClient, name: str, password: str) -> dict[str, Any]:
    resp = await client.post("/api/login", data={"username": name, "password": password},
                             headers={"X-Application": APP_KEY})
    assert resp.status == 200
    out: dict[str, Any] = await resp.json()
    return out


async def test_login_attempts_are_limited_per_account(tmp_path: Path, clock: VirtualClock) -> None:
    async with _client(tmp_path, clock, login_per_account=3, login_per_address=100) as client:
        for _ in range(3):
            assert (await _login_answer(client, "alice", "wrong"))["error"] == "INVALID_USERNAME_OR_PASSWORD"
        banned = await _login_answer(client, "alice", "pw-alice")  # even the right password, for now
        assert banned == {"token": "", "product": APP_KEY, "status": "FAIL", "error": "TEMPORARY_BAN_TOO_MANY_REQUESTS",
                          "errorDetails": "too many login attempts for this account or from this address; "
                                          "wait 60000 ms"}
        assert (await _login_answer(client, "bob", "pw-bob"))["status"] == "SUCCESS"  # another account
        clock.advance(60_000)  # the window has passed
        assert (await _login_answer(client, "alice", "pw-alice"))["status"] == "SUCCESS"


async def test_login_attempts_are_limited_per_address(tmp_path: Path, clock: VirtualClock) -> None:
    async with _client(tmp_path, clock, login_per_account=100, login_per_address=4) as client:
        for name in ("alice", "bob", "carol", "dave"):
            assert (await _login_answer(client, name, f"pw-{name}"))["status"] == "SUCCESS"
        refused = await _login_answer(client, "erin", "pw-erin")
        assert refused["error"] == "TEMPORARY_BAN_TOO_MANY_REQUESTS"
        clock.advance(60_000)
        assert (await _login_answer(client, "frank", "pw-frank"))["status"] == "SUCCESS"


def _demo_login(server: ServerProcess) -> str:
    answer = requests.post(f"{server.url}/api/login", data={"username": "demo", "password": "demo"},
                           headers={"X-Application": APP_KEY}, timeout=10).json()
    return str(answer["status"])


def test_the_demo_account_exists_only_with_serve_demo(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "ex.db") as plain:
        assert _demo_login(plain) == "FAIL"
        assert "no accounts yet" in plain.out.read_text()
    with ServerProcess(tmp_path / "ex.db", "--demo") as demo:
        assert _demo_login(demo) == "SUCCESS"
        first_line, page_line = demo.out.read_text().splitlines()[:2]
        assert first_line.startswith(f"Exchange Poker server on {demo.url}") and "password 'demo'" in first_line
        assert f"(version {metadata.version('exchange-poker-sim')}; database " in first_line  # which build it is
        assert page_line.split()[:2] == ["page:", f"{demo.url}/"]  # the trading page's address
