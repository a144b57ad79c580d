"""Main and side pots, and dividing a pot among its winners.

A seat's *contribution* is every chip it put in this hand (antes, blinds, bets).
The pots are layers cut at each distinct contribution of a seat still in the hand:
pot *k* holds, from every seat, what it put in between the (k-1)-th and k-th
level, and only the live seats that reached level *k* may win it. Chips of folded
seats above the highest live level go to the last pot. So the pots add up to all
contributions; a layer only one live seat reached is won by it uncontested (its uncalled bet
returned, if nobody else has chips in it).

>>> pots([10, 30, 30, 5], [True, True, True, False])
(Pot(amount=35, eligible=(0, 1, 2)), Pot(amount=40, eligible=(1, 2)))
>>> split(7, (2, 0))  # the odd chip to the winner closest to the button's left
((0, 4), (2, 3))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine._errors import InvariantError


@dataclass(frozen=True, slots=True)
class Pot:
    """``amount`` chips that the ``eligible`` seats contest: what each seat put in above
    ``floor`` and up to ``ceiling`` (``None``: no upper bound, the last pot)."""

    amount: int
    eligible: tuple[int, ...]
    floor: int = field(default=0, repr=False)
    ceiling: int | None = field(default=None, repr=False)

    def shares(self, contributed: Sequence[int]) -> list[int]:
        """What each seat has in this pot.

        >>> [p.shares([10, 30, 30, 5]) for p in pots([10, 30, 30, 5], [True, True, True, False])]
        [[10, 10, 10, 5], [0, 20, 20, 0]]
        """
        top = self.ceiling
        return [max(0, (c if top is None else min(c, top)) - self.floor) for c in contributed]


def pots(contributed: Sequence[int], live: Sequence[bool]) -> tuple[Pot, ...]:
    """The pots, main pot first, from each seat's contribution and whether it is still in."""
    levels = sorted({c for c, alive in zip(contributed, live, strict=True) if alive and c > 0})
    if not levels:
        if any(contributed):
            raise InvariantError(f"chips {list(contributed)} in the pot but no live seat put any in")
        return ()
    out: list[Pot] = []
    previous = 0
    for k, level in enumerate(levels):
        amount = sum(min(c, level) - min(c, previous) for c in contributed)
        if k == len(levels) - 1:
            amount += sum(c - level for c in contributed if c > level)
        eligible = tuple(i for i, c in enumerate(contributed) if live[i] and c >= level)
        out.append(Pot(amount, eligible, previous, None if k == len(levels) - 1 else level))
        previous = level
    return tuple(out)


def split(amount: int, winners: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """``(seat, chips)`` for each winner: equal shares, the odd chips one each to the
    winners closest to the button's left (lowest seat index first)."""
    if not winners:
        raise InvariantError(f"a pot of {amount} with no winner")
    ordered = sorted(winners)
    each, left = divmod(amount, len(ordered))
    return tuple((seat, each + (1 if place < left else 0)) for place, seat in enumerate(ordered))
