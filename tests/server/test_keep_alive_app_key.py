"""keepAlive and logout take the ``X-Application`` header as Betfair's identity service does: optional (the session
knows its key), checked when given. A bot that keeps its session alive with the token alone, as Betfair documents,
keeps it; a key that is not the session's is still refused.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import APP_KEY, login, rpc


async def test_keep_alive_and_logout_need_only_the_session_token(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    accept = {"Accept": "application/json"}
    alive = await (await client.post("/api/keepAlive", headers={**accept, "X-Authentication": token})).json()
    assert alive == {"token": token, "product": APP_KEY, "status": "SUCCESS", "error": ""}
    other = await client.post("/api/keepAlive", headers={"X-Authentication": token, "X-Application": "another-app"})
    assert (await other.json())["status"] == "FAIL"
    out = await (await client.post("/api/logout", headers={**accept, "X-Authentication": token})).json()
    assert out == {"token": token, "product": APP_KEY, "status": "SUCCESS", "error": ""}
    answer = await rpc(client, token, "listCurrentOrders")
    assert answer["error"]["data"]["APINGException"]["errorCode"] == "INVALID_SESSION_INFORMATION"
    gone = await (await client.post("/api/keepAlive", headers={"X-Authentication": token})).json()
    assert (gone["status"], gone["error"]) == ("FAIL", "NO_SESSION")
