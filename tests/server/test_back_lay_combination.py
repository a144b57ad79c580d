"""placeOrders refuses a call holding a back and a lay on one runner at overlapping prices, which would match
each other, with API-NG's ``INVALID_BACK_LAY_COMBINATION``; the call is atomic, so nothing of it is placed.

The in-process server of ``conftest.py`` (game ``holdem.0`` open in its Deal window). A lay at 4.0 would match a
back at 3.0 or 4.0 (a resting back at q is taken by a lay at any price from q up); a lay at 2.5 would not.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import PlaceOrders

from tests.server.helpers import login, rpc

MARKET = "holdem.0"


def _limit(selection: int, side: str, price: float) -> dict[str, Any]:
    return {"selectionId": selection, "side": side, "orderType": "LIMIT",
            "limitOrder": {"size": 2, "price": price, "persistenceType": "LAPSE"}}


async def test_a_back_and_a_lay_that_would_match_each_other_refuse_the_call(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    for back, lay in ((3.0, 4.0), (4.0, 4.0)):
        instructions = [_limit(2, "BACK", back), _limit(1, "BACK", 5.0), _limit(2, "LAY", lay)]
        answer = await rpc(client, alice, "placeOrders", {"marketId": MARKET, "instructions": instructions})
        report = PlaceOrders(**answer["result"])  # as betfairlightweight reads it
        assert (report.status, report.error_code) == ("FAILURE", "BET_ACTION_ERROR")
        assert [r.error_code for r in report.place_instruction_reports] == [
            "RELATED_ACTION_FAILED", "RELATED_ACTION_FAILED", "INVALID_BACK_LAY_COMBINATION"], (back, lay)
    assert (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"] == []  # none placed

    apart = [_limit(2, "BACK", 3.0), _limit(2, "LAY", 2.5), _limit(3, "LAY", 4.0)]  # no two can match
    answer = await rpc(client, alice, "placeOrders", {"marketId": MARKET, "instructions": apart})
    assert answer["result"]["status"] == "SUCCESS"
