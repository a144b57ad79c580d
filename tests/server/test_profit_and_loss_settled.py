"""listMarketProfitAndLoss on a market with a selection settled early: settled bets count at the result they
were settled at.

The reference is settlement itself: for each selection still in play, a copy of the exchange settles the
market with that selection the winner alone, and its account result (net P&L, commission) is what ``ifWin``
must say. The settled bets' results come from ``listClearedOrders``.
"""

from __future__ import annotations

import copy
import random

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


async def test_settled_bets_count_at_their_result(
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
        for selection in SELECTIONS:
            # a settled bet's result is fixed: it adds the same to every selection's ifWin, its own included
            assert whole[selection] - in_play[selection] == settled, (seed, selection, whole, in_play, settled)
            if selection == loser:
                continue
            profit, _ = _settled_alone(service, market_id, selection)
            assert whole[selection] == profit, (seed, selection)
