"""Exact high-hand evaluation for Hold'em (best five of 5, 6 or 7 cards) and Omaha.

**Value encoding.** Every evaluator here returns an ``int`` *value*: higher is
better, equal values tie, and there are exactly 7,462 distinct values::

    value = category << 12 | index

where ``category`` is a :class:`Category` (``value >> 12``) and ``index``
ranks the hand among the distinct hands of its category, from 0 for the
weakest (``7 5 4 3 2`` high card is 0, a royal flush is ``8 << 12 | 9``).
Values compare across 5-, 6- and 7-card hands and Omaha hands alike.

>>> evaluate("As Ks Qs Js Ts 2c 3d") == (Category.STRAIGHT_FLUSH << 12) + 9
True
>>> category(evaluate("Ah Ad Kc Ks 7d 7c 2h")).label
'two pair'
>>> format_cards(best_five("Ah Ad Kc Ks 7d 7c 2h"))
'Ah Ad Ks Kc 7d'
>>> evaluate("5c 4d 3h 2s Ac") < evaluate("6c 5d 4h 3s 2c")  # the wheel is the lowest straight
True
>>> category(evaluate_omaha("Ah Kh Qh Jh", "Th 2c 3d 4s 5s")).label  # exactly two hole + three board cards
'high card'

Scalar calls are pure Python over the lookup tables (5-10 µs a hand, mostly parsing). The
batched calls run numba kernels (numba is imported on first use). Code that
needs the evaluator *inside* its own njit code can call
:func:`engine._kernels.eval_ids` (one hand of 5-7 ids) or
:func:`engine._kernels.eval5` with the arrays from :func:`tables`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from enum import IntEnum
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, SupportsIndex

from engine._errors import EngineInputError
from engine._layout import (
    FLUSH_BITS,
    HASH_COLUMN_MASK,
    HASH_SHIFT,
    RANK_KEY_MASK,
    SUIT_OFFSET,
    SUIT_SHIFT,
    VALUE_SHIFT,
)
from engine.cards import Card, CardLike, check_distinct, format_cards, parse_cards

if TYPE_CHECKING:
    import numpy as np

    from engine._tables import Tables

__all__ = [
    "Category",
    "EngineInputError",
    "best_five",
    "best_five_omaha",
    "category",
    "evaluate",
    "evaluate_batch",
    "evaluate_omaha",
    "evaluate_omaha_batch",
    "format_cards",
    "tables",
]

OMAHA_HOLE_CARDS = 4

Cards = str | Iterable[CardLike]


class Category(IntEnum):
    """The nine high-hand categories, weakest first (``value >> 12``)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        """Lower-case English name, e.g. ``'straight flush'``.

        >>> Category.FOUR_OF_A_KIND.label
        'four of a kind'
        """
        return self.name.lower().replace("_", " ")

    def __str__(self) -> str:
        """Printed, the category reads as its :attr:`label` (an ``IntEnum`` would print its number).

        >>> print(Category.STRAIGHT_FLUSH), f"{Category.PAIR}", int(Category.PAIR)
        straight flush
        (None, 'pair', 1)
        """
        return self.label


def category(value: SupportsIndex) -> Category:
    """The :class:`Category` of a hand value.

    >>> category(evaluate("Kh Kd Kc 9s 9d"))
    <Category.FULL_HOUSE: 6>
    """
    try:
        number = operator.index(value)  # an int, or a NumPy one from evaluate_batch
    except TypeError:  # cards, text, a float
        number = None
    if number is None or number < 0 or number >> VALUE_SHIFT > Category.STRAIGHT_FLUSH:
        raise EngineInputError(f"{value!r:.60} is not a hand value (a number evaluate gives); values run from 0 to "
                               f"{(8 << VALUE_SHIFT) | 9}")
    return Category(number >> VALUE_SHIFT)


# --------------------------------------------------------------------------- tables


def tables() -> Tables:
    """The lookup arrays (built or loaded from the verified disk cache on first use)."""
    from engine._tables import load_tables

    return load_tables()


def tables_cached() -> bool:
    """Whether the lookup arrays are in their disk cache (else the first use builds them, which takes a while)."""
    from engine._tables import cache_path

    return cache_path().exists()


def kernels_cached() -> bool:
    """Whether compiled kernels of an earlier run are in numba's disk cache (else the first use compiles them, some
    seconds each: a new install or checkout, whatever the lookup arrays' cache holds). True where it cannot tell
    (a numba whose caching module is laid out otherwise): a hint for a log line, never a reason to fail."""
    try:  # numba's own idea of its cache folders (names of its caching module, not a promised API)
        from numba.core import caching, config  # numba loads with the engine's kernels, not at import
        from numba.misc.appdirs import AppDirs

        locate = caching.UserWideCacheLocator.get_suitable_cache_subpath
    except (ImportError, AttributeError):  # another numba: the hint this answers is not worth a failed start
        return True
    here = Path(__file__).parent  # the kernels' folder: numba's cache holds one folder of files for it
    ours = locate(str(here / "_kernels.py"))
    chosen = getattr(config, "CACHE_DIR", "")  # NUMBA_CACHE_DIR (set by numba at import: no stub knows it)
    if chosen:
        folders = [Path(chosen) / ours]
    else:  # beside the source, or the user's cache where that is not writable
        folders = [here / "__pycache__", Path(AppDirs(appname="numba", appauthor=False).user_cache_dir) / ours]
    return any(next(folder.glob("*.nbi"), None) is not None for folder in folders if folder.is_dir())


class _Scalar:
    """The tables as Python lists, for the pure-Python scalar path."""

    def __init__(self, t: Tables) -> None:
        self.card_keys: list[int] = t.card_keys.tolist()
        self.hash_rows: list[int] = t.hash_rows.tolist()
        self.hash_values: list[int] = t.hash_values.tolist()
        self.flush_values: list[int] = t.flush_values.tolist()


@cache
def _scalar() -> _Scalar:
    return _Scalar(tables())


def _value_of_ids(ids: Iterable[int]) -> int:
    """Value of 5 to 7 distinct card ids (unchecked)."""
    s = _scalar()
    ids = list(ids)
    key = SUIT_OFFSET + sum(s.card_keys[c] for c in ids)
    if key & FLUSH_BITS:
        suit = next(q for q in range(4) if key >> (SUIT_SHIFT + 4 * q + 3) & 1)
        return s.flush_values[sum(1 << (c >> 2) for c in ids if c & 3 == suit)]
    r = key & RANK_KEY_MASK
    return s.hash_values[s.hash_rows[r >> HASH_SHIFT] + (r & HASH_COLUMN_MASK)]


def _hand(cards: Cards, sizes: range, what: str) -> tuple[Card, ...]:
    parsed = parse_cards(_plain(cards))
    if len(parsed) not in sizes:
        needs = f"exactly {sizes.start}" if len(sizes) == 1 else f"{sizes.start} to {sizes.stop - 1} cards"
        count = f"{len(parsed)} card" + ("" if len(parsed) == 1 else "s")
        raise EngineInputError(f"{what} has {count} ({format_cards(parsed) or 'none'}); it needs {needs}")
    check_distinct(parsed)
    return parsed


def _plain(cards: Cards) -> Cards:
    """A numpy array of ids becomes a list of Python ints (engine.cards takes ``int`` ids only)."""
    tolist = getattr(cards, "tolist", None)
    return tolist() if callable(tolist) else cards


# --------------------------------------------------------------------------- Hold'em (best five of N)


def evaluate(cards: Cards) -> int:
    """Value of the best five of 5, 6 or 7 distinct cards (``"AsKd..."``, Cards, strings or ids).

    >>> evaluate([51, 47, 43, 39, 35]) == evaluate("As Ks Qs Js Ts")
    True
    """
    return _value_of_ids(c.id for c in _hand(cards, range(5, 8), "a hand"))


def _display_order(five: tuple[Card, ...], value: int) -> tuple[Card, ...]:
    """Cards as a player reads them: sets before kickers, high before low, the wheel's ace last."""
    ranks = [c.rank for c in five]
    ordered = sorted(five, key=lambda c: (ranks.count(c.rank), c.rank, c.suit), reverse=True)
    wheel = ordered[0].rank == 14 and ordered[-1].rank == 2
    if wheel and category(value) in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        ordered = ordered[1:] + ordered[:1]
    return tuple(ordered)


def best_five(cards: Cards) -> tuple[Card, ...]:
    """The five cards that make the hand's value, in display order (pure Python; for showdowns).

    When several choices tie, the one with the highest card ids wins (stable, suit-blind in value).

    >>> format_cards(best_five("2c 3d 4h 5s Ac Kd Kh"))
    '5s 4h 3d 2c Ac'
    """
    hand = _hand(cards, range(5, 8), "a hand")
    best = max(combinations(sorted(hand, reverse=True), 5), key=lambda five: _value_of_ids(c.id for c in five))
    return _display_order(best, _value_of_ids(c.id for c in best))


def evaluate_batch(ids: np.ndarray) -> np.ndarray:
    """Values (int32, shape ``(n,)``) of the hands in the rows of an integer array of shape ``(n, k)``, 5 <= k <= 7.

    Any integer dtype works; ``uint8`` is fastest. Every row must hold
    distinct ids 0-51, else :class:`engine.cards.CardError` names the row.

    >>> import numpy as np
    >>> evaluate_batch(np.array([[51, 47, 43, 39, 35, 0, 1]], dtype=np.uint8)).tolist() == [evaluate("AsKsQsJsTs2c2d")]
    True
    """
    import numpy as np

    from engine import _kernels

    ids = _check_id_array(ids, range(5, 8), "ids")
    out = np.empty(ids.shape[0], dtype=np.int32)
    t = tables()
    bad = _kernels.evaluate_rows(ids, out, t.card_keys, t.hash_rows, t.hash_values, t.flush_values)
    if bad >= 0:
        _raise_bad_row(ids[bad], bad, "ids")
    return out


# --------------------------------------------------------------------------- Omaha


def _omaha_hand(hole: Cards, board: Cards) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    hole_cards = _hand(hole, range(OMAHA_HOLE_CARDS, OMAHA_HOLE_CARDS + 1), "an Omaha hand")
    board_cards = _hand(board, range(3, 6), "an Omaha board")
    check_distinct(hole_cards, board_cards)
    return hole_cards, board_cards


def _omaha_fives(hole: tuple[Card, ...], board: tuple[Card, ...]) -> Iterable[tuple[Card, ...]]:
    for pair in combinations(hole, 2):
        for triple in combinations(board, 3):
            yield pair + triple


def evaluate_omaha(hole: Cards, board: Cards) -> int:
    """Omaha value: the best hand of exactly two of the four hole cards and exactly three of the 3-5 board cards.

    >>> category(evaluate_omaha("As Ks 2d 3d", "Qs Js Ts 9h 8h")).label  # one spade on the board too few
    'straight flush'
    >>> category(evaluate_omaha("As Kh 2c 3d", "Qs Js Ts 9s 8s")).label  # five spades on board, one in hand
    'straight'
    """
    hole_cards, board_cards = _omaha_hand(hole, board)
    return max(_value_of_ids(c.id for c in five) for five in _omaha_fives(hole_cards, board_cards))


def best_five_omaha(hole: Cards, board: Cards) -> tuple[Card, ...]:
    """The five cards (two hole, three board) that make the Omaha value, in display order."""
    hole_cards, board_cards = _omaha_hand(hole, board)
    best = max(_omaha_fives(hole_cards, board_cards), key=lambda five: _value_of_ids(c.id for c in five))
    return _display_order(best, _value_of_ids(c.id for c in best))


def evaluate_omaha_batch(holes: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Omaha values (int32) for hole rows ``(n, 4)`` against board rows ``(n, 3..5)``.

    >>> import numpy as np
    >>> holes = np.array([[51, 50, 45, 40]]); boards = np.array([[49, 48, 22, 23, 0]])
    >>> evaluate_omaha_batch(holes, boards).tolist() == [evaluate_omaha("As Ah Kd Qc", "Ad Ac 7h 7s 2c")]
    True
    """
    import numpy as np

    from engine import _kernels

    holes = _check_id_array(holes, range(OMAHA_HOLE_CARDS, OMAHA_HOLE_CARDS + 1), "holes")
    boards = _check_id_array(boards, range(3, 6), "boards")
    if holes.shape[0] != boards.shape[0]:
        raise EngineInputError(f"holes has {holes.shape[0]} rows but boards has {boards.shape[0]}; they must match")
    out = np.empty(holes.shape[0], dtype=np.int32)
    t = tables()
    bad = _kernels.evaluate_omaha_rows(holes, boards, out, t.card_keys, t.hash_rows, t.hash_values, t.flush_values)
    if bad >= 0:
        _raise_bad_row(np.concatenate([holes[bad], boards[bad]]), bad, "holes/boards")
    return out


# --------------------------------------------------------------------------- array checks


def _check_id_array(ids: np.ndarray, widths: range, name: str) -> np.ndarray:
    import numpy as np

    array = np.asarray(ids)
    if array.ndim != 2 or array.shape[1] not in widths:
        allowed = f"{widths.start}" if len(widths) == 1 else f"{widths.start} to {widths.stop - 1}"
        raise EngineInputError(f"{name} has shape {array.shape}; it must be (n, k) with k = {allowed} card ids")
    if not np.issubdtype(array.dtype, np.integer):
        raise EngineInputError(f"{name} has dtype {array.dtype}; card ids must be integers 0-51")
    return np.ascontiguousarray(array)


def _raise_bad_row(row: np.ndarray, index: int, name: str) -> None:
    from engine.cards import CardError

    values = row.tolist()
    out_of_range = [v for v in values if not 0 <= v < 52]
    if out_of_range:
        raise CardError(f"{name} row {index} holds card id {out_of_range[0]}; ids run from 0 (2c) to 51 (As)")
    raise CardError(f"{name} row {index} ({format_cards(Card(v) for v in values)}) holds a card twice")
