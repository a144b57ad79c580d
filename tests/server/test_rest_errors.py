"""Errors on every route, REST or JSON-RPC: bad requests answered in JSON with a stable code.

The app's one error middleware turns aiohttp's 404, 405 and 413 into JSON (a JSON-RPC
route answers an over-size body in API-NG's envelope instead),
domain errors into 4xx, and a bug into a logged JSON 500 rather than aiohttp's
plain-text page; these pin that for every route.
"""

from __future__ import annotations

import logging

import pytest
from aiohttp.test_utils import TestClient

from exchange.server import keys
from tests.server.helpers import APP_KEY, BETTING, headers, login

ROUTES = [("POST", "/api/login"), ("POST", "/api/keepAlive"), ("POST", "/api/logout"), ("POST", BETTING),
          ("POST", "/exchange/account/json-rpc/v1"), ("GET", "/games/v1/channels"),
          ("GET", "/games/v1/channels/holdem/snapshot"), ("GET", "/stream"), ("GET", "/games/v1/stream"),
          ("GET", "/openapi.json"), ("GET", "/")]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_a_wrong_method_on_every_route_is_a_json_405_with_allow(client: TestClient, method: str,
                                                                        path: str) -> None:
    wrong = "PUT"
    resp = await client.request(wrong, path)
    assert resp.status == 405
    allowed = resp.headers["Allow"].split(",")
    assert method in allowed
    assert await resp.json() == {"error": "METHOD_NOT_ALLOWED",
                                 "details": f"PUT is not allowed on {path}: use {' or '.join(sorted(allowed))}"}


@pytest.mark.parametrize("path", ["/nowhere", "/static", "/api/login/extra", "/games/v1/channels/holdem/snapshot/x"])
async def test_an_unknown_path_is_a_json_404_whatever_the_method(client: TestClient, path: str) -> None:
    for method in ("GET", "POST", "DELETE"):
        resp = await client.request(method, path)
        assert resp.status == 404
        assert await resp.json() == {"error": "NOT_FOUND", "details": f"nothing is at {path}: /openapi.json lists "
                                                                      "the routes"}


async def test_a_domain_error_on_a_rest_route_is_a_json_4xx(client: TestClient) -> None:
    resp = await client.get("/games/v1/channels/nothing/snapshot")
    assert resp.status == 404 and (await resp.json())["error"] == "CHANNEL_NOT_FOUND"


async def test_a_query_parameter_on_the_openapi_document_is_refused(client: TestClient) -> None:
    resp = await client.get("/openapi.json?version=3.0")
    assert (resp.status, await resp.json()) == (400, {
        "error": "INVALID_INPUT_DATA", "details": "unknown query parameters ['version']; the document takes none"})
    document = await (await client.get("/openapi.json")).json()
    assert document["paths"]["/openapi.json"]["get"]["responses"]["400"]["description"].startswith("INVALID_INPUT_DATA")


async def test_too_large_a_body_is_an_aping_error_on_json_rpc_and_a_json_413_on_rest(client: TestClient) -> None:
    h = headers(await login(client, "alice", "pw-alice"))
    for path, exception in ((BETTING, "APINGException"), ("/exchange/account/json-rpc/v1", "AccountAPINGException")):
        resp = await client.post(path, data=b"x" * (2 * 1024 * 1024), headers=h)
        too_large = (await resp.json())["error"]["data"][exception]["errorCode"]
        assert resp.status == 200 and too_large == "REQUEST_SIZE_EXCEEDS_LIMIT"
    resp = await client.post("/api/login", data=b"x" * (2 * 1024 * 1024),
                             headers={"X-Application": APP_KEY, "Content-Type": "application/x-www-form-urlencoded"})
    assert resp.status == 413 and (await resp.json())["error"] == "REQUEST_ENTITY_TOO_LARGE"


async def test_a_bug_in_a_json_rpc_handler_is_a_logged_json_500(client: TestClient,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    h = headers(await login(client, "alice", "pw-alice"))
    endpoint = client.app[keys.BETTING]

    async def broken(body: bytes, session: object) -> bytes:
        raise RuntimeError("a bug")

    endpoint.handle = broken
    with caplog.at_level(logging.ERROR):
        resp = await client.post(BETTING, data=b"{}", headers=h)
    assert resp.status == 500 and (await resp.json())["error"] == "UNEXPECTED_ERROR"
    assert "a bug" in caplog.text


class _Broken:
    def items(self) -> object:
        raise RuntimeError("another bug")


async def test_a_bug_in_a_rest_handler_is_a_logged_json_500(client: TestClient, caplog: pytest.LogCaptureFixture,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client.app[keys.SERVICE], "channels", _Broken())
    with caplog.at_level(logging.ERROR):
        resp = await client.get("/games/v1/channels")
    assert resp.status == 500 and (await resp.json())["error"] == "UNEXPECTED_ERROR"
    assert "another bug" in caplog.text
