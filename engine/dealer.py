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
    """Deals from a deck whose top card is ``deck[0]``.

    ``rng`` shuffles a draw round's discards should the deck run out (draw games);
    without one, a generator seeded from the deck order is used, so a fixed deck
    still deals the same cards every time.
    """

    def __init__(self, deck: Sequence[Card], rng: random.Random | None = None) -> None:
        check_distinct(deck)
        self._deck = list(deck)
        self._next = 0
        self.record: list[Dealt] = []
        self._discarded: list[Card] = []  # the earlier draws' discards, not dealt again
        self._rng = rng if rng is not None else random.Random(" ".join(str(c) for c in deck))

    @classmethod
    def shuffled(cls, rng: random.Random, deck: Sequence[Card] | None = None, *, cut: bool = True) -> Dealer:
        """Shuffle ``deck`` (default: 52 cards) with ``rng``, then cut it at a random point."""
        cards = list(deck52() if deck is None else deck)
        rng.shuffle(cards)
        if cut and len(cards) > 2:
            at = rng.randrange(1, len(cards) - 1)
            cards = cards[at:] + cards[:at]
        return cls(cards, rng)

    def restricted(self, pack: Sequence[Card]) -> Dealer:
        """The same deck order keeping only the cards of ``pack`` (a 32-card game dealt from a 52-card shuffle).

        A uniform shuffle of 52 cards, read without the others, is a uniform shuffle of the pack.
        Only before the first card is dealt.
        """
        if self.record:
            raise CardError("a deck can be restricted to a pack only before the deal starts")
        keep = set(pack)
        return Dealer([card for card in self._deck if card in keep], self._rng)

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


    def deal_seats(self, seats: int, per_seat: int, *, burn: bool) -> list[tuple[Card, ...]]:
        """Burn one card if told to, then deal ``per_seat`` cards to each seat, one at a time round the table."""
        if burn:
            self.burn()
        return self.deal_hole(seats, per_seat)

    def replace(self, discards: Sequence[Sequence[Card]], *, burn: bool = True) -> list[tuple[Card, ...]]:
        """One draw: each seat, in seat order, gets as many cards as it discarded (``discards[i]``).

        Replacements come off the deck (after one burn, if a card is left to burn).
        Should it run out, this round's discards are shuffled with the dealer's
        ``rng`` and dealt on; a seat never receives its own discards (the first
        card of the pile that is not its own is taken). Should none be left for a
        seat, the earlier draws' discards are shuffled in below the pile. Raises
        :class:`DeckExhausted` if even then a seat cannot be served.

        >>> from engine.cards import parse_cards
        >>> d = Dealer(parse_cards("2c 3c 4c 5c 6c 7c"))
        >>> [str(c) for c in d.replace([parse_cards("As Ks"), parse_cards("Qs")])[0]]
        ['3c', '4c']
        """
        if burn and self._next < len(self._deck):
            self.burn()
        pile: list[Card] | None = None
        out: list[tuple[Card, ...]] = []
        for seat, own in enumerate(discards, start=1):
            got: list[Card] = []
            for _ in own:
                if self._next < len(self._deck):
                    got.append(self.draw(f"seat {seat}"))
                    continue
                if pile is None:
                    pile = [card for seat_discards in discards for card in seat_discards]
                    self._rng.shuffle(pile)
                got.append(self._from_pile(pile, own, seat))
            out.append(tuple(got))
        self._discarded.extend(pile if pile is not None else (card for own in discards for card in own))
        return out

    def _from_pile(self, pile: list[Card], own: Sequence[Card], seat: int) -> Card:
        if all(card in own for card in pile) and self._discarded:
            earlier, self._discarded = self._discarded, []
            self._rng.shuffle(earlier)
            pile.extend(earlier)
        for i, card in enumerate(pile):
            if card not in own:
                del pile[i]
                self.record.append(Dealt(card, f"seat {seat}"))
                return card
        raise DeckExhausted(f"the deck and the reshuffled discards are out; cannot deal to seat {seat}")


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
