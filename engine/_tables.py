"""Lookup tables behind the high-hand evaluator: what they hold, how they are built, where they are cached.

The card keys, the rank perfect hash and the value encoding are described
in :mod:`engine._layout`; this module turns them into arrays (:class:`Tables`).

The tables take a few seconds to build, so they are cached on disk
(:func:`cache_dir`) and pinned by a SHA-256 digest (:data:`TABLES_DIGEST`): a
cache file whose arrays do not hash to the pinned digest is rebuilt, and a
build that does not reproduce the digest is an error, never used.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine._layout import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HASH_SHIFT,
    HIGH_CARD,
    PAIR,
    RANK_KEYS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_SHIFT,
    THREE_OF_A_KIND,
    TWO_PAIR,
    VALUE_SHIFT,
)

# SHA-256 of the built arrays (see :func:`tables_digest`). Changing the keys,
# the hash shift or the encoding changes it; update it only with a reason.
TABLES_DIGEST: Final = "9cad9bb492197ac12b9f223d8585e5548d489e7fa110722b7768d061f7d6d012"

_WHEEL: Final = (1 << 12) | 0b1111
Pattern = tuple[int, tuple[int, ...]]


@dataclass(frozen=True, slots=True, eq=False)
class Tables:
    """The evaluator's arrays. Treat them as read-only.

    ``card_keys[id]`` is the card's additive key, ``card_bits[id]`` its bit
    ``1 << (16 * suit + rank)`` (rank 0 = deuce), ``hash_rows``/``hash_values``
    the rank perfect hash (``hash_values[hash_rows[k >> HASH_SHIFT] + (k &
    HASH_COLUMN_MASK)]`` for a rank-key sum ``k``) and ``flush_values[mask]``
    the value of the best flush in a 13-bit rank mask (0 below five bits).
    """

    card_keys: np.ndarray
    card_bits: np.ndarray
    hash_rows: np.ndarray
    hash_values: np.ndarray
    flush_values: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.__slots__}


# --------------------------------------------------------------------------- hand patterns


def straight_top(mask: int) -> int | None:
    """Rank (0 = deuce) of the top card of the best straight in a 13-bit rank mask, or None.

    >>> straight_top(0b1_0000_0000_1111)  # A 5 4 3 2: the wheel, five high
    3
    >>> straight_top(0b1_1111_0000_0000)  # A K Q J T
    12
    >>> straight_top(0b1_1110_1111_0000) is None
    True
    """
    for top in range(12, 3, -1):
        window = 0b11111 << (top - 4)
        if mask & window == window:
            return top
    return 3 if mask & _WHEEL == _WHEEL else None


def pattern_from_counts(counts: Sequence[int]) -> Pattern:
    """Best non-flush hand of 5 to 7 cards given as rank counts: ``(category, tie-break ranks)``.

    >>> pattern_from_counts([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2])  # K K K A A
    (6, (11, 12))
    """
    present = [r for r in range(12, -1, -1) if counts[r]]
    by_count = {n: [r for r in present if counts[r] == n] for n in (2, 3, 4)}
    if by_count[4]:
        quad = by_count[4][0]
        return FOUR_OF_A_KIND, (quad, next(r for r in present if r != quad))
    trips, pairs = by_count[3], by_count[2]
    if trips and (len(trips) > 1 or pairs):
        return FULL_HOUSE, (trips[0], max(trips[1:] + pairs))
    top = straight_top(sum(1 << r for r in present))
    if top is not None:
        return STRAIGHT, (top,)
    if trips:
        return THREE_OF_A_KIND, (trips[0], *[r for r in present if r != trips[0]][:2])
    if len(pairs) > 1:
        high, low = pairs[:2]
        return TWO_PAIR, (high, low, next(r for r in present if r not in (high, low)))
    if pairs:
        return PAIR, (pairs[0], *[r for r in present if r != pairs[0]][:3])
    return HIGH_CARD, tuple(present[:5])


def pattern_from_flush(mask: int) -> Pattern:
    """Best hand among the cards of one suit with at least five ranks (13-bit mask)."""
    top = straight_top(mask)
    if top is not None:
        return STRAIGHT_FLUSH, (top,)
    return FLUSH, tuple(r for r in range(12, -1, -1) if mask >> r & 1)[:5]


def rank_multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``size`` ranks with at most four of each, as sorted tuples."""
    for ranks in combinations_with_replacement(range(13), size):
        if all(ranks[i] != ranks[i + 4] for i in range(size - 4)):
            yield ranks


def pattern_values() -> dict[Pattern, int]:
    """Map each of the 7,462 five-card hand classes to its value (see the module docstring)."""
    classes: set[Pattern] = set()
    for ranks in rank_multisets(5):
        classes.add(pattern_from_counts([ranks.count(r) for r in range(13)]))
    for ranks in combinations(range(13), 5):
        classes.add(pattern_from_flush(sum(1 << r for r in ranks)))
    values: dict[Pattern, int] = {}
    for cat in range(9):
        for index, pattern in enumerate(sorted(p for p in classes if p[0] == cat)):
            values[pattern] = cat << VALUE_SHIFT | index
    return values


# --------------------------------------------------------------------------- building


def card_key(card_id: int) -> int:
    """Additive key of one card: its rank key plus one in its suit's counter."""
    return RANK_KEYS[card_id >> 2] + (1 << (SUIT_SHIFT + 4 * (card_id & 3)))


def build_tables() -> Tables:
    """Build every table from scratch (a few seconds; imports numba for the hash)."""
    from engine._kernels import build_displacement

    values = pattern_values()
    keys: list[int] = []
    hand_values: list[int] = []
    for size in (5, 6, 7):
        for ranks in rank_multisets(size):
            keys.append(sum(RANK_KEYS[r] for r in ranks))
            hand_values.append(values[pattern_from_counts([ranks.count(r) for r in range(13)])])
    key_array = np.array(keys, dtype=np.int64)
    if np.unique(key_array).size != key_array.size:
        raise RuntimeError("RANK_KEYS do not give unique sums; the rank hash cannot be built")
    rows, slots = build_displacement(key_array, HASH_SHIFT)
    hash_values = np.zeros(int(slots.max()) + 1, dtype=np.uint16)
    hash_values[slots] = np.array(hand_values, dtype=np.uint16)

    flush_values = np.zeros(1 << 13, dtype=np.uint16)
    for mask in range(1 << 13):
        if mask.bit_count() >= 5:
            flush_values[mask] = values[pattern_from_flush(mask)]
    return Tables(
        card_keys=np.array([card_key(c) for c in range(52)], dtype=np.int64),
        card_bits=np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(52)], dtype=np.int64),
        hash_rows=rows.astype(np.int32),
        hash_values=hash_values,
        flush_values=flush_values,
    )


def tables_digest(tables: Tables) -> str:
    """SHA-256 over every array's name, dtype, shape and bytes."""
    digest = hashlib.sha256()
    for name, array in tables.arrays().items():
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


# --------------------------------------------------------------------------- disk cache


def cache_dir() -> Path:
    """``$EXCHANGE_POKER_CACHE_DIR``, else ``$XDG_CACHE_HOME/exchange-poker-sim``, else ``~/.cache/...``."""
    explicit = os.environ.get("EXCHANGE_POKER_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "exchange-poker-sim"


def cache_path() -> Path:
    return cache_dir() / f"holdem-tables-{TABLES_DIGEST[:16]}.npz"


def _read_cache(path: Path) -> Tables | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            tables = Tables(**{name: data[name] for name in Tables.__slots__})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return tables if tables_digest(tables) == TABLES_DIGEST else None


def _write_cache(path: Path, tables: Tables) -> None:
    """Write atomically (temp file + rename); a read-only cache location is not an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            arrays: dict[str, Any] = tables.arrays()
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, **arrays)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass


@cache
def load_tables() -> Tables:
    """The tables, from the verified disk cache or freshly built (then cached)."""
    path = cache_path()
    tables = _read_cache(path)
    if tables is None:
        tables = build_tables()
        digest = tables_digest(tables)
        if digest != TABLES_DIGEST:
            raise RuntimeError(f"evaluator tables built with digest {digest}, expected {TABLES_DIGEST}")
        _write_cache(path, tables)
    for array in tables.arrays().values():
        array.setflags(write=False)
    return tables
