"""Fair prices and the house's quote ladder, as pure functions of an equity.

A hand's *fair odds* are ``1 / equity`` where the equity counts a dead heat
among n hands as 1/n of a win — exactly what the dead-heat rule pays, so a
back at the fair odds has zero expected value. The house market maker quotes
on the exchange ladder on the side of the fair price that pays *it*:

* it offers "available to back" by resting **lay** orders at ticks at or below
  ``fair / (1 + margin_percent)`` rounded down to the ladder, minus
  ``margin_ticks`` (a layer gains from shorter odds);
* it offers "available to lay" by resting **back** orders at ticks at or above
  ``fair × (1 + margin_percent)`` rounded up, plus ``margin_ticks`` (a backer
  gains from longer odds);

so that, in ticks, best available to back ≤ fair ≤ best available to lay, as
on any Betfair ladder (back 3.95 | lay 4.1 around a fair 4.0). The other way
round the book would be crossed: an incoming back at p matches every resting
lay at q ≥ p, so the maker's own back would match its own lay.

Ticks are indexes into an ascending tuple of ladder prices, exact as
``Fraction``; no float is involved anywhere.

>>> ladder = tuple(Fraction(p) for p in ("3.8", "3.85", "3.9", "3.95", "4", "4.1", "4.2", "4.3"))
>>> fair_odds(Fraction(1, 4))
Fraction(4, 1)
>>> q = quote_ticks(ladder, Fraction(1, 4), QuoteSpec(margin_ticks=1, levels=2))
>>> [float(ladder[t]) for t in q.lay_ticks], [float(ladder[t]) for t in q.back_ticks]
([3.95, 3.9], [4.1, 4.2])
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction


def fair_odds(equity: Fraction) -> Fraction | None:
    """``1 / equity``, or ``None`` for a hand that cannot win or tie (no fair price)."""
    if not 0 <= equity <= 1:
        raise ValueError(f"an equity is a probability in [0, 1], not {equity}")
    return None if equity == 0 else 1 / equity


def tick_at_or_above(prices: Sequence[Fraction], value: Fraction) -> int | None:
    """The lowest tick whose price is ≥ ``value``; ``None`` if ``value`` is above the ladder."""
    index = bisect.bisect_left(prices, value)
    return index if index < len(prices) else None


def tick_at_or_below(prices: Sequence[Fraction], value: Fraction) -> int | None:
    """The highest tick whose price is ≤ ``value``; ``None`` if ``value`` is below the ladder."""
    index = bisect.bisect_right(prices, value) - 1
    return index if index >= 0 else None


@dataclass(frozen=True, slots=True)
class QuoteSpec:
    """How far from fair and how deep the house quotes. Sizes in minor units (backer's stake)."""

    margin_ticks: int = 1
    margin_percent: Fraction = Fraction(0)
    levels: int = 3
    size: int = 10_000
    level_step_ticks: int = 1

    def __post_init__(self) -> None:
        if self.margin_ticks < 0 or self.margin_percent < 0:
            raise ValueError(f"margins cannot be negative ({self.margin_ticks} ticks, {self.margin_percent})")
        if self.levels < 1 or self.size <= 0 or self.level_step_ticks < 1:
            raise ValueError(
                f"need at least one level of positive size, step ≥ 1 (got levels={self.levels}, "
                f"size={self.size}, step={self.level_step_ticks})"
            )


@dataclass(frozen=True, slots=True)
class QuoteTicks:
    """Ticks to quote, best first: ``lay_ticks`` descending (available to back), ``back_ticks`` ascending.

    Every lay tick is below every back tick (the maker never crosses itself).
    """

    lay_ticks: tuple[int, ...]
    back_ticks: tuple[int, ...]


NO_QUOTE = QuoteTicks((), ())


#: How many standard errors a sampled equity's quotes stand off: the house is then mispriced by more
#: than its margin only on a two-sigma-plus sampling error.
STDERR_WIDTH = 2


def quote_ticks(
    prices: Sequence[Fraction], equity: Fraction, spec: QuoteSpec, stderr: Fraction | None = None
) -> QuoteTicks:
    """Where to rest the maker's lays and backs for a hand of ``equity``.

    A side is left empty where the ladder ends (fair odds below the bottom
    tick: no lay; above the top tick: no back). A hand at an exact equity of 0 or 1
    is not quoted at all (its outcome is known). An equity sampled with standard
    error ``stderr`` is quoted as if it could be :data:`STDERR_WIDTH` errors either
    side: lays from the higher equity's odds, backs from the lower's (none if
    that reaches 0), a sampled 0 or 1 too (the sample is not the cards).

    >>> ladder = tuple(Fraction(p) for p in ("3", "3.5", "4", "4.5", "5"))
    >>> quote_ticks(ladder, Fraction(1, 4), QuoteSpec(margin_ticks=0, levels=1), Fraction(1, 40))
    QuoteTicks(lay_ticks=(0,), back_ticks=(4,))
    """
    if stderr is None and (equity == 0 or equity == 1):
        return NO_QUOTE
    spread = STDERR_WIDTH * (stderr or 0)
    widen = 1 + spec.margin_percent
    lay_odds = 1 / min(equity + spread, Fraction(1))
    back_equity = equity - spread
    lay_top = tick_at_or_below(prices, lay_odds / widen)
    back_bottom = tick_at_or_above(prices, widen / back_equity) if back_equity > 0 else None
    if back_equity <= 0 and lay_top is not None:
        lay_top -= spec.margin_ticks
        return QuoteTicks(_levels(lay_top, -spec.level_step_ticks, spec.levels, len(prices)), ())
    if lay_top is not None:
        lay_top -= spec.margin_ticks
    if back_bottom is not None:
        back_bottom += spec.margin_ticks
        if lay_top is not None and back_bottom <= lay_top:
            back_bottom = lay_top + 1
    lay = _levels(lay_top, -spec.level_step_ticks, spec.levels, len(prices))
    back = _levels(back_bottom, +spec.level_step_ticks, spec.levels, len(prices))
    return QuoteTicks(lay, back)


def _levels(start: int | None, step: int, count: int, size: int) -> tuple[int, ...]:
    if start is None:
        return ()
    return tuple(t for t in (start + i * step for i in range(count)) if 0 <= t < size)
