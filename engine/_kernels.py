"""Numba kernels for the high-hand evaluator (imported lazily: importing numba takes ~0.6 s).

The kernels take the lookup arrays as arguments (see :class:`engine._tables.Tables`
for what each holds) so that other njit code can call them:

* :func:`eval_ids` — value of one hand of 5 to 7 card ids (a 1-D array).
* :func:`eval5` — value of five card ids given as scalars.
* :func:`eval_omaha_ids` / :func:`omaha_best` — Omaha value of hole and board ids
  (``omaha_best`` reuses a scratch array: use it in loops).
* :func:`lookup_ranks` — value of the non-flush hand with a given rank-key sum.
* :func:`evaluate_rows` / :func:`evaluate_omaha_rows` — the batched loops.

Keys and values follow the layout in :mod:`engine._layout` (higher is better).

A numba call that passes arrays costs 10-30 ns (more than a whole evaluation),
so the small helpers are inlined at numba-IR level (``inline="always"``) and
the batched loops evaluate inline rather than calling :func:`eval_ids` per row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine._layout import FLUSH_BITS, HASH_COLUMN_MASK, HASH_SHIFT, RANK_KEY_MASK, SUIT_OFFSET, SUIT_SHIFT

# Each suit counter is a nibble; a flush sets bit 3 of one of them.
_SUIT_FLUSH_NIBBLES = FLUSH_BITS >> SUIT_SHIFT


@njit(cache=True, nogil=True, inline="always")
def lookup_ranks(key: int, hash_rows: np.ndarray, hash_values: np.ndarray) -> int:
    """Value of the best non-flush hand whose rank-key sum is in the low bits of ``key``."""
    r = key & RANK_KEY_MASK
    return hash_values[hash_rows[r >> HASH_SHIFT] + (r & HASH_COLUMN_MASK)]


@njit(cache=True, nogil=True, inline="always")
def flush_suit(key: int) -> int:
    """Suit (0-3) whose counter in ``key`` shows five or more cards; only call when one does."""
    nibbles = (key >> SUIT_SHIFT) & _SUIT_FLUSH_NIBBLES
    suit = 0
    while not (nibbles >> (4 * suit + 3)) & 1:
        suit += 1
    return suit


@njit(cache=True, nogil=True)
def eval_ids(
    ids: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
    flush_values: np.ndarray,
) -> int:
    """Value of the best five of the 5 to 7 distinct card ids in ``ids``."""
    key = SUIT_OFFSET
    for j in range(ids.shape[0]):
        key += card_keys[ids[j]]
    if key & FLUSH_BITS:
        suit = flush_suit(key)
        mask = 0
        for j in range(ids.shape[0]):
            c = ids[j]
            if c & 3 == suit:
                mask |= 1 << (c >> 2)
        return flush_values[mask]
    return lookup_ranks(key, hash_rows, hash_values)


@njit(cache=True, nogil=True)
def evaluate_rows(
    ids: np.ndarray,
    out: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
    flush_values: np.ndarray,
) -> int:
    """``out[i]`` = value of the hand in row ``i`` of ``ids`` (shape (n, 5..7)).

    Returns -1, or the index of the first row holding an id outside 0-51 or
    the same id twice (rows after it are not evaluated).
    """
    width = ids.shape[1]
    for i in range(ids.shape[0]):
        key = SUIT_OFFSET
        seen = 0
        for j in range(width):
            c = ids[i, j]
            if c < 0 or c >= 52 or (seen >> c) & 1:
                return i
            seen |= 1 << c
            key += card_keys[c]
        if key & FLUSH_BITS:
            # seen holds bit 4 * rank + suit of each card (its id): gather the flush suit's ranks.
            rest = seen >> flush_suit(key)
            mask = 0
            for rank in range(13):
                mask |= ((rest >> (4 * rank)) & 1) << rank
            out[i] = flush_values[mask]
        else:
            out[i] = lookup_ranks(key, hash_rows, hash_values)
    return -1


@njit(cache=True, nogil=True, inline="always")
def eval5(
    a: int,
    b: int,
    c: int,
    d: int,
    e: int,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
    flush_values: np.ndarray,
) -> int:
    """Value of exactly five cards: a flush is five cards of one suit, so no counting is needed."""
    if ((a ^ b) | (a ^ c) | (a ^ d) | (a ^ e)) & 3 == 0:
        return flush_values[(1 << (a >> 2)) | (1 << (b >> 2)) | (1 << (c >> 2)) | (1 << (d >> 2)) | (1 << (e >> 2))]
    key = card_keys[a] + card_keys[b] + card_keys[c] + card_keys[d] + card_keys[e]
    return lookup_ranks(key, hash_rows, hash_values)


@njit(cache=True, nogil=True)
def omaha_best(
    hole: np.ndarray,
    board: np.ndarray,
    scratch: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
    flush_values: np.ndarray,
) -> int:
    """Best value over exactly two of the 2-6 ``hole`` ids and exactly three of the 3-5 ``board`` ids.

    ``scratch`` is an int64 array of shape (3, 25) reused between calls (room
    for up to six hole cards: 15 pairs and 10 triples). Each
    hole pair and board triple is summarised once (key, suit or -1/-2 when
    mixed, rank bits); a pair and a triple make a flush exactly when their
    suits agree.
    """
    nh = hole.shape[0]
    nb = board.shape[0]
    npairs = 0
    for i in range(nh):
        for j in range(i + 1, nh):
            a, b = hole[i], hole[j]
            scratch[0, npairs] = card_keys[a] + card_keys[b]
            scratch[1, npairs] = a & 3 if (a ^ b) & 3 == 0 else -1
            scratch[2, npairs] = (1 << (a >> 2)) | (1 << (b >> 2))
            npairs += 1
    ntriples = 0
    for i in range(nb):
        for j in range(i + 1, nb):
            for k in range(j + 1, nb):
                a, b, c = board[i], board[j], board[k]
                t = npairs + ntriples
                scratch[0, t] = card_keys[a] + card_keys[b] + card_keys[c]
                scratch[1, t] = a & 3 if ((a ^ b) | (a ^ c)) & 3 == 0 else -2
                scratch[2, t] = (1 << (a >> 2)) | (1 << (b >> 2)) | (1 << (c >> 2))
                ntriples += 1
    best = 0
    for p in range(npairs):
        for t in range(npairs, npairs + ntriples):
            if scratch[1, p] == scratch[1, t]:
                v = flush_values[scratch[2, p] | scratch[2, t]]
            else:
                r = (scratch[0, p] + scratch[0, t]) & RANK_KEY_MASK
                v = hash_values[hash_rows[r >> HASH_SHIFT] + (r & HASH_COLUMN_MASK)]
            if v > best:
                best = v
    return best


@njit(cache=True, nogil=True)
def eval_omaha_ids(
    hole: np.ndarray,
    board: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
    flush_values: np.ndarray,
) -> int:
    """Best value over exactly two of the 2-6 hole ids and exactly three of the 3 to 5 board ids."""
    scratch = np.empty((3, 25), np.int64)
    return omaha_best(hole, board, scratch, card_keys, hash_rows, hash_values, flush_values)


@njit(cache=True, nogil=True)
def evaluate_omaha_rows(
    holes: np.ndarray,
    boards: np.ndarray,
    out: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
    flush_values: np.ndarray,
) -> int:
    """``out[i]`` = Omaha value of hole row ``i`` with board row ``i``.

    Returns -1, or the index of the first row pair with a bad or repeated id.
    """
    scratch = np.empty((3, 25), np.int64)
    for i in range(holes.shape[0]):
        seen = 0
        for j in range(holes.shape[1]):
            c = holes[i, j]
            if c < 0 or c >= 52 or (seen >> c) & 1:
                return i
            seen |= 1 << c
        for j in range(boards.shape[1]):
            c = boards[i, j]
            if c < 0 or c >= 52 or (seen >> c) & 1:
                return i
            seen |= 1 << c
        out[i] = omaha_best(holes[i], boards[i], scratch, card_keys, hash_rows, hash_values, flush_values)
    return -1


# --------------------------------------------------------------------------- table construction


@njit(cache=True)
def build_displacement(keys: np.ndarray, shift: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-displacement perfect hash of distinct non-negative ``keys``.

    Splits each key into a row (``key >> shift``) and a column (the low bits),
    places rows fullest first at the smallest offset where none of their
    columns collides, and returns ``(offsets per row, slot of each key)``, so
    that ``slot = offsets[key >> shift] + (key & (2**shift - 1))`` is distinct
    for every key.
    """
    width = 1 << shift
    column_mask = width - 1
    nrows = (keys.max() >> shift) + 1
    counts = np.zeros(nrows, np.int64)
    for key in keys:
        counts[key >> shift] += 1
    start = np.zeros(nrows + 1, np.int64)
    for r in range(nrows):
        start[r + 1] = start[r] + counts[r]
    columns = np.empty(keys.size, np.int64)
    fill = start[:-1].copy()
    for key in keys:
        r = key >> shift
        columns[fill[r]] = key & column_mask
        fill[r] += 1
    # First fit never needs an offset beyond the current top, so this bounds every slot.
    used = np.zeros(nrows * width + width, np.bool_)
    offsets = np.zeros(nrows, np.int64)
    for r in np.argsort(-counts, kind="mergesort"):
        if counts[r] == 0:
            break
        offset = 0
        while True:
            clear = True
            for i in range(start[r], start[r + 1]):
                if used[offset + columns[i]]:
                    clear = False
                    break
            if clear:
                break
            offset += 1
        offsets[r] = offset
        for i in range(start[r], start[r + 1]):
            used[offset + columns[i]] = True
    slots = np.empty(keys.size, np.int64)
    for i in range(keys.size):
        slots[i] = offsets[keys[i] >> shift] + (keys[i] & column_mask)
    return offsets, slots


@njit(cache=True)
def search_rank_keys(nranks: int, max_cards: int, max_per_rank: int, limit: int) -> np.ndarray:
    """Greedy search for rank keys whose sums over small multisets are all distinct.

    Key ``j`` is the smallest integer above key ``j - 1`` such that every
    multiset of at most ``max_cards`` of the first ``j + 1`` ranks, at most
    ``max_per_rank`` of each, has its own sum. ``limit`` bounds the sums (the
    size of the scratch array). Keys do not depend on ``nranks`` beyond the
    prefix, so a short search checks the start of :data:`engine._layout.RANK_KEYS`.
    With (13, 7, 4) this takes a few minutes.
    """
    keys = np.zeros(nranks, np.int64)
    sums = np.zeros(1, np.int64)
    sizes = np.zeros(1, np.int64)
    stamp = np.zeros(limit, np.int64)
    generation = 0
    for j in range(nranks):
        x = 0 if j == 0 else keys[j - 1] + 1
        while True:
            generation += 1
            clear = True
            for copies in range(max_per_rank + 1):
                for i in range(sums.size):
                    if sizes[i] + copies <= max_cards:
                        total = sums[i] + copies * x
                        if stamp[total] == generation:
                            clear = False
                            break
                        stamp[total] = generation
                if not clear:
                    break
            if clear:
                break
            x += 1
        keys[j] = x
        count = 0
        for copies in range(max_per_rank + 1):
            for i in range(sums.size):
                if sizes[i] + copies <= max_cards:
                    count += 1
        new_sums = np.empty(count, np.int64)
        new_sizes = np.empty(count, np.int64)
        k = 0
        for copies in range(max_per_rank + 1):
            for i in range(sums.size):
                if sizes[i] + copies <= max_cards:
                    new_sums[k] = sums[i] + copies * x
                    new_sizes[k] = sizes[i] + copies
                    k += 1
        sums = new_sums
        sizes = new_sizes
    return keys
