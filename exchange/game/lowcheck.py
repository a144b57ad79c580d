"""What the cards already prove about a hi/lo game's Low market, without counting deals.

Where the equity is a Monte Carlo estimate, its counts settle nothing: a hand
that never won in the sample might still win. But some outcomes follow from the
cards alone, and ``channels.md`` settles them at once:

* a hand **cannot make a qualifying low** (five different ranks, ace to eight)
  when its different low ranks plus the cards still to come are fewer than five
  (7-Card Stud Hi/Lo), or when fewer than two of its hole cards are of different
  low ranks, or the board can no longer show three different low ranks (Omaha Hi/Lo);
* a 7-Card Stud Hi/Lo hand **can no longer be best low** when another hand holds a
  made low better than the best this hand could reach, even if each card to come
  brought it the lowest rank it lacks (the other hand's low can only get better);
* **"No low" has lost** once some hand holds a made low.

A low is compared as its five ranks from the highest down (the ace is 1): the
lower tuple is the better low, and the best low of some different ranks is their
lowest five.

>>> from engine.cards import parse_cards
>>> hands = [parse_cards("As 2d 3c 4h 5s"), parse_cards("Kd Qd Jd"), parse_cards("9c 9d Tc Ts")]
>>> low_losers("stud7-hilo", hands, ())
((2, 3), True)
>>> hands = [parse_cards("As 2d 4h 5c 7s"), parse_cards("8c 7d 6h Qs Jd"), parse_cards("2h 3d 6c Jc Js")]
>>> low_losers("stud7-hilo", hands, ())   # 8-7-6-2-A at best loses to 7-5-4-2-A; 6-4-3-2-A would not
((2,), True)
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


def best_low(ranks: set[int]) -> tuple[int, ...] | None:
    """The best low of these different low ranks, highest rank first (lower is better); None below five ranks.

    >>> best_low({1, 2, 3, 5, 7, 8}), best_low({2, 3})
    ((7, 5, 3, 2, 1), None)
    """
    return tuple(sorted(ranks)[:5][::-1]) if len(ranks) >= 5 else None


def best_reachable_low(ranks: set[int], to_come: int) -> tuple[int, ...] | None:
    """The best low a hand holding these low ranks could reach if each of ``to_come`` cards brought the lowest
    rank it lacks (no low can do better); None if even then it has fewer than five ranks.

    >>> best_reachable_low({2, 6, 7}, 2), best_reachable_low({8, 7}, 2)
    ((7, 6, 3, 2, 1), None)
    """
    lacking = sorted(set(range(1, LOW_LIMIT + 1)) - ranks)[:to_come]
    return best_low(ranks | set(lacking))


def low_losers(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> tuple[tuple[int, ...], bool]:
    """``(hands that cannot make a qualifying low, or in stud can no longer be best low, whether some hand holds a
    made low)``; hands numbered from 1."""
    if variant == "stud7-hilo":
        made = [low for h in hands if (low := best_low(low_ranks(h))) is not None]
        best_made = min(made, default=None)
        losers = tuple(i for i, h in enumerate(hands, start=1)
                       if (reach := best_reachable_low(low_ranks(h), STUD_CARDS - len(h))) is None
                       or (best_made is not None and reach > best_made))
        return losers, bool(made)
    if variant == "omaha-hilo":
        board_short = len(low_ranks(board)) + BOARD_CARDS - len(board) < 3
        losers = tuple(i for i, h in enumerate(hands, start=1) if board_short or len(low_ranks(h)) < 2)
        return losers, False
    return (), False
