"""listMarketProfitAndLoss on a market with a selection settled early: settled bets count at the result they
were settled at, and ``netOfCommission`` takes off the commission settlement charges on the whole market.

The reference is settlement itself: for each selection still in play, a copy of the exchange settles the
market with that selection the winner alone, and its account result (net P&L, commission) is what ``ifWin``
must say. The settled bets' results come from ``listClearedOrders``.
"""

from __future__ import annotations

import copy
import random
from decimal import Decimal

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.core import ladder
from exchange.core.commands import CreateMarket, OpenMarket, PlaceOrder, SettleMarket, SettleSelection, SuspendMarket
from exchange.core.events import MarketSettled
from exchange.core.side import Side
from exchange.server import keys
from exchange.server.service import ExchangeService
from tests.server.helpers import login, rpc

SELECTIONS = (1, 2, 3, 4)


async def _if_win(client: TestClient, token: str, market_id: str, **flags: bool) -> dict[int, int]:
    (entry,) = (await rpc(client, token, "listMarketProfitAndLoss", {"marketIds": [market_id], **flags}))["result"]
    return {p["selectionId"]: round(p["ifWin"] * 100) for p in entry["profitAndLosses"]}


async def _settled_profit(client: TestClient, token: str, market_id: str) -> int:
    rows = (await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "marketIds": [market_id]})
            )["result"]["clearedOrders"]
    return sum(round(r["profit"] * 100) for r in rows)


def _trade(service: ExchangeService, rng: random.Random, market_id: str) -> None:
    """alice backs and lays every hand at random prices against bob (who takes the other side in full)."""
    for _ in range(8):
        selection = rng.choice(SELECTIONS)
        price = ladder.PRICES[rng.randrange(20, 200)]
        size = rng.randrange(200, 3_000)
        mine, theirs = (Side.BACK, Side.LAY) if rng.random() < 0.6 else (Side.LAY, Side.BACK)
        service.execute(PlaceOrder(service.now(), "bob", market_id, selection, theirs, price, size))
        service.execute(PlaceOrder(service.now(), "alice", market_id, selection, mine, price, size))


def _settled_alone(service: ExchangeService, market_id: str, winner: int) -> tuple[int, int]:
    """alice's (net P&L, commission) on the market if ``winner`` won alone, from a copy of the exchange."""
    exchange = copy.deepcopy(service.exchange)
    (settled,) = [e for e in exchange.execute(SettleMarket(service.now(), market_id, (winner,)))
                  if isinstance(e, MarketSettled)]
    (result,) = [a for a in settled.accounts if a.account_id == "alice"]
    return result.profit, result.commission


async def test_settled_bets_count_at_their_result_and_commission_is_on_the_whole_market(
        client: TestClient, clock: VirtualClock) -> None:
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")  # (an account is opened on the exchange at its first login)
    for seed in range(6):
        rng = random.Random(seed)
        market_id = f"pnl.{seed}"
        service.execute(CreateMarket(service.now(), market_id, SELECTIONS))
        service.execute(OpenMarket(service.now(), market_id))
        _trade(service, rng, market_id)
        assert any(o.size_matched for o in service.exchange.current_orders("alice", market_id)), seed
        service.execute(SuspendMarket(service.now(), market_id))
        loser = rng.choice(SELECTIONS)
        service.execute(SettleSelection(service.now(), market_id, loser))
        clock.advance(1)
        settled = await _settled_profit(client, alice, market_id)
        in_play = await _if_win(client, alice, market_id)
        whole = await _if_win(client, alice, market_id, includeSettledBets=True)
        net_in_play = await _if_win(client, alice, market_id, netOfCommission=True)
        net_whole = await _if_win(client, alice, market_id, includeSettledBets=True, netOfCommission=True)
        for selection in SELECTIONS:
            # a settled bet's result is fixed: it adds the same to every selection's ifWin, its own included
            assert whole[selection] - in_play[selection] == settled, (seed, selection, whole, in_play, settled)
            assert net_whole[selection] - net_in_play[selection] == settled, (seed, selection)
            if selection == loser:
                continue
            profit, commission = _settled_alone(service, market_id, selection)
            assert whole[selection] == profit, (seed, selection)
            assert net_whole[selection] == profit - commission, (seed, selection, net_whole, profit, commission)


async def test_net_of_commission_without_settled_bets_charges_the_whole_markets_commission(
        client: TestClient, clock: VirtualClock) -> None:
    """alice lost 10.00 on hand 1, settled early; her bet on hand 2 wins 16.00 if it wins: 6.00 on the market,
    on which settlement charges 0.15. Her in-play ifWin on hand 2 net of commission is 16.00 - 0.15."""
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")  # (an account is opened on the exchange at its first login)
    market_id = "pnl.x"
    service.execute(CreateMarket(service.now(), market_id, SELECTIONS))
    service.execute(OpenMarket(service.now(), market_id))
    for selection, price, size in ((1, "3", 1_000), (2, "5", 400)):
        service.execute(PlaceOrder(service.now(), "bob", market_id, selection, Side.LAY, Decimal(price), size))
        service.execute(PlaceOrder(service.now(), "alice", market_id, selection, Side.BACK, Decimal(price), size))
    service.execute(SuspendMarket(service.now(), market_id))
    service.execute(SettleSelection(service.now(), market_id, 1))
    clock.advance(1)
    assert await _if_win(client, alice, market_id) == {1: -400, 2: 1_600, 3: -400, 4: -400}
    assert await _if_win(client, alice, market_id, netOfCommission=True) == {1: -400, 2: 1_585, 3: -400, 4: -400}
    assert await _if_win(client, alice, market_id, includeSettledBets=True, netOfCommission=True) == {
        1: -1_400, 2: 585, 3: -1_400, 4: -1_400}
    assert _settled_alone(service, market_id, 2) == (600, 15)
