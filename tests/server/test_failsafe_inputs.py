"""Bad input is refused with the documented code, never a 500 or a traceback: the cases of the issue.

* ``listClearedOrders`` with ``runnerIds: [[]]`` raised a TypeError (UNEXPECTED_ERROR);
* a malformed multipart body on ``/api/login`` was an HTTP 500;
* an unknown channel's snapshot was 400 where the OpenAPI document says 404;
* a JSON-RPC body over 1 MiB was a bare 413, not API-NG's ``REQUEST_SIZE_EXCEEDS_LIMIT``;
* cancelOrders and replaceOrders took 200 instructions where Betfair's limit is 60.
"""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys, openapi
from tests.server.helpers import ACCOUNT, APP_KEY, BETTING, START_MS, headers, login, place, rpc, serving

MARKET = "holdem.0"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), accounts=("alice",)) as test_client:
        yield test_client


def _aping_code(answer: dict[str, Any], exception: str = "APINGException") -> str:
    assert answer["error"]["code"] == -32099, answer
    return str(answer["error"]["data"][exception]["errorCode"])


@pytest.mark.parametrize("runner_ids", [[[]], [{}], ["one"], ["1.0"], [1.5], [True], "1"])
async def test_cleared_orders_with_bad_runner_ids_is_invalid_input(client: TestClient, runner_ids: Any) -> None:
    token = await login(client, "alice", "pw-alice")
    answer = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "runnerIds": runner_ids})
    assert _aping_code(answer) == "INVALID_INPUT_DATA"
    assert "runnerIds" in answer["error"]["data"]["APINGException"]["errorDetails"]


async def test_cleared_orders_with_good_runner_ids_answers(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    answer = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "runnerIds": [1, 2]})
    assert answer["result"] == {"clearedOrders": [], "moreAvailable": False}
    answer = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "runnerIds": ["1", "2"]})
    assert answer["result"] == {"clearedOrders": [], "moreAvailable": False}  # as Betfair reads them: numbers


_PART = b"--xyz\r\nContent-Disposition: form-data; name=username\r\n"
MALFORMED_MULTIPART = [
    b"garbage",
    b"--xyz\r\nbad header line\r\n\r\nv\r\n--xyz--\r\n",
    _PART + b"Content-Transfer-Encoding: weird\r\n\r\nv\r\n--xyz--\r\n",
    _PART + b"Content-Type: text/plain; charset=nope\r\n\r\nv\r\n--xyz--\r\n",
    _PART + b"\r\nv",
    b"--xyz\r\nContent-Disposition: form-data\r\n\r\nv\r\n--xyz--\r\n",
]


@pytest.mark.parametrize("body", MALFORMED_MULTIPART)
async def test_a_malformed_login_form_is_input_validation_error_not_500(client: TestClient, body: bytes,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        resp = await client.post("/api/login", data=body, headers={
            "X-Application": APP_KEY, "Content-Type": "multipart/form-data; boundary=xyz"})
    assert resp.status == 200
    answer = await resp.json()
    assert answer == {"token": "", "product": APP_KEY, "status": "FAIL", "error": "INPUT_VALIDATION_ERROR",
                      "errorDetails": answer["errorDetails"]}
    assert answer["errorDetails"].startswith(("the login form could not be read: ",
                                              "form fields username and password"))
    assert "Traceback" not in caplog.text and "unhandled" not in caplog.text


async def test_a_form_with_an_unknown_charset_is_input_validation_error(client: TestClient) -> None:
    resp = await client.post("/api/login", data=b"username=a&password=b", headers={
        "X-Application": APP_KEY, "Content-Type": "application/x-www-form-urlencoded; charset=nope"})
    assert (await resp.json())["error"] == "INPUT_VALIDATION_ERROR"


async def test_an_unknown_channels_snapshot_is_the_documented_404(client: TestClient) -> None:
    documented = openapi.document()["paths"]["/games/v1/channels/{channelId}/snapshot"]["get"]["responses"]
    assert "404" in documented
    resp = await client.get("/games/v1/channels/nope/snapshot")
    assert resp.status == 404
    body = await resp.json()
    assert body["error"] == "CHANNEL_NOT_FOUND" and "no channel 'nope'" in body["details"]
    assert "holdem" in body["details"]  # and the channels it runs
    assert (await (await client.get("/games/v1/channels/nope/results")).json())["error"] == body["error"]


async def test_a_json_rpc_body_over_the_limit_is_an_aping_error(client: TestClient) -> None:
    h = headers(await login(client, "alice", "pw-alice"))
    for path, exception in ((BETTING, "APINGException"), (ACCOUNT, "AccountAPINGException")):
        resp = await client.post(path, data=b"x" * (2 * 1024 * 1024), headers=h)
        assert resp.status == 200
        answer = await resp.json()
        assert answer["jsonrpc"] == "2.0" and answer["id"] is None
        assert _aping_code(answer, exception) == "REQUEST_SIZE_EXCEEDS_LIMIT"
        assert "1048576 bytes" in answer["error"]["data"][exception]["errorDetails"]
    resp = await client.post(BETTING, data=b"x" * (2 * 1024 * 1024), headers=headers(None))  # no session: the size
    assert _aping_code(await resp.json()) == "REQUEST_SIZE_EXCEEDS_LIMIT"
    answer = await rpc(client, h["X-Authentication"], "listCurrentOrders")  # the server is fine after
    assert "result" in answer


async def test_cancel_and_replace_take_at_most_sixty_instructions_and_place_two_hundred(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    placed = (await rpc(client, token, "placeOrders", place(MARKET, 1, "BACK", 1000, 2)))["result"]
    bet_id = placed["instructionReports"][0]["betId"]
    for method, instruction in (("cancelOrders", {"betId": bet_id}), ("replaceOrders", {"betId": bet_id,
                                                                                       "newPrice": 990}),
                                ("updateOrders", {"betId": bet_id, "newPersistenceType": "PERSIST"})):
        too_many = (await rpc(client, token, method, {"marketId": MARKET, "instructions": [instruction] * 61}))
        result = too_many["result"]
        assert result["status"] == "FAILURE" and result["errorCode"] == "TOO_MANY_INSTRUCTIONS", result
        assert "at most 60" in result["errorMessage"] and result["instructionReports"] == []
    orders = (await rpc(client, token, "listCurrentOrders"))["result"]["currentOrders"]
    assert [o["betId"] for o in orders] == [bet_id] and orders[0]["sizeRemaining"] == 2  # nothing was done
    more = {"marketId": MARKET, "instructions": place(MARKET, 1, "BACK", 1000, 2)["instructions"] * 59}
    bet_ids = [bet_id] + [r["betId"] for r in (await rpc(client, token, "placeOrders", more))["result"][
        "instructionReports"]]
    sixty = (await rpc(client, token, "cancelOrders", {"marketId": MARKET, "instructions": [
        {"betId": b} for b in bet_ids]}))  # sixty bets: each named once (a bet named twice is DUPLICATE_BETIDS)
    assert [r["status"] for r in sixty["result"]["instructionReports"]] == ["SUCCESS"] * 60
    two_hundred = {"marketId": MARKET, "instructions": place(MARKET, 1, "BACK", 1000, 2)["instructions"] * 200}
    assert (await rpc(client, token, "placeOrders", two_hundred))["result"]["status"] == "SUCCESS"
    too_many_places = {"marketId": MARKET, "instructions": two_hundred["instructions"] * 2}
    assert (await rpc(client, token, "placeOrders", too_many_places))["result"]["errorCode"] == "TOO_MANY_INSTRUCTIONS"


@pytest.mark.parametrize("method", ["placeOrders", "cancelOrders", "replaceOrders", "updateOrders"])
async def test_a_call_that_changes_orders_needs_an_instruction(client: TestClient, method: str) -> None:
    token = await login(client, "alice", "pw-alice")
    resting = (await rpc(client, token, "placeOrders", place(MARKET, 1, "BACK", 1000, 2)))["result"]
    answer = await rpc(client, token, method, {"marketId": MARKET, "instructions": []})
    details = answer["error"]["data"]["APINGException"]
    assert details["errorCode"] == "INVALID_INPUT_DATA" and "at least one instruction" in details["errorDetails"]
    orders = (await rpc(client, token, "listCurrentOrders"))["result"]["currentOrders"]
    assert [(o["betId"], o["sizeRemaining"]) for o in orders] == [(resting["instructionReports"][0]["betId"], 2.0)]


@pytest.mark.parametrize("leave_out", [{}, {"instructions": None}], ids=["absent", "null"])
async def test_cancel_orders_without_instructions_cancels_every_unmatched_bet_of_the_market(
        client: TestClient, leave_out: dict[str, Any]) -> None:
    token = await login(client, "alice", "pw-alice")
    for _ in range(2):
        await rpc(client, token, "placeOrders", place(MARKET, 1, "BACK", 1000, 2))
    answer = (await rpc(client, token, "cancelOrders", {"marketId": MARKET, **leave_out}))["result"]
    # as Betfair's: "the CancelInstruction report won't be returned for marketId level cancel instructions"
    assert answer == {"status": "SUCCESS", "marketId": MARKET, "instructionReports": []}
    orders = (await rpc(client, token, "listCurrentOrders"))["result"]["currentOrders"]
    assert [(o["sizeRemaining"], o["sizeCancelled"]) for o in orders] == [(0.0, 2.0)] * 2


def test_the_documents_agree(client: TestClient) -> None:
    rpc_responses = openapi.document()["paths"][BETTING]["post"]["responses"]
    assert "413" not in rpc_responses and "REQUEST_SIZE_EXCEEDS_LIMIT" in json.dumps(rpc_responses)


@pytest.mark.parametrize("path", [BETTING, ACCOUNT, "/exchange/betting/rest/v1.0/listEventTypes/",
                                  "/operator/v1/markets/holdem.0/suspend"])
async def test_a_body_that_is_not_what_its_content_encoding_says_is_a_400_not_a_500(
        client: TestClient, path: str, caplog: pytest.LogCaptureFixture) -> None:
    """``Content-Encoding: gzip`` on a body that is not gzip: a 400 saying so (a body its encoding does decode is
    read as ever), nothing logged as an error."""
    if path.startswith("/operator/"):
        client.app[keys.STORE].add("olga", "pw-olga", deposit=0, operator=True)
    h = headers(await login(client, *(("olga", "pw-olga") if path.startswith("/operator/") else ("alice", "pw-alice"))))
    with caplog.at_level(logging.ERROR):
        resp = await client.post(path, data=b'{"params": {}}', headers={**h, "Content-Encoding": "gzip"})
        body = await resp.json()
    assert resp.status == 400 and body["error"] == "BAD_REQUEST", body
    assert "Content-Encoding (gzip)" in body["details"], body
    assert "Traceback" not in caplog.text and "unhandled" not in caplog.text
    good = await client.post(BETTING, data=gzip.compress(json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "SportsAPING/v1.0/listEventTypes", "params": {"filter": {}}}).encode()),
        headers={**h, "Content-Encoding": "gzip"})
    assert "result" in await good.json()


async def test_a_login_form_that_is_not_what_its_content_encoding_says_is_input_validation_error(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        resp = await client.post("/api/login", data=b"username=alice&password=pw-alice", headers={
            "X-Application": APP_KEY, "Content-Type": "application/x-www-form-urlencoded", "Content-Encoding": "gzip"})
        answer = await resp.json()
    assert resp.status == 200 and (answer["status"], answer["error"]) == ("FAIL", "INPUT_VALIDATION_ERROR"), answer
    assert "Traceback" not in caplog.text and "unhandled" not in caplog.text


@pytest.mark.parametrize("other", ["marketOnCloseOrder", "limitOnCloseOrder"])
async def test_a_limit_order_carrying_an_on_close_order_is_refused_not_read_in_part(client: TestClient,
                                                                                    other: str) -> None:
    token = await login(client, "alice", "pw-alice")
    params = place(MARKET, 1, "BACK", 1000, 2)
    params["instructions"][0][other] = {"liability": 2}
    answer = await rpc(client, token, "placeOrders", params)
    details = answer["error"]["data"]["APINGException"]
    assert details["errorCode"] == "INVALID_INPUT_DATA"
    assert details["errorDetails"].startswith(f"instructions[0].{other} goes with orderType "), details
    assert (await rpc(client, token, "listCurrentOrders"))["result"]["currentOrders"] == []  # nothing placed


@pytest.mark.parametrize(("instruction", "said"), [
    ({}, "instructions[0].betId is required: the bet's id, a string of digits"),
    ({"betId": None}, "instructions[0].betId is required: the bet's id, a string of digits"),
    ({"betId": [1]}, "instructions[0].betId must be a string of digits, not [1]"),
], ids=["absent", "null", "a-list"])
async def test_a_cancel_without_a_bet_id_says_it_is_required(client: TestClient, instruction: dict[str, Any],
                                                             said: str) -> None:
    token = await login(client, "alice", "pw-alice")
    answer = await rpc(client, token, "cancelOrders", {"marketId": MARKET, "instructions": [instruction]})
    details = answer["error"]["data"]["APINGException"]
    assert (details["errorCode"], details["errorDetails"]) == ("INVALID_INPUT_DATA", said)
