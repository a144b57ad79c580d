"""Soko (52 cards, exactly the five cards): the standard ranking plus two short hands.

Best first: royal flush, straight flush, four of a kind, full house, flush,
straight, three of a kind, two pair, **four-flush**, **four-straight**, one pair,
high card. A four-flush is four cards of one suit; a four-straight is four ranks
in sequence (the ace high or low: ``A234`` and ``JQKA``, no wrap).

Tie-breaks: the standard ones; inside a four-flush the four suited cards high to
low, then the odd card; inside a four-straight the top card of the four, then the
odd card (the ace counts high as the odd card). A hand that is both a four-flush
and a four-straight is a four-flush.

>>> from engine.cards import parse_cards
>>> str(SOKO.evaluate(parse_cards("As Ks 9s 4s 4h")))
'four-flush (As Ks 9s 4s 4h)'
>>> SOKO.evaluate(parse_cards("9c Tc Jd Qh 2s")) < SOKO.evaluate(parse_cards("2c 5c 7c 9c Kd"))
True
"""

from __future__ import annotations

from numba import njit

from engine.cards import Card
from engine.rankings.core import (
    WHEEL_MASK,
    DeckSize,
    HandCategory,
    Ranking,
    arrange_by_groups,
    pack,
    push_desc,
)
from engine.rankings.high import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    high_parts,
)

SOKO_CATEGORIES = (
    HandCategory.HIGH_CARD,
    HandCategory.ONE_PAIR,
    HandCategory.FOUR_STRAIGHT,
    HandCategory.FOUR_FLUSH,
    HandCategory.TWO_PAIR,
    HandCategory.THREE_OF_A_KIND,
    HandCategory.STRAIGHT,
    HandCategory.FLUSH,
    HandCategory.FULL_HOUSE,
    HandCategory.FOUR_OF_A_KIND,
    HandCategory.STRAIGHT_FLUSH,
    HandCategory.ROYAL_FLUSH,
)
S_HIGH, S_PAIR, S_FOUR_STRAIGHT, S_FOUR_FLUSH, S_TWO_PAIR, S_TRIPS = range(6)
S_STRAIGHT, S_FLUSH, S_FULL_HOUSE, S_QUADS, S_STRAIGHT_FLUSH, S_ROYAL = range(6, 12)


@njit(cache=True)
def _standard_to_soko(category: int) -> int:
    if category == HIGH_CARD:
        return S_HIGH
    if category == ONE_PAIR:
        return S_PAIR
    if category == TWO_PAIR:
        return S_TWO_PAIR
    if category == TRIPS:
        return S_TRIPS
    if category == STRAIGHT:
        return S_STRAIGHT
    if category == FLUSH:
        return S_FLUSH
    if category == FULL_HOUSE:
        return S_FULL_HOUSE
    if category == QUADS:
        return S_QUADS
    return S_STRAIGHT_FLUSH


@njit(cache=True)
def four_flush_fields(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Fields of a four-flush (four suited ranks high to low, then the odd card), or 0."""
    for suit in range(4):
        suited = 0
        n = 0
        odd = 0
        for c in (c0, c1, c2, c3, c4):
            if (c & 3) == suit:
                suited |= 1 << (c >> 2)
                n += 1
            else:
                odd = (c >> 2) + 2
        if n == 4:
            return (push_desc(0, suited) << 4) | odd
    return 0


@njit(cache=True)
def four_straight_fields(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Fields of a four-straight (top card of the four, then the odd card), or 0."""
    distinct = 0
    total = 0
    for c in (c0, c1, c2, c3, c4):
        distinct |= 1 << (c >> 2)
        total += (c >> 2) + 2
    for top in range(14, 3, -1):
        if top == 4:
            window = WHEEL_MASK & ~(1 << 3)  # A234
            window_sum = 14 + 2 + 3 + 4
        else:
            window = 0b1111 << (top - 5)
            window_sum = 4 * top - 6
        if distinct & window == window:
            return (top << 4) | (total - window_sum)
    return 0


@njit(cache=True)
def soko_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards under the Soko ranking (greater is better)."""
    category, fields = high_parts(c0, c1, c2, c3, c4, WHEEL_MASK)
    if category == STRAIGHT_FLUSH and fields == 14:
        return pack(S_ROYAL, 14, 0)
    if category <= ONE_PAIR:  # high card or one pair: a short hand may beat it
        short = four_flush_fields(c0, c1, c2, c3, c4)
        if short:
            return pack(S_FOUR_FLUSH, short, 0)
        short = four_straight_fields(c0, c1, c2, c3, c4)
        if short:
            return pack(S_FOUR_STRAIGHT, short, 0)
    return pack(_standard_to_soko(category), fields, 0)


def arrange_soko(cards: tuple[Card, ...], category: HandCategory) -> tuple[Card, ...]:
    """The four of a four-flush or four-straight first (high to low), then the odd card."""
    if category is HandCategory.FOUR_FLUSH:
        for suit in {c.suit for c in cards}:
            suited = [c for c in cards if c.suit == suit]
            if len(suited) == 4:
                odd = [c for c in cards if c.suit != suit]
                return tuple(sorted(suited, key=lambda c: c.rank, reverse=True)) + tuple(odd)
    if category is HandCategory.FOUR_STRAIGHT:
        fields = four_straight_fields(*(c.id for c in cards))
        top = fields >> 4
        wanted = [14, 2, 3, 4] if top == 4 else list(range(top - 3, top + 1))
        four: list[Card] = []
        rest = list(cards)
        for rank in sorted(wanted, key=lambda r: 1 if r == 14 and top == 4 else r, reverse=True):
            card = next(c for c in rest if c.rank == rank)
            four.append(card)
            rest.remove(card)
        return tuple(four) + tuple(rest)
    return arrange_by_groups(cards, category)


SOKO = Ranking(
    name="soko",
    title="Soko",
    code=3,
    deck=DeckSize.FULL,
    categories=SOKO_CATEGORIES,
    key5=soko_key5,
    arrange=arrange_soko,
)
