"""API-NG over REST, as Betfair serves it beside JSON-RPC: ``POST /exchange/betting/rest/v1.0/<method>/`` (and
``/exchange/account/rest/v1.0/<method>/``) with the params object as the whole body and the result as the whole
answer; a refused call is HTTP 400 with Betfair's fault body (``faultcode``, ``faultstring`` ``ANGX-00NN``,
``detail.APINGException``). The calls here are plain HTTP (``requests``, as a script would send them), and each
answer is held to the JSON-RPC endpoint's answer to the same call: both run one dispatch.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import requests
from aiohttp.test_utils import TestClient

from tests.server.helpers import APP_KEY, headers, login, place, rpc

REST = "/exchange/betting/rest/v1.0/"
ACCOUNT_REST = "/exchange/account/rest/v1.0/"


async def post(client: TestClient, path: str, body: Any, token: str | None, app_key: str | None = APP_KEY,
               ) -> requests.Response:
    """``body`` POSTed as JSON to the test server with ``requests`` (on a thread: the server runs on this loop)."""
    url = str(client.make_url(path))
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return await asyncio.to_thread(requests.post, url, data=data, headers=headers(token, app_key), timeout=10)


async def test_a_rest_call_answers_what_the_json_rpc_call_answers(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    resp = await post(client, REST + "placeOrders/", place("holdem.0", 1, "BACK", 3.0, 2), alice)
    assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("application/json")
    report = resp.json()
    assert report["status"] == "SUCCESS" and report["instructionReports"][0]["orderStatus"] == "EXECUTABLE"
    bet_id = report["instructionReports"][0]["betId"]
    over_rest = (await post(client, REST + "listCurrentOrders/", {}, alice)).json()
    over_rpc = (await rpc(client, alice, "listCurrentOrders", {}))["result"]
    assert over_rest == over_rpc and [o["betId"] for o in over_rest["currentOrders"]] == [bet_id]
    books = (await post(client, REST + "listMarketBook", {"marketIds": ["holdem.0"]}, alice)).json()
    assert [b["marketId"] for b in books] == ["holdem.0"]  # the trailing slash is optional
    funds = await post(client, ACCOUNT_REST + "getAccountFunds/", {}, alice)
    assert funds.status_code == 200 and funds.json()["availableToBetBalance"] == 998.0
    assert (await post(client, REST + "listEventTypes/", b"", alice)).status_code == 400  # filter is required
    assert (await post(client, ACCOUNT_REST + "getAccountDetails/", b"", alice)).json()["currencyCode"] == "GBP"


async def test_a_refused_rest_call_is_a_400_fault_as_betfair_sends_it(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    cases = [(REST + "listCurrentOrders/", {}, "junk", APP_KEY, "INVALID_SESSION_INFORMATION", "ANGX-0003"),
             (REST + "listCurrentOrders/", {}, alice, None, "NO_APP_KEY", "ANGX-0004"),
             (REST + "listCurrentOrders/", {"sortDir": "UP"}, alice, APP_KEY, "INVALID_INPUT_DATA", "ANGX-0002"),
             (REST + "listCurrentOrders/", {"sortDirr": "UP"}, alice, APP_KEY, "INVALID_INPUT_DATA", "ANGX-0002"),
             (REST + "listCurrentOrders/", b"{not json", alice, APP_KEY, "INVALID_INPUT_DATA", "ANGX-0002"),
             (REST + "listCurrentOrders/", [1, 2], alice, APP_KEY, "INVALID_INPUT_DATA", "ANGX-0002"),
             (REST + "listCurrentOrders/", b" " * (2 << 20), alice, APP_KEY, "REQUEST_SIZE_EXCEEDS_LIMIT", "ANGX-0011")]
    for path, body, token, app_key, code, angx in cases:
        resp = await post(client, path, body, token, app_key)
        assert resp.status_code == 400, (code, resp.text)
        fault = resp.json()
        assert fault["faultcode"] == "Client" and fault["faultstring"] == angx, fault
        assert fault["detail"]["exceptionname"] == "APINGException"
        exception = fault["detail"]["APINGException"]
        assert exception["errorCode"] == code and exception["requestUUID"], fault
    resp = await post(client, ACCOUNT_REST + "getAccountFunds/", {}, "junk")
    fault = resp.json()
    assert resp.status_code == 400 and fault["faultstring"] == "AANGX-0002"
    assert fault["detail"]["AccountAPINGException"]["errorCode"] == "INVALID_SESSION_INFORMATION"


async def test_an_unknown_rest_method_is_a_404_naming_the_methods(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    resp = await post(client, REST + "listMarketBooks/", {}, alice)
    assert resp.status_code == 404 and "listMarketBook" in resp.json()["details"]
    resp = await post(client, ACCOUNT_REST + "placeOrders/", {}, alice)  # a betting method on the account API
    assert resp.status_code == 404


async def test_an_order_refused_over_rest_is_a_200_report_not_a_fault(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    resp = await post(client, REST + "placeOrders/", place("holdem.0", 1, "BACK", 3.03, 2), alice)
    assert resp.status_code == 200
    report = resp.json()
    assert report["status"] == "FAILURE" and report["instructionReports"][0]["errorCode"] == "INVALID_ODDS"


async def test_the_json_rpc_endpoints_answer_with_a_trailing_slash_too(client: TestClient) -> None:
    """Betfair's own sample code and many clients call ``.../json-rpc/v1/``: the same endpoint."""
    alice = await login(client, "alice", "pw-alice")
    for path, method in (("/exchange/betting/json-rpc/v1/", "SportsAPING/v1.0/listCurrentOrders"),
                         ("/exchange/account/json-rpc/v1/", "AccountAPING/v1.0/getAccountFunds")):
        resp = await post(client, path, {"jsonrpc": "2.0", "method": method, "params": {}, "id": 3}, alice)
        assert resp.status_code == 200, resp.text
        assert "result" in resp.json() and resp.json()["id"] == 3, resp.text


async def test_a_json_rpc_envelope_posted_to_a_rest_path_is_refused_not_run_without_its_params(
        client: TestClient) -> None:
    """A JSON-RPC envelope sent as a REST body would be a call with no params (a cancelOrders that cancels every
    bet): it is refused, saying what to send, and cancels nothing."""
    alice = await login(client, "alice", "pw-alice")
    await post(client, REST + "placeOrders/", place("holdem.0", 1, "BACK", 3.0, 2), alice)
    envelope = {"params": {"marketId": "holdem.0", "instructions": [{"betId": "999"}]}, "id": 1}
    resp = await post(client, REST + "cancelOrders/", envelope, alice)
    assert resp.status_code == 400 and "envelope" in resp.json()["detail"]["APINGException"]["errorDetails"]
    (order,) = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert order["status"] == "EXECUTABLE" and order["sizeCancelled"] == 0
