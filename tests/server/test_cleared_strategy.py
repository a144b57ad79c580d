"""listClearedOrders ``groupBy: STRATEGY``: one row per ``customerStrategyRef``, as Betfair documents the rollup.

Betfair's ``GroupBy`` has ``STRATEGY``, "a roll up of settled P&L and the number of bet orders, on a specified
strategy across the Betfair Exchange". Two markets are played out here with alice's bets under two strategies
and one without; every profit is worked out from the prices and stakes (alice backs, bob lays, at 3.0).
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import betfairlightweight
from aiohttp.test_utils import TestClient

from exchange.core.commands import CreateMarket, OpenMarket, PlaceOrder, SettleMarket
from exchange.core.side import Side
from exchange.server import keys
from tests.server.helpers import APP_KEY, login


def _market(client: TestClient, market_id: str, winner: int, bets: list[tuple[int, int, str | None]]) -> None:
    """``market_id`` opens, each ``(selection, stake in pence, strategy)`` is a back of alice's at 3.0 matched by a
    lay of bob's, and it settles with ``winner``."""
    service = client.app[keys.SERVICE]
    service.execute(CreateMarket(service.now(), market_id, (1, 2, 3, 4)))
    service.execute(OpenMarket(service.now(), market_id))
    for selection, stake, strategy in bets:
        service.execute(PlaceOrder(service.now(), "bob", market_id, selection, Side.LAY, Decimal("3.0"), stake))
        service.execute(PlaceOrder(service.now(), "alice", market_id, selection, Side.BACK, Decimal("3.0"), stake,
                                   strategy_ref=strategy))
    service.execute(SettleMarket(service.now(), market_id, (winner,)))


async def test_a_strategy_rollup_sums_each_strategys_bets_across_markets(client: TestClient) -> None:
    await login(client, "bob", "pw-bob")  # the exchange learns of an account at its first login
    await login(client, "alice", "pw-alice")
    # m.1: s1 wins 2 x 4.00 = 8.00 on hand 1 and loses 2.00 on hand 2; s2 loses 3.00 on hand 3; none loses 5.00
    _market(client, "m.1", 1, [(1, 400, "s1"), (2, 200, "s1"), (3, 300, "s2"), (4, 500, None)])
    # m.2: s1 loses 6.00 on hand 2; s2 wins 2 x 2.50 = 5.00 on hand 4
    _market(client, "m.2", 4, [(2, 600, "s1"), (4, 250, "s2")])
    bflw = betfairlightweight.APIClient("alice", "pw-alice", app_key=APP_KEY, lightweight=False)
    base = str(client.make_url("")).rstrip("/")
    bflw.identity_uri, bflw.api_uri = f"{base}/api/", f"{base}/exchange/"
    await asyncio.to_thread(bflw.login_interactive)
    cleared = await asyncio.to_thread(bflw.betting.list_cleared_orders, bet_status="SETTLED", group_by="STRATEGY")
    rows = {row.customer_strategy_ref: (row.bet_count, row.profit) for row in cleared.orders}
    assert rows == {"s1": (3, 8.0 - 2.0 - 6.0), "s2": (2, -3.0 + 5.0), None: (1, -5.0)}
    only = await asyncio.to_thread(bflw.betting.list_cleared_orders, bet_status="SETTLED", group_by="STRATEGY",
                                   customer_strategy_refs=["s2"])
    assert [(row.customer_strategy_ref, row.bet_count, row.market_id) for row in only.orders] == [("s2", 2, None)]
