"""The dealer: a card-by-card dealing procedure over a seeded or fixed deck.

The procedure is the one the irregularity rules assume (``irregularities.md``):
shuffle, cut, deal hole cards one at a time round the table starting with the
first seat, and burn one card before each of flop, turn and river. Every card
leaves the deck through :meth:`Dealer.draw`, which records it, so a deal is a
sequence of :class:`Dealt` records that can be stored and replayed.

All randomness comes from the ``random.Random`` passed to :meth:`Dealer.shuffled`;
the same seed gives the same deal.

>>> import random
>>> d = Dealer.shuffled(random.Random(7))
>>> holes = d.deal_hole(seats=4, per_seat=2)
>>> flop = d.deal_board(3)
>>> [r.to for r in d.record][-4:]
['burn', 'board', 'board', 'board']
>>> len(d.remaining)
40
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card, CardError, check_distinct, deck52

BURN = "burn"
BOARD = "board"
DECK = "deck"


@dataclass(frozen=True, slots=True)
class Dealt:
    """One card leaving the deck: where it went (``"burn"``, ``"board"`` or ``"seat N"``)."""

    card: Card
    to: str


class DeckExhausted(CardError):
    """The deck has no card left for the next step of the deal."""


class Dealer:
    """Deals from a deck whose top card is ``deck[0]``."""

    def __init__(self, deck: Sequence[Card]) -> None:
        check_distinct(deck)
        self._deck = list(deck)
        self._next = 0
        self.record: list[Dealt] = []

    @classmethod
    def shuffled(cls, rng: random.Random, deck: Sequence[Card] | None = None, *, cut: bool = True) -> Dealer:
        """Shuffle ``deck`` (default: 52 cards) with ``rng``, then cut it at a random point."""
        cards = list(deck52() if deck is None else deck)
        rng.shuffle(cards)
        if cut and len(cards) > 2:
            at = rng.randrange(1, len(cards) - 1)
            cards = cards[at:] + cards[:at]
        return cls(cards)

    @property
    def remaining(self) -> tuple[Card, ...]:
        return tuple(self._deck[self._next :])

    def draw(self, to: str) -> Card:
        """Take the top card and record where it went."""
        if self._next >= len(self._deck):
            raise DeckExhausted(f"the deck is empty after {len(self.record)} cards; cannot deal to {to}")
        card = self._deck[self._next]
        self._next += 1
        self.record.append(Dealt(card, to))
        return card

    def deal_hole(self, seats: int, per_seat: int) -> list[tuple[Card, ...]]:
        """Deal ``per_seat`` cards to each seat, one card at a time round the table."""
        hands: list[list[Card]] = [[] for _ in range(seats)]
        for _ in range(per_seat):
            for seat in range(seats):
                hands[seat].append(self.draw(f"seat {seat + 1}"))
        return [tuple(hand) for hand in hands]

    def mark(self, card: Card, to: str) -> None:
        """Record a step that moves a card already out of the deck (exposed, set aside, made the burn)."""
        self.record.append(Dealt(card, to))

    def restack(self, returned: Sequence[Card], rng: random.Random, *, cut: bool = True) -> None:
        """Shuffle ``returned`` (cards already dealt) back into the undealt deck with ``rng``, then cut.

        Each returned card is recorded as going to ``"deck"``; the new order comes from ``rng``
        alone, so a deal with a reshuffle replays from its seeds.
        """
        rest = list(returned) + list(self.remaining)
        check_distinct(rest)
        for card in returned:
            self.mark(card, DECK)
        rng.shuffle(rest)
        if cut and len(rest) > 2:
            at = rng.randrange(1, len(rest) - 1)
            rest = rest[at:] + rest[:at]
        self._deck = self._deck[: self._next] + rest

    def burn(self) -> Card:
        return self.draw(BURN)

    def deal_board(self, count: int, *, burn: bool = True) -> tuple[Card, ...]:
        """Burn one card (unless told not to), then turn ``count`` board cards."""
        if burn:
            self.burn()
        return tuple(self.draw(BOARD) for _ in range(count))


def arrange_deck(
    hands: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    *,
    board_streets: Sequence[int] = (3, 1, 1),
    deck: Sequence[Card] | None = None,
) -> list[Card]:
    """A deck order from which :class:`Dealer` deals exactly ``hands`` and ``board``.

    Burn cards and the rest of the deck are filled, in id order, from the cards
    not named. Used by tests and by replays of a known deal.

    >>> from engine.cards import parse_cards
    >>> order = arrange_deck([parse_cards("AsKs"), parse_cards("QdQc")], parse_cards("2c3c4c5c6c"))
    >>> d = Dealer(order)
    >>> [str(c) for hand in d.deal_hole(2, 2) for c in hand]
    ['As', 'Ks', 'Qd', 'Qc']
    >>> [str(c) for c in d.deal_board(3) + d.deal_board(1) + d.deal_board(1)]
    ['2c', '3c', '4c', '5c', '6c']
    """
    check_distinct(*hands, board)
    per_seat = len(hands[0]) if hands else 0
    if any(len(hand) != per_seat for hand in hands):
        raise CardError("every hand must have the same number of cards")
    named = {card for hand in hands for card in hand} | set(board)
    spare = [card for card in (deck52() if deck is None else deck) if card not in named]
    order: list[Card] = []
    for i in range(per_seat):
        order.extend(hand[i] for hand in hands)
    position = 0
    for count in board_streets:
        if position >= len(board):
            break
        order.append(spare.pop(0))
        order.extend(board[position : position + count])
        position += count
    order.extend(spare)
    return order
