"""Example strategy: trade the price move from pre-flop to the flop.

In the Pre-flop window it backs the favourite (the live hand of highest
equity) at the best price available. When the Flop window opens the price
has moved: it lays the same hand at the best price available to lay, with the
stake that makes the result the same whichever hand wins — ``back stake ×
back price ÷ lay price`` — "greening up" a shortened price into a certain
profit, or capping the loss on a drifter (unless ``let_drifters_run``).

Run it::

    exchange-poker backtest --strategy scripts/flop_mover.py:FlopMover \\
        --params '{"stake": 1000}' --games 200 --seed 1 --out out/flop
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exchange.backtest.strategy import GameStart, MarketHandle, Strategy
from exchange.core import ladder
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.rounds import Round


class FlopMover(Strategy):
    """Back the pre-flop favourite, then hedge it at the flop price."""

    def __init__(self, *, stake: int = 1000, let_drifters_run: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if type(stake) is not int or stake <= 0:
            raise ValueError(f"stake must be a whole number of pennies (minor units) above 0, not {stake!r}")
        if not isinstance(let_drifters_run, bool):  # "no" is text, and true to Python
            raise ValueError(f"let_drifters_run must be true or false, not {let_drifters_run!r}")
        self.stake = stake
        self.let_drifters_run = let_drifters_run
        self._hand: int | None = None
        self._entered = False
        self._hedged = False

    def on_game_start(self, game: GameStart) -> None:
        self._hand, self._entered, self._hedged = None, False, False

    def process_market_book(self, market: MarketHandle) -> None:
        view = market.view
        if view.round is Round.PREFLOP and not self._entered:
            live = [h for h in view.live_hands if h.best_to_back is not None]
            if not live:
                return
            favourite = max(live, key=lambda h: (h.equity, -h.hand))
            assert favourite.best_to_back is not None
            market.place_order(favourite.hand, Side.BACK, ladder.price(favourite.best_to_back), self.stake)
            self._hand, self._entered = favourite.hand, True
        elif view.round is Round.FLOP and self._hand is not None and not self._hedged:
            self._hedge(market)

    def _hedge(self, market: MarketHandle) -> None:
        assert self._hand is not None
        view = market.view
        hand = view.hand(self._hand)
        backs = [o for o in view.orders if o.selection_id == self._hand and o.side is Side.BACK and o.size_matched]
        if not hand.in_play or not backs:
            self._hedged = True
            return
        if hand.best_to_lay is None:
            return  # no one is offering yet (the makers requote as the window opens): try on the next update
        stake, back_price = _matched(backs)
        lay_price = Fraction(ladder.PRICE_X100[hand.best_to_lay], 100)
        if self.let_drifters_run and lay_price > back_price:
            self._hedged = True
            return
        size = int(stake * back_price / lay_price)
        if size >= market.min_stake:  # a smaller hedge would only be refused
            market.place_order(self._hand, Side.LAY, ladder.price(hand.best_to_lay), size)
        self._hedged = True


def _matched(orders: list[OrderView]) -> tuple[int, Fraction]:
    """Total matched stake and its average price."""
    stake = sum(o.size_matched for o in orders)
    weighted = sum((o.average_price_matched or 0) * o.size_matched for o in orders)
    return stake, Fraction(weighted) / stake
