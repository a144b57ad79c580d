"""getAccountStatement's page size limit of 100 caps a page, as the other lists' page limits do: a larger
``recordCount`` gets a page of 100 and ``moreAvailable``, not an error (whose ``TOO_MUCH_DATA`` is not even an
Account API code). 120 small deposits after alice's opening one give 121 items.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from exchange.core.commands import Deposit
from exchange.server import keys
from tests.server.helpers import ACCOUNT, login, rpc


async def test_a_record_count_over_the_page_size_gets_a_full_page(client: TestClient) -> None:
    service = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")  # opens the account with its deposit
    for _ in range(120):
        service.execute(Deposit(service.now(), "alice", 1, "top-up"))
    first = (await rpc(client, alice, "getAccountStatement", {"recordCount": 1000}, path=ACCOUNT))["result"]
    assert (len(first["accountStatement"]), first["moreAvailable"]) == (100, True)
    rest = (await rpc(client, alice, "getAccountStatement", {"fromRecord": 100, "recordCount": 1000},
                      path=ACCOUNT))["result"]
    assert (len(rest["accountStatement"]), rest["moreAvailable"]) == (21, False)
    assert rest["accountStatement"][-1]["amount"] == 1000.0  # the opening deposit, oldest
