"""Exact equity when every hand lacks at most one card (and the board at most one): each hand's keys first.

At 7-Card Stud's 6th street, or the four-card window of the five-card stud games,
every remaining deal gives each hand one card (and Telesina one shared vela).
A hand's result then depends only on its own card and the vela, so each hand's
key is computed once per possible card (``m`` or ``m²`` evaluations) and the
``m·(m-1)·…`` deals only look keys up and settle: the half a million deals of
7-Card Stud's last window cost a few milliseconds instead of half a second.
The tally is the one :func:`engine._variant_kernels.run_deals` produces (a
differential test holds them equal).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from engine._equity_result import EquityResult
from engine._errors import EngineInputError
from engine._variant_kernels import FORM_CODES, NO_LOW, TALLY_ROWS, high_key, low_key, settle
from engine.cards import Card
from engine.rankings.fast import TELESINA_CODE
from engine.showdown import CardsLike, check_cards, parse_hand
from engine.variant_equity import deal_count, equity_game, shared_last_card, tally_result
from engine.variants import HandForm


def last_card_applies(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> bool:
    """Whether every hand lacks at most one card and the board at most one (and no heads-up rule applies)."""
    game = shared_last_card(equity_game(variant), hands, board, ())
    heads_up = game.ranking.code == TELESINA_CODE and len(hands) == 2
    missing = max(game.hole_cards - len(h) for h in hands)
    return not heads_up and missing <= 1 and game.board_cards - len(board) <= 1 and game.hand_form is not HandForm.OMAHA


def last_card_equity(variant: str, hands: Sequence[CardsLike], board: CardsLike = ()) -> EquityResult:
    """Exact equity, as :func:`engine.variant_equity.variant_equity` gives it, for a last-card window."""
    from engine.evaluator import tables

    seats = [parse_hand(h, f"hand {i + 1}") for i, h in enumerate(hands)]
    shared = parse_hand(board, "board")
    game = shared_last_card(equity_game(variant), seats, shared, ())
    check_cards(game, seats, shared, complete=False, dead=())
    if not last_card_applies(variant, seats, shared):
        raise EngineInputError("the last-card kernel needs every hand (and the board) to lack at most one card")
    n = len(seats)
    known = np.full((n, game.hole_cards), -1, dtype=np.int64)
    for i, seat in enumerate(seats):
        known[i, : len(seat)] = [c.id for c in seat]
    known_n = np.array([len(s) for s in seats], dtype=np.int64)
    used = {c.id for group in (*seats, shared) for c in group}
    rest = np.array([c.id for c in game.deck.cards() if c.id not in used], dtype=np.int64)
    t = tables()
    tally = last_card_tally(
        known, known_n, np.array([c.id for c in shared], dtype=np.int64), game.board_cards, rest,
        game.ranking.code, game.low is not None, FORM_CODES[game.hand_form],
        (t.card_keys, t.hash_rows, t.hash_values, t.flush_values),
    )  # fmt: skip
    count = deal_count(game, seats, shared, ())
    return tally_result(game, seats, shared, (), True, count, None, tally)


@njit(cache=True)
def _keys(
    known: np.ndarray,
    known_n: np.ndarray,
    board_known: np.ndarray,
    board_size: int,
    rest: np.ndarray,
    code_hi: int,
    hilo: bool,
    form: int,
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """``hi[i, a, v]`` (and ``lo``): hand i's keys given rest card a (if it lacks one) and board card v (if any)."""
    n, hole_size = known.shape
    m = rest.shape[0]
    vs = m if board_known.shape[0] < board_size else 1
    hi = np.empty((n, m, vs), dtype=np.int64)
    lo = np.full((n, m, vs), NO_LOW, dtype=np.int64)
    hole = np.empty(hole_size, dtype=np.int64)
    board = np.empty(board_size, dtype=np.int64)
    pool = np.empty(hole_size + board_size, dtype=np.int64)
    for i in range(n):
        for a in range(m):
            if known_n[i] == hole_size and a > 0:  # a complete hand: one key, copied below
                hi[i, a] = hi[i, 0]
                lo[i, a] = lo[i, 0]
                continue
            for j in range(known_n[i]):
                hole[j] = known[i, j]
            if known_n[i] < hole_size:
                hole[hole_size - 1] = rest[a]
            for v in range(vs):
                if vs > 1 and v == a and known_n[i] < hole_size:
                    continue  # the same card cannot be both
                for j in range(board_known.shape[0]):
                    board[j] = board_known[j]
                if vs > 1:
                    board[board_size - 1] = rest[v]
                for j in range(hole_size):
                    pool[j] = hole[j]
                for j in range(board_size):
                    pool[hole_size + j] = board[j]
                hi[i, a, v] = high_key(code_hi, form, hole, board, pool, tables)
                if hilo:
                    lo[i, a, v] = low_key(form, hole, board, pool)
    return hi, lo


@njit(cache=True, nogil=True)
def last_card_tally(
    known: np.ndarray,
    known_n: np.ndarray,
    board_known: np.ndarray,
    board_size: int,
    rest: np.ndarray,
    code_hi: int,
    hilo: bool,
    form: int,
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """Every deal's tally (shape ``(TALLY_ROWS, hands)``), each hand lacking at most one card, the board one."""
    n, hole_size = known.shape
    m = rest.shape[0]
    hi_keys, lo_keys = _keys(known, known_n, board_known, board_size, rest, code_hi, hilo, form, tables)
    needing = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if known_n[i] < hole_size:
            needing[k] = i
            k += 1
    shared = 1 if board_known.shape[0] < board_size else 0
    if k == n == 4:  # 7-Card Stud's 6th street, the five-card studs' fourth card (and Telesina's vela)
        return _tally_outcomes(_four_by_one(hi_keys, lo_keys, hilo, shared == 1), n, hilo)
    slots = k + shared
    idx = np.zeros(slots, dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    lo = np.full(n, NO_LOW, dtype=np.int64)
    # Deals counted by who wins: (high winners' bit mask, low winners' bit mask or 0 for no low).
    outcomes = np.zeros((1 << n, 1 << n), dtype=np.int64)
    while True:
        distinct = True
        for p in range(slots):
            for q in range(p):
                if idx[p] == idx[q]:
                    distinct = False
        if distinct:
            v = idx[slots - 1] if shared else 0
            for i in range(n):
                hi[i] = hi_keys[i, 0, v]
                lo[i] = lo_keys[i, 0, v]
            for p in range(k):
                i = needing[p]
                hi[i] = hi_keys[i, idx[p], v]
                lo[i] = lo_keys[i, idx[p], v]
            outcomes[_best_mask(hi), _best_mask(lo) if hilo else 0] += 1
        p = slots - 1
        while p >= 0:
            idx[p] += 1
            if idx[p] < m:
                break
            idx[p] = 0
            p -= 1
        if p < 0 or slots == 0:
            return _tally_outcomes(outcomes, n, hilo)


@njit(cache=True)
def _four_by_one(hi: np.ndarray, lo: np.ndarray, hilo: bool, shared: bool) -> np.ndarray:
    """:func:`last_card_tally`'s loop for four hands lacking one card each (and a shared card): nested loops.

    The general odometer checks every index tuple for repeats; here a repeated card
    is skipped where it is chosen. The outcome counts are the same (a differential
    test compares the tallies with the general kernel's).
    """
    m = hi.shape[1]
    outcomes = np.zeros((16, 16), dtype=np.int64)
    keys = np.empty(4, dtype=np.int64)
    lows = np.empty(4, dtype=np.int64)
    for v in range(m if shared else 1):
        for a in range(m):
            if shared and a == v:
                continue
            for b in range(m):
                if b == a or (shared and b == v):
                    continue
                for c in range(m):
                    if c == a or c == b or (shared and c == v):  # noqa: SIM109 (plain compares in the JIT loop)
                        continue
                    for d in range(m):
                        if d == a or d == b or d == c or (shared and d == v):  # noqa: SIM109
                            continue
                        keys[0], keys[1], keys[2], keys[3] = hi[0, a, v], hi[1, b, v], hi[2, c, v], hi[3, d, v]
                        low = 0
                        if hilo:
                            lows[0], lows[1], lows[2], lows[3] = lo[0, a, v], lo[1, b, v], lo[2, c, v], lo[3, d, v]
                            low = _best_mask(lows)
                        outcomes[_best_mask(keys), low] += 1
    return outcomes


@njit(cache=True)
def _best_mask(keys: np.ndarray) -> int:
    """Bit i set for each hand holding the best key; 0 when no hand has one (no qualifying low)."""
    best = NO_LOW
    for i in range(keys.shape[0]):
        best = max(best, keys[i])
    if best == NO_LOW:
        return 0
    mask = 0
    for i in range(keys.shape[0]):
        if keys[i] == best:
            mask |= 1 << i
    return mask


@njit(cache=True)
def _tally_outcomes(outcomes: np.ndarray, n: int, hilo: bool) -> np.ndarray:
    """The tally of every deal, from the counts of each outcome: one settlement per outcome, times its count."""
    tally = np.zeros((TALLY_ROWS, n), dtype=np.int64)
    one = np.zeros((TALLY_ROWS, n), dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    lo = np.empty(n, dtype=np.int64)
    for hm in range(outcomes.shape[0]):
        for lm in range(outcomes.shape[1]):
            count = outcomes[hm, lm]
            if count == 0:
                continue
            for i in range(n):
                hi[i] = 1 if (hm >> i) & 1 else 0
                lo[i] = 1 if (lm >> i) & 1 else NO_LOW
            one[:, :] = 0
            settle(hilo, hi, lo, one)
            tally += count * one
    return tally
