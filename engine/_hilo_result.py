"""Equity results of hi/lo games: each half's wins, ties and shares beside the pot's.

Their own module, as :mod:`engine._equity_result` is for the high-only results: the
kernels of :mod:`engine._variant_kernels` fill them, and they are values anyone may read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine._equity_result import EquityResult, HandEquity
from engine._errors import InvariantError

SHARE_UNIT = 1680  # pot shares are counted in 1/1680ths: 1/k and 1/(2k) are whole units for k <= 8


@dataclass(frozen=True, slots=True)
class HiLoHandEquity(HandEquity):
    """One hand's result in a hi/lo game.

    ``win``/``wins``: deals where it takes the whole pot alone (scoops); ``tie``/``ties``:
    deals where it gets part of the pot; ``equity``: its expected share of the pot.
    ``splits`` is all zeros here (pot shares are not 1/k); ``share_units`` is the pot
    won, in 1/1680ths, so :attr:`share` and :attr:`exact_equity` stay exact.
    ``high_win``/``high_tie`` and ``low_win``/``low_tie``: each half won alone or
    shared; ``high_share``/``low_share``: the expected share of each half (the low half
    counts only in deals where some hand qualifies).
    """

    share_units: int
    high_win: float
    high_tie: float
    high_share: float
    low_win: float
    low_tie: float
    low_share: float
    #: The same as integer counts: deals won alone / shared, and the half won in 1/1680ths of a half.
    high_wins: int = 0
    high_ties: int = 0
    high_units: int = 0
    low_wins: int = 0
    low_ties: int = 0
    low_units: int = 0
    #: A Monte Carlo's standard errors of ``high_share`` and ``low_share`` (None where counted exactly): the
    #: bound ``sqrt(p (1 - p) / n)`` of a mean of per-deal shares between 0 and 1.
    high_stderr: float | None = None
    low_stderr: float | None = None

    @property
    def share(self) -> Fraction:
        return Fraction(self.share_units, SHARE_UNIT)

    @property
    def high_halves(self) -> Fraction:
        """The high halves it won over the deals counted, exactly (one shared by k counts 1/k)."""
        return Fraction(self.high_units, SHARE_UNIT)

    @property
    def low_halves(self) -> Fraction:
        """The low halves it won over the deals counted, exactly (one shared by k counts 1/k)."""
        return Fraction(self.low_units, SHARE_UNIT)


@dataclass(frozen=True, slots=True)
class HiLoEquityResult(EquityResult):
    """:class:`~engine.equity.EquityResult` for hi/lo games; ``no_low`` is the share of deals without a low."""

    no_low: float = 0.0
    no_low_deals: int = 0
    #: A Monte Carlo's standard error of ``no_low`` (None where counted exactly).
    no_low_stderr: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = EquityResult.to_dict(self)
        for entry, hand in zip(out["hands"], self.results, strict=True):
            assert isinstance(hand, HiLoHandEquity)
            entry.update(
                high_win=hand.high_win,
                high_tie=hand.high_tie,
                high_share=hand.high_share,
                low_win=hand.low_win,
                low_tie=hand.low_tie,
                low_share=hand.low_share,
            )
            if hand.high_stderr is not None and hand.low_stderr is not None:
                entry.update(high_share_stderr=hand.high_stderr, low_share_stderr=hand.low_stderr)
        out["no_low"] = self.no_low
        if self.no_low_stderr is not None:
            out["no_low_stderr"] = self.no_low_stderr
        return out

    def _check(self) -> None:
        """Invariants: every deal's pot is shared out exactly once; each half too.

        Raises :class:`~engine.InvariantError` naming the broken one.
        """
        hands: list[HiLoHandEquity] = []
        for i, h in enumerate(self.results):
            if not isinstance(h, HiLoHandEquity):
                raise InvariantError(f"hand {i}: a {type(h).__name__} in a hi/lo result")
            hands.append(h)
            if h.boards != self.boards:
                raise InvariantError(f"hand {i}: counted over {h.boards} deals, the result over {self.boards}")
            if h.wins + h.ties > self.boards:
                raise InvariantError(f"hand {i}: {h.wins} scoops + {h.ties} shared pots > {self.boards} deals")
        shared = sum((h.share for h in self.results), Fraction(0))
        if shared != self.boards:
            raise InvariantError(f"pot shares add up to {shared} deals, not {self.boards}")
        high = sum(h.high_share for h in hands)
        if not math.isclose(high, 1.0):
            raise InvariantError(f"the high half's shares add up to {high}, not 1")
        low = sum(h.low_share for h in hands)
        if not (math.isclose(low, 1.0 - self.no_low) or (self.no_low == 1.0 and low == 0.0)):
            raise InvariantError(f"the low half's shares add up to {low}, not 1 - no_low = {1.0 - self.no_low}")
