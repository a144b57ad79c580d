"""Cards, ranks, suits and decks.

A card is held in two forms. Inside the fast paths it is a small integer,
its *id*: ``4 * (rank - 2) + suit``, so ``2c`` is 0 and ``As`` is 51. At the
edges it is a :class:`Card`, a frozen value that parses and prints the usual
two-character notation (``As``, ``Td``, ``7c``).

>>> parse_cards("As Kd 7c") == parse_cards("AsKd7c")
True
>>> format_cards(parse_cards("AsKd7c"))
'As Kd 7c'
>>> Card.parse("Td").id
33
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from engine._errors import EngineInputError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


class Rank(IntEnum):
    """Card ranks; the value is the rank's number with the ace high (14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        return RANK_CHARS[self - 2]


class Suit(IntEnum):
    """Card suits; the value is the suit's place in a card id (clubs 0 .. spades 3)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        return SUIT_CHARS[self]


#: Each card id's rank and suit, built once: an enum lookup by value (``Rank(n)``) costs a few hundred
#: nanoseconds, and ``Card.rank`` is read in hot Python loops (low ranks, draw policies, stud streets).
_RANK_OF: tuple[Rank, ...] = tuple(Rank(i // 4 + 2) for i in range(52))
_SUIT_OF: tuple[Suit, ...] = tuple(Suit(i % 4) for i in range(52))


class CardError(EngineInputError):
    """A card or a set of cards is malformed, duplicated or not in the deck (an :class:`~engine.EngineInputError`)."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card. Ordered by id: by rank, then clubs < diamonds < hearts < spades."""

    id: int

    def __post_init__(self) -> None:
        if not 0 <= self.id < 52:
            raise CardError(f"card id {self.id} is out of range; ids run from 0 (2c) to 51 (As)")

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        return cls(4 * (int(rank) - 2) + int(suit))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a two-character card such as ``As`` or ``td`` (rank case-insensitive)."""
        if len(text) != 2:
            ten = "; a ten is written T, e.g. Ts" if "10" in text else ""
            raise CardError(
                f"{text!r} is not a card; write a rank ({RANK_CHARS}) then a suit ({SUIT_CHARS}), e.g. As{ten}"
            )
        rank_index = RANK_CHARS.find(text[0].upper())
        suit_index = SUIT_CHARS.find(text[1].lower())
        if rank_index < 0:
            raise CardError(f"{text!r} has an unknown rank {text[0]!r}; ranks are {' '.join(RANK_CHARS)}")
        if suit_index < 0:
            raise CardError(f"{text!r} has an unknown suit {text[1]!r}; suits are {' '.join(SUIT_CHARS)}")
        return cls(4 * rank_index + suit_index)

    @property
    def rank(self) -> Rank:
        """The card's rank (``Card.parse("Td").rank is Rank.TEN``)."""
        return _RANK_OF[self.id]

    @property
    def suit(self) -> Suit:
        return _SUIT_OF[self.id]

    def __str__(self) -> str:
        return RANK_CHARS[self.id // 4] + SUIT_CHARS[self.id % 4]

    def __repr__(self) -> str:
        return f"Card('{self}')"


CardLike = Card | str | int


def to_card(value: CardLike) -> Card:
    """Coerce a :class:`Card`, a card string or a card id to a :class:`Card`."""
    if isinstance(value, Card):
        return value
    if isinstance(value, str):
        return Card.parse(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return Card(value)
    raise CardError(f"{value!r} is not a card; give a string such as 'As', a Card or an id 0-51")


def parse_cards(text: str | Iterable[CardLike]) -> tuple[Card, ...]:
    """Parse ``"As Kd 7c"``, ``"AsKd7c"``, ``"As,Kd"`` or an iterable of card-likes (not ``bytes``, which would
    be read byte by byte as card ids).

    Duplicates are allowed here; use :func:`check_distinct` where they are not.
    """
    if isinstance(text, str):
        if "10" in text:
            raise CardError(f"{text!r} is not a list of cards: a ten is written T, e.g. 'Ts Kd', not 10")
        compact = "".join(text.replace(",", " ").split())
        if len(compact) % 2:
            raise CardError(f"{text!r} is not a list of cards: each card is two characters, e.g. 'As Kd' or 'AsKd'")
        return tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))
    if not isinstance(text, Iterable) or isinstance(text, bytes | bytearray | memoryview):
        raise CardError(f"{text!r:.60} is not a list of cards; give a string such as 'As Kd' or a list like "
                        "['As', 'Kd']")
    return tuple(to_card(item) for item in text)


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated notation, e.g. ``'As Kd 7c'``."""
    return " ".join(str(card) for card in cards)


def check_distinct(*groups: Sequence[Card], names: Sequence[str] = ()) -> None:
    """Raise :class:`CardError` naming the first card that appears twice across the groups, and where, if the
    groups have ``names``.

    >>> check_distinct([Card.parse("As")], [], [Card.parse("As")], names=["hand 1", "the board", "the dead cards"])
    Traceback (most recent call last):
    ...
    engine.cards.CardError: card As appears more than once (in hand 1 and in the dead cards)
    """
    seen: dict[Card, int] = {}  # each card and the group it was first seen in
    for i, group in enumerate(groups):
        for card in group:
            first = seen.get(card)
            if first is None:
                seen[card] = i
            elif not names:
                raise CardError(f"card {card} appears more than once")
            else:
                where = f"twice in {names[i]}" if first == i else f"in {names[first]} and in {names[i]}"
                raise CardError(f"card {card} appears more than once ({where})")


def group_names(hands: int, board: str = "the board") -> list[str]:
    """The names :func:`check_distinct` gives the groups of an equity question or a showdown: each hand, the board
    (``board``: Telesina's is the vela) and the dead cards."""
    return [f"hand {i + 1}" for i in range(hands)] + [board, "the dead cards"]


def deck52() -> tuple[Card, ...]:
    """The 52-card pack, in id order (2c 2d 2h 2s 3c ... As)."""
    return tuple(Card(i) for i in range(52))


def deck32() -> tuple[Card, ...]:
    """The 32-card pack: ranks 7 to ace only."""
    return tuple(Card(i) for i in range(4 * (Rank.SEVEN - 2), 52))


def shuffled(cards: Sequence[Card], rng: random.Random) -> list[Card]:
    """A shuffled copy of ``cards``. Randomness comes only from the ``rng`` passed in."""
    out = list(cards)
    rng.shuffle(out)
    return out
