"""Prospects that decide only at the river: cheap equities for tests and benchmarks of Hold'em and Omaha.

The server's channels price each reveal with the engine's exact equities (``equities=None``: the game's own).
A test or benchmark that needs no early settlement and no house quotes passes :func:`river_only_equities`
instead, so its games cost nothing to price: every hand equal before the river, the showdown at it. Money is
always right; only early settlement and the house's prices are lost. It settles the high-only board games
(Hold'em and Omaha); any other variant is refused, loudly, at its first reveal (the game is then voided as a
technical fault), rather than left without a winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from engine.cards import Card
from engine.showdown import showdown
from exchange.game.prospects import Prospects

#: The variants whose river is a five-card board and whose pot goes to the high hand alone.
SETTLED = frozenset({"holdem", "omaha"})


def river_only_equities(
    variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card], *, dead: Sequence[Card] = ()
) -> Prospects:
    """Prospects that decide only at the river: exact there (one board), "nothing known" before.

    Before the river every hand is equal with ``boards == 0``: nothing settles early and the house quotes every
    hand at fair odds of ``n``. ``dead`` (cards out of play) changes neither: the showdown has every card, and
    before it nothing is counted. A variant not in :data:`SETTLED` raises ``ValueError``.
    """
    if variant not in SETTLED:
        raise ValueError(f"river-only prospects settle {' and '.join(sorted(SETTLED))} games only, not {variant}: "
                         "give the game its own equities (equities=None)")
    if len(board) < 5:
        return Prospects.uniform(len(hands))
    winners = showdown(variant, list(hands), list(board)).high.winners
    n = len(hands)
    wins = [1 if i in winners and len(winners) == 1 else 0 for i in range(n)]
    ties = [1 if i in winners and len(winners) > 1 else 0 for i in range(n)]
    shares = [Fraction(1, len(winners)) if i in winners else Fraction(0) for i in range(n)]
    return Prospects.from_counts(1, wins, ties, shares)
