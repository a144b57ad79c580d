"""Example strategy: make a two-sided market around the fair price in every window.

At each window's open it rests, for every live hand, a **lay** at or below the
fair odds (what other traders see as *available to back*) and a **back** at or
above them (*available to lay*): the fair price rounded to the ladder in its
own favour, then ``edge_ticks`` further out. Whichever side is taken, the
expected value is ours. With ``edge_ticks=0`` it quotes inside the house's
spread (the house stays a tick outside fair), so takers meet it first. Fair
odds exactly on a tick would put both quotes at that price, where they would
match each other (volume with no one else, counted on both sides): the back
then goes a tick higher. The window's close lapses what is left; the next
window requotes from the new equities.

Run it::

    exchange-poker backtest --strategy scripts/market_maker.py:MarketMaker \\
        --params '{"edge_ticks": 0, "stake": 300}' --games 200 --seed 1 --out out/maker
"""

from __future__ import annotations

from typing import Any

from exchange.backtest.strategy import MarketHandle, Strategy
from exchange.core import ladder
from exchange.core.side import Side
from exchange.game.rounds import Round


class MarketMaker(Strategy):
    """Quote both sides of every live hand ``edge_ticks`` outside its fair odds, ``stake`` each side."""

    def __init__(self, *, edge_ticks: int = 0, stake: int = 300, skip_deal: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if type(edge_ticks) is not int or edge_ticks < 0:
            raise ValueError(f"edge_ticks must be a whole number of ticks, 0 or more, not {edge_ticks!r}")
        if type(stake) is not int or stake <= 0:
            raise ValueError(f"stake must be a whole number of pennies (minor units) above 0, not {stake!r}")
        if not isinstance(skip_deal, bool):  # "false" is text, and true to Python
            raise ValueError(f"skip_deal must be true or false, not {skip_deal!r}")
        self.edge_ticks = edge_ticks
        self.stake = stake
        self.skip_deal = skip_deal

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if self.skip_deal and round is Round.DEAL:
            return
        for hand in market.view.live_hands:
            if hand.fair_odds is None:
                continue
            below = ladder.tick_at_or_below(hand.fair_odds)
            above = ladder.tick_at_or_above(hand.fair_odds)
            if above is not None and above == below:  # both quotes at one price would match each other
                above += 1
            if below is not None and below - self.edge_ticks >= ladder.MIN_TICK:
                market.place_order(hand.hand, Side.LAY, ladder.price(below - self.edge_ticks), self.stake)
            if above is not None and above + self.edge_ticks <= ladder.MAX_TICK:
                market.place_order(hand.hand, Side.BACK, ladder.price(above + self.edge_ticks), self.stake)
