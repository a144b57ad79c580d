"""The standard high ranking (52 cards), written plainly; the reference for the fast evaluator.

Categories, worst first: high card, one pair, two pair, three of a kind, straight,
flush, full house, four of a kind, straight flush. The ace plays high, or low in
``A2345`` (the five-high wheel). Ties inside a category go by ranks only, in the
usual kicker order (bigger groups first, then higher ranks).

>>> from engine.cards import parse_cards
>>> str(HIGH.evaluate(parse_cards("Ah 2c 3d 4s 5h")))
'straight (5h 4s 3d 2c Ah)'
>>> HIGH.evaluate(parse_cards("Ah 2c 3d 4s 5h")) < HIGH.evaluate(parse_cards("2h 3c 4d 5s 6h"))
True
>>> str(HIGH.best(parse_cards("As Ks Qs Js 9s Ts 2c")))
'straight flush (As Ks Qs Js Ts)'

:func:`fast_high_key` is the adapter to the engine's table evaluator
(:mod:`engine.evaluator`): its values order hands exactly as :func:`high_key5`
does (the tests check this on random samples).
"""

from __future__ import annotations

from collections.abc import Sequence

from numba import njit

from engine.rankings.core import (
    WHEEL_MASK,
    DeckSize,
    HandCategory,
    Ranking,
    grouped_fields,
    is_flush,
    pack,
    popcount,
    rank_masks,
    straight_top,
)

HIGH_CATEGORIES = (
    HandCategory.HIGH_CARD,
    HandCategory.ONE_PAIR,
    HandCategory.TWO_PAIR,
    HandCategory.THREE_OF_A_KIND,
    HandCategory.STRAIGHT,
    HandCategory.FLUSH,
    HandCategory.FULL_HOUSE,
    HandCategory.FOUR_OF_A_KIND,
    HandCategory.STRAIGHT_FLUSH,
)
HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


@njit(cache=True)
def high_parts(c0: int, c1: int, c2: int, c3: int, c4: int, ace_low_mask: int) -> tuple[int, int]:
    """(category index, packed fields) of five cards under the standard high ranking.

    ``ace_low_mask`` is the rank mask of the ace-low straight, or 0 where the ace
    plays high only (deuce-to-seven).
    """
    m1, m2, m3, m4 = rank_masks(c0, c1, c2, c3, c4)
    flush = is_flush(c0, c1, c2, c3, c4)
    if m2 == 0:
        top = straight_top(m1, ace_low_mask)
        if top:
            return (STRAIGHT_FLUSH if flush else STRAIGHT), top
        return (FLUSH if flush else HIGH_CARD), grouped_fields(m1, m2, m3, m4)
    fields = grouped_fields(m1, m2, m3, m4)
    if m4:
        return QUADS, fields
    if m3:
        return (FULL_HOUSE if m2 & ~m3 else TRIPS), fields
    return (TWO_PAIR if popcount(m2) == 2 else ONE_PAIR), fields


@njit(cache=True)
def high_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards, standard high (greater is better)."""
    category, fields = high_parts(c0, c1, c2, c3, c4, WHEEL_MASK)
    return pack(category, fields, 0)


HIGH = Ranking(
    name="high",
    title="standard high",
    code=0,
    deck=DeckSize.FULL,
    categories=HIGH_CATEGORIES,
    key5=high_key5,
)


def fast_high_key(cards: Sequence[int]) -> int:
    """The engine evaluator's value of 5 to 7 card ids: the best five, greater is better.

    Its scale differs from :func:`high_key5`'s (categories and kickers are packed
    as an index, not as fields), but it orders hands the same way; the tests check
    that on random samples. The equity kernels call the evaluator's numba kernels
    (``engine._kernels.eval_ids`` / ``eval_omaha_ids``) directly for the high hand.

    >>> from engine.cards import parse_cards
    >>> ids = [c.id for c in parse_cards("Ah Ad Kc Ks 7d 7c 2h")]
    >>> fast_high_key(ids) > fast_high_key([c.id for c in parse_cards("Ah Ad Kc Qs 7d 6c 2h")])
    True
    """
    from engine.evaluator import evaluate

    return evaluate(list(cards))
