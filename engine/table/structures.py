"""Betting structures and stakes: how much a seat may bet, as data.

Fixed limit (the default) bets and raises by the small bet on the early rounds and
the big bet on the later ones (a :class:`~engine.variants.Street` says which), with
at most a bet and three raises a round. Pot limit allows raising to the pot after a
call; no limit to the whole stack. In pot and no limit the smallest bet is the small
bet and a raise must be at least the last full bet or raise.

>>> Stakes.default("holdem")
Stakes(ante=0, bring_in=0, small_blind=1, big_blind=2, small_bet=2, big_bet=4)
>>> Stakes.default("stud7")
Stakes(ante=1, bring_in=2, small_blind=0, big_blind=0, small_bet=4, big_bet=8)
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from numbers import Integral

from engine.table.errors import TableError
from engine.variants import ForcedBets, Variant, get_variant

MAX_BETS_FIXED_LIMIT = 4
"""A bet and three raises (a completion counts as the bet, and the big blind in the first round): the fixed-limit
cap."""


class Structure(StrEnum):
    FIXED_LIMIT = "fixed-limit"
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"


@dataclass(frozen=True)
class Stakes:
    """The forced bets and bet sizes, in whole chips (any integer unit, e.g. pennies)."""

    ante: int = 0
    bring_in: int = 0
    small_blind: int = 0
    big_blind: int = 0
    small_bet: int = 2
    big_bet: int = 4

    def __post_init__(self) -> None:
        """Whole numbers of any integer type (``numpy.int64`` from a table of stakes) are kept as ``int``;
        anything else is left for :meth:`check` to refuse."""
        for each in fields(self):
            value = getattr(self, each.name)
            if isinstance(value, Integral) and not isinstance(value, bool):
                object.__setattr__(self, each.name, int(value))

    @classmethod
    def default(cls, variant: str | Variant) -> Stakes:
        """1/2 blinds with 2/4 limits, or ante 1, bring-in 2 and 4/8 limits."""
        if get_variant(variant).forced_bets is ForcedBets.BLINDS:
            return cls(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
        return cls(ante=1, bring_in=2, small_bet=4, big_bet=8)

    def check(self, variant: Variant) -> None:
        """Raise :class:`TableError` unless these stakes fit ``variant``'s forced bets."""
        amounts = (self.ante, self.bring_in, self.small_blind, self.big_blind, self.small_bet, self.big_bet)
        if any(not isinstance(a, int) or isinstance(a, bool) or a < 0 for a in amounts):
            raise TableError(f"stakes must be whole non-negative chip counts, got {self}")
        if not 0 < self.small_bet <= self.big_bet:
            raise TableError(f"need 0 < small bet <= big bet, got {self.small_bet} and {self.big_bet}")
        if variant.forced_bets is ForcedBets.BLINDS:
            if self.ante or self.bring_in:
                raise TableError(f"{variant.title} has blinds, not an ante or bring-in")
            if not 0 < self.small_blind <= self.big_blind:
                raise TableError(f"need 0 < small blind <= big blind, got {self.small_blind}, {self.big_blind}")
        else:
            if self.small_blind or self.big_blind:
                raise TableError(f"{variant.title} has an ante and bring-in, not blinds")
            if not 0 < self.bring_in < self.small_bet:
                raise TableError(f"need 0 < bring-in < small bet, got {self.bring_in} and {self.small_bet}")
