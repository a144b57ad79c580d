"""Dealer irregularities on the exchange: when they happen in a game, where they come from, what they announce.

The dealer's side (which card, which rule, the corrected deal) is
:mod:`engine.irregularities`. This module adds the exchange's side:

* an :class:`IrregularityPlan` places one irregularity in a game's time: a
  hole-card or extra-card error happens at the deal; a premature street
  ``at_permille`` of the way through the betting window before it (flop in the
  Pre-flop window, turn in the Flop window, river in the Turn window); too many
  flop cards when the flop is turned. ``notice_ms`` is how long the exposed
  card is on show before the exchange acts (a live dealer's feed is seen
  before anyone can react): every bet matched from the exposure on is voided;
* where plans come from (:data:`IrregularitySource`): scripted per game number
  (:func:`scripted`, for tests), or drawn at a seeded rate
  (:func:`seeded_irregularities`, ``--irregularity-rate``);
* the events a game publishes: :class:`IrregularityOccurred` (with the cards
  seen, for everyone: a card exposed is public) and :class:`BetsVoided`
  (the matches voided because a card was seen before its time).

What the game then does (:mod:`exchange.game.table`): a misdeal voids the
market (matched bets refunded, unmatched cancelled, closed with no winner);
an exposure suspends the market when noticed, voids every match since the
exposure (the core's ``VoidMatchedSince``), and the game goes on as the rule
says: the window runs out suspended and the street is dealt at its time.

>>> source = seeded_irregularities(7, 1.0)
>>> plan = source(3)
>>> plan == seeded_irregularities(7, 1.0)(3) and plan is not None
True
>>> seeded_irregularities(7, 0.0)(3) is None
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.cards import Card
from engine.irregularities import Irregularity, Kind

IrregularitySource = Callable[[int], "IrregularityPlan | None"]
"""Given a game number, the irregularity injected in that game (``None``: a clean deal)."""

#: The betting round (1 Deal .. 4 Turn) during which each premature street is turned.
PREMATURE_ROUND = {Kind.PREMATURE_FLOP: 2, Kind.PREMATURE_TURN: 3, Kind.PREMATURE_RIVER: 4}


@dataclass(frozen=True, slots=True)
class IrregularityPlan:
    """One irregularity placed in a game: what, when in its window, how soon it is noticed, the reshuffle seed.

    Refused when built (``ValueError`` naming the field and what it may be); what depends on the channel (an
    exposed hole card it deals) when a channel is given it (:meth:`check_deal`).
    """

    irregularity: Irregularity
    at_permille: int = 500
    notice_ms: int = 0
    shuffle_seed: int | str = 0

    def __post_init__(self) -> None:
        if not isinstance(self.irregularity, Irregularity):
            raise ValueError(f"irregularity must be an engine.irregularities.Irregularity, not {self.irregularity!r}")
        if type(self.at_permille) is not int or not 0 <= self.at_permille < 1000:
            raise ValueError(f"at_permille is the point in the window, a whole number 0..999, not {self.at_permille!r}")
        if type(self.notice_ms) is not int or self.notice_ms < 0:
            raise ValueError(f"notice_ms must be a whole number of milliseconds, 0 or more, not {self.notice_ms!r}")
        if not isinstance(self.shuffle_seed, int | str):
            raise ValueError(f"shuffle_seed must be an int or a str, not {self.shuffle_seed!r}")

    @property
    def kind(self) -> Kind:
        return self.irregularity.kind

    def rng(self) -> random.Random:
        """The random source of the dealer's reshuffles (a fresh one, so a replay reshuffles the same)."""
        return random.Random(f"irregularity/{self.shuffle_seed}")

    def check_deal(self, hole_cards: int) -> None:
        """Refuse (``ValueError``) a plan a deal of ``hole_cards`` hole cards cannot have (see
        :meth:`~engine.irregularities.Irregularity.check_deal`)."""
        self.irregularity.check_deal(hole_cards)


@dataclass(frozen=True, slots=True)
class ScriptedIrregularities:
    """An :data:`IrregularitySource` injecting ``plans[n]`` in game ``n`` (:func:`scripted`)."""

    plans: Mapping[int, IrregularityPlan]

    def __post_init__(self) -> None:
        for game, plan in self.plans.items():
            if type(game) is not int or game < 0:
                raise ValueError(f"scripted plans are keyed by game number, a whole number from 0, not {game!r}")
            if not isinstance(plan, IrregularityPlan):
                raise ValueError(f"game {game}: a scripted plan must be an IrregularityPlan, not {plan!r}")

    def __call__(self, game_number: int) -> IrregularityPlan | None:
        return self.plans.get(game_number)

    def check_deal(self, hole_cards: int) -> None:
        """Refuse (``ValueError``, naming the game) a plan a deal of ``hole_cards`` hole cards cannot have."""
        for game, plan in self.plans.items():
            try:
                plan.check_deal(hole_cards)
            except ValueError as error:
                raise ValueError(f"game {game}: {error}") from None


def scripted(plans: Mapping[int, IrregularityPlan]) -> ScriptedIrregularities:
    """Inject ``plans[n]`` in game ``n``; every other game is dealt cleanly."""
    return ScriptedIrregularities(dict(plans))


#: What the seeded rate chooses among, with the rule each exercises; each is given the rng and the number
#: of hole cards the deal has (an exposed card is one of them: never the first, which rule 1 covers apart).
RATE_CHOICES: tuple[Callable[[random.Random, int], Irregularity], ...] = (
    lambda rng, hole: Irregularity(Kind.EXPOSED_HOLE_CARDS, (0,)),
    lambda rng, hole: Irregularity(Kind.EXPOSED_HOLE_CARDS, (rng.randrange(1, hole),)),
    lambda rng, hole: Irregularity(Kind.EXPOSED_HOLE_CARDS, tuple(sorted(rng.sample(range(1, hole), 2)))),
    lambda rng, hole: Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=rng.choice((1, 1, 2))),
    lambda rng, hole: Irregularity(Kind.PREMATURE_FLOP),
    lambda rng, hole: Irregularity(Kind.PREMATURE_TURN),
    lambda rng, hole: Irregularity(Kind.PREMATURE_RIVER),
    lambda rng, hole: Irregularity(Kind.EXTRA_CARDS, count=1),
    lambda rng, hole: Irregularity(Kind.EXTRA_CARDS, count=2),
)

#: The hole cards the seeded rate's exposures are drawn among by default: the first eight of the deal,
#: which a four-hand Hold'em or Omaha deal has.
FULL_TABLE_HOLE_CARDS = 8


@dataclass(frozen=True, slots=True)
class SeededIrregularities:
    """An :data:`IrregularitySource` drawing each game's plan at a seeded rate (:func:`seeded_irregularities`)."""

    seed: int | str
    rate: float
    max_notice_ms: int = 2_000
    hole_cards: int = FULL_TABLE_HOLE_CARDS

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"the irregularity rate is a probability, 0 to 1, not {self.rate}")
        if type(self.max_notice_ms) is not int or self.max_notice_ms < 0:
            raise ValueError(f"max_notice_ms must be a whole number of milliseconds, 0 or more, "
                             f"not {self.max_notice_ms!r}")
        if type(self.hole_cards) is not int or self.hole_cards < 4:
            raise ValueError(f"a deal of the irregularity rules has at least 4 hole cards, not {self.hole_cards!r}")

    def __call__(self, game_number: int) -> IrregularityPlan | None:
        rng = random.Random(f"{self.seed}/{game_number}/irregular")
        if rng.random() >= self.rate:
            return None
        irregularity = rng.choice(RATE_CHOICES)(rng, self.hole_cards)
        return IrregularityPlan(irregularity, rng.randrange(1000), rng.randrange(self.max_notice_ms + 1),
                                f"{self.seed}/{game_number}")

    def check_deal(self, hole_cards: int) -> None:
        """Refuse (``ValueError``) exposures among more hole cards than a deal of ``hole_cards`` has."""
        if self.hole_cards > hole_cards:
            raise ValueError(f"hole_cards: the seeded rate exposes one of the first {self.hole_cards} hole cards "
                             f"but the deal has {hole_cards}; pass hole_cards={hole_cards}")


def seeded_irregularities(seed: int | str, rate: float, *, max_notice_ms: int = 2_000,
                          hole_cards: int = FULL_TABLE_HOLE_CARDS) -> SeededIrregularities:
    """Each game has an irregularity with probability ``rate``, drawn from ``random.Random(f"{seed}/{n}/irregular")``.

    The kind is uniform over :data:`RATE_CHOICES`; a premature street comes at a
    uniform point of its window and is noticed up to ``max_notice_ms`` later. An
    exposed hole card is one of the first ``hole_cards`` dealt: at most as many as
    the channel deals (two hands of Hold'em deal four; a channel refuses more).
    """
    return SeededIrregularities(seed, rate, max_notice_ms, hole_cards)


@dataclass(frozen=True, slots=True)
class IrregularityOccurred:
    """The dealer erred: which rule, what it did, the cards seen (public), and what follows.

    ``outcome``: ``"misdeal"`` (the market is voided), ``"bets voided"`` (a card seen
    in a betting window: matches since ``exposed_ms`` are voided when noticed) or
    ``"deal goes on"`` (seen while no bet could be matched). ``dead``: the cards
    seen that are out of play for the rest of the game (rules 1 and 5: they became
    the burn card), which every equity from now on counts out; cards shuffled back
    into the deck (rules 3 and 4) are not among them.
    """

    rule: int
    kind: str
    description: str
    cards: tuple[Card, ...]
    outcome: str
    exposed_ms: int
    dead: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class BetsVoided:
    """A card was seen before its time: every match from ``since_ms`` on selections in play was voided."""

    rule: int
    kind: str
    since_ms: int
    matches: int
    stake: int
