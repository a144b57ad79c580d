"""A slow, obviously-correct Hold'em equity by enumeration (eval7 evaluator), for tests only.

Exact from the flop on (at most 2 cards to come: ≤ 1,081 boards). Before the
flop it returns the symmetric 1/n prospects, which is enough for tests that
do not look at pre-flop prices.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import eval7

from engine.cards import Card, deck52
from exchange.game.prospects import Prospects


def reference_equities(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Prospects:
    assert variant == "holdem", variant
    n = len(hands)
    if len(board) < 3:
        return Prospects.from_counts(n, (1,) * n, (0,) * n, (1,) * n)
    seen = {c for h in hands for c in h} | set(board)
    unseen = [c for c in deck52() if c not in seen]
    e7 = {c: eval7.Card(str(c)) for c in deck52()}
    wins, ties, shares = [0] * n, [0] * n, [Fraction(0)] * n
    total = 0
    for rest in itertools.combinations(unseen, 5 - len(board)):
        full = [e7[c] for c in (*board, *rest)]
        values = [eval7.evaluate([e7[c] for c in h] + full) for h in hands]
        best = max(values)
        top = [i for i, v in enumerate(values) if v == best]
        total += 1
        for i in top:
            if len(top) == 1:
                wins[i] += 1
            else:
                ties[i] += 1
            shares[i] += Fraction(1, len(top))
    return Prospects.from_counts(total, wins, ties, shares)
