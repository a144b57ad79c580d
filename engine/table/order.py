"""Who acts first, and who shows first: the rules' orders (``variants.md``, "Betting order", "Stud games").

Seats are numbered clockwise from the first seat left of the button (seat 0); the
button is the last seat. Heads-up the button posts the small blind and acts first
before the flop, last after it (the standard rule).

In stud games the up cards decide: the bring-in by the variant's
:class:`~engine.variants.BringIn` rule, later rounds by the best poker hand the up
cards make (:func:`up_strength`; pairs and sets only, as four or fewer cards make no
straight or flush; Soko's four-flush and four-straight count with four up cards).
Telesina's hands are its ranking T's, which breaks ties by suit (hearts > diamonds >
clubs > spades): high cards are compared card by card, rank then suit, equal pairs
with equal kickers by the suit of the highest kicker, and equal two pairs by the suit
of the top pair's highest card. Other ties (a pair alone showing against an equal
one) go to the seat closest to the button's left.

>>> from engine.cards import parse_cards
>>> up_strength(parse_cards("Kd Kc"), "stud7") > up_strength(parse_cards("As Qs"), "stud7")
True
>>> up_strength(parse_cards("9s 7s 4s 2s"), "soko") > up_strength(parse_cards("Ah Ad Kc Qs"), "soko")
True
>>> up_strength(parse_cards("9s 7s 4s 2s"), "soko") > up_strength(parse_cards("Ah Ad Kc Kd"), "soko")
False
>>> up_strength(parse_cards("Ah 8h"), "telesina") > up_strength(parse_cards("As Kc"), "telesina")  # the ace of hearts
True
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, Suit

_HIGH, _PAIR, _FOUR_STRAIGHT, _FOUR_FLUSH, _TWO_PAIR, _TRIPS, _QUADS = range(7)
#: Ranking T's suits, weakest first (``variants.md``: hearts > diamonds > clubs > spades).
_TELESINA_SUITS = (Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS)


def up_strength(cards: Sequence[Card], variant: str) -> tuple[int, ...]:
    """A comparable strength of a seat's up cards in game ``variant`` (greater is better): ranks only, but
    Telesina's, whose ranking breaks ties by suit."""
    counts: dict[int, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    grouped = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    ranks = tuple(rank for rank, count in grouped for _ in range(count))
    shape = tuple(count for _, count in grouped)
    category = _HIGH
    if shape[:1] == (4,):
        category = _QUADS
    elif shape[:1] == (3,):
        category = _TRIPS
    elif shape[:2] == (2, 2):
        category = _TWO_PAIR
    elif shape[:1] == (2,):
        category = _PAIR
    if variant == "soko" and len(cards) == 4 and category < _TWO_PAIR:
        if len({card.suit for card in cards}) == 1:
            return (_FOUR_FLUSH, *ranks)
        top = _four_straight_top(set(counts))
        if top:
            return (_FOUR_STRAIGHT, top)
    if variant == "telesina":
        return (category, *_telesina_ties(cards, category, ranks))
    return (category, *ranks)


def _telesina_ties(cards: Sequence[Card], category: int, ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Ranking T within a category: high cards card by card, each by rank then suit; a pair by its rank, its
    kickers, then the suit of the highest kicker (a pair alone showing: no suit, a tie); two pair by their ranks,
    then the suit of the top pair's highest card; sets by rank (two equal ones cannot both be showing)."""
    def suit(card: Card) -> int:
        return _TELESINA_SUITS.index(card.suit)

    if category == _HIGH:
        return tuple(card.rank * 4 + suit(card) for card in sorted(cards, key=lambda c: (c.rank, suit(c)),
                                                                    reverse=True))
    if category == _PAIR and len(cards) > 2:
        kickers = [card for card in cards if ranks.count(card.rank) == 1]
        return (*ranks, suit(max(kickers, key=lambda c: (c.rank, suit(c)))))
    if category == _TWO_PAIR:  # no kicker showing: the suit of the top pair's highest card, as ranking T's two pair
        return (*ranks, max(suit(card) for card in cards if card.rank == ranks[0]))
    return ranks


def _four_straight_top(ranks: set[int]) -> int:
    if len(ranks) != 4:
        return 0
    if max(ranks) - min(ranks) == 3:
        return max(ranks)
    if ranks == {14, 2, 3, 4}:
        return 4
    return 0


def best_up_seat(up_cards: Sequence[Sequence[Card] | None], variant: str) -> int:
    """The seat whose up cards are best in game ``variant`` (``None`` for a seat out of the hand); ties to the
    lowest seat."""
    best, seat = None, -1
    for i, cards in enumerate(up_cards):
        if cards is None:
            continue
        strength = up_strength(cards, variant)
        if best is None or strength > best:
            best, seat = strength, i
    return seat


def clockwise_from(first: int, seats: int) -> list[int]:
    """Every seat, starting at ``first`` and going clockwise."""
    return [(first + k) % seats for k in range(seats)]
