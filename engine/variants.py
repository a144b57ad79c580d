"""The eleven games of the seed text, each one frozen record (see ``spec/variants.md``).

A :class:`Variant` says which pack is used, what each street deals (cards down,
up, to the board, or a draw), how a hand is formed from a seat's cards and the
board, which ranking decides the pot (and the low half, in hi/lo games), and how
many seats the table has. Code reads these records; no game is special-cased by
name outside this module.

>>> v = get_variant("stud7-hilo")
>>> v.deck, v.hole_cards, v.board_cards, v.betting_rounds, v.is_hilo
(<DeckSize.FULL: 52>, 7, 0, 5, True)
>>> get_variant("telesina").board_cards, get_variant("telesina").ranking.name
(1, 'telesina')
>>> get_variant("razz")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.variants.UnknownVariantError: unknown variant 'razz'; the variants are holdem, omaha, ..., draw32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine._errors import EngineInputError, InvariantError
from engine.cards import Card, Suit
from engine.rankings import (
    AMERICANA,
    DEUCE_TO_SEVEN,
    DRAW32,
    EIGHT_OR_BETTER,
    HIGH,
    SOKO,
    TELESINA,
    DeckSize,
    Ranking,
)


class Face(StrEnum):
    """Where a dealt card goes."""

    DOWN = "down"  # to a seat, face down
    UP = "up"  # to a seat, face up
    BOARD = "board"  # to the middle, shared (Hold'em board, Telesina's vela)
    DRAW = "draw"  # a seat may replace up to ``count`` of its cards


@dataclass(frozen=True)
class Deal:
    """``count`` cards going ``face``; for a draw, the most cards a seat may replace."""

    face: Face
    count: int


@dataclass(frozen=True)
class Street:
    """One dealing step, followed by a betting round.

    ``big_bet``: in fixed limit the round's bets and raises are the big bet (the
    later rounds), else the small bet.
    """

    name: str
    deals: tuple[Deal, ...]
    big_bet: bool = False

    def count(self, face: Face) -> int:
        return sum(d.count for d in self.deals if d.face is face)


class HandForm(StrEnum):
    """How a seat makes its five-card hand."""

    BEST_FIVE = "best five of the seat's cards and the board"
    OMAHA = "exactly two hole cards and exactly three board cards"
    EXACT_FIVE = "exactly the seat's five cards"


class ForcedBets(StrEnum):
    BLINDS = "small and big blind"
    ANTE_BRING_IN = "ante and bring-in"


@dataclass(frozen=True)
class BringIn:
    """Which up card brings in: the lowest or highest, ties by ``suit_order`` (strongest first).

    >>> from engine.cards import parse_cards
    >>> get_variant("stud7").bring_in.seat(parse_cards("2s 2c Kd"))  # the 2 of clubs is the lowest card
    1
    >>> get_variant("telesina").bring_in.seat(parse_cards("As Ah Kd"))  # hearts are the highest suit
    1
    """

    lowest: bool
    suit_order: tuple[Suit, ...]

    def strength(self, card: Card) -> tuple[int, int]:
        """Rank (ace high), then suit by this game's order; greater is higher."""
        return card.rank, len(self.suit_order) - self.suit_order.index(card.suit)

    def seat(self, up_cards: Sequence[Card]) -> int:
        """The index (in ``up_cards``, one per seat) of the seat that must bring in."""
        if not up_cards:
            raise EngineInputError("the bring-in needs at least one seat's up card")
        pick = min if self.lowest else max
        return pick(range(len(up_cards)), key=lambda i: self.strength(up_cards[i]))


@dataclass(frozen=True)
class Variant:
    """One game, as data.

    ``ranking`` decides the pot (the high half of a hi/lo pot; for 2-7 Triple Draw
    it is the deuce-to-seven low); ``low`` is the low half's ranking, or ``None``.
    ``shared_last_card``: if the pack runs short, one face-up card is dealt to the
    board as everyone's last card (7-Card Stud). ``open_pair_double_limit``: in
    fixed limit an open pair on the second betting round allows the big bet there
    (7-Card Stud). ``split_offer``: in the round after the draw the first seat to act
    may offer to split the pot (32-Card Draw).
    """

    name: str
    title: str
    deck: DeckSize
    max_seats: int
    forced_bets: ForcedBets
    streets: tuple[Street, ...]
    hand_form: HandForm
    ranking: Ranking
    low: Ranking | None = None
    bring_in: BringIn | None = None
    shared_last_card: bool = False
    open_pair_double_limit: bool = False
    split_offer: bool = False

    @property
    def hole_cards(self) -> int:
        """Cards each seat holds at the showdown (down and up)."""
        return sum(s.count(Face.DOWN) + s.count(Face.UP) for s in self.streets)

    @property
    def board_cards(self) -> int:
        """Shared cards at the showdown (board, or Telesina's vela)."""
        return sum(s.count(Face.BOARD) for s in self.streets)

    @property
    def draws(self) -> tuple[int, ...]:
        """For each draw, the most cards a seat may replace."""
        return tuple(d.count for s in self.streets for d in s.deals if d.face is Face.DRAW)

    @property
    def between_streets(self) -> tuple[tuple[int, int], ...]:
        """(cards each seat holds, board cards) before the deal and after each street: where a deal can stand
        when equity is asked, every seat dealt alike.

        >>> get_variant("omaha-hilo").between_streets
        ((0, 0), (4, 0), (4, 3), (4, 4), (4, 5))
        >>> get_variant("telesina").between_streets
        ((0, 0), (2, 0), (3, 0), (4, 0), (5, 0), (5, 1))
        """
        states = [(0, 0)]
        for street in self.streets:
            own, board = states[-1]
            after = (own + street.count(Face.DOWN) + street.count(Face.UP), board + street.count(Face.BOARD))
            if after != states[-1]:  # a draw changes cards, not their number
                states.append(after)
        return tuple(states)

    @property
    def betting_rounds(self) -> int:
        return len(self.streets)

    @property
    def is_hilo(self) -> bool:
        return self.low is not None

    @property
    def has_draws(self) -> bool:
        """Draw games: the cards depend on the players' decisions, so no equity."""
        return bool(self.draws)

    def _check(self) -> None:
        """Check the record's invariants (called for every variant at import).

        Raises :class:`~engine.InvariantError` naming the broken one.
        """
        hole, board = self.hole_cards, self.board_cards
        if self.deck is not self.ranking.deck:
            raise InvariantError(f"{self.name}: a {self.deck}-card pack, a ranking for {self.ranking.deck} cards")
        if self.low is not None and self.low.deck is not self.deck:
            raise InvariantError(f"{self.name}: a {self.deck}-card pack, a low ranking for {self.low.deck} cards")
        if self.hand_form is HandForm.EXACT_FIVE and (hole, board) != (5, 0):
            raise InvariantError(f"{self.name}: an exact-five hand needs 5 own cards and no board, not {hole}, {board}")
        if self.hand_form is HandForm.OMAHA and (hole < 2 or board < 3):
            raise InvariantError(f"{self.name}: an Omaha hand needs 2+ hole and 3+ board cards, not {hole}, {board}")
        if self.hand_form is HandForm.BEST_FIVE and hole + board < 5:
            raise InvariantError(f"{self.name}: a best-five hand from {hole} hole and {board} board cards")
        if self.max_seats * hole + board > self.deck and not self.shared_last_card:
            need = self.max_seats * hole + board
            raise InvariantError(f"{self.name}: {self.max_seats} seats deal {need} cards from a {self.deck}-card pack")
        if (self.forced_bets is ForcedBets.ANTE_BRING_IN) != (self.bring_in is not None):
            rule = "no bring-in rule" if self.bring_in is None else "a bring-in rule"
            raise InvariantError(f"{self.name}: {rule} with forced bets '{self.forced_bets}' (ante games bring in)")


def _down(n: int) -> Deal:
    return Deal(Face.DOWN, n)


def _up(n: int) -> Deal:
    return Deal(Face.UP, n)


def _board(n: int) -> Deal:
    return Deal(Face.BOARD, n)


def _draw(n: int) -> Deal:
    return Deal(Face.DRAW, n)


_BOARD_STREETS = (
    Street("preflop", (_down(2),)),
    Street("flop", (_board(3),)),
    Street("turn", (_board(1),), big_bet=True),
    Street("river", (_board(1),), big_bet=True),
)
_OMAHA_STREETS = (Street("preflop", (_down(4),)), *_BOARD_STREETS[1:])
_FIVE_STUD_STREETS = (
    Street("second street", (_down(1), _up(1))),
    Street("third street", (_up(1),)),
    Street("fourth street", (_up(1),), big_bet=True),
    Street("fifth street", (_up(1),), big_bet=True),
)
_SEVEN_STUD_STREETS = (
    Street("third street", (_down(2), _up(1))),
    Street("fourth street", (_up(1),)),
    Street("fifth street", (_up(1),), big_bet=True),
    Street("sixth street", (_up(1),), big_bet=True),
    Street("seventh street", (_down(1),), big_bet=True),
)
_TELESINA_STREETS = (*_FIVE_STUD_STREETS, Street("vela", (_board(1),), big_bet=True))

_SHSDC = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_HDCS = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES)
_LOWEST_UP = BringIn(lowest=True, suit_order=_SHSDC)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "holdem", "Texas Hold'em", DeckSize.FULL, 8, ForcedBets.BLINDS, _BOARD_STREETS, HandForm.BEST_FIVE, HIGH
        ),
        Variant("omaha", "Omaha", DeckSize.FULL, 8, ForcedBets.BLINDS, _OMAHA_STREETS, HandForm.OMAHA, HIGH),
        Variant(
            "omaha-hilo",
            "Omaha Hi/Lo",
            DeckSize.FULL,
            8,
            ForcedBets.BLINDS,
            _OMAHA_STREETS,
            HandForm.OMAHA,
            HIGH,
            low=EIGHT_OR_BETTER,
        ),
        Variant(
            "soko",
            "Soko",
            DeckSize.FULL,
            8,
            ForcedBets.ANTE_BRING_IN,
            _FIVE_STUD_STREETS,
            HandForm.EXACT_FIVE,
            SOKO,
            bring_in=_LOWEST_UP,
        ),
        Variant(
            "stud7",
            "7-Card Stud",
            DeckSize.FULL,
            8,
            ForcedBets.ANTE_BRING_IN,
            _SEVEN_STUD_STREETS,
            HandForm.BEST_FIVE,
            HIGH,
            bring_in=_LOWEST_UP,
            shared_last_card=True,
            open_pair_double_limit=True,
        ),
        Variant(
            "stud7-hilo",
            "7-Card Stud Hi/Lo",
            DeckSize.FULL,
            8,
            ForcedBets.ANTE_BRING_IN,
            _SEVEN_STUD_STREETS,
            HandForm.BEST_FIVE,
            HIGH,
            low=EIGHT_OR_BETTER,
            bring_in=_LOWEST_UP,
            shared_last_card=True,
        ),
        Variant(
            "draw5",
            "5-Card Draw",
            DeckSize.FULL,
            6,
            ForcedBets.BLINDS,
            (Street("deal", (_down(5),)), Street("draw", (_draw(5),), big_bet=True)),
            HandForm.EXACT_FIVE,
            HIGH,
        ),
        Variant(
            "triple-draw-27",
            "2-7 Triple Draw",
            DeckSize.FULL,
            6,
            ForcedBets.BLINDS,
            (
                Street("deal", (_down(5),)),
                Street("first draw", (_draw(5),)),
                Street("second draw", (_draw(5),), big_bet=True),
                Street("third draw", (_draw(5),), big_bet=True),
            ),
            HandForm.EXACT_FIVE,
            DEUCE_TO_SEVEN,
        ),
        Variant(
            "americana",
            "Americana",
            DeckSize.SHORT,
            6,
            ForcedBets.ANTE_BRING_IN,
            _FIVE_STUD_STREETS,
            HandForm.EXACT_FIVE,
            AMERICANA,
            bring_in=BringIn(lowest=False, suit_order=_SHSDC),
        ),
        Variant(
            "telesina",
            "Telesina",
            DeckSize.SHORT,
            6,
            ForcedBets.ANTE_BRING_IN,
            _TELESINA_STREETS,
            HandForm.BEST_FIVE,
            TELESINA,
            bring_in=BringIn(lowest=False, suit_order=_HDCS),
        ),
        Variant(
            "draw32",
            "32-Card Draw",
            DeckSize.SHORT,
            5,
            ForcedBets.BLINDS,
            (Street("deal", (_down(5),)), Street("draw", (_draw(4),), big_bet=True)),
            HandForm.EXACT_FIVE,
            DRAW32,
            split_offer=True,
        ),
    )
}

for _variant in VARIANTS.values():
    _variant._check()


class UnknownVariantError(EngineInputError):
    """A variant name that is not one of :data:`VARIANTS`."""


def get_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (a :class:`Variant` is returned as it is)."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name]
    except KeyError:
        raise UnknownVariantError(f"unknown variant {name!r}; the variants are {', '.join(VARIANTS)}") from None
