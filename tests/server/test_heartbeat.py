"""The Heartbeat API: a client that stops calling in has its unmatched bets cancelled, as Betfair's does.

The server's clock is a VirtualClock the tests move: a heartbeat's deadline is ``actualTimeoutSeconds`` after
the call on that clock, so a test checks the moment before it (nothing cancelled) and the moment it comes.
The windows are long (two minutes) so that a resting bet outlives the shortest timeout (10 s).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import betfairlightweight
import pytest
import requests
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.heartbeat import ActionPerformed, Heartbeats
from tests.server.helpers import APP_KEY, START_MS, headers, login, place_one, rpc, serving

HEARTBEAT = "/exchange/heartbeat/json-rpc/v1"
MARKET = "holdem.0"
LONG_WINDOW_MS = 120_000


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[TestClient]:
    """One Hold'em channel with two-minute windows, its first game's Deal window open from START_MS; alice and bob
    have 1000.00 each."""
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), window_ms=LONG_WINDOW_MS) as client:
        yield client


def clock_of(server: TestClient) -> VirtualClock:
    clock = server.app[keys.SERVICE].clock
    assert isinstance(clock, VirtualClock)
    return clock


async def beat(server: TestClient, token: str, params: dict[str, Any]) -> dict[str, Any]:
    """One ``HeartbeatAPING/v1.0/heartbeat`` call's JSON-RPC answer."""
    body = {"jsonrpc": "2.0", "method": "HeartbeatAPING/v1.0/heartbeat", "params": params, "id": 1}
    resp = await server.post(HEARTBEAT, data=json.dumps(body), headers=headers(token))
    assert resp.status == 200
    answer: dict[str, Any] = await resp.json()
    return answer


async def report(server: TestClient, token: str, preferred: int) -> tuple[str, int]:
    result = (await beat(server, token, {"preferredTimeoutSeconds": preferred}))["result"]
    return result["actionPerformed"], result["actualTimeoutSeconds"]


async def remaining(server: TestClient, token: str, bet_id: str) -> float:
    (order,) = (await rpc(server, token, "listCurrentOrders", {"betIds": [bet_id]}))["result"]["currentOrders"]
    return float(order["sizeRemaining"])


async def test_the_timeout_is_the_preferred_one_within_betfairs_limits(server: TestClient) -> None:
    alice = await login(server, "alice", "pw-alice")
    assert await report(server, alice, 20) == ("NONE", 20)
    assert await report(server, alice, 3) == ("NONE", 10)
    assert await report(server, alice, 3600) == ("NONE", 300)
    assert await report(server, alice, 0) == ("NONE", 0)  # unregistered


@pytest.mark.parametrize("params", [{}, {"preferredTimeoutSeconds": -1}, {"preferredTimeoutSeconds": "ten"},
                                    {"preferredTimeoutSeconds": 2**31}, {"preferredTimeoutSecs": 10}])
async def test_a_bad_timeout_is_refused(server: TestClient, params: dict[str, Any]) -> None:
    alice = await login(server, "alice", "pw-alice")
    error = (await beat(server, alice, params))["error"]
    assert (error["code"], error["message"]) == (-32099, "HBT-0001")
    assert error["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"


async def test_a_heartbeat_needs_a_session(server: TestClient) -> None:
    error = (await beat(server, "no-such-token", {"preferredTimeoutSeconds": 10}))["error"]
    assert (error["message"], error["data"]["APINGException"]["errorCode"]) == (
        "HBT-0002", "INVALID_SESSION_INFORMATION")


async def test_a_lapsed_heartbeat_cancels_the_accounts_unmatched_bets_and_no_one_elses(server: TestClient) -> None:
    alice = await login(server, "alice", "pw-alice")
    bob = await login(server, "bob", "pw-bob")
    resting = await place_one(server, alice, MARKET, 1, "BACK", 5.0, 4)
    part = await place_one(server, alice, MARKET, 2, "LAY", 2.0, 6)
    await place_one(server, bob, MARKET, 2, "BACK", 2.0, 2, matched=2)  # alice's lay is matched 2.00 of 6.00
    bobs = await place_one(server, bob, MARKET, 3, "BACK", 7.0, 3)
    assert await report(server, alice, 10) == ("NONE", 10)
    clock = clock_of(server)
    clock.run(until_ms=START_MS + 9_999)
    assert await remaining(server, alice, resting["betId"]) == 4.0
    clock.run(until_ms=START_MS + 10_000)
    assert await remaining(server, alice, resting["betId"]) == 0.0
    (lay,) = (await rpc(server, alice, "listCurrentOrders", {"betIds": [part["betId"]]}))["result"]["currentOrders"]
    assert (lay["sizeMatched"], lay["sizeCancelled"], lay["status"]) == (2.0, 4.0, "EXECUTION_COMPLETE")
    assert await remaining(server, bob, bobs["betId"]) == 3.0  # bob has no heartbeat
    assert await report(server, alice, 10) == ("ALL_BETS_CANCELLED", 10)
    assert await report(server, alice, 10) == ("NONE", 10)


async def test_each_heartbeat_moves_the_deadline(server: TestClient) -> None:
    alice = await login(server, "alice", "pw-alice")
    bet = await place_one(server, alice, MARKET, 1, "BACK", 5.0, 4)
    await report(server, alice, 10)
    clock = clock_of(server)
    clock.run(until_ms=START_MS + 8_000)
    await report(server, alice, 10)  # the deadline is now START_MS + 18 s
    clock.run(until_ms=START_MS + 17_999)
    assert await remaining(server, alice, bet["betId"]) == 4.0
    clock.run(until_ms=START_MS + 18_000)
    assert await remaining(server, alice, bet["betId"]) == 0.0


async def test_a_lapse_cancels_once_and_unregisters(server: TestClient) -> None:
    alice = await login(server, "alice", "pw-alice")
    await report(server, alice, 10)
    clock = clock_of(server)
    clock.run(until_ms=START_MS + 10_000)  # lapses with no bets
    later = await place_one(server, alice, MARKET, 1, "BACK", 5.0, 4)  # placed after the lapse, no new heartbeat
    clock.run(until_ms=START_MS + 40_000)
    assert await remaining(server, alice, later["betId"]) == 4.0
    assert await report(server, alice, 0) == ("ALL_BETS_CANCELLED", 0)


async def test_unregistering_keeps_the_bets(server: TestClient) -> None:
    alice = await login(server, "alice", "pw-alice")
    bet = await place_one(server, alice, MARKET, 1, "BACK", 5.0, 4)
    await report(server, alice, 10)
    assert await report(server, alice, 0) == ("NONE", 0)
    clock_of(server).run(until_ms=START_MS + 60_000)
    assert await remaining(server, alice, bet["betId"]) == 4.0


async def test_a_betfairlightweight_bot_calls_it_at_its_api_uri(server: TestClient) -> None:
    """betfairlightweight has no heartbeat method: a bot posts the call with the client's own session headers
    to ``api_uri + "heartbeat/json-rpc/v1"``, as it would to Betfair's."""
    base = str(server.make_url("")).rstrip("/")
    client = betfairlightweight.APIClient("alice", "pw-alice", app_key=APP_KEY, lightweight=True)
    client.identity_uri = f"{base}/api/"
    client.api_uri = f"{base}/exchange/"
    await asyncio.to_thread(client.login_interactive)
    body = json.dumps({"jsonrpc": "2.0", "method": "HeartbeatAPING/v1.0/heartbeat",
                       "params": {"preferredTimeoutSeconds": 15}, "id": 1})
    resp = await asyncio.to_thread(requests.post, client.api_uri + "heartbeat/json-rpc/v1", data=body,
                                   headers=client.request_headers, timeout=10)
    assert resp.json()["result"] == {"actionPerformed": "NONE", "actualTimeoutSeconds": 15}


def test_a_lapse_the_exchange_could_not_carry_out_in_full_says_so() -> None:
    clock = VirtualClock(start_ms=0)
    beats = Heartbeats(clock, lambda account: False)  # a cancel refused: some bet of the account's is left
    beats.beat("alice", 10)
    clock.run(until_ms=10_000)
    assert beats.beat("alice", 10) == (ActionPerformed.SOME_BETS_NOT_CANCELLED, 10)


async def test_the_heartbeat_is_served_over_rest_too(server: TestClient) -> None:
    """As Betfair serves it: ``POST /exchange/heartbeat/rest/v1.0/heartbeat/`` with the params object as the body;
    a refusal is a REST fault with the Heartbeat API's own code."""
    alice = await login(server, "alice", "pw-alice")
    resp = await server.post("/exchange/heartbeat/rest/v1.0/heartbeat/", data=json.dumps(
        {"preferredTimeoutSeconds": 30}), headers=headers(alice))
    assert (resp.status, await resp.json()) == (200, {"actionPerformed": "NONE", "actualTimeoutSeconds": 30})
    resp = await server.post("/exchange/heartbeat/rest/v1.0/heartbeat/", data=json.dumps(
        {"preferredTimeoutSeconds": -5}), headers=headers(alice))
    fault = await resp.json()
    assert (resp.status, fault["faultstring"], fault["detail"]["APINGException"]["errorCode"]) == (
        400, "HBT-0001", "INVALID_INPUT_DATA")
