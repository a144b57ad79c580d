"""What the three 32-card rankings (Americana, Telesina, 32-Card Draw) share.

The pack holds ranks 7 to ace. Straights run ``A789T`` (lowest: the ace plays
below the seven, top card ten) to ``TJQKA``; a flush beats a full house.
Categories, worst first: high card, one pair, two pair, three of a kind, straight,
full house, flush, four of a kind, straight flush, and where the rules name it
separately, royal flush (the ace-high straight flush).
"""

from __future__ import annotations

from numba import njit

from engine.rankings.core import HandCategory
from engine.rankings.high import FLUSH, FULL_HOUSE

SHORT_CATEGORIES = (
    HandCategory.HIGH_CARD,
    HandCategory.ONE_PAIR,
    HandCategory.TWO_PAIR,
    HandCategory.THREE_OF_A_KIND,
    HandCategory.STRAIGHT,
    HandCategory.FULL_HOUSE,
    HandCategory.FLUSH,
    HandCategory.FOUR_OF_A_KIND,
    HandCategory.STRAIGHT_FLUSH,
)
SHORT_CATEGORIES_ROYAL = (*SHORT_CATEGORIES, HandCategory.ROYAL_FLUSH)
(
    T_HIGH,
    T_PAIR,
    T_TWO_PAIR,
    T_TRIPS,
    T_STRAIGHT,
    T_FULL_HOUSE,
    T_FLUSH,
    T_QUADS,
    T_STRAIGHT_FLUSH,
    T_ROYAL,
) = range(10)


@njit(cache=True)
def short_category(standard: int) -> int:
    """The 32-card category index of a standard category index: flush and full house swap."""
    if standard == FLUSH:
        return T_FLUSH
    if standard == FULL_HOUSE:
        return T_FULL_HOUSE
    return standard
