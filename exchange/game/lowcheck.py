"""What the cards already prove about a hi/lo game's Low market, without counting deals.

Where the equity is a Monte Carlo estimate, its counts settle nothing: a hand
that never won in the sample might still win. But some outcomes follow from the
cards alone, and ``channels.md`` settles them at once:

* a hand **cannot make a qualifying low** (five different ranks, ace to eight)
  when its different low ranks plus the cards still to come are fewer than five
  (7-Card Stud Hi/Lo), or when fewer than two of its hole cards are of different
  low ranks, or the board can no longer show three different low ranks (Omaha Hi/Lo);
* **"No low" has lost** once some hand holds a made low.

>>> from engine.cards import parse_cards
>>> hands = [parse_cards("As 2d 3c 4h 5s"), parse_cards("Kd Qd Jd"), parse_cards("9c 9d Tc Ts")]
>>> low_losers("stud7-hilo", hands, ())
((2, 3), True)
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card

LOW_LIMIT = 8
STUD_CARDS = 7
BOARD_CARDS = 5


def low_ranks(cards: Sequence[Card]) -> set[int]:
    """The different ranks of ``cards`` that count in an eight-or-better low (the ace as 1)."""
    return {1 if c.rank == 14 else int(c.rank) for c in cards if c.rank == 14 or c.rank <= LOW_LIMIT}


def low_losers(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> tuple[tuple[int, ...], bool]:
    """``(hands that cannot make a qualifying low, whether some hand holds a made low)``; hands numbered from 1."""
    if variant == "stud7-hilo":
        losers = tuple(i for i, h in enumerate(hands, start=1) if len(low_ranks(h)) + STUD_CARDS - len(h) < 5)
        made = any(len(low_ranks(h)) >= 5 for h in hands)
        return losers, made
    if variant == "omaha-hilo":
        board_short = len(low_ranks(board)) + BOARD_CARDS - len(board) < 3
        losers = tuple(i for i, h in enumerate(hands, start=1) if board_short or len(low_ranks(h)) < 2)
        return losers, False
    return (), False
