"""listMarketProfitAndLoss's ``ifWin`` is what settlement pays if that selection wins: to the penny, half-way
cases included.

Settlement rounds each account's exact P&L on a market once, an exact half penny down
(:mod:`exchange.core.settlement`). A lay of 2.50 at 1.01 loses 2.5 pennies if its hand wins, so an account
laying that on all four hands nets +747.5 pennies whichever hand wins alone: settled as 7.47, and ``ifWin``
must say 7.47, not 7.48. The layer's counterparty, backing, nets -747.5: -7.48 both ways.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from tests.server.helpers import PLAYING_MS, WINDOW_MS, login, place_one, rpc

MARKET = "holdem.0"


async def _if_win(client: TestClient, token: str, **flags: bool) -> dict[int, float]:
    (entry,) = (await rpc(client, token, "listMarketProfitAndLoss", {"marketIds": [MARKET], **flags}))["result"]
    return {p["selectionId"]: p["ifWin"] for p in entry["profitAndLosses"]}


async def _settled(client: TestClient, token: str) -> tuple[float, float]:
    (row,) = (await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET"})
              )["result"]["clearedOrders"]
    return row["profit"], row.get("commission", 0.0)


async def test_if_win_rounds_a_half_penny_as_settlement_does(client: TestClient, clock: VirtualClock) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    for hand in (1, 2, 3, 4):
        await place_one(client, alice, MARKET, hand, "LAY", 1.01, 2.5)
        await place_one(client, bob, MARKET, hand, "BACK", 1.01, 2.5, matched=2.5)
    layer, backer = await _if_win(client, alice), await _if_win(client, bob)
    assert layer == dict.fromkeys((1, 2, 3, 4), 7.47), layer
    assert backer == dict.fromkeys((1, 2, 3, 4), -7.48), backer
    net = await _if_win(client, alice, netOfCommission=True)
    assert net == dict.fromkeys((1, 2, 3, 4), 7.29), net  # less floor(747 × 2.5 %) = 18 pennies, as settled
    clock.advance(5 * (WINDOW_MS + PLAYING_MS))  # the four windows and the river: holdem.0 settles
    (book,) = (await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET]}))["result"]
    winners = [r["selectionId"] for r in book["runners"] if r["status"] == "WINNER"]
    assert book["status"] == "CLOSED" and len(winners) == 1, book  # one winner alone, as the rounding above needs
    assert await _settled(client, alice) == (7.47, 0.18)
    assert await _settled(client, bob) == (-7.48, 0.0)
