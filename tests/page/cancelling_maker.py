"""A test strategy for the replay: quotes every market of a game, and rests a long shot it cancels later.

At each window's open it lays every live hand of every market (High and Low
alike) a tick under its fair odds, so the house's takers fill it, and backs
hand 1 at 1000, which nobody takes; from ``cancel_after_ms`` later the first
look at the market cancels that back. So every window of the replay shows a
fill and a cancel at its own time.
"""

from __future__ import annotations

from typing import Any

from exchange.backtest.strategy import MarketHandle, Strategy
from exchange.core import ladder
from exchange.core.orders import OrderStatus
from exchange.core.side import Side
from exchange.game.rounds import Round

LONG_SHOT = 1000


class CancellingMaker(Strategy):
    def __init__(self, *, cancel_after_ms: int = 5_000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cancel_after_ms = cancel_after_ms

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.DEAL:
            return
        for hand in market.view.live_hands:
            below = None if hand.fair_odds is None else ladder.tick_at_or_below(hand.fair_odds)
            if below is not None and below - 1 >= ladder.MIN_TICK:
                market.place_order(hand.hand, Side.LAY, ladder.price(below - 1), 300)
        market.place_order(1, Side.BACK, LONG_SHOT, 200)

    def process_market_book(self, market: MarketHandle) -> None:
        for order in market.orders:
            late = market.now_ms >= order.placed_ts + self.cancel_after_ms
            if order.status is OrderStatus.EXECUTABLE and order.price == LONG_SHOT and late:
                market.cancel_order(order.bet_id)
