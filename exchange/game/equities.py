"""Exact prospects from the engine: :func:`exact_equities` for the cards face up.

The game calls it at every reveal with the hole cards (all face up from the
Pre-flop window on) and the board turned so far; the engine enumerates every
remaining board exactly. Burn cards are *not* passed as dead: no bettor has
seen them, so the fair price a bettor can compute counts them among the
unseen cards, and so must the house.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.equity import EquityResult
from engine.equity import equity as engine_equity
from exchange.game.prospects import Prospects


def exact_equities(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Prospects:
    """Every hand's exact win/tie counts and dead-heat equity over all remaining boards.

    >>> from engine.cards import parse_cards
    >>> p = exact_equities("holdem", [parse_cards("AsKs"), parse_cards("QdQc")], parse_cards("Ah7c2sTd"))
    >>> p.boards, [h.win for h in p.hands], p.equity(2)
    (44, [42, 2], Fraction(1, 22))
    """
    result = engine_equity(variant, [tuple(h) for h in hands], tuple(board))
    return prospects_of(result)


def prospects_of(result: EquityResult) -> Prospects:
    """Read an exact :class:`engine.EquityResult` into :class:`Prospects` (integer counts, Fraction equities)."""
    if not result.exact:
        raise ValueError("the game publishes exact equities only; got a Monte Carlo estimate")
    return Prospects.from_counts(
        result.boards,
        [h.wins for h in result.results],
        [h.ties for h in result.results],
        [h.share for h in result.results],
    )
