"""The server fails safe on its journal (issues 3 and 4): fail-stop, and durable before visible.

Issue 3: with the journal writer killed, ``placeOrders`` answered
``UNEXPECTED_ERROR`` yet the order stayed live in memory, listed and holding
exposure, while logins and reads carried on. Issue 4: with the writer
stalled (SIGSTOP), clients saw results the journal did not hold — after a
restart the same bet was voided and the market id reused — and
``placeOrders`` hung with no timeout.

Now the journal fails on a dead, failing or stalled writer (bounded by its
commit timeout), everything is then refused with ``SERVICE_UNAVAILABLE``,
the command line exits 3 with one line saying why, and no answer or stream
message leaves before the records behind it are on disk. Chaos here is a
SIGKILL or SIGSTOP of the real writer process; servers listen on 127.0.0.1
and every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.journal import Journal, JournalFailed
from tests.server.helpers import (
    ACCOUNT,
    APP_KEY,
    BETTING,
    START_MS,
    free_port,
    headers,
    login,
    place,
    rpc,
    serving,
    until,
    wait_until,
)
from tests.server.serverproc import ServerProcess, cli, gone

MARKET = "holdem.0"
#: The journal timeout the stall tests run with: a healthy writer on a loaded machine commits within it (a commit
#: waits for the disk, which CI's can keep for a second), a stalled one never does.
TIMEOUT_MS = 3_000
HEALTHY_TIMEOUT_MS = 30_000  # and the tests that need a healthy writer (a loaded machine commits slowly, never stalls)
BOUND_S = 10  # every wait in these tests
#: The betting windows of the real servers here: a placement just after one opens is sure to be accepted (and, with
#: the writer stalled, to wait behind it), with seconds to spare.
WINDOW_S = 6


def _unavailable(answer: dict[str, Any]) -> bool:
    data = answer.get("error", {}).get("data", {})
    exception = data.get(data.get("exceptionname"), {})
    return bool(exception.get("errorCode") == "SERVICE_UNAVAILABLE")


# --- the journal alone -----------------------------------------------------------------------


async def test_a_stalled_writer_fails_the_journal_within_its_timeout_and_is_killed(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.append("event", {"ok": 1}, ts_ms=0)
    journal.flush()  # on disk before the writer starts: its only batch is the one it is stopped before answering
    journal.start(commit_timeout_ms=300)
    journal.writer_ready()  # the writer is running, its database open: then it stops
    reasons: list[str] = []
    journal.on_failure(reasons.append)
    pid = journal.writer_pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        journal.append("event", {"stalled": 1}, ts_ms=1)
        started = time.monotonic()
        with pytest.raises(JournalFailed, match=r"has not committed records for 0\.3 s"):
            await asyncio.wait_for(journal.sync(), BOUND_S)
        assert time.monotonic() - started < 2  # the 0.3 s timeout, not the default 5 s
        assert len(reasons) == 1 and "stalled" in reasons[0]
        deadline = time.monotonic() + BOUND_S
        while not gone(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert gone(pid), "a stalled writer must be killed: it must never commit after the failure"
        with pytest.raises(JournalFailed):
            journal.append("event", {"refused": 1}, ts_ms=2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    await asyncio.wait_for(journal.stop(), BOUND_S)
    assert [r.body for r in journal.records()] == [{"ok": 1}]
    journal.close()


async def test_a_batch_larger_than_the_pipe_fails_within_the_timeout_when_the_writer_is_stopped(tmp_path: Path
                                                                                              ) -> None:
    """The hand-over itself must not wait for a stopped writer: a batch larger than the pipe's buffer (64 KiB)
    would block the loop in the write, and then no timer could fail the journal. (A guard kills the writer
    after ``BOUND_S`` so that such a hang ends, as a failure of another kind.)"""
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start(commit_timeout_ms=300)
    journal.writer_ready()
    reasons: list[str] = []
    journal.on_failure(reasons.append)
    pid = journal.writer_pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    guard = threading.Timer(BOUND_S, lambda: os.kill(pid, signal.SIGKILL))
    guard.start()
    try:
        for n in range(64):
            journal.append("event", {"n": n, "pad": "x" * 16_384}, ts_ms=n)  # 1 MiB in one batch
        started = time.monotonic()
        with pytest.raises(JournalFailed, match=r"has not committed records for 0\.3 s"):
            await asyncio.wait_for(journal.sync(), 2 * BOUND_S)
        assert time.monotonic() - started < BOUND_S / 2
        assert len(reasons) == 1 and "stalled" in reasons[0]
    finally:
        guard.cancel()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    await asyncio.wait_for(journal.stop(), BOUND_S)
    assert gone(pid) and list(journal.records()) == []
    journal.close()


async def test_a_record_kept_waiting_by_a_busy_loop_is_not_failed_as_a_stalled_writer(tmp_path: Path) -> None:
    """A restart appends records while it recovers (the markets it voids), before the writer has a batch: the
    time the loop is busy is not the writer's, and only the writer's time past the timeout fails the journal."""
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start(commit_timeout_ms=TIMEOUT_MS)
    reasons: list[str] = []
    journal.on_failure(reasons.append)
    journal.append("event", {"recovered": 1}, ts_ms=0)
    time.sleep(TIMEOUT_MS / 1000 + 0.5)  # the loop busy longer than the timeout (a recovery): nothing runs on it
    await asyncio.wait_for(journal.sync(), BOUND_S)
    assert reasons == []
    await asyncio.wait_for(journal.stop(), BOUND_S)
    assert [r.body for r in journal.records()] == [{"recovered": 1}]
    journal.close()


async def test_a_writer_that_dies_while_idle_fails_the_journal_at_once(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    journal.writer_ready()  # (as the server does after recovering: from then on its pipe is watched)
    reasons: list[str] = []
    journal.on_failure(reasons.append)
    assert journal.writer_pid is not None
    os.kill(journal.writer_pid, signal.SIGKILL)
    deadline = time.monotonic() + BOUND_S
    while not reasons and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert reasons == ["journal write failed: the journal writer process exited"]
    await asyncio.wait_for(journal.stop(), BOUND_S)
    journal.close()


# --- the app in this process --------------------------------------------------------------------


@pytest.fixture
async def app_client(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[tuple[TestClient, list[str]]]:
    """The API tests' server (Hold'em, no house; its games stand still on a clock never advanced); fatal reasons
    listed. Its journal timeout is the test's (``indirect`` parameter: a stall test's short one), else a generous
    one for a healthy writer."""
    timeout_ms = getattr(request, "param", HEALTHY_TIMEOUT_MS)
    fatal: list[str] = []
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), on_fatal=fatal.append,
                       heartbeat_ms=500, journal_timeout_ms=timeout_ms) as client:
        yield client, fatal
        pid = client.app[keys.JOURNAL].writer_pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _writer(client: TestClient) -> int:
    pid = client.app[keys.JOURNAL].writer_pid
    assert pid is not None
    return int(pid)


async def _everything_refused(client: TestClient, token: str) -> None:
    """Commands, reads, logins and the Games API: all SERVICE_UNAVAILABLE, none showing state."""
    for method, params, path in (("placeOrders", place(MARKET, 1, "BACK", 3.0, 2), BETTING),
                                 ("listCurrentOrders", {}, BETTING), ("listMarketBook", {"marketIds": [MARKET]},
                                                                      BETTING), ("getAccountFunds", {}, ACCOUNT)):
        answer = await rpc(client, token, method, params, path=path)
        assert _unavailable(answer), (method, answer)
    resp = await client.get("/games/v1/channels/holdem/snapshot")
    assert resp.status == 503 and (await resp.json())["error"] == "SERVICE_UNAVAILABLE"
    resp = await client.post("/api/login", data={"username": "bob", "password": "pw-bob"},
                             headers={"X-Application": APP_KEY})
    assert resp.status == 503


async def test_a_killed_writer_refuses_the_command_and_everything_after(
        app_client: tuple[TestClient, list[str]]) -> None:
    client, fatal = app_client
    alice = await login(client, "alice", "pw-alice")
    os.kill(_writer(client), signal.SIGKILL)
    answer = await asyncio.wait_for(rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 3.0, 2)), BOUND_S)
    assert _unavailable(answer), answer  # not UNEXPECTED_ERROR, and never a success
    assert len(fatal) == 1 and "journal writer process exited" in fatal[0]
    await _everything_refused(client, alice)


async def test_a_killed_writer_refuses_a_placement_over_rest_too(app_client: tuple[TestClient, list[str]]) -> None:
    """API-NG over REST as over JSON-RPC: the placement's answer waits for the journal at the HTTP edge (the
    betting methods do not wait themselves), so it is refused, never a bet id the journal does not hold."""
    client, _ = app_client
    alice = await login(client, "alice", "pw-alice")
    os.kill(_writer(client), signal.SIGKILL)
    resp = await asyncio.wait_for(client.post("/exchange/betting/rest/v1.0/placeOrders/", headers=headers(alice),
                                              data=json.dumps(place(MARKET, 1, "BACK", 3.0, 2))), BOUND_S)
    fault = await resp.json()
    assert resp.status == 503 and fault["faultcode"] == "Server", fault
    assert fault["detail"]["APINGException"]["errorCode"] == "SERVICE_UNAVAILABLE", fault


@pytest.mark.parametrize("app_client", [TIMEOUT_MS], indirect=True)
async def test_with_the_writer_stalled_nothing_undurable_is_shown_and_every_wait_ends(
        app_client: tuple[TestClient, list[str]]) -> None:
    client, fatal = app_client
    alice = await login(client, "alice", "pw-alice")
    funds = (await rpc(client, alice, "getAccountFunds", path=ACCOUNT))["result"]
    ws = await client.ws_connect("/stream")
    await ws.receive_json(timeout=BOUND_S)  # connection
    await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
    await ws.send_json({"op": "orderSubscription", "id": 2})
    seen: list[dict[str, Any]] = []
    while not any(m.get("ct") == "SUB_IMAGE" for m in seen):
        seen.append(await ws.receive_json(timeout=BOUND_S))

    os.kill(_writer(client), signal.SIGSTOP)
    started = time.monotonic()
    place_task = asyncio.ensure_future(rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 3.0, 2)))
    exchange = client.app[keys.SERVICE].exchange  # the order in memory, its record stuck behind the stalled writer:
    await until(lambda: bool(exchange.current_orders("alice")), "alice's order placed in memory")
    reads = await asyncio.wait_for(asyncio.gather(
        rpc(client, alice, "listCurrentOrders"), rpc(client, alice, "getAccountFunds", path=ACCOUNT),
        client.get("/games/v1/channels/holdem/snapshot")), BOUND_S)
    placed = await asyncio.wait_for(place_task, BOUND_S)
    assert time.monotonic() - started < 2 * TIMEOUT_MS / 1000 + 1, "the wait must end at the journal timeout"
    assert _unavailable(placed), placed  # not a bet id the journal does not hold
    orders, now_funds, snapshot = reads
    assert _unavailable(orders), orders  # not the order listed EXECUTABLE
    assert _unavailable(now_funds), now_funds  # not the exposure reserved
    assert snapshot.status == 503
    assert now_funds != funds

    with contextlib.suppress(asyncio.TimeoutError, TypeError):  # the stream: closed, never the order
        while True:
            seen.append(await ws.receive_json(timeout=3))
    text = json.dumps(seen)
    assert '"uo"' not in text or '"p": 3.0' not in text, seen
    assert seen[-1].get("errorCode") == "SERVICE_UNAVAILABLE" and seen[-1].get("connectionClosed") is True, seen
    assert len(fatal) == 1 and f"for {TIMEOUT_MS / 1000:g} s (stalled" in fatal[0], fatal  # the timeout given
    await _everything_refused(client, alice)


@pytest.mark.parametrize("app_client", [TIMEOUT_MS], indirect=True)
async def test_an_operators_action_the_journal_never_holds_is_refused_and_not_logged(
        app_client: tuple[TestClient, list[str]], caplog: pytest.LogCaptureFixture) -> None:
    """The server log is an operator's record too: it said "operator ops suspended holdem.0" for a suspension whose
    journal record never reached the disk (the answer was refused, but the line was written first)."""
    caplog.set_level("INFO", logger="exchange.server.operator")
    client, fatal = app_client
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops = await login(client, "ops", "pw-ops")
    os.kill(_writer(client), signal.SIGSTOP)
    resp = await asyncio.wait_for(client.post(f"/operator/v1/markets/{MARKET}/suspend", headers=headers(ops),
                                              data=json.dumps({"reason": "video feed lost"})), BOUND_S)
    assert (resp.status, (await resp.json())["error"]) == (503, "SERVICE_UNAVAILABLE")
    assert len(fatal) == 1
    assert [r.getMessage() for r in caplog.records if r.name == "exchange.server.operator"] == []


# --- real server processes -----------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "exchange.db"
    assert cli("accounts", "--db", str(path), "add", "alice", "--password", "pw-a", "--balance", "1000"
               ).returncode == 0
    return path


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for server in started:
        for pid in server.children():  # a stalled writer would hold up a clean stop
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.stop()


class Api:
    """JSON-RPC over requests against a server process, as alice."""

    def __init__(self, server: ServerProcess) -> None:
        self.url = server.url
        resp = requests.post(f"{self.url}/api/login", data={"username": "alice", "password": "pw-a"},
                             headers={"X-Application": APP_KEY}, timeout=BOUND_S)
        self.token = resp.json()["token"]

    def call(self, method: str, params: dict[str, Any], path: str = BETTING) -> dict[str, Any]:
        prefix = "AccountAPING/v1.0/" if path == ACCOUNT else "SportsAPING/v1.0/"
        body = {"jsonrpc": "2.0", "method": prefix + method, "params": params, "id": 1}
        resp = requests.post(f"{self.url}{path}", json=body, timeout=BOUND_S,
                             headers={"X-Application": APP_KEY, "X-Authentication": self.token})
        out: dict[str, Any] = resp.json()
        return out


def _after_restart(db: Path, servers: list[ServerProcess]) -> tuple[Api, ServerProcess]:
    again = ServerProcess(db).start()
    servers.append(again)
    return Api(again), again


def _game_number(server: ServerProcess) -> int:
    game = server.game()
    assert game is not None, "no game shown"
    return int(game["gameNumber"])


def _game_in_a_window_just_opened(server: ServerProcess) -> int:
    """The number of the game whose betting window opened a moment ago (three quarters of it or more left), once
    one has."""
    game = wait_until(server.game_in_early_window, timeout_s=BOUND_S + 4 * WINDOW_S, what="a betting window opening")
    return int(game["gameNumber"])


def test_serve_exits_3_in_one_line_when_its_writer_is_killed_and_restarts_clean(
        db: Path, servers: list[ServerProcess]) -> None:
    server = ServerProcess(db, window_s=WINDOW_S, playing_s=0.2).start()
    servers.append(server)
    api = Api(server)
    game = _game_in_a_window_just_opened(server)
    (report,) = api.call("placeOrders", place(f"holdem.{game}", 1, "BACK", 3.0, 2))["result"]["instructionReports"]
    assert report["status"] == "SUCCESS", report
    assert api.call("getAccountFunds", {}, path=ACCOUNT)["result"]["exposure"] == -2  # held; answered, so journaled
    (writer,) = server.children()
    os.kill(writer, signal.SIGKILL)  # (what a client waiting then is answered is the in-process test's, above)
    assert server.wait(BOUND_S) == 3
    fatal = [line for line in server.log().splitlines() if "fail-stop" in line]
    assert len(fatal) == 1 and "CRITICAL" in fatal[0] and "journal writer process exited" in fatal[0], fatal

    api, again = _after_restart(db, servers)
    assert _game_number(again) > game  # the interrupted game is voided: its unmatched order cancelled
    cancelled = api.call("listClearedOrders", {"betStatus": "CANCELLED"})["result"]["clearedOrders"]
    assert [order["betId"] for order in cancelled] == [report["betId"]]
    assert api.call("listCurrentOrders", {})["result"]["currentOrders"] == []
    funds = api.call("getAccountFunds", {}, path=ACCOUNT)["result"]
    assert funds["availableToBetBalance"] == 1000 and funds["exposure"] == 0


def test_serve_exits_3_in_one_line_when_its_journal_cannot_be_written_at_start(db: Path) -> None:
    """A start on a full disk: the first records cannot be journaled, so the server never serves; it fail-stops as
    it would later (it ended with a traceback and exit 1). The "full disk" is a file size limit at the length the
    write-ahead log has when the server starts, held open at that length by a connection of the test's own."""
    ServerProcess(db).start().stop()  # the journal's tables are made: a start needs to write nothing else
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as held:
        for _ in range(40):  # each commit appends a frame; nothing changes
            held.execute("UPDATE accounts SET name = name")
        wal_bytes = Path(f"{db}-wal").stat().st_size
        again = cli("serve", "--db", str(db), "--host", "127.0.0.1", "--port", str(free_port()), "--no-house",
                    max_file_bytes=wal_bytes, timeout=BOUND_S * 3)
    assert again.returncode == 3, again
    assert "Traceback" not in again.stderr, again.stderr
    fatal = [line for line in again.stderr.splitlines() if "fail-stop" in line]
    assert len(fatal) == 1 and "CRITICAL" in fatal[0] and "journal write failed" in fatal[0], again.stderr


def test_serve_with_a_stalled_writer_answers_in_time_exits_and_never_reuses_a_market_id(
        db: Path, servers: list[ServerProcess]) -> None:
    server = ServerProcess(db, "--journal-timeout", str(TIMEOUT_MS / 1000), window_s=WINDOW_S, playing_s=0.2).start()
    servers.append(server)
    api = Api(server)
    shown = _game_in_a_window_just_opened(server)
    (writer,) = server.children()
    os.kill(writer, signal.SIGSTOP)
    started = time.monotonic()
    # Accepted in the window's seconds left, its record waits behind the stalled writer: refused at the timeout.
    answer = api.call("placeOrders", place(f"holdem.{shown}", 1, "BACK", 3.0, 2))
    assert _unavailable(answer), answer
    assert server.wait(BOUND_S) == 3 and time.monotonic() - started < 2 * TIMEOUT_MS / 1000 + 1
    # killed as the server exits: gone a moment later (its exit can take the kernel a moment)
    wait_until(lambda: gone(writer), timeout_s=BOUND_S,
               what="the stalled writer ending with the server (it could commit after a restart)")
    fatal = [line for line in server.log().splitlines() if "fail-stop" in line]
    assert len(fatal) == 1 and f"for {TIMEOUT_MS / 1000:g} s (stalled" in fatal[0], fatal  # the timeout given

    api, again = _after_restart(db, servers)
    assert _game_number(again) > shown  # the interrupted game is voided, its id never dealt again
    assert api.call("listCurrentOrders", {})["result"]["currentOrders"] == []
    assert api.call("getAccountFunds", {}, path=ACCOUNT)["result"]["availableToBetBalance"] == 1000
