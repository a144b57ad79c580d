"""Numba kernels for equity: score every remaining board (or a sample of them) for 2-8 hands.

The idea: a hand's non-flush value depends only on its own cards, the known
board and the *ranks* of the missing board cards. So before looping over
boards, ``rows[i, h]`` holds hand ``h``'s non-flush value for every multiset
``i`` of ranks the missing cards can show. The missing cards are enumerated in
id order, so their ranks come out sorted and the multiset's index is a
combinatorial number accumulated one card at a time (``contrib[level,
position]``).

Most boards give nobody a flush (a suit-count test against per-suit offsets
that depend on the hands, see ``flush_offsets``); there the outcome depends on
the rank multiset alone, so such a board only adds one to a histogram over
multisets, folded into wins and ties once at the end. The other boards are
scored hand by hand: a row load plus a flush-table load (Hold'em) or a search
over suited pairs and triples (Omaha).

Row index: for ranks ``r0 <= r1 <= ... <= r(m-1)`` (0 = deuce) the index is
``sum(comb(r_j + j, j + 1))``, a bijection onto ``range(comb(12 + m, m))``.

Board positions: the kernels always walk five levels. With ``m`` cards missing,
the first ``fixed = 5 - m`` positions are placeholders that add nothing (the
known cards are folded into the rows and the ``known_*`` arguments) and the
rest are the deck's cards in id order. The last two levels run inside
:func:`score_tail`, so the per-board work is inline: a numba call per board
costs more than the board itself.

Results are integer counts: ``wins[h]`` boards won alone and ``splits[h, k]``
boards where hand ``h`` tied for best with ``k - 1`` others.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine._kernels import lookup_ranks
from engine._layout import RANK_KEY_MASK

RULE_HOLDEM = 0  # best five of two hole + five board cards
RULE_OMAHA = 1  # exactly two of the four hole cards + exactly three board cards

Board = tuple[np.ndarray, np.ndarray, np.ndarray]  # (contrib[5, positions], suit_unit, card_bit)

_NIBBLE_TOPS = 0x8888


# --------------------------------------------------------------------------- rows (per rank multiset, per hand)


@njit(cache=True, nogil=True)
def holdem_rows(
    holes: np.ndarray,
    known: np.ndarray,
    multisets: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
) -> np.ndarray:
    """``rows[i, h]``: non-flush value of hole ``h`` + known board + rank multiset ``i``; 0 if impossible."""
    nhands = holes.shape[0]
    rows = np.zeros((multisets.shape[0], nhands), np.uint16)
    counts = np.zeros(13, np.int64)
    for h in range(nhands):
        base = 0
        counts[:] = 0
        for j in range(holes.shape[1]):
            base += card_keys[holes[h, j]] & RANK_KEY_MASK
            counts[holes[h, j] >> 2] += 1
        for j in range(known.shape[0]):
            base += card_keys[known[j]] & RANK_KEY_MASK
            counts[known[j] >> 2] += 1
        for i in range(multisets.shape[0]):
            key = base
            possible = True
            for j in range(multisets.shape[1]):
                r = multisets[i, j]
                counts[r] += 1
                possible = possible and counts[r] <= 4
                key += card_keys[4 * r] & RANK_KEY_MASK
            for j in range(multisets.shape[1]):
                counts[multisets[i, j]] -= 1
            if possible:
                rows[i, h] = lookup_ranks(key, hash_rows, hash_values)
    return rows


@njit(cache=True, nogil=True)
def omaha_rows(
    holes: np.ndarray,
    known: np.ndarray,
    multisets: np.ndarray,
    card_keys: np.ndarray,
    hash_rows: np.ndarray,
    hash_values: np.ndarray,
) -> np.ndarray:
    """``rows[i, h]``: best non-flush two-hole + three-board value for board = known + multiset ``i``."""
    nhands = holes.shape[0]
    nhole = holes.shape[1]
    npairs = nhole * (nhole - 1) // 2
    rows = np.zeros((multisets.shape[0], nhands), np.uint16)
    rank_keys = np.empty(13, np.int64)
    for r in range(13):
        rank_keys[r] = card_keys[4 * r] & RANK_KEY_MASK
    board = np.empty(5, np.int64)
    triples = np.empty(10, np.int64)
    pairs = np.empty(npairs, np.int64)
    counts = np.zeros(13, np.int64)
    nknown = known.shape[0]
    for j in range(nknown):
        board[j] = known[j] >> 2
    for h in range(nhands):
        n = 0
        for a in range(nhole):
            for b in range(a + 1, nhole):
                pairs[n] = rank_keys[holes[h, a] >> 2] + rank_keys[holes[h, b] >> 2]
                n += 1
        for i in range(multisets.shape[0]):
            for j in range(multisets.shape[1]):
                board[nknown + j] = multisets[i, j]
            counts[:] = 0
            possible = True
            for j in range(nhole):
                counts[holes[h, j] >> 2] += 1
            for j in range(5):
                counts[board[j]] += 1
                possible = possible and counts[board[j]] <= 4
            if not possible:
                continue
            n = 0
            for a in range(5):
                for b in range(a + 1, 5):
                    for c in range(b + 1, 5):
                        triples[n] = rank_keys[board[a]] + rank_keys[board[b]] + rank_keys[board[c]]
                        n += 1
            best = 0
            for p in range(npairs):
                for t in range(10):
                    v = lookup_ranks(pairs[p] + triples[t], hash_rows, hash_values)
                    if v > best:
                        best = v
            rows[i, h] = best
    return rows


# --------------------------------------------------------------------------- scoring boards


@njit(cache=True, nogil=True)
def omaha_flush(hole: int, board: int, flush_values: np.ndarray) -> int:
    """Best flush from exactly two ranks of ``hole`` and three of ``board`` (13-bit masks of one suit); 0 if none."""
    best = 0
    a = hole
    while a:
        x = a & -a
        a ^= x
        b = a
        while b:
            y = b & -b
            b ^= y
            c = board
            while c:
                p = c & -c
                c ^= p
                d = c
                while d:
                    q = d & -d
                    d ^= q
                    e = d
                    while e:
                        r = e & -e
                        e ^= r
                        v = flush_values[x | y | p | q | r]
                        if v > best:
                            best = v
    return best


# Stays whole (78 lines): split into @njit helpers, even inline="always", exact equity ran 1.5-3.7x slower.
@njit(cache=True, nogil=True)
def score_tail(
    d_lo: int,
    d_hi: int,
    e_lo: int,
    e_hi: int,
    base_index: int,
    base_suits: int,
    base_bits: int,
    board: Board,
    rows: np.ndarray,
    hole_bits: np.ndarray,
    rule: int,
    flush_offsets: int,
    flush_values: np.ndarray,
    hist: np.ndarray,
    wins: np.ndarray,
    splits: np.ndarray,
) -> None:
    """Count the boards that complete a three-card base with positions ``d < e`` (d in [d_lo, d_hi), e in [e_lo, e_hi)).

    A board on which no hand can make a flush only adds one to ``hist`` at
    its rank-multiset index (:func:`fold_histogram` turns those into wins
    later); ``flush_offsets`` holds, per suit nibble, 8 minus the number of
    board cards of that suit some hand needs for a flush (0 when none can).
    Other boards are scored hand by hand here. The last two levels sit in one
    function so that this per-board work is inline (a numba call per board
    costs more than the board itself).
    """
    contrib, suit_unit, card_bit = board
    nhands = rows.shape[1]
    values = np.empty(nhands, np.int64)
    for d in range(d_lo, d_hi):
        index_d = base_index + contrib[3, d]
        suits_d = base_suits + suit_unit[d]
        bits_d = base_bits | card_bit[d]
        for e in range(max(d + 1, e_lo), e_hi):
            index = index_d + contrib[4, e]
            flush = (suits_d + suit_unit[e] + flush_offsets) & _NIBBLE_TOPS
            if flush == 0:
                hist[index] += 1
                continue
            # Only one suit can show three of five board cards: its nibble's top bit is 3, 7, 11 or 15.
            shift = 16 * ((flush >= 0x80) + (flush >= 0x800) + (flush >= 0x8000))
            suited = ((bits_d | card_bit[e]) >> shift) & 0x1FFF
            best = 0
            if rule == RULE_HOLDEM:
                # The board alone may hold the flush, so the lookup is made even without suited hole cards.
                for h in range(nhands):
                    v = rows[index, h]
                    f = flush_values[suited | ((hole_bits[h] >> shift) & 0x1FFF)]
                    if f > v:
                        v = f
                    values[h] = v
                    if v > best:
                        best = v
            else:
                for h in range(nhands):
                    v = rows[index, h]
                    hole = (hole_bits[h] >> shift) & 0x1FFF
                    if suited and hole & (hole - 1):  # Omaha needs two suited hole cards
                        f = omaha_flush(hole, suited, flush_values)
                        if f > v:
                            v = f
                    values[h] = v
                    if v > best:
                        best = v
            nbest = 0
            winner = 0
            for h in range(nhands):
                if values[h] == best:
                    nbest += 1
                    winner = h
            if nbest == 1:
                wins[winner] += 1
            else:
                for h in range(nhands):
                    if values[h] == best:
                        splits[h, nbest] += 1


@njit(cache=True, nogil=True)
def fold_histogram(rows: np.ndarray, hist: np.ndarray, wins: np.ndarray, splits: np.ndarray) -> None:
    """Add the flush-free boards counted per rank multiset: there the row values alone decide."""
    nhands = rows.shape[1]
    for index in range(hist.shape[0]):
        count = hist[index]
        if count == 0:
            continue
        best = 0
        for h in range(nhands):
            if rows[index, h] > best:
                best = rows[index, h]
        nbest = 0
        winner = 0
        for h in range(nhands):
            if rows[index, h] == best:
                nbest += 1
                winner = h
        if nbest == 1:
            wins[winner] += count
        else:
            for h in range(nhands):
                if rows[index, h] == best:
                    splits[h, nbest] += count


# --------------------------------------------------------------------------- boards: all of them, or a sample


@njit(cache=True, nogil=True)
def enumerate_boards(
    rows: np.ndarray,
    hole_bits: np.ndarray,
    rule: int,
    known_suits: int,
    known_bits: int,
    board: Board,
    fixed: int,
    flush_offsets: int,
    flush_values: np.ndarray,
    wins: np.ndarray,
    splits: np.ndarray,
) -> int:
    """Count every board: five levels of positions, the first ``fixed`` of them pinned to placeholders.

    ``board = (contrib, suit_unit, card_bit)`` describes positions: the
    ``fixed = 5 - m`` placeholders (all zeros) then the deck's cards in id
    order. Returns the number of boards.
    """
    contrib, suit_unit, card_bit = board
    size = suit_unit.shape[0]
    hist = np.zeros(rows.shape[0], np.int64)
    count = 0
    for a in range(0, 1 if fixed > 0 else size - 4):
        index_a = contrib[0, a]
        suits_a = known_suits + suit_unit[a]
        bits_a = known_bits | card_bit[a]
        for b in range(a + 1, 2 if fixed > 1 else size - 3):
            index_b = index_a + contrib[1, b]
            suits_b = suits_a + suit_unit[b]
            bits_b = bits_a | card_bit[b]
            for c in range(b + 1, 3 if fixed > 2 else size - 2):
                d_hi = 4 if fixed > 3 else size - 1
                score_tail(
                    c + 1,
                    d_hi,
                    0,
                    5 if fixed > 4 else size,
                    index_b + contrib[2, c],
                    suits_b + suit_unit[c],
                    bits_b | card_bit[c],
                    board,
                    rows,
                    hole_bits,
                    rule,
                    flush_offsets,
                    flush_values,
                    hist,
                    wins,
                    splits,
                )
                for d in range(c + 1, d_hi):
                    count += (5 if fixed > 4 else size) - d - 1
    fold_histogram(rows, hist, wins, splits)
    return count


@njit(cache=True, nogil=True)
def sample_boards(
    rows: np.ndarray,
    hole_bits: np.ndarray,
    rule: int,
    known_suits: int,
    known_bits: int,
    board: Board,
    fixed: int,
    flush_offsets: int,
    flush_values: np.ndarray,
    samples: int,
    seed: np.uint64,
    wins: np.ndarray,
    splits: np.ndarray,
) -> int:
    """Count ``samples`` boards completed with uniformly random cards (positions as in :func:`enumerate_boards`).

    The generator is SplitMix64 seeded with ``seed``, so a seed gives the same
    boards on every machine and numba version: each board draws ``m`` values
    ``z``; draw ``j`` swaps position ``j`` with ``j + floor((z >> 11) / 2**53 * (n - j))``
    in a running permutation of the ``n`` deck cards (partial Fisher-Yates).
    """
    m = 5 - fixed
    n = board[1].shape[0] - fixed  # deck cards: positions past the placeholders
    perm = np.arange(n)
    hist = np.zeros(rows.shape[0], np.int64)
    chosen = np.empty(5, np.int64)
    for j in range(fixed):
        chosen[j] = j
    state = seed
    for _ in range(samples):
        state = _shuffle_prefix(state, perm, m)
        _sort_positions(perm, chosen, fixed, m)
        index, suits, bits = _first_three(chosen, board, known_suits, known_bits)
        score_tail(
            chosen[3],
            chosen[3] + 1,
            chosen[4],
            chosen[4] + 1,
            index,
            suits,
            bits,
            board,
            rows,
            hole_bits,
            rule,
            flush_offsets,
            flush_values,
            hist,
            wins,
            splits,
        )
    fold_histogram(rows, hist, wins, splits)
    return samples


@njit(cache=True, nogil=True, inline="always")
def _shuffle_prefix(state: np.uint64, perm: np.ndarray, m: int) -> np.uint64:
    """Draw the first ``m`` entries of ``perm`` (partial Fisher-Yates on SplitMix64); returns the advanced state."""
    n = perm.shape[0]
    for j in range(m):
        state += np.uint64(0x9E3779B97F4A7C15)
        z = state
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        r = j + np.int64(np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0) * (n - j))
        perm[j], perm[r] = perm[r], perm[j]
    return state


@njit(cache=True, nogil=True, inline="always")
def _sort_positions(perm: np.ndarray, chosen: np.ndarray, fixed: int, m: int) -> None:
    """Insert the drawn positions into ``chosen[fixed:]`` in order: sorted positions give the sorted ranks rows need."""
    for j in range(m):
        p = fixed + perm[j]
        k = fixed + j
        while k > fixed and chosen[k - 1] > p:
            chosen[k] = chosen[k - 1]
            k -= 1
        chosen[k] = p


@njit(cache=True, nogil=True, inline="always")
def _first_three(chosen: np.ndarray, board: Board, known_suits: int, known_bits: int) -> tuple[int, int, int]:
    """(row index, suit counts, card bits) of the known cards plus board positions ``chosen[0:3]``."""
    contrib, suit_unit, card_bit = board
    index = 0
    suits = known_suits
    bits = known_bits
    for j in range(3):
        index += contrib[j, chosen[j]]
        suits += suit_unit[chosen[j]]
        bits |= card_bit[chosen[j]]
    return index, suits, bits
