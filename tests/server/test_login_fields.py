"""A login form gives username and password once each: one given twice is refused, not read as its first."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import APP_KEY

FORM = {"Content-Type": "application/x-www-form-urlencoded", "X-Application": APP_KEY}


async def test_a_field_given_twice_is_an_input_error_on_both_logins(client: TestClient) -> None:
    for body in (b"username=alice&password=pw-alice&username=bob", b"username=alice&password=x&password=pw-alice"):
        resp = await client.post("/api/login", data=body, headers=FORM)
        answer = await resp.json()
        assert (answer["status"], answer["error"], answer["token"]) == ("FAIL", "INPUT_VALIDATION_ERROR", "")
        resp = await client.post("/api/certlogin", data=body, headers=FORM)
        assert await resp.json() == {"loginStatus": "INPUT_VALIDATION_ERROR"}
    resp = await client.post("/api/login", data=b"username=alice&password=pw-alice&other=1", headers=FORM)
    assert (await resp.json())["status"] == "SUCCESS"  # fields beside the two are no login's business
