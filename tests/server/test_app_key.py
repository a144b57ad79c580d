"""The application key (``X-Application``, or ``appKey`` on the stream) is 1 to 64 visible ASCII characters.

Betfair's application keys are ASCII (letters and digits); the server takes any visible ASCII (letters, digits,
punctuation) and refuses a key with a space, a control character or anything beyond ASCII, with a reason that
says what is allowed: ``INVALID_APP_KEY`` from the identity service (``status: FAIL``) and from API-NG.
"""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient

from exchange.server.auth import check_app_key
from exchange.server.errors import ApiError, ApingCode
from tests.server.helpers import login, rpc

BAD = ["ключ", "café-app", "app\u00a0key", "app key", "tab\tkey", "emoji-\U0001f0a1", "x" * 65]
GOOD = ["test-app", "A1b2C3d4E5f6G7h8", "x" * 64, "bot:1.2_3/[ok]~"]


@pytest.mark.parametrize("app_key", BAD)
def test_a_key_beyond_visible_ascii_is_refused_saying_what_is_allowed(app_key: str) -> None:
    with pytest.raises(ApiError) as refused:
        check_app_key(app_key)
    assert refused.value.code is ApingCode.INVALID_APP_KEY
    assert "visible ASCII" in refused.value.details and "1-64" in refused.value.details


@pytest.mark.parametrize("app_key", GOOD)
def test_a_visible_ascii_key_is_taken_as_given(app_key: str) -> None:
    assert check_app_key(app_key) == app_key


async def test_login_and_api_ng_refuse_a_non_ascii_key(client: TestClient) -> None:
    resp = await client.post("/api/login", data={"username": "alice", "password": "pw-alice"},
                             headers={"X-Application": "ключ"})
    answer = await resp.json()
    assert answer == {"token": "", "product": "ключ", "status": "FAIL", "error": "INVALID_APP_KEY",
                      "errorDetails": answer["errorDetails"]} and "visible ASCII" in answer["errorDetails"]
    token = await login(client, "alice", "pw-alice")
    answer = await rpc(client, token, "listCurrentOrders", app_key="café")
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "INVALID_APP_KEY"
