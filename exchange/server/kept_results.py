"""Finished games as values, the newest of each channel kept, and their JSON for the journal and the snapshots.

The results route (:mod:`exchange.server.results`) shows, per finished game,
the cards at the end, when it ended and each market's result. The journal's
core events say who won each market but not the cards, nor whether a result
was certain early, nor how the game ended; so when a game ends the server
journals its :class:`GameResult` as one record of kind :data:`RESULT_KIND`
(:meth:`GameResult.to_dict`), beside the settlement it follows. Recovery folds
those records into a :class:`KeptResults` as it folds the core events into the
exchange, and each snapshot stores the :class:`KeptResults` beside the exchange
(:meth:`KeptResults.to_json`): a restart lists what the route listed before,
whether it started from a snapshot or replayed the whole journal, and reads
only the journal's tail after the snapshot.

>>> from engine.cards import parse_cards
>>> from exchange.game.layouts import MarketKind
>>> won = MarketResult("holdem.7", MarketKind.WIN, (2, 3), False, (1,), None)
>>> game = GameResult("holdem", "holdem.7", 7, "SETTLED", 9_000, None,
...                   (parse_cards("AsKs"), parse_cards("QdQc")), parse_cards("2c3d4h5s6c"), (won,))
>>> GameResult.from_dict(game.to_dict()) == game
True
>>> kept = KeptResults(keep=1)
>>> kept.add(game)
>>> [r.game_id for r in kept.recent("holdem", 5)], kept.recent("omaha", 5)
(['holdem.7'], [])
>>> KeptResults.from_json(kept.to_json()) == kept
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from engine import InvariantError
from engine.cards import Card
from exchange.game.layouts import MarketKind
from exchange.server import journal_kinds, jsoncodec
from exchange.server.jsoncodec import whole_number

#: Results kept per channel: a few hours of one channel with the default windows.
KEEP_RESULTS = 100
#: The journal record kind of a finished game's result.
RESULT_KIND = journal_kinds.RESULT
#: One draw of a draw game: what each seat discarded, and what each drew instead.
Draw = tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]


@dataclass(frozen=True, slots=True)
class MarketResult:
    """One market of a finished game: settled with ``winners`` (a dead heat if several), or voided with a reason.

    ``early``: the result was certain before the last cards; ``settled_early``: selections settled as losers at
    a reveal before the result (they could no longer win).
    """

    market_id: str
    kind: MarketKind
    winners: tuple[int, ...]
    early: bool
    settled_early: tuple[int, ...]
    void_reason: str | None

    @property
    def voided(self) -> bool:
        return not self.winners

    @property
    def dead_heat(self) -> bool:
        return len(self.winners) > 1


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of a channel: its cards at the end and each market's result."""

    channel: str
    game_id: str
    game_number: int
    status: str  # SETTLED or VOID, as the game ended
    ended_ms: int
    void_reason: str | None
    hands: tuple[tuple[Card, ...], ...]  # empty: the cards were never turned (a misdeal)
    board: tuple[Card, ...]
    markets: tuple[MarketResult, ...]
    exposed: tuple[Card, ...] = ()  # cards a dealer's error showed, in the order seen (a misdeal's too)
    dead: tuple[Card, ...] = ()  # those of them out of play for the rest of the game (burned)
    draws: tuple[Draw, ...] = ()  # a draw game's draws, in order: each what every seat discarded and drew

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values, every field (cards as ``"As"``): the journal's record and the snapshot's entry."""
        return {
            "channel": self.channel, "game_id": self.game_id, "game_number": self.game_number,
            "status": self.status, "ended_ms": self.ended_ms, "void_reason": self.void_reason,
            "hands": [[str(card) for card in hand] for hand in self.hands],
            "board": [str(card) for card in self.board],
            "markets": [{"market_id": m.market_id, "kind": m.kind.value, "winners": list(m.winners),
                         "early": m.early, "settled_early": list(m.settled_early), "void_reason": m.void_reason}
                        for m in self.markets],
            **({"exposed": [str(card) for card in self.exposed]} if self.exposed else {}),
            **({"dead": [str(card) for card in self.dead]} if self.dead else {}),
            **({"draws": [{"discarded": [[str(card) for card in seat] for seat in discarded],
                           "drawn": [[str(card) for card in seat] for seat in drawn]}
                          for discarded, drawn in self.draws]} if self.draws else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        """The result :meth:`to_dict` wrote; ``ValueError`` saying what is wrong if ``data`` is not that shape."""
        try:
            markets = tuple(MarketResult(_text(m["market_id"]), MarketKind(m["kind"]), _numbers(m["winners"]),
                                         _flag(m["early"]), _numbers(m["settled_early"]),
                                         _text_or_none(m["void_reason"])) for m in data["markets"])
            return cls(_text(data["channel"]), _text(data["game_id"]), whole_number(data["game_number"]),
                       _text(data["status"]), whole_number(data["ended_ms"]), _text_or_none(data["void_reason"]),
                       tuple(_cards(hand) for hand in data["hands"]), _cards(data["board"]), markets,
                       _cards(data.get("exposed", [])), _cards(data.get("dead", [])),
                       tuple((_seats(d["discarded"]), _seats(d["drawn"])) for d in data.get("draws", [])))
        except (KeyError, TypeError, ValueError) as exc:  # CardError is a ValueError
            raise ValueError(f"not a game result: {type(exc).__name__}: {exc}") from None


def _seats(values: object) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(values, list):
        raise TypeError(f"expected a list of each seat's cards, got {values!r}")
    return tuple(_cards(seat) for seat in values)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _text_or_none(value: object) -> str | None:
    return None if value is None else _text(value)


def _numbers(values: object) -> tuple[int, ...]:
    if not isinstance(values, list):
        raise TypeError(f"expected a list of whole numbers, got {values!r}")
    return tuple(whole_number(v) for v in values)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def _cards(values: object) -> tuple[Card, ...]:
    """Cards by table lookup: a restart reads a hundred results a channel, tens of cards each."""
    if not isinstance(values, list):
        raise TypeError(f"expected a list of cards, got {values!r}")
    try:
        return tuple(_CARDS[value] for value in values)
    except (KeyError, TypeError):  # unknown, or not even a string: the parser says what is wrong with it
        for value in values:
            Card.parse(_text(value))
        raise  # unreachable: the parser takes only the table's cards


_CARDS: dict[str, Card] = {str(card): card for card in map(Card, range(52))}


class KeptResults:
    """Per channel, its newest ``keep`` finished games (oldest first); older ones are dropped as new ones come.

    Holds any channel a result names: recovery folds the journal without knowing which channels the server
    runs (the route asks only for those).
    """

    def __init__(self, keep: int = KEEP_RESULTS) -> None:
        if keep < 1:
            raise ValueError(f"a channel keeps at least one result, not {keep}")
        self.keep = keep
        self._kept: dict[str, deque[GameResult]] = {}

    def add(self, result: GameResult) -> None:
        """Keep ``result``, the newest of its channel (forgetting the oldest if ``keep`` are kept). O(1)."""
        kept = self._kept.get(result.channel)
        if kept is None:
            kept = self._kept[result.channel] = deque(maxlen=self.keep)
        kept.append(result)

    def recent(self, channel: str, limit: int) -> list[GameResult]:
        """Channel ``channel``'s last ``limit`` results, newest first (none for a channel never seen)."""
        kept = self._kept.get(channel, ())
        return [kept[-1 - i] for i in range(min(limit, len(kept)))]

    def __iter__(self) -> Iterator[GameResult]:
        """Every result kept, channel by channel, oldest first."""
        for kept in self._kept.values():
            yield from kept

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KeptResults):
            return NotImplemented
        mine = {name: list(kept) for name, kept in self._kept.items() if kept}
        theirs = {name: list(kept) for name, kept in other._kept.items() if kept}
        return self.keep == other.keep and mine == theirs

    __hash__ = None  # type: ignore[assignment]  # mutable

    def kept_to(self, keep: int) -> KeptResults:
        """A copy keeping ``keep`` a channel: the newest ones, if that is fewer than this keeps."""
        copy = KeptResults(keep)
        for result in self:
            copy.add(result)
        return copy

    def to_json(self) -> bytes:
        """The snapshot's form: ``{"keep": K, "results": [...]}``, each result's :meth:`GameResult.to_dict`."""
        return jsoncodec.dumps({"keep": self.keep, "results": [result.to_dict() for result in self]})

    @classmethod
    def from_json(cls, data: bytes) -> KeptResults:
        """The results :meth:`to_json` wrote; ``ValueError`` if ``data`` is not that shape."""
        try:
            # orjson at once: the server's own bytes, a few levels deep (jsoncodec.loads hands documents of many
            # brackets, as this one is, to the slower standard library, to refuse deep nesting in requests)
            raw = orjson.loads(data)
            kept = cls(whole_number(raw["keep"]))
            for entry in raw["results"]:
                kept.add(GameResult.from_dict(entry))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the kept results are not readable: {exc}") from None
        return kept

    def _check(self) -> None:
        """Each channel holds at most ``keep`` results, all its own, in the order its games were numbered."""
        for name, kept in self._kept.items():
            if kept.maxlen != self.keep or len(kept) > self.keep:
                raise InvariantError(f"{name}: {len(kept)} results kept (bound {kept.maxlen}), not at most {self.keep}")
            strays = [result.game_id for result in kept if result.channel != name]
            if strays:
                raise InvariantError(f"{name} keeps other channels' results: {strays}")
            numbers = [result.game_number for result in kept]
            if numbers != sorted(set(numbers)):
                raise InvariantError(f"{name}: results out of the games' order: {numbers}")
