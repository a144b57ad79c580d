"""What happened at the table: one frozen record per step, in the order it happened.

Every method of :class:`~engine.table.TableState` that changes the hand returns one
of these; the dealer's steps (antes, blinds, cards, awards) are recorded the same
way, so ``state.log`` is the whole hand and a hand history is written from it.
``seat`` is the seat's index (0 is the first seat left of the button), ``None``
for the board.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every record."""

    seat: int | None


@dataclass(frozen=True, slots=True)
class PostAnte(Action):
    amount: int


@dataclass(frozen=True, slots=True)
class PostBlind(Action):
    amount: int


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """Cards to a seat (``up`` says which are face up) or, with ``seat`` None, to the board."""

    cards: tuple[Card, ...]
    up: tuple[bool, ...] = ()


@dataclass(frozen=True, slots=True)
class Burn(Action):
    card: Card


@dataclass(frozen=True, slots=True)
class Reshuffle(Action):
    """The stub ran out: ``cards`` (discards, not the receiving seat's own) were shuffled in."""

    cards: int


@dataclass(frozen=True, slots=True)
class PostBringIn(Action):
    amount: int


@dataclass(frozen=True, slots=True)
class Fold(Action):
    pass


@dataclass(frozen=True, slots=True)
class CheckCall(Action):
    """A check (``amount`` 0) or a call of ``amount`` more chips."""

    amount: int


@dataclass(frozen=True, slots=True)
class BetRaise(Action):
    """A bet, raise or completion of the bring-in, to a total of ``to`` this round."""

    to: int


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """A seat discards ``discards`` (none: it stands pat); ``timed_out``: the draw time ran out."""

    discards: tuple[Card, ...]
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class Drew(Action):
    """A :class:`Draw` as the table sees it: how many cards the seat discarded (and is dealt), not which."""

    count: int
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class TimePassed(Action):
    """``seconds`` passed while the seat was to draw (it has ``left`` seconds of the draw time)."""

    seconds: float
    left: float


@dataclass(frozen=True, slots=True)
class OfferSplit(Action):
    pass


@dataclass(frozen=True, slots=True)
class AnswerSplit(Action):
    accept: bool


@dataclass(frozen=True, slots=True)
class Show(Action):
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Award(Action):
    """``amount`` of pot ``pot`` (0 is the main pot) to a seat; ``half`` is "high", "low",
    "split" (an accepted split), "uncontested" (a pot only one seat still in contests) or
    "returned" (a seat's own chips nobody matched: an uncalled bet)."""

    amount: int
    pot: int
    half: str
