"""What a game asks of its market: the narrow port between cards-and-time and money.

The game never touches books or accounts. It tells its :class:`MarketPort`
to open a window, suspend, lapse unmatched orders, settle hands that cannot
win, settle the result or void, and republishes whatever events come back.
:class:`~exchange.game.market.ExchangeMarket` implements the port on the
exchange core; a test may implement it with a recorder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from exchange.game.rounds import Round


class MarketPort(Protocol):
    """One game's market. Every method takes the clock time and returns the core's events, in order."""

    market_id: str

    def create(self, at_ms: int) -> Sequence[object]:
        """Create the market (suspended, round 0) when the game starts."""
        ...

    def open_window(self, round: Round, at_ms: int) -> Sequence[object]:
        """Make the market ACTIVE for ``round``'s betting window."""
        ...

    def suspend(self, at_ms: int) -> Sequence[object]:
        """Close the window: SUSPENDED, no order accepted."""
        ...

    def lapse(self, at_ms: int) -> Sequence[object]:
        """Lapse every unmatched remainder (persistence LAPSE)."""
        ...

    def settle_losers(self, hands: Sequence[int], at_ms: int) -> Sequence[object]:
        """Settle these hands LOSER at once (they cannot win or tie on any remaining board)."""
        ...

    def settle(self, winners: Sequence[int], at_ms: int) -> Sequence[object]:
        """Settle the market: ``winners`` won (more than one: a dead heat); commission charged."""
        ...

    def void(self, reason: str, at_ms: int) -> Sequence[object]:
        """Void the market: unmatched cancelled, unsettled matched bets refunded."""
        ...

    def hold(self, at_ms: int) -> Sequence[object]:
        """Suspend the market inside the current window (an operator's suspend, a card exposed): SUSPENDED, its
        unmatched remainders lapsed as suspended, not as the window's close; the window runs on."""
        ...

    def resume(self, at_ms: int) -> Sequence[object]:
        """Reopen the market held inside the current window (an operator's resume), in the same round."""
        ...

    def match_mark(self) -> int:
        """Where the market's matches stand now: :meth:`void_matched_since` given it voids only those made after."""
        ...

    def void_matched_since(self, since_ms: int, mark: int, reason: str, at_ms: int) -> Sequence[object]:
        """Void every match made since ``mark`` (taken at ``since_ms``) on hands not settled (a card was seen before
        its time)."""
        ...
