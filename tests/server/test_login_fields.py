"""A login form gives username and password once each: one given twice is refused, not read as its first."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import APP_KEY

FORM = {"Content-Type": "application/x-www-form-urlencoded", "X-Application": APP_KEY}


async def test_a_field_given_twice_is_an_input_error_on_both_logins(client: TestClient) -> None:
    for body in (b"username=alice&password=pw-alice&username=bob", b"username=alice&password=x&password=pw-alice"):
        field = "username" if body.count(b"username") == 2 else "password"
        twice = f"form field {field} is given more than once"
        resp = await client.post("/api/login", data=body, headers=FORM)
        answer = await resp.json()
        assert (answer["status"], answer["error"], answer["token"], answer["errorDetails"]) == (
            "FAIL", "INPUT_VALIDATION_ERROR", "", twice)
        resp = await client.post("/api/certlogin", data=body, headers=FORM)
        assert await resp.json() == {"loginStatus": "INPUT_VALIDATION_ERROR", "errorDetails": twice}
    resp = await client.post("/api/login", data=b"username=alice&password=pw-alice&other=1", headers=FORM)
    assert (await resp.json())["status"] == "SUCCESS"  # fields beside the two are no login's business


async def test_a_login_sent_as_json_is_told_it_takes_a_form(client: TestClient) -> None:
    """Posting the credentials as JSON is an easy slip: the refusal says what the login takes; a wrong password
    (nothing more to say than the code) has no errorDetails, as Betfair's answer has none."""
    for route, code_field in (("/api/login", "error"), ("/api/certlogin", "loginStatus")):
        resp = await client.post(route, json={"username": "alice", "password": "pw-alice"}, headers={
            "X-Application": APP_KEY})
        answer = await resp.json()
        assert answer[code_field] == "INPUT_VALIDATION_ERROR" and "form" in answer["errorDetails"]
        assert "not JSON" in answer["errorDetails"]
        resp = await client.post(route, data={"username": "alice", "password": "wrong"}, headers=FORM)
        assert "errorDetails" not in await resp.json()
