"""A JSON-RPC batch (a body that is an array of calls) is answered with an array, whatever refuses it.

JSON-RPC 2.0 answers a batch with an array of responses (matched to the calls by ``id``); only a body
that is not JSON, or an empty array, gets one response object. A refusal of the whole request (no
application key, a bad or expired session, more calls than a batch may hold) is still an answer to
each call: one error per call, with the call's own ``id``, so a batch client can read it as it reads
any other answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.server.jsonrpc import MAX_BATCH
from tests.server.helpers import APP_KEY, BETTING, headers, login


def _calls(n: int, method: str = "listEventTypes") -> list[dict[str, Any]]:
    return [{"jsonrpc": "2.0", "method": f"SportsAPING/v1.0/{method}", "params": {"filter": {}}, "id": i + 1}
            for i in range(n)]


async def _post(client: TestClient, body: object, h: dict[str, str]) -> Any:
    resp = await client.post(BETTING, data=json.dumps(body), headers=h)
    assert resp.status == 200
    return await resp.json()


def _codes(answers: Any) -> list[tuple[object, str]]:
    assert isinstance(answers, list), answers
    return [(a["id"], a["error"]["data"]["APINGException"]["errorCode"]) for a in answers]


@pytest.mark.parametrize(("token", "app_key", "code"), [
    ("junk", APP_KEY, "INVALID_SESSION_INFORMATION"), (None, APP_KEY, "NO_SESSION"), ("junk", None, "NO_APP_KEY")])
async def test_a_batch_refused_for_its_session_gets_one_error_per_call(client: TestClient, token: str | None,
                                                                        app_key: str | None, code: str) -> None:
    answers = await _post(client, _calls(3), headers(token, app_key))
    assert _codes(answers) == [(1, code), (2, code), (3, code)]


async def test_a_batch_over_the_limit_gets_one_error_per_call(client: TestClient) -> None:
    h = headers(await login(client, "alice", "pw-alice"))
    answers = await _post(client, _calls(MAX_BATCH + 1), h)
    assert _codes(answers) == [(i + 1, "TOO_MUCH_DATA") for i in range(MAX_BATCH + 1)]
    assert f"at most {MAX_BATCH} calls" in answers[0]["error"]["data"]["APINGException"]["errorDetails"]


async def test_a_batch_answers_each_call_in_order_whatever_each_is(client: TestClient) -> None:
    h = headers(await login(client, "alice", "pw-alice"))
    body = [*_calls(1), {"jsonrpc": "2.0", "method": "SportsAPING/v1.0/nothing", "id": "b"}, 7,
            {"jsonrpc": "2.0", "method": "SportsAPING/v1.0/listCurrentOrders", "params": [], "id": 9}]
    answers = await _post(client, body, h)
    assert [a["id"] for a in answers] == [1, "b", None, 9]
    assert "result" in answers[0]
    assert [a["error"]["code"] for a in answers[1:]] == [-32601, -32600, -32602]


async def test_what_is_not_a_batch_gets_one_object(client: TestClient) -> None:
    h = headers(await login(client, "alice", "pw-alice"))
    for body, code in ((b"[", -32700), (b"[]", -32600)):
        resp = await client.post(BETTING, data=body, headers=h)
        answer = await resp.json()
        assert isinstance(answer, dict) and answer["error"]["code"] == code and answer["id"] is None
