"""A test strategy for the replay: one back on hand 1 at the Pre-flop window's open, big enough to take the house's
lays at several prices, so its average matched price has more decimals than API-NG's four."""

from __future__ import annotations

from typing import Any

from exchange.backtest.strategy import MarketHandle, Strategy
from exchange.core.side import Side
from exchange.game.rounds import Round


class SweepingBacker(Strategy):
    def __init__(self, *, size: int = 33_300, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = size

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, "1.01", self.size)
