"""Example strategy: stake a fixed fraction of the bankroll, and stop at a drawdown limit.

A strategy that lives from game to game (run it in sessions). At the start of
each game it reads its bankroll — the balance the exchange holds for it — and
sets the game's stake to ``fraction`` of it, in whole pennies. In the Pre-flop
window it backs the favourite (the live hand of highest exact equity, the
lower hand number on a tie) at the best price available, once. It remembers
the highest balance it has had after any game; when a game leaves it more than
``max_drawdown`` below that peak it stops: it ends its session (the rest of
the session's games are not dealt) or, with ``"end_session": false``, sits
them out while the house plays on. A stake under the channel's minimum stake
is not sent.

Backing the favourite at the house's price is not a winning system (it pays
the spread and the commission); the point is the bankroll path: final
bankrolls, drawdowns and the risk of ruin across sessions. Run it::

    exchange-poker backtest --strategy scripts/fixed_fraction.py:FixedFraction \\
        --params '{"fraction": 0.05, "max_drawdown": 0.5}' --sessions 100 --games-per-session 50 \\
        --balance 100 --seed 1 --workers 2 --out out/fraction
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from exchange.backtest.strategy import GameEnd, GameStart, MarketHandle, Strategy
from exchange.core import ladder
from exchange.core.money import format_minor
from exchange.core.side import Side
from exchange.game.rounds import Round


class FixedFraction(Strategy):
    """Back the pre-flop favourite for ``fraction`` of the bankroll; stop ``max_drawdown`` below the peak."""

    def __init__(
        self,
        *,
        fraction: float | str = "0.02",
        max_drawdown: float | str = "0.3",
        end_session: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.fraction = Fraction(str(fraction))
        self.max_drawdown = Fraction(str(max_drawdown))
        if not 0 < self.fraction <= 1:
            raise ValueError(f"fraction must be more than 0 and at most 1, not {fraction}")
        if not 0 < self.max_drawdown <= 1:
            raise ValueError(f"max_drawdown must be more than 0 and at most 1, not {max_drawdown}")
        if not isinstance(end_session, bool):  # 0 or "no" would read as a flag, and "no" as true
            raise ValueError(f"end_session must be true or false, not {end_session!r}")
        self.stop_ends_session = end_session
        #: The highest balance after any game (or at the start): the drawdown is measured from it.
        self.peak: int | None = None
        self.stopped = False
        #: This game's stake (minor units) and whether it has been sent.
        self.stake = 0
        self._placed = False

    def stake_for(self, balance: int) -> int:
        """``fraction`` of ``balance``, rounded down to whole minor units."""
        return math.floor(self.fraction * balance)

    def on_game_start(self, game: GameStart) -> None:
        bankroll = game.bankroll
        if self.peak is None:
            self.peak = bankroll.balance
        self.stake = self.stake_for(bankroll.balance)
        self._placed = False

    def process_market_book(self, market: MarketHandle) -> None:
        view = market.view
        if self.stopped or self._placed or view.round is not Round.PREFLOP:
            return
        if self.stake < view.min_stake:
            self._placed = True
            return
        live = [h for h in view.live_hands if h.best_to_back is not None]
        if not live:
            return
        favourite = max(live, key=lambda h: (h.equity, -h.hand))
        assert favourite.best_to_back is not None
        market.place_order(favourite.hand, Side.BACK, ladder.price(favourite.best_to_back), self.stake)
        self._placed = True

    def on_game_end(self, game: GameEnd) -> None:
        balance = game.bankroll.balance
        peak = max(self.peak or 0, balance)
        self.peak = peak
        if not self.stopped and balance < peak * (1 - self.max_drawdown):
            self.stopped = True
            if self.stop_ends_session:
                self.end_session(f"drawdown limit: the balance {format_minor(balance)} is more than "
                                 f"{self.max_drawdown} below its peak {format_minor(peak)}")
