"""Dealer integration: the hidden side of one game and the public cards it has turned.

:class:`GameDeal` owns the :class:`~engine.dealer.Dealer` for one game. It
deals the hole cards face down at the start, turns them at the Deal close,
and burns and turns the board street by street. Whatever has been turned is
copied into a :class:`PublicCards` value: the *only* thing about cards that
the rest of the system (views, agents, equities, events) ever receives. A
face-down card never leaves this module before it is turned.

Where decks come from is a :data:`DeckSource`: seeded (``seeded_decks``,
reproducible from the channel seed and the game number) or fixed
(``fixed_decks``, for tests and replays of a known deal).

>>> from engine.cards import parse_cards
>>> from engine.dealer import arrange_deck
>>> deck = arrange_deck([parse_cards(h) for h in ("AsKs", "QdQc", "7h6h", "2c2d")], parse_cards("Ah7c2s9d3h"))
>>> deal = GameDeal(fixed_decks([deck])(0), hands=4, hole_cards=2)
>>> deal.public.hands
(None, None, None, None)
>>> deal.turn_hole_cards()
>>> [format_cards(h) for h in deal.public.hands if h is not None]
['As Ks', 'Qd Qc', '7h 6h', '2c 2d']
>>> format_cards(deal.turn_board(3))
'Ah 7c 2s'
>>> format_cards(deal.public.board)
'Ah 7c 2s'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.cards import Card, format_cards
from engine.dealer import Dealer, Dealt
from engine.irregularities import IrregularDeal, Irregularity

DeckSource = Callable[[int], Dealer]
"""Given a game number, the dealer (with its deck in order) for that game."""

__all__ = ["DeckSource", "GameDeal", "PublicCards", "fixed_decks", "format_cards", "seeded_decks"]


def seeded_decks(seed: int | str, *, cut: bool = True) -> DeckSource:
    """Shuffle (and cut) a fresh 52-card pack per game from ``random.Random(f"{seed}/{game_number}")``.

    String seeds hash with SHA-512 inside ``random``, so the deal does not depend
    on ``PYTHONHASHSEED`` or on the order games are played in.

    >>> a, b = seeded_decks(7)(3), seeded_decks(7)(3)
    >>> a.remaining == b.remaining != seeded_decks(7)(4).remaining
    True
    """

    def source(game_number: int) -> Dealer:
        return Dealer.shuffled(random.Random(f"{seed}/{game_number}"), cut=cut)

    return source


def fixed_decks(decks: Sequence[Sequence[Card]], *, cycle: bool = False) -> DeckSource:
    """Deal game ``n`` from ``decks[n]`` (top card first), e.g. from :func:`engine.dealer.arrange_deck`.

    Past the last deck: start again if ``cycle``, else raise ``IndexError``.
    """
    frozen = [tuple(deck) for deck in decks]
    if not frozen:
        raise ValueError("fixed_decks needs at least one deck")

    def source(game_number: int) -> Dealer:
        if game_number >= len(frozen) and not cycle:
            raise IndexError(f"no fixed deck for game {game_number}; {len(frozen)} deck(s) given")
        return Dealer(frozen[game_number % len(frozen)])

    return source


@dataclass(frozen=True, slots=True)
class PublicCards:
    """The cards face up on the table: each hand's hole cards (``None`` while face down) and the board.

    ``exposed``: cards a dealer's error showed before their time (out of play, or
    shuffled back into the deck): everyone has seen them.
    """

    hands: tuple[tuple[Card, ...] | None, ...]
    board: tuple[Card, ...] = ()
    exposed: tuple[Card, ...] = ()

    @property
    def hole_cards_visible(self) -> bool:
        return all(hand is not None for hand in self.hands)

    def visible_hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every hand's hole cards; raises ``LookupError`` while they are face down."""
        if not self.hole_cards_visible:
            raise LookupError("hole cards are face down until the Deal window closes")
        return tuple(hand for hand in self.hands if hand is not None)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "hands": [None if hand is None else format_cards(hand) for hand in self.hands],
            "board": format_cards(self.board),
        }
        if self.exposed:
            out["exposed"] = format_cards(self.exposed)
        return out


class GameDeal:
    """One game's cards, dealt as ``irregularities.md`` says: hole cards round the table, a burn before each street."""

    def __init__(
        self, dealer: Dealer, *, hands: int, hole_cards: int,
        irregularity: Irregularity | None = None, rng: random.Random | None = None,
    ) -> None:
        self._dealer = dealer
        #: The misdeal (``"misdeal (...)"``) if the deal was one: the game is then void.
        self.misdeal: str | None = None
        self._irregular: IrregularDeal | None = None
        exposed: tuple[Card, ...] = ()
        if irregularity is None:
            self._hole = dealer.deal_hole(seats=hands, per_seat=hole_cards)
        else:
            self._irregular = IrregularDeal(dealer, irregularity, rng or random.Random(0))
            hole = self._irregular.deal_hole(hands, hole_cards)
            self._hole, self.misdeal, exposed = list(hole.hands), hole.misdeal, hole.exposed
        self.public = PublicCards(hands=(None,) * hands, exposed=exposed)
        #: The cards a dealer's error showed while the last street was turned (too many flop cards).
        self.last_seen: tuple[Card, ...] = ()

    def turn_hole_cards(self) -> None:
        """Turn every hand's hole cards face up (at the Deal close)."""
        if self.public.hole_cards_visible:
            raise RuntimeError("hole cards are already face up")
        self.public = PublicCards(hands=tuple(self._hole), board=self.public.board, exposed=self.public.exposed)

    def turn_board(self, count: int) -> tuple[Card, ...]:
        """Burn one card, then turn ``count`` board cards; returns the cards turned."""
        if not self.public.hole_cards_visible:
            raise RuntimeError("the board is dealt only after the hole cards are turned")
        seen: tuple[Card, ...] = ()
        if self._irregular is None:
            cards = self._dealer.deal_board(count)
        else:
            cards, seen = self._irregular.turn_board(count)
        self.public = PublicCards(self.public.hands, self.public.board + cards, self.public.exposed + seen)
        self.last_seen = seen
        return cards

    def expose_early(self, street: int) -> tuple[Card, ...]:
        """A premature street (0 flop, 1 turn, 2 river): turn it now and take it out of play as the rules say."""
        if self._irregular is None:
            raise RuntimeError("no irregularity is injected in this deal")
        seen = self._irregular.expose_early(street)
        self.public = PublicCards(self.public.hands, self.public.board, self.public.exposed + seen)
        return seen

    def record(self) -> tuple[Dealt, ...]:
        """Every card that has left the deck, in order, burns included. Publish only after the game."""
        return tuple(self._dealer.record)
