"""The compiled side of :mod:`engine.variant_equity`: deals enumerated or sampled, hands ranked, pots settled.

:func:`run_deals` plays ``count`` deals of the missing cards (every one in
colex order, or random ones from a SplitMix64 stream), ranks each completed
hand (high, and the eight-or-better low in hi/lo games) and adds each hand's
outcome to an integer tally, one row per figure (the ``SCOOP`` ... ``SPLIT + k``
constants below), one column per hand. The ranking and settling steps are also
used by :mod:`engine.last_card`; the random stream by :mod:`engine._draw_kernels`.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from engine._equity_result import MAX_HANDS
from engine._hilo_result import SHARE_UNIT
from engine._kernels import eval_ids, lookup_ranks
from engine.rankings.americana import americana_key5
from engine.rankings.fast import AMERICANA_CODE, HIGH_CODE, SOKO_CODE, TELESINA_CODE
from engine.rankings.lowball import eight_low_best, eight_low_omaha
from engine.rankings.soko import soko_key5
from engine.rankings.telesina import heads_up_override, telesina_best
from engine.variants import HandForm

FORM_BEST, FORM_OMAHA, FORM_EXACT = range(3)
FORM_CODES = {HandForm.BEST_FIVE: FORM_BEST, HandForm.OMAHA: FORM_OMAHA, HandForm.EXACT_FIVE: FORM_EXACT}
# the (ranking, form) pairs the kernel evaluates; the low is always eight-or-better
KERNEL_PAIRS = {
    (HIGH_CODE, FORM_BEST),
    (HIGH_CODE, FORM_OMAHA),
    (SOKO_CODE, FORM_EXACT),
    (AMERICANA_CODE, FORM_EXACT),
    (TELESINA_CODE, FORM_BEST),
}
NO_LOW = -1

# Integer tally rows, one column per hand. SPLIT + k counts the deals where the hand tied
# for the (high) pot with k - 1 others. NO_LOW_DEALS is the same in every column.
SCOOP, PARTIAL, SHARE, SHARE_SQ, HIGH_WIN, HIGH_TIE, HIGH_SHARE, LOW_WIN, LOW_TIE, LOW_SHARE, NO_LOW_DEALS = range(11)
SPLIT = 11
TALLY_ROWS = SPLIT + MAX_HANDS + 1


def binomials(n: int = 52, k: int = 8) -> np.ndarray:
    """``out[m, j]`` = C(m, j) for m <= n, j < k, as int64."""
    out = np.zeros((n + 1, k), dtype=np.int64)
    for m in range(n + 1):
        for j in range(k):
            out[m, j] = comb(m, j)
    return out


@njit(cache=True, nogil=True)
def splitmix(state: np.ndarray) -> np.uint64:
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _deal_exact(
    d: int, need: np.ndarray, rest: np.ndarray, binom: np.ndarray, avail: np.ndarray, dealt: np.ndarray
) -> None:
    """Write deal number ``d`` into ``dealt``: group by group, a combination of the cards still free.

    ``d`` is read in mixed radix, digit ``g`` being the colex rank of group ``g``'s
    combination among the ``C(free, need[g])`` possible.
    """
    m = rest.shape[0]
    for i in range(m):
        avail[i] = rest[i]
    off = 0
    for g in range(need.shape[0]):
        k = need[g]
        if k == 0:
            continue
        size = binom[m, k]
        r = d % size
        d //= size
        c = m
        for i in range(k, 0, -1):
            c -= 1
            while binom[c, i] > r:
                c -= 1
            r -= binom[c, i]
            dealt[off + i - 1] = avail[c]
            avail[c] = -1
        off += k
        j = 0
        for i in range(m):
            if avail[i] >= 0:
                avail[j] = avail[i]
                j += 1
        m = j


@njit(cache=True)
def _deal_random(state: np.ndarray, total: int, rest: np.ndarray, avail: np.ndarray, dealt: np.ndarray) -> None:
    """Write ``total`` distinct random cards of ``rest`` into ``dealt`` (a partial Fisher-Yates)."""
    m = rest.shape[0]
    for i in range(m):
        avail[i] = rest[i]
    for i in range(total):
        j = i + np.int64(splitmix(state) % np.uint64(m - i))
        avail[i], avail[j] = avail[j], avail[i]
        dealt[i] = avail[i]


@njit(cache=True)
def high_key(
    code: int,
    form: int,
    hole: np.ndarray,
    board: np.ndarray,
    pool: np.ndarray,
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """A hand's best high key: ``hole`` its own cards, ``board`` the shared ones, ``pool`` both.

    Only the (ranking, form) pairs of the games with equity are compiled in:
    standard high (fast evaluator) as best five or Omaha, Soko and Americana as
    exactly five, Telesina as best five of six.
    """
    card_keys, hash_rows, hash_values, flush_values = tables
    if form == FORM_OMAHA:
        return _omaha_high(hole, board, tables)
    if form == FORM_EXACT:
        if code == SOKO_CODE:
            return soko_key5(hole[0], hole[1], hole[2], hole[3], hole[4])
        return americana_key5(hole[0], hole[1], hole[2], hole[3], hole[4])
    if code == HIGH_CODE:
        return eval_ids(pool, card_keys, hash_rows, hash_values, flush_values)
    return telesina_best(pool, pool.shape[0])


@njit(cache=True)
def _omaha_high(
    hole: np.ndarray, board: np.ndarray, tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
) -> int:
    """The best standard high value of exactly two hole cards and three board cards.

    The engine evaluator's value, computed from partial sums: each two-card and
    three-card part's rank-key sum, suit (or -1 if mixed) and rank mask are formed
    once, so each of the (up to) 60 hands costs one addition and one table lookup.
    """
    card_keys, hash_rows, hash_values, flush_values = tables
    nh = hole.shape[0]
    nb = board.shape[0]
    tri_key = np.empty(10, dtype=np.int64)
    tri_suit = np.empty(10, dtype=np.int64)
    tri_mask = np.empty(10, dtype=np.int64)
    t = 0
    for a in range(nb - 2):
        for b in range(a + 1, nb - 1):
            for c in range(b + 1, nb):
                x, y, z = board[a], board[b], board[c]
                tri_key[t] = card_keys[x] + card_keys[y] + card_keys[z]
                tri_suit[t] = x & 3 if (x & 3) == (y & 3) == (z & 3) else -1
                tri_mask[t] = (1 << (x >> 2)) | (1 << (y >> 2)) | (1 << (z >> 2))
                t += 1
    best = 0
    for i in range(nh - 1):
        for j in range(i + 1, nh):
            p, q = hole[i], hole[j]
            pair_key = card_keys[p] + card_keys[q]
            pair_suit = p & 3 if (p & 3) == (q & 3) else -2
            pair_mask = (1 << (p >> 2)) | (1 << (q >> 2))
            for k in range(t):
                if tri_suit[k] == pair_suit:
                    v = int(flush_values[pair_mask | tri_mask[k]])
                else:
                    v = int(lookup_ranks(pair_key + tri_key[k], hash_rows, hash_values))
                best = max(best, v)
    return best


@njit(cache=True)
def low_key(form: int, hole: np.ndarray, board: np.ndarray, pool: np.ndarray) -> int:
    """A hand's best eight-or-better low (the one low ranking of the games with equity)."""
    if form == FORM_OMAHA:
        return eight_low_omaha(hole, hole.shape[0], board, board.shape[0])
    return eight_low_best(pool, pool.shape[0])


@njit(cache=True)
def _winners(keys: np.ndarray, n: int) -> tuple[int, int]:
    """(best key, how many hands hold it); ``(NO_LOW, 0)`` when no hand qualifies."""
    best = NO_LOW
    for i in range(n):
        best = max(best, keys[i])
    if best == NO_LOW:
        return best, 0
    count = 0
    for i in range(n):
        if keys[i] == best:
            count += 1
    return best, count


@njit(cache=True)
def _play_deal(
    dealt: np.ndarray,
    known: np.ndarray,
    known_n: np.ndarray,
    need: np.ndarray,
    board_known: np.ndarray,
    code_hi: int,
    hilo: bool,
    form: int,
    heads_up: bool,
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    holes: np.ndarray,
    board: np.ndarray,
    pools: np.ndarray,
    hi: np.ndarray,
    lo: np.ndarray,
    tally: np.ndarray,
) -> None:
    """Complete every hand and the board from ``dealt``, settle the pot and add to ``tally``.

    The helpers are inlined by numba (``inline="always"``): as plain calls, once per deal, they made
    the kernel about 20 % slower. The ranking loop stays here: moved out, it cost 3-4 % even inlined.
    """
    _complete_cards(dealt, known, known_n, need, board_known, holes, board)
    hole_size = holes.shape[1]
    for i in range(holes.shape[0]):
        for j in range(hole_size):
            pools[i, j] = holes[i, j]
        for j in range(board.shape[0]):
            pools[i, hole_size + j] = board[j]
        hi[i] = high_key(code_hi, form, holes[i], board, pools[i], tables)
        if hilo:
            lo[i] = low_key(form, holes[i], board, pools[i])
    if heads_up:
        _heads_up_override(pools, hi)
    settle(hilo, hi, lo, tally)


@njit(cache=True, inline="always")
def _complete_cards(
    dealt: np.ndarray,
    known: np.ndarray,
    known_n: np.ndarray,
    need: np.ndarray,
    board_known: np.ndarray,
    holes: np.ndarray,
    board: np.ndarray,
) -> None:
    """Fill ``holes`` and ``board``: the known cards, then ``dealt`` in order (hand by hand, the board last)."""
    n = known.shape[0]
    off = 0
    for i in range(n):
        for j in range(known_n[i]):
            holes[i, j] = known[i, j]
        for j in range(need[i]):
            holes[i, known_n[i] + j] = dealt[off + j]
        off += need[i]
    nb = board_known.shape[0]
    for j in range(nb):
        board[j] = board_known[j]
    for j in range(board.shape[0] - nb):
        board[nb + j] = dealt[off + j]


@njit(cache=True, inline="always")
def _heads_up_override(pools: np.ndarray, hi: np.ndarray) -> None:
    """Telesina heads-up: where :func:`heads_up_override` names a winner, lift its key above any other."""
    m0 = 0
    m1 = 0
    for j in range(pools.shape[1]):
        m0 |= np.int64(1) << pools[0, j]
        m1 |= np.int64(1) << pools[1, j]
    winner = heads_up_override(hi[0], m0, hi[1], m1)
    if winner >= 0:
        hi[winner] = np.int64(1) << 62


@njit(cache=True, inline="always")
def settle(hilo: bool, hi: np.ndarray, lo: np.ndarray, tally: np.ndarray) -> None:
    """Share the pot (each half in hi/lo games) among the best keys and add each hand's outcome to ``tally``."""
    n = hi.shape[0]
    best_hi, k_hi = _winners(hi, n)
    best_lo, k_lo = _winners(lo, n) if hilo else (NO_LOW, 0)
    half = SHARE_UNIT // 2 if k_lo else SHARE_UNIT
    for i in range(n):
        share = 0
        if hi[i] == best_hi:
            share += half // k_hi
            tally[HIGH_WIN if k_hi == 1 else HIGH_TIE, i] += 1
            tally[HIGH_SHARE, i] += SHARE_UNIT // k_hi
            if k_hi > 1:
                tally[SPLIT + k_hi, i] += 1
        if k_lo and lo[i] == best_lo:
            share += half // k_lo
            tally[LOW_WIN if k_lo == 1 else LOW_TIE, i] += 1
            tally[LOW_SHARE, i] += SHARE_UNIT // k_lo
        tally[SHARE, i] += share
        tally[SHARE_SQ, i] += share * share
        if share == SHARE_UNIT:
            tally[SCOOP, i] += 1
        elif share:
            tally[PARTIAL, i] += 1
        if hilo and not k_lo:
            tally[NO_LOW_DEALS, i] += 1


@njit(cache=True, nogil=True)
def run_deals(
    exact: bool,
    count: int,
    seed: np.uint64,
    known: np.ndarray,
    known_n: np.ndarray,
    need: np.ndarray,
    board_known: np.ndarray,
    board_size: int,
    rest: np.ndarray,
    code_hi: int,
    hilo: bool,
    form: int,
    heads_up: bool,
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    binom: np.ndarray,
) -> np.ndarray:
    """Tally ``count`` deals: all of them in order (``exact``), or ``count`` random ones.

    Random deals come from one SplitMix64 stream started at ``seed``. Returns the
    integer tally, shape ``(TALLY_ROWS, hands)``.
    """
    n = known.shape[0]
    hole_size = known.shape[1]
    groups = np.empty(n + 1, dtype=np.int64)
    for i in range(n):
        groups[i] = need[i]
    groups[n] = board_size - board_known.shape[0]
    dealt_total = 0
    for g in range(n + 1):
        dealt_total += groups[g]
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    avail = np.empty(rest.shape[0], dtype=np.int64)
    dealt = np.empty(max(dealt_total, 1), dtype=np.int64)
    holes = np.empty((n, hole_size), dtype=np.int64)
    board = np.empty(board_size, dtype=np.int64)
    pools = np.empty((n, hole_size + board_size), dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    lo = np.empty(n, dtype=np.int64)
    lo[:] = NO_LOW
    tally = np.zeros((TALLY_ROWS, n), dtype=np.int64)
    for d in range(count):
        if exact:
            _deal_exact(d, groups, rest, binom, avail, dealt)
        else:
            _deal_random(state, dealt_total, rest, avail, dealt)
        _play_deal(
            dealt, known, known_n, need, board_known, code_hi, hilo, form, heads_up, tables,
            holes, board, pools, hi, lo, tally,
        )  # fmt: skip
    return tally
