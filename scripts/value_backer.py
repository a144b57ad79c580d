"""Example strategy: back any hand priced above its fair odds by a margin.

The fair odds of a hand are ``1 / equity`` from the exact equity the game
publishes (a dead heat counted as its share). When the best price available
to back is at least ``fair × (1 + margin)``, the bet has positive expected
value by at least ``margin``; back it, once per hand per betting window. It
only *takes* prices: whatever is not matched on arrival (someone faster took
the price first) is cancelled rather than left resting.

Run it (from the repository root)::

    exchange-poker backtest --strategy scripts/value_backer.py:ValueBacker \\
        --params '{"margin": 0.05, "stake": 500}' --games 200 --seed 1 --out out/value
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exchange.backtest.strategy import GameStart, MarketHandle, Strategy
from exchange.core import ladder
from exchange.core.orders import OrderStatus, OrderView
from exchange.core.side import Side
from exchange.game.rounds import Round


class ValueBacker(Strategy):
    """Back hands whose best back price beats fair odds by ``margin`` (a fraction: 0.05 = 5 %)."""

    def __init__(self, *, margin: float | str = "0.05", stake: int = 200, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.margin = Fraction(str(margin))
        if self.margin < 0:
            raise ValueError(f"margin must be ≥ 0, not {margin}")
        if type(stake) is not int or stake <= 0:
            raise ValueError(f"stake must be a whole number of pennies (minor units) above 0, not {stake!r}")
        self.stake = stake
        self._backed: set[tuple[Round | None, int]] = set()

    def on_game_start(self, game: GameStart) -> None:
        self._backed.clear()

    def process_market_book(self, market: MarketHandle) -> None:
        view = market.view
        for hand in view.live_hands:
            key = (view.round, hand.hand)
            if key in self._backed or hand.fair_odds is None or hand.best_to_back is None:
                continue
            offered = Fraction(ladder.PRICE_X100[hand.best_to_back], 100)
            if offered >= hand.fair_odds * (1 + self.margin):
                market.place_order(hand.hand, Side.BACK, ladder.price(hand.best_to_back), self.stake)
                self._backed.add(key)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        for order in orders:
            if order.status is OrderStatus.EXECUTABLE:
                market.cancel_order(order.bet_id)
