"""Each hand's exact prospects from the cards face up, and what they settle early.

:class:`Prospects` holds integer counts over every remaining board: how often
each hand wins alone, ties, and its exact dead-heat equity. :func:`resolve`
reads them the way the market must: a hand with no win and no tie on any
remaining board can no longer win (settled LOSER at once); when only one hand
can still win or tie it has won; when every hand that can still score ties on
every board, the dead heat is certain.

>>> shares = (Fraction(17, 2), Fraction(3, 2), 0, 0)
>>> p = Prospects.from_counts(boards=10, wins=(7, 0, 0, 0), ties=(3, 3, 0, 0), shares=shares)
>>> resolve(p, live=(1, 2, 3, 4))
Resolution(losers=(3, 4), winners=())
>>> resolve(Prospects.uniform(4), live=(1, 2, 3, 4))
Resolution(losers=(), winners=())
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine import InvariantError
from exchange.game.events import HandEquity
from exchange.game.pricing import fair_odds


@dataclass(frozen=True, slots=True)
class Prospects:
    """Prospects of every selection (hand numbers 1..n, in order) over ``boards`` remaining boards (deals).

    ``boards == 0`` marks prospects known by symmetry alone (nothing face up), without counts.
    ``exact`` is false for a Monte Carlo estimate over ``boards`` sampled deals: then
    nothing is settled from the counts, only ``known_losers`` (selections shown
    unable to win by an exact argument, e.g. a hand that cannot make a low).
    """

    boards: int
    hands: tuple[HandEquity, ...]
    exact: bool = True
    known_losers: tuple[int, ...] = ()

    @classmethod
    def from_counts(
        cls,
        boards: int,
        wins: Sequence[int],
        ties: Sequence[int],
        shares: Sequence[Fraction | int],
        *,
        exact: bool = True,
        known_losers: Sequence[int] = (),
    ) -> Prospects:
        """From counts: ``shares[i]`` is hand i's wins plus its dead-heat shares (1/n per n-way tie).

        A sampled estimate (``exact=False``) carries each equity's standard error
        (:func:`_stderr`: never 0, so a share the sample never saw win is not shown certain). A share
        the cards decide has none, as an exact one: 0 for each of ``known_losers``,
        1 for the one hand left when all the others are among them.

        >>> sampled = Prospects.from_counts(10, (7, 3, 0), (0, 0, 0), (7, 3, 0), exact=False, known_losers=(3,))
        >>> [h.stderr for h in sampled.hands]
        [Fraction(6403, 50000), Fraction(6403, 50000), None]
        """
        if not len(wins) == len(ties) == len(shares):
            raise ValueError(f"need one count per hand: {len(wins)} wins, {len(ties)} ties, {len(shares)} shares")
        if boards <= 0:
            raise ValueError(f"prospects need at least one board, not {boards}")
        hands = []
        certain = set(known_losers)
        if len(certain) == len(shares) - 1:
            certain = set(range(1, len(shares) + 1))  # the last hand standing has won
        for i, (win, tie, share) in enumerate(zip(wins, ties, shares, strict=True), start=1):
            equity = Fraction(share) / boards
            stderr = None if exact or i in certain else _stderr(equity, boards)
            hands.append(HandEquity(i, win, tie, equity, fair_odds(equity), stderr))
        prospects = cls(boards, tuple(hands), exact, tuple(known_losers))
        prospects._check()
        return prospects

    @classmethod
    def uniform(cls, hands: int) -> Prospects:
        """Before any card is turned every hand is the same to a bettor: equity 1/n, fair odds n."""
        share = Fraction(1, hands)
        return cls(0, tuple(HandEquity(i, 0, 0, share, fair_odds(share)) for i in range(1, hands + 1)))

    def _check(self) -> None:
        """Invariants: equities sum to 1; each fits its counts. Raises :class:`~engine.InvariantError`."""
        total = sum(h.equity for h in self.hands)
        if total != 1:
            raise InvariantError(f"equities sum to {total}, not 1")
        for n in self.known_losers:
            if self.equity(n):
                raise InvariantError(f"hand {n} cannot win, but its equity is {self.equity(n)}")
        for h in self.hands:
            if self.boards == 0:
                if h.win or h.tie:
                    raise InvariantError(f"hand {h.hand}: {h.win} wins and {h.tie} ties counted without boards")
                continue
            if not (h.win >= 0 and h.tie >= 0 and h.win + h.tie <= self.boards):
                raise InvariantError(f"hand {h.hand}: {h.win} wins + {h.tie} ties do not fit {self.boards} boards")
            low, high = Fraction(h.win, self.boards), Fraction(h.win + h.tie, self.boards)
            if not low <= h.equity <= high:
                raise InvariantError(f"hand {h.hand}: equity {h.equity} outside [{low}, {high}]")

    def equity(self, hand: int) -> Fraction:
        return self.hands[hand - 1].equity


def _stderr(equity: Fraction, boards: int) -> Fraction:
    """The standard error of a share ``p`` sampled over ``n`` deals, as Agresti and Coull adjust it for a
    two-error band: ``sqrt(q (1 - q) / (n + 4))`` with ``q = (p n + 2) / (n + 4)``; to six decimal places, exact as
    a Fraction (events carry no floats). The plain ``sqrt(p (1 - p) / n)`` is 0 for a hand the sample never saw win
    (a live one, 1/496 to win, was so published as dead: no error, no fair price, no quote) and too narrow near it.

    >>> _stderr(Fraction(0), 3_000), _stderr(Fraction(1, 2), 3_000)
    (Fraction(47, 100000), Fraction(4561, 500000))
    """
    adjusted = (equity * boards + 2) / (boards + 4)
    micro = math.isqrt(int(adjusted * (1 - adjusted) * 10**12 / (boards + 4)))
    return Fraction(micro, 10**6)


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the cards already decide: hands lost for sure, and (if certain) the winners — more than one: a dead heat."""

    losers: tuple[int, ...]
    winners: tuple[int, ...]

    @property
    def decided(self) -> bool:
        return bool(self.winners)


def resolve(prospects: Prospects, live: Sequence[int]) -> Resolution:
    """Settle-now decisions for the ``live`` hands (those not already settled).

    >>> p = Prospects.from_counts(boards=4, wins=(0, 0, 0, 0), ties=(4, 4, 0, 0), shares=(2, 2, 0, 0))
    >>> resolve(p, live=(1, 2, 3, 4))
    Resolution(losers=(3, 4), winners=(1, 2))
    >>> p = Prospects.from_counts(boards=4, wins=(4, 0, 0, 0), ties=(0, 0, 0, 0), shares=(4, 0, 0, 0))
    >>> resolve(p, live=(1, 2, 4))
    Resolution(losers=(2, 4), winners=(1,))
    """
    if prospects.boards == 0:
        return Resolution((), ())
    if not prospects.exact:
        losers = tuple(n for n in live if n in prospects.known_losers)
        standing = [n for n in live if n not in losers]
        # Every market has a winner: the last selection standing has won (the exchange would settle it so).
        return Resolution(losers, (standing[0],) if len(standing) == 1 else ())
    by_hand = {h.hand: h for h in prospects.hands}
    scoring = [h for h in prospects.hands if h.win + h.tie > 0]
    losers = tuple(n for n in live if by_hand[n].win + by_hand[n].tie == 0)
    winners: tuple[int, ...] = ()
    if len(scoring) == 1:
        winners = (scoring[0].hand,)
    elif scoring and all(h.win == 0 and h.tie == prospects.boards for h in scoring):
        # Every scoring hand ties on every board, so on each board all of them are in the tie.
        winners = tuple(h.hand for h in scoring)
    return Resolution(losers, winners)
