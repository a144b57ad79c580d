"""What a game announces: game events, the stamped envelope, listeners and JSON.

Every happening of a channel — a window opening, cards turned, equities
published, and every event the exchange core returns for an order, a fill, a
lapse or a settlement — is wrapped in a :class:`Stamped` envelope carrying a
channel-wide sequence number and the clock time, and handed to every listener
of the channel's :class:`EventBus`. That stream is the single record: the
journal, the client stream and the analysis tables are projections of it.

:func:`to_jsonable` turns any event (these, or the core's frozen dataclasses)
into plain JSON values with a deterministic key order (the dataclass field
order), so a replay can be compared byte for byte.

>>> bus = EventBus()
>>> log = EventLog.attach(bus)
>>> _ = bus.publish(1_000, "holdem.0", WindowOpened(round=Round.DEAL, closes_ms=31_000))
>>> log.json_lines()
['{"seq":0,"at":1000,"market":"holdem.0","type":"WindowOpened","round":1,"closes_ms":31000}']
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum, IntEnum
from fractions import Fraction
from typing import Any, TypeVar, overload

from engine.cards import Card
from engine.dealer import Dealt
from exchange.core.records import Record
from exchange.game.rounds import Round, Window

JsonValue = None | bool | int | str | list["JsonValue"] | dict[str, "JsonValue"]
Listener = Callable[["Stamped"], None]
E = TypeVar("E")


# --- game events -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A new game (and its market) on the channel; hole cards are about to be dealt face down."""

    channel: str
    game_number: int
    variant: str
    hands: int
    windows: tuple[Window, ...]


@dataclass(frozen=True, slots=True)
class HoleCardsDealt:
    """The hole cards are dealt face down: only how many, never which."""

    hands: int
    per_hand: int


@dataclass(frozen=True, slots=True)
class WindowOpened:
    round: Round
    closes_ms: int


@dataclass(frozen=True, slots=True)
class WindowResumed:
    """An operator resumed the markets suspended inside their window: open again, same round, until ``closes_ms``."""

    round: Round
    closes_ms: int


@dataclass(frozen=True, slots=True)
class WindowClosed:
    """The betting window has closed: the market is suspended, unmatched orders lapse."""

    round: Round


@dataclass(frozen=True, slots=True)
class HoleCardsTurned:
    hands: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class BoardTurned:
    """A street turned after a burn: ``cards`` just turned, ``board`` all board cards now up."""

    street: str
    cards: tuple[Card, ...]
    board: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SeatCardsTurned:
    """A stud street: ``cards`` dealt to each seat (after a burn), ``up`` their faces, ``hands`` every card now held."""

    street: str
    cards: tuple[tuple[Card, ...], ...]
    up: tuple[bool, ...]
    hands: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class DrawMade:
    """A draw: what each seat ``discarded`` by the policy, what it ``drawn`` instead, and the ``hands`` now held."""

    draw: int
    discarded: tuple[tuple[Card, ...], ...]
    drawn: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class HandEquity:
    """One hand's (one selection's) prospects over every remaining deal: integer counts and the equity they make.

    ``equity`` counts an n-way tie as 1/n of a win (what the dead-heat rule pays);
    ``fair_odds`` is ``1 / equity`` (``None`` for a hand that can no longer win or tie).
    Counts are over the deals enumerated, or sampled when ``stderr`` (the Monte
    Carlo standard error of ``equity``, to 6 places) is not ``None``.
    """

    hand: int
    win: int
    tie: int
    equity: Fraction
    fair_odds: Fraction | None
    stderr: Fraction | None = None


@dataclass(frozen=True, slots=True)
class EquitiesPublished:
    """Exact equities from the cards face up, for the window about to open (or the result).

    ``dead``: cards seen and out of play that the counts left out of every deal
    (a draw's discards; a card a dealer's error showed and burned).
    """

    round: Round | None
    boards: int
    hands: tuple[HandEquity, ...]
    exact: bool = True
    dead: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class HandsCannotWin:
    """These hands have no win and no tie on any remaining board: settled LOSER at once."""

    hands: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ResultDeclared:
    """A market's outcome: ``winners`` (more than one: a dead heat). ``early`` if declared before the last cards.

    ``market`` is the market's kind (``win``, or ``high`` / ``low`` in hi/lo games;
    Low's selection ``hands + 1`` is "No low").
    """

    winners: tuple[int, ...]
    board: tuple[Card, ...]
    early: bool
    market: str = "win"


@dataclass(frozen=True, slots=True)
class DealRecorded:
    """Every card that left the deck, burns included; published only once the game is over."""

    cards: tuple[Dealt, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    status: str


@dataclass(frozen=True, slots=True)
class GameVoided:
    reason: str


# --- the envelope, the bus, the log ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stamped:
    """An event with its place in the channel's stream: sequence number, clock time, market."""

    seq: int
    at_ms: int
    market_id: str | None
    event: object

    @property
    def type(self) -> str:
        return type(self.event).__name__

    def to_dict(self) -> dict[str, JsonValue]:
        """``{"seq", "at", "market", "type", **event fields}`` in that order; plain JSON values."""
        out: dict[str, JsonValue] = {"seq": self.seq, "at": self.at_ms, "market": self.market_id, "type": self.type}
        body = _record_dict(self.event) if isinstance(self.event, Record) else to_jsonable(self.event)
        if isinstance(body, dict):
            out.update(body)
        else:
            out["value"] = body
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)


class EventBus:
    """Numbers, stamps and fans out events to listeners, in subscription order.

    A listener that raises is a bug in the listener; the exception propagates
    (fail fast) rather than being swallowed.
    """

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._seq = 0

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add ``listener``; returns a function that removes it again."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def published(self) -> int:
        """How many events have been published (the next sequence number)."""
        return self._seq

    def publish(self, at_ms: int, market_id: str | None, event: object) -> Stamped:
        stamped = Stamped(self._seq, at_ms, market_id, event)
        self._seq += 1
        for listener in tuple(self._listeners):
            listener(stamped)
        return stamped


class EventLog:
    """A listener that keeps every stamped event (optionally only one market's)."""

    def __init__(self, market_id: str | None = None) -> None:
        self.market_id = market_id
        self.events: list[Stamped] = []

    @classmethod
    def attach(cls, bus: EventBus, market_id: str | None = None) -> EventLog:
        log = cls(market_id)
        bus.subscribe(log)
        return log

    def __call__(self, stamped: Stamped) -> None:
        if self.market_id is None or stamped.market_id == self.market_id:
            self.events.append(stamped)

    def __iter__(self) -> Iterator[Stamped]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    @overload
    def of_type(self, kind: type[E], /) -> list[E]: ...
    @overload
    def of_type(self, *types: type) -> list[object]: ...
    def of_type(self, *types: type) -> list[Any]:
        """The bare events of the given types, in order (typed as that type when there is one)."""
        return [s.event for s in self.events if isinstance(s.event, types)]

    def dicts(self) -> list[dict[str, JsonValue]]:
        return [s.to_dict() for s in self.events]

    def json_lines(self) -> list[str]:
        return [s.to_json() for s in self.events]


def _record_dict(record: Record) -> JsonValue:
    """A core event's own ``to_dict()`` (the journal's form), without its ``type`` tag (the envelope has it)."""
    body: dict[str, JsonValue] = record.to_dict()
    body.pop("type", None)
    return body


def to_jsonable(value: object) -> JsonValue:
    """Plain JSON values for an event or anything inside one.

    Dataclasses become dicts in field order; cards their notation (``"As"``);
    ``Fraction`` and ``Decimal`` exact strings (``"1/4"``, ``"4.1"``); int enums
    their number, other enums their name; tuples, lists and sets lists (sets sorted).

    >>> to_jsonable(HandEquity(hand=1, win=3, tie=0, equity=Fraction(3, 4), fair_odds=Fraction(4, 3)))
    {'hand': 1, 'win': 3, 'tie': 0, 'equity': '3/4', 'fair_odds': '4/3', 'stderr': None}
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, Enum):
        if isinstance(value, IntEnum):
            return int(value)
        return value.value if isinstance(value.value, str) else value.name
    if isinstance(value, int):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, float):
        raise TypeError(f"float {value!r} in an event: events carry exact values (ints, Fractions, Decimals)")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((to_jsonable(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    raise TypeError(f"{type(value).__name__} is not serialisable in an event: {value!r}")
