"""The two lows: eight-or-better (ace-to-five) and deuce-to-seven.

Keys are higher-is-better like every ranking, so the best low has the greatest key.

**Eight-or-better**: five different ranks, all 8 or lower, the ace counting 1;
straights and flushes do not count. Compare from the highest card down. Five
cards that do not qualify have key ``NO_HAND``. The category says the top card
(``eight low`` .. ``five low``).

>>> from engine.cards import parse_cards
>>> str(EIGHT_OR_BETTER.evaluate(parse_cards("5s 4h 3d 2c Ah")))
'five low (5s 4h 3d 2c Ah)'
>>> lo = EIGHT_OR_BETTER.evaluate
>>> lo(parse_cards("8c 7d 6h 5s 4c")) < lo(parse_cards("8c 7d 6h 4s 2c"))
True
>>> lo(parse_cards("9c 7d 6h 5s 4c")) is None
True

**Deuce-to-seven**: the inverse of the high ranking with the ace high only (so
``A2345`` is an ace-high hand, not a straight). The category is the high
category of the same five cards; the best hand is ``7 5 4 3 2`` unsuited.

>>> d27 = DEUCE_TO_SEVEN.evaluate
>>> str(d27(parse_cards("7c 5d 4h 3s 2c")))
'high card (7c 5d 4h 3s 2c)'
>>> d27(parse_cards("6c 5d 4h 3s 2c")) < d27(parse_cards("7c 5d 4h 3s 2c"))
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.cards import Card
from engine.rankings.core import (
    NO_HAND,
    DeckSize,
    HandCategory,
    Ranking,
    pack,
    popcount,
)
from engine.rankings.high import HIGH_CATEGORIES, high_parts

# ------------------------------------------------------------ eight-or-better

LOW_CATEGORIES = (
    HandCategory.EIGHT_LOW,
    HandCategory.SEVEN_LOW,
    HandCategory.SIX_LOW,
    HandCategory.FIVE_LOW,
)
LOW_RANKS_MASK = 0b111111110  # bits 1..8: ace (1) to eight


@njit(cache=True)
def low_rank(card: int) -> int:
    """Rank with the ace as 1 (2..13 otherwise)."""
    r = (card >> 2) + 2
    return 1 if r == 14 else r


@njit(cache=True)
def low_key_of_mask(mask: int) -> int:
    """Key of a low made of the five ranks in ``mask`` (bits 1..8, exactly five set)."""
    fields = 0
    top = 0
    for r in range(8, 0, -1):
        if (mask >> r) & 1:
            if top == 0:
                top = r
            fields = (fields << 4) | (15 - r)
    return pack(8 - top, fields, 0)


@njit(cache=True)
def lowest_five(mask: int) -> int:
    """The five lowest ranks of ``mask`` (or 0 if it holds fewer than five)."""
    out = 0
    n = 0
    for r in range(1, 9):
        if (mask >> r) & 1:
            out |= 1 << r
            n += 1
            if n == 5:
                return out
    return 0


@njit(cache=True)
def eight_low_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards as an eight-or-better low, or ``NO_HAND``."""
    mask = 0
    for c in (c0, c1, c2, c3, c4):
        mask |= 1 << low_rank(c)
    if popcount(mask) != 5 or mask & ~LOW_RANKS_MASK:
        return NO_HAND
    return low_key_of_mask(mask)


@njit(cache=True)
def eight_low_best(cards: np.ndarray, n: int) -> int:
    """Best eight-or-better low of any five of ``cards[:n]``: the five lowest distinct low ranks."""
    mask = 0
    for i in range(n):
        mask |= 1 << low_rank(cards[i])
    five = lowest_five(mask & LOW_RANKS_MASK)
    return low_key_of_mask(five) if five else NO_HAND


@njit(cache=True)
def eight_low_omaha(hole: np.ndarray, nh: int, board: np.ndarray, nb: int) -> int:
    """Best eight-or-better low of exactly two hole cards and three board cards."""
    board_mask = 0
    for i in range(nb):
        board_mask |= 1 << low_rank(board[i])
    board_mask &= LOW_RANKS_MASK
    if popcount(board_mask) < 3:
        return NO_HAND
    best = NO_HAND
    for i in range(nh):
        a = low_rank(hole[i])
        if a > 8:
            continue
        for j in range(i + 1, nh):
            b = low_rank(hole[j])
            if b > 8 or b == a:
                continue
            rest = board_mask & ~((1 << a) | (1 << b))
            three = 0
            n = 0
            for r in range(1, 9):
                if (rest >> r) & 1:
                    three |= 1 << r
                    n += 1
                    if n == 3:
                        break
            if n == 3:
                key = low_key_of_mask(three | (1 << a) | (1 << b))
                if key > best:
                    best = key
    return best


def arrange_low(cards: tuple[Card, ...], category: HandCategory) -> tuple[Card, ...]:
    """Highest low card first, the ace (playing 1) last."""
    return tuple(sorted(cards, key=lambda c: (low_rank(c.id), c.suit), reverse=True))


EIGHT_OR_BETTER = Ranking(
    name="eight-or-better",
    title="eight-or-better low",
    code=1,
    deck=DeckSize.FULL,
    categories=LOW_CATEGORIES,
    key5=eight_low_key5,
    low=True,
    arrange=arrange_low,
)

# ------------------------------------------------------------ deuce-to-seven

DEUCE_TO_SEVEN_CATEGORIES = tuple(reversed(HIGH_CATEGORIES))


@njit(cache=True)
def deuce_to_seven_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards as a deuce-to-seven low (greater is better).

    The high ranking with the ace high only, inverted: the category index and every
    4-bit field are complemented, which reverses the lexicographic order exactly.
    """
    category, fields = high_parts(c0, c1, c2, c3, c4, 0)
    width = 0
    f = fields
    while f:
        f >>= 4
        width += 4
    return pack(8 - category, ((1 << width) - 1) - fields, 0)


def arrange_deuce_to_seven(cards: tuple[Card, ...], category: HandCategory) -> tuple[Card, ...]:
    """Bigger groups first, then higher ranks; the ace is always high here."""
    counts: dict[int, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    return tuple(sorted(cards, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True))


DEUCE_TO_SEVEN = Ranking(
    name="deuce-to-seven",
    title="deuce-to-seven low",
    code=2,
    deck=DeckSize.FULL,
    categories=DEUCE_TO_SEVEN_CATEGORIES,
    key5=deuce_to_seven_key5,
    low=True,
    arrange=arrange_deuce_to_seven,
)
