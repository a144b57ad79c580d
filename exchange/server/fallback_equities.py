"""Equities for when the engine has none: prospects that decide only at the river.

The server's channels price each reveal with the engine's exact equities; an
engine built without them (``engine.equity`` missing) would leave the games
unable to settle early or be quoted. :func:`default_equities` picks the
fallback then, and tests that do not need early settlement pass
:func:`river_only_equities` to keep their games cheap.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from fractions import Fraction

from engine.cards import Card
from engine.showdown import showdown
from exchange.game.prospects import Prospects
from exchange.game.table import EquityFn

log = logging.getLogger(__name__)


def river_only_equities(
    variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card], *, dead: Sequence[Card] = ()
) -> Prospects:
    """Prospects that decide only at the river: exact there (one board), "nothing known" before.

    ``dead`` (cards out of play) changes neither: the showdown has every card, and
    before it nothing is counted.

    A stopgap for when the engine has no exact equity function (``engine.equity``):
    before the river it returns equal equities with ``boards == 0``, which
    settles nothing early and leaves the house quoting every hand at fair odds
    of ``n``; at the river it is the showdown. Money is therefore always right;
    only the early-settlement feature and the house's prices are lost.
    """
    if len(board) < 5 or variant not in ("holdem", "omaha"):
        return Prospects.uniform(len(hands))
    winners = showdown(variant, list(hands), list(board)).high.winners
    n = len(hands)
    wins = [1 if i in winners and len(winners) == 1 else 0 for i in range(n)]
    ties = [1 if i in winners and len(winners) > 1 else 0 for i in range(n)]
    shares = [Fraction(1, len(winners)) if i in winners else Fraction(0) for i in range(n)]
    return Prospects.from_counts(1, wins, ties, shares)


def default_equities() -> EquityFn | None:
    """None (the game's exact equities) when the engine has them, else :func:`river_only_equities`."""
    import engine

    if hasattr(engine, "equity"):
        return None
    log.warning("engine.equity is missing: using river-only prospects (no early settlement, flat house quotes)")
    return river_only_equities
