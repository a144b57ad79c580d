"""The Account API numbers its errors apart from the Sports API, as Betfair's does: an AccountAPINGException
carries ``AANGX-00NN`` (INVALID_INPUT_DATA 1, INVALID_SESSION_INFORMATION 2, INVALID_APP_KEY 4, NO_SESSION 10,
NO_APP_KEY 11), an APINGException ``ANGX-00NN`` (INVALID_INPUT_DATA 2, INVALID_SESSION_INFORMATION 3, NO_APP_KEY 4,
NO_SESSION 5, INVALID_APP_KEY 7). A client that tells an expired session by the message (``AANGX-0002``) reads it
on either endpoint.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import ACCOUNT, APP_KEY, login, rpc


async def test_each_api_numbers_its_own_error_codes(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    cases = {(None, APP_KEY, None): ("NO_SESSION", "AANGX-0010", "ANGX-0005"),
             ("junk", APP_KEY, None): ("INVALID_SESSION_INFORMATION", "AANGX-0002", "ANGX-0003"),
             ("junk", None, None): ("NO_APP_KEY", "AANGX-0011", "ANGX-0004"),
             (alice, "another-app", None): ("INVALID_APP_KEY", "AANGX-0004", "ANGX-0007"),
             (alice, APP_KEY, "EU"): ("INVALID_INPUT_DATA", "AANGX-0001", "ANGX-0002")}
    for (token, app_key, wallet), (code, account_message, sports_message) in cases.items():
        funds = await rpc(client, token, "getAccountFunds", {"wallet": wallet}, path=ACCOUNT, app_key=app_key)
        assert funds["error"]["data"]["AccountAPINGException"]["errorCode"] == code
        assert funds["error"]["message"] == account_message, code
        orders = await rpc(client, token, "listCurrentOrders", {"sortDir": wallet}, app_key=app_key)
        assert orders["error"]["data"]["APINGException"]["errorCode"] == code
        assert orders["error"]["message"] == sports_message, code
