"""A call that changes state always says what it did: its answer is never refused for its size.

An answer past the byte budget of a call or of a batch is refused with ``TOO_MUCH_DATA``, so a client asks for less;
but the bets of a ``placeOrders`` so refused had been placed (and a ``cancelOrders``' cancelled), and a client told
the call was refused would send it again. The budgets are made small here so that ordinary calls pass them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server.limits import Limits
from tests.server.helpers import BETTING, headers, login, place, rpc, serving

SMALL = Limits(max_bytes_per_call=2_000, max_bytes_per_batch=3_000)
MARKET = "holdem.0"


@pytest.fixture
async def alice(tmp_path: Path, clock: VirtualClock) -> AsyncIterator[tuple[TestClient, str]]:
    async with serving(tmp_path / "ex.db", clock, limits=SMALL) as client:
        yield client, await login(client, "alice", "pw-alice")


def resting(count: int, ref: str) -> dict[str, Any]:
    """``count`` backs at 1000 (they rest), each with its own customerOrderRef ``ref-i``: an answer of a few KB."""
    instructions = [place(MARKET, 1 + i % 4, "BACK", 1000, 2, customerOrderRef=f"{ref}-{i}")["instructions"][0]
                    for i in range(count)]
    return {"marketId": MARKET, "instructions": instructions}


async def batch(client: TestClient, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    body = [{"jsonrpc": "2.0", "method": f"SportsAPING/v1.0/{method}", "params": params, "id": i}
            for i, (method, params) in enumerate(calls)]
    resp = await client.post(BETTING, data=json.dumps(body), headers=headers(token))
    assert resp.status == 200
    answers: list[dict[str, Any]] = await resp.json()
    return sorted(answers, key=lambda answer: answer["id"])


async def live_bets(client: TestClient, token: str) -> dict[str, str]:
    """Each of alice's bets live on the market (unmatched, not cancelled): customerOrderRef -> betId (two a page:
    within the small budget)."""
    bets: dict[str, str] = {}
    for page in range(100):
        params = {"marketIds": [MARKET], "fromRecord": 2 * page, "recordCount": 2}
        result = (await rpc(client, token, "listCurrentOrders", params))["result"]
        bets |= {o["customerOrderRef"]: o["betId"] for o in result["currentOrders"] if o["status"] == "EXECUTABLE"}
        if not result["moreAvailable"]:
            return bets
    raise AssertionError("more than 100 pages of bets")


async def test_placements_past_the_batch_budget_are_answered_and_the_reads_after_them_refused(
    alice: tuple[TestClient, str]
) -> None:
    client, token = alice
    answers = await batch(client, token, [("placeOrders", resting(10, "a")), ("placeOrders", resting(10, "b")),
                                          ("listCurrentOrders", {"marketIds": [MARKET]})])
    placed: dict[str, str] = {}
    for answer in answers[:2]:
        assert answer["result"]["status"] == "SUCCESS", answer
        placed |= {r["instruction"]["customerOrderRef"]: r["betId"] for r in answer["result"]["instructionReports"]}
    assert len(json.dumps(answers[0])) > SMALL.max_bytes_per_call  # past the call's budget, and the batch's
    assert answers[2]["error"]["data"]["APINGException"]["errorCode"] == "TOO_MUCH_DATA"  # a read pays for them
    assert await live_bets(client, token) == placed  # every bet the answers report, and none they do not


async def test_a_placement_is_answered_beside_a_call_whose_method_is_no_name(alice: tuple[TestClient, str]) -> None:
    """A batch's malformed call (its method a list) is refused alone; it must not turn the whole answer into an
    error after the placement before it was carried out."""
    client, token = alice
    body = [{"jsonrpc": "2.0", "method": "SportsAPING/v1.0/placeOrders", "params": resting(1, "m"), "id": 1},
            {"jsonrpc": "2.0", "method": ["oops"], "id": 2}]
    resp = await client.post(BETTING, data=json.dumps(body), headers=headers(token))
    assert resp.status == 200, await resp.text()
    placed, refused = sorted(await resp.json(), key=lambda answer: answer["id"])
    assert placed["result"]["status"] == "SUCCESS" and refused["error"]["code"] == -32600
    assert list(await live_bets(client, token)) == ["m-0"]


async def test_a_cancel_past_the_call_budget_is_answered(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    await rpc(client, token, "placeOrders", resting(4, "c"))
    bets = await live_bets(client, token)
    unknown = [{"betId": str(10**17 + i)} for i in range(40)]  # each refused INVALID_BET_ID, echoed
    params = {"marketId": MARKET, "instructions": [{"betId": bets["c-0"]}, *unknown]}
    answer = await rpc(client, token, "cancelOrders", params)
    reports = answer["result"]["instructionReports"]
    assert len(json.dumps(answer)) > SMALL.max_bytes_per_call
    assert reports[0]["status"] == "SUCCESS" and reports[0]["sizeCancelled"] == 2.0
    assert {r["errorCode"] for r in reports[1:]} == {"INVALID_BET_ID"}
    assert sorted(await live_bets(client, token)) == ["c-1", "c-2", "c-3"]


async def test_a_rest_placement_past_the_call_budget_is_answered(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    resp = await client.post("/exchange/betting/rest/v1.0/placeOrders/", data=json.dumps(resting(10, "r")),
                             headers=headers(token))
    assert resp.status == 200, await resp.text()
    report = await resp.json()
    assert report["status"] == "SUCCESS" and len(report["instructionReports"]) == 10
    assert len(await live_bets(client, token)) == 10


async def test_reads_past_the_call_budget_are_still_refused(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    await rpc(client, token, "placeOrders", resting(10, "d"))
    answer = await rpc(client, token, "listCurrentOrders", {"marketIds": [MARKET]})
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "TOO_MUCH_DATA"


@pytest.mark.parametrize("method", ["cancelOrders", "replaceOrders", "updateOrders"])
async def test_a_bet_id_longer_than_any_refuses_the_call_before_anything_is_done(
    alice: tuple[TestClient, str], method: str
) -> None:
    """A long betId was echoed in every report (a 16 KB one made one call's answer 1.9 MB)."""
    client, token = alice
    await rpc(client, token, "placeOrders", resting(1, "e"))
    (bet_id,) = (await live_bets(client, token)).values()
    extra: dict[str, dict[str, Any]] = {"cancelOrders": {}, "replaceOrders": {"newPrice": 900},
                                        "updateOrders": {"newPersistenceType": "PERSIST"}}
    instructions = [{"betId": bet_id, **extra[method]}, {"betId": "9" * 65, **extra[method]}]
    answer = await rpc(client, token, method, {"marketId": MARKET, "instructions": instructions})
    error = answer["error"]["data"]["APINGException"]
    assert error["errorCode"] == "INVALID_INPUT_DATA"
    assert ("instructions[1].betId is 65 characters; a bet id is a string of digits, at most 64 characters"
            in error["errorDetails"])
    assert await live_bets(client, token) == {"e-0": bet_id}  # the first instruction was not carried out either
