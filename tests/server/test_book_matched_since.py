"""listMarketBook's ``matchedSince``, as API-NG documents it: the orders with a fill since that date, and every
order still EXECUTABLE whatever its matched date.

The in-process server of ``conftest.py`` (game ``holdem.0`` open in its Deal window, the clock still until a test
moves it): alice's bets fill against bob's lay before and after the cut, one rests unmatched, one fills in part.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import MarketBook

from exchange.clock import VirtualClock
from tests.server.helpers import START_MS, login, place_one, rpc

MARKET = "holdem.0"
CUT = "2023-11-14T22:13:21.000Z"  # START_MS + 1 s


async def test_matched_since_keeps_executable_orders_and_those_filled_since(client: TestClient,
                                                                          clock: VirtualClock) -> None:
    assert START_MS == 1_700_000_000_000
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    await place_one(client, bob, MARKET, 1, "LAY", 3.0, 5)
    early = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2, matched=2.0))["betId"]
    part = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 4, matched=3.0))["betId"]  # 1.00 rests
    resting = (await place_one(client, alice, MARKET, 2, "BACK", 5.0, 2, matched=0.0))["betId"]
    clock.advance(2_000)
    await place_one(client, bob, MARKET, 3, "LAY", 4.0, 2)
    late = (await place_one(client, alice, MARKET, 3, "BACK", 4.0, 2, matched=2.0))["betId"]

    answer = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET], "orderProjection": "ALL",
                                                         "matchedSince": CUT})
    (book,) = answer["result"]
    shown = {o["betId"] for r in book["runners"] for o in r.get("orders", [])}
    assert shown == {part, resting, late}  # not early: complete, and filled before the cut
    (parsed,) = [MarketBook(**book)]  # as betfairlightweight reads it
    assert sorted(o.bet_id for r in parsed.runners for o in r.orders) == sorted([part, resting, late])
    assert early not in shown
