"""Americana: 32 cards (7 to ace), exactly the five cards, ties split.

Royal flush, straight flush, four of a kind, **flush, full house** (a flush beats a
full house), straight, three of a kind, two pair, pair, high card. ``TJQKA`` is the
highest straight and ``A789T`` the lowest. Ties inside a category go by ranks only
(the usual kicker order); equal hands split.

>>> from engine.cards import parse_cards
>>> str(AMERICANA.evaluate(parse_cards("Ah 7c 8d 9s Th")))
'straight (Th 9s 8d 7c Ah)'
>>> AMERICANA.evaluate(parse_cards("Ah 7c 8d 9s Th")) < AMERICANA.evaluate(parse_cards("7h 8c 9d Ts Jh"))
True
>>> AMERICANA.evaluate(parse_cards("7h 7c 7d 8s 8h")) < AMERICANA.evaluate(parse_cards("7s 9s Js Ks As"))
True
"""

from __future__ import annotations

from numba import njit

from engine.rankings.core import SHORT_WHEEL_MASK, DeckSize, Ranking, pack
from engine.rankings.high import STRAIGHT_FLUSH, high_parts
from engine.rankings.short import SHORT_CATEGORIES_ROYAL, T_ROYAL, short_category


@njit(cache=True)
def americana_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards under the Americana ranking (greater is better)."""
    category, fields = high_parts(c0, c1, c2, c3, c4, SHORT_WHEEL_MASK)
    if category == STRAIGHT_FLUSH and fields == 14:
        return pack(T_ROYAL, fields, 0)
    return pack(short_category(category), fields, 0)


AMERICANA = Ranking(
    name="americana",
    title="Americana",
    code=4,
    deck=DeckSize.SHORT,
    categories=SHORT_CATEGORIES_ROYAL,
    key5=americana_key5,
)
