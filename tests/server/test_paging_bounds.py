"""Paging past the end, however far: an empty page and ``moreAvailable: false``, never an internal error.

JSON integers up to 2**64 - 1 reach the methods as ints; ``fromRecord`` is a record number, and one past every
record there is, even past what the statement index's SQLite can count, is simply past the end.
"""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient

from tests.server.helpers import ACCOUNT, login, rpc


@pytest.mark.parametrize("from_record", [2**63 - 1, 2**63, 2**64 - 1])
async def test_a_statement_page_far_past_the_end_is_empty(client: TestClient, from_record: int) -> None:
    alice = await login(client, "alice", "pw-alice")
    first = (await rpc(client, alice, "getAccountStatement", {}, path=ACCOUNT))["result"]
    assert [item["amount"] for item in first["accountStatement"]] == [1000.0]  # the opening deposit
    out = await rpc(client, alice, "getAccountStatement", {"fromRecord": from_record}, path=ACCOUNT)
    assert out["result"] == {"accountStatement": [], "moreAvailable": False}, out
    cleared = await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "fromRecord": from_record})
    assert cleared["result"] == {"clearedOrders": [], "moreAvailable": False}, cleared  # as the other lists page
