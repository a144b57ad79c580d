"""32-Card Draw: 32 cards (7 to ace), exactly the five cards, and never a tie.

Royal flush, straight flush, four of a kind, flush, full house, straight, three of
a kind, two pair, pair, high card; suit order hearts > diamonds > clubs > spades;
``TJQKA`` the highest straight, ``A789T`` the lowest. Tie-breaks, in order:

* royal flush: the higher suit;
* straight flush, straight: the top card, then the suit of the top card;
* four of a kind, full house, three of a kind: the rank of the set;
* flush: ranks high to low, then the suit;
* two pair: top pair, second pair, kicker, then the suit of the top pair's highest card;
* pair: pair rank, kickers high to low, then the suit of the pair's highest card;
* high card: ranks high to low, then the suit of the highest card.

Those steps already separate any two hands dealt from one pack (hands that share no
card). So that *every* two different five-card sets also compare unequal, the key
ends with the five cards themselves ordered by rank then suit: a last step that only
hands sharing a card can reach, so it never decides a real showdown.

>>> from engine.cards import parse_cards
>>> DRAW32.evaluate(parse_cards("Th Jh Qh Kh Ah")) > DRAW32.evaluate(parse_cards("Td Jd Qd Kd Ad"))
True
>>> DRAW32.evaluate(parse_cards("Ah Kc 9d 8s 7h")) > DRAW32.evaluate(parse_cards("As Kh 9c 8d 7d"))
True
"""

from __future__ import annotations

from numba import njit

from engine.rankings.core import (
    SHORT_WHEEL_MASK,
    DeckSize,
    Ranking,
    best_suit_of_rank,
    codes_desc,
    pack,
    telesina_suit,
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
    high_parts,
)
from engine.rankings.short import (
    SHORT_CATEGORIES_ROYAL,
    T_FLUSH,
    T_FULL_HOUSE,
    T_HIGH,
    T_PAIR,
    T_QUADS,
    T_ROYAL,
    T_STRAIGHT,
    T_STRAIGHT_FLUSH,
    T_TRIPS,
    T_TWO_PAIR,
)


@njit(cache=True)
def draw32_spec_parts(c0: int, c1: int, c2: int, c3: int, c4: int) -> tuple[int, int]:
    """(category index, packed fields): the rule book's tie-breaks only."""
    category, fields = high_parts(c0, c1, c2, c3, c4, SHORT_WHEEL_MASK)
    if category == STRAIGHT_FLUSH:
        if fields == 14:
            return T_ROYAL, telesina_suit(c0)
        return T_STRAIGHT_FLUSH, (fields << 4) | telesina_suit(c0)
    if category == QUADS:
        return T_QUADS, fields >> 4
    if category == FLUSH:
        return T_FLUSH, (fields << 4) | telesina_suit(c0)
    if category == FULL_HOUSE:
        return T_FULL_HOUSE, fields >> 4
    if category == STRAIGHT:
        return T_STRAIGHT, (fields << 4) | best_suit_of_rank(fields, c0, c1, c2, c3, c4)
    if category == TRIPS:
        return T_TRIPS, fields >> 8
    if category == HIGH_CARD:
        return T_HIGH, (fields << 4) | best_suit_of_rank(fields >> 16, c0, c1, c2, c3, c4)
    if category == ONE_PAIR:
        return T_PAIR, (fields << 4) | best_suit_of_rank(fields >> 12, c0, c1, c2, c3, c4)
    return T_TWO_PAIR, (fields << 4) | best_suit_of_rank(fields >> 8, c0, c1, c2, c3, c4)


@njit(cache=True)
def draw32_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards under the 32-Card Draw ranking; distinct cards, distinct keys."""
    category, fields = draw32_spec_parts(c0, c1, c2, c3, c4)
    return pack(category, fields, codes_desc(c0, c1, c2, c3, c4))


DRAW32 = Ranking(
    name="draw32",
    title="32-Card Draw",
    code=6,
    deck=DeckSize.SHORT,
    categories=SHORT_CATEGORIES_ROYAL,
    key5=draw32_key5,
)
