"""The result of an equity question: one :class:`HandEquity` per hand inside an :class:`EquityResult`.

Hold'em and Omaha (:func:`engine.equity.equity`) and the other games
(:func:`engine.variant_equity.variant_equity`, which extends both classes for
hi/lo) answer in this one shape. It lives apart from both producers so that
each can import it without importing the other: ``equity`` hands the other
games to ``variant_equity``, which imports numba and so is imported only when
asked. The public names are :class:`engine.equity.EquityResult` and
:class:`engine.equity.HandEquity` (also exported by :mod:`engine`), and the hi/lo
games' :class:`engine.equity.HiLoEquityResult` and :class:`engine.equity.HiLoHandEquity`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine._errors import EngineInputError, InvariantError
from engine.cards import Card, format_cards

# The most hands one question may hold; ``HandEquity.splits`` is indexed by the
# number of hands tied, so it has MAX_HANDS + 1 entries.
MAX_HANDS = 8


def check_samples(samples: object, unit: str) -> None:
    """Refuse a sample size that is not a positive whole number of ``unit`` (boards, deals); None (no sampling)
    passes."""
    if samples is not None and (type(samples) is bool or not isinstance(samples, int) or samples < 1):
        raise EngineInputError(f"samples must be a positive whole number of {unit}, not {samples!r:.60}")


def check_seed(seed: object) -> None:
    """Refuse a Monte Carlo seed that is not a whole number, even where the answer is exact and uses none (the same
    call must not be refused only once a sample is needed); None (a seed drawn when one is needed) passes."""
    if seed is not None and (type(seed) is bool or not isinstance(seed, int)):
        raise EngineInputError(f"seed must be a whole number, not {seed!r:.60}")


def run_seed(seed: int | None) -> int:
    """The seed a Monte Carlo runs with and records: ``seed`` modulo 2**64 (the generators' 64 bits, so the result
    names the seed that deals its samples again, one the command line takes), or 64 random bits when missing.

    >>> run_seed(5) == run_seed(2**64 + 5) == 5, run_seed(-1) == 2**64 - 1
    (True, True)
    """
    return secrets.randbits(64) if seed is None else seed % 2**64


@dataclass(frozen=True, slots=True)
class HandEquity:
    """One hand's result. ``splits[k]`` counts boards where it tied for best with ``k - 1`` others (k = 2..8)."""

    cards: tuple[Card, ...]
    win: float
    tie: float
    equity: float
    wins: int
    ties: int
    splits: tuple[int, ...]
    boards: int
    stderr: float | None  # standard error of ``equity`` (Monte Carlo only)

    @property
    def share(self) -> Fraction:
        """Boards' worth of pot won: ``wins + sum(splits[k] / k)`` (exact)."""
        return self.wins + sum((Fraction(n, k) for k, n in enumerate(self.splits) if n), Fraction(0))

    @property
    def exact_equity(self) -> Fraction:
        """``equity`` as an exact fraction of the boards counted."""
        return self.share / self.boards


@dataclass(frozen=True, slots=True)
class EquityResult:
    """Equities of every hand; ``exact`` when every remaining board was counted, else Monte Carlo."""

    variant: str
    hands: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]
    dead: tuple[Card, ...]
    exact: bool
    boards: int  # boards enumerated (exact) or sampled
    results: tuple[HandEquity, ...]
    seed: int | None = None  # the Monte Carlo seed used (replays the same boards)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: variant, board, dead (the cards taken out), exact, boards and per hand cards, win, tie,
        equity; a Monte Carlo's also its seed (the same seed deals the same samples again) and each hand's
        standard error, so that a figure written down can be weighed and made again."""
        out: dict[str, Any] = {
            "variant": self.variant,
            "board": format_cards(self.board),
            "dead": format_cards(self.dead),
            "exact": self.exact,
            "boards": self.boards,
            "hands": [
                {"cards": format_cards(h.cards), "win": h.win, "tie": h.tie, "equity": h.equity} for h in self.results
            ],
        }
        if not self.exact:
            out["seed"] = self.seed
            for entry, hand in zip(out["hands"], self.results, strict=True):
                entry["stderr"] = hand.stderr
        return out

    def _check(self) -> None:
        """Invariants: every board's pot is shared out exactly once; counts fit in the boards.

        Raises :class:`~engine.InvariantError` naming the broken one.
        """
        for i, h in enumerate(self.results):
            if h.boards != self.boards:
                raise InvariantError(f"hand {i}: counted over {h.boards} boards, the result over {self.boards}")
            if h.wins + h.ties > self.boards:
                raise InvariantError(f"hand {i}: {h.wins} wins + {h.ties} ties > {self.boards} boards")
            if h.ties != sum(h.splits):
                raise InvariantError(f"hand {i}: {h.ties} ties but its splits add up to {sum(h.splits)}")
            if h.splits[0] or h.splits[1]:  # before the shares: share divides splits[k] by k
                raise InvariantError(f"hand {i}: splits[0] and splits[1] must be 0 (a tie has 2+ hands): {h.splits}")
        shared = sum((h.share for h in self.results), Fraction(0))
        if shared != self.boards:
            raise InvariantError(f"pot shares add up to {shared} boards, not {self.boards}")
        for k in range(2, MAX_HANDS + 1):
            tied = sum(h.splits[k] for h in self.results)
            if tied % k:
                raise InvariantError(f"{k}-way ties do not come in groups of {k}: {tied} hands tied {k} ways")
