"""The 2-7 Triple Draw simulation compiled: the policy of :mod:`engine.draw_policy` on card ids, the dealer's draw.

Three draws of four hands played in Python cost about 200 µs a deal; compiled,
a few. The policy here is the 2-7 table of :data:`engine.draw_policy.POLICIES`
written over ids (a differential test holds the two together on random hands),
and the deal is :meth:`engine.dealer.Dealer.replace`'s: a burn, replacements in
seat order, the round's discards shuffled once the stock is out, never a seat's
own, and the earlier draws' discards shuffled in should those not serve a seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine._variant_kernels import splitmix
from engine.rankings.lowball import deuce_to_seven_key5

LOW_TOP = 8


@njit(cache=True)
def throw_27(hand: np.ndarray) -> int:
    """Bit ``j`` set: the 2-7 policy throws ``hand[j]``.

    A made 8-low (five ranks of 8 or under, no straight, no flush) stands pat; five
    such ranks that make a straight or flush throw the highest; anything else keeps
    the lowest card of each rank of 8 or under.
    """
    seen = 0
    low = 0
    suits = 0
    top = -1
    top_at = -1
    for j in range(5):
        card = hand[j]
        rank = card // 4 + 2
        suits |= 1 << (card % 4)
        if rank <= LOW_TOP and not (seen >> rank) & 1:
            seen |= 1 << rank
            low += 1
        if card > top:
            top, top_at = card, j
    if low == 5:
        lo = 15
        hi = 0
        for r in range(2, LOW_TOP + 1):
            if (seen >> r) & 1:
                lo = min(lo, r)
                hi = max(hi, r)
        if hi - lo != 4 and suits & (suits - 1) != 0:
            return 0
        return 1 << top_at
    out = 0
    for j in range(5):
        card = hand[j]
        rank = card // 4 + 2
        if rank > LOW_TOP:
            out |= 1 << j
            continue
        for k in range(5):  # a lower card of the same rank is kept instead
            other = hand[k]
            if k != j and other // 4 + 2 == rank and other < card:
                out |= 1 << j
                break
    return out


@njit(cache=True, nogil=True)
def simulate_27(hands: np.ndarray, pool: np.ndarray, stock: int, draws: int, samples: int, seed: np.uint64,
                unit: int, dead: np.ndarray) -> np.ndarray:
    """Tally ``samples`` deals of the remaining ``draws``: rows wins, ties, share (in 1/``unit``), share², splits.

    ``dead``: the earlier draws' discards, a reshuffle's last resort.
    """
    n = hands.shape[0]
    m = pool.shape[0]
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    avail = pool.copy()
    held = np.empty((n, 5), dtype=np.int64)
    thrown = np.empty((n, 5), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    earlier = np.empty(dead.shape[0] + 5 * n * draws, dtype=np.int64)
    pile = np.empty(5 * n + earlier.shape[0], dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    tally = np.zeros((4 + 9, n), dtype=np.int64)
    depth = min(stock, draws * (1 + 5 * n))
    for _ in range(samples):
        for i in range(depth):  # the stock's top ``depth`` cards, a partial Fisher-Yates of the unseen
            pick = i + np.int64(splitmix(state) % np.uint64(m - i))
            avail[i], avail[pick] = avail[pick], avail[i]
        top = 0
        for i in range(n):
            for c in range(5):
                held[i, c] = hands[i, c]
        earlier[: dead.shape[0]] = dead
        n_earlier = dead.shape[0]
        for _d in range(draws):
            top, n_earlier = _one_draw(held, thrown, counts, pile, avail, top, depth, state, earlier, n_earlier)
        for i in range(n):
            keys[i] = deuce_to_seven_key5(held[i, 0], held[i, 1], held[i, 2], held[i, 3], held[i, 4])
        _tally(keys, tally, unit)
    return tally


@njit(cache=True)
def _one_draw(held: np.ndarray, thrown: np.ndarray, counts: np.ndarray, pile: np.ndarray, stock: np.ndarray,
              top: int, depth: int, state: np.ndarray, earlier: np.ndarray, n_earlier: int) -> tuple[int, int]:
    """One draw in place on ``held``; returns the stock position and how many ``earlier`` discards are left."""
    n = held.shape[0]
    piled = 0
    for i in range(n):
        mask = throw_27(held[i])
        c = 0
        for j in range(5):
            if (mask >> j) & 1:
                thrown[i, c] = held[i, j]
                pile[piled] = held[i, j]
                piled += 1
                c += 1
        counts[i] = c
    if top < depth:
        top += 1  # the burn
    shuffled = False
    left = piled
    for i in range(n):
        c = 0
        for j in range(5):
            if c < counts[i] and held[i, j] == thrown[i, c]:
                c += 1
                if top < depth:
                    held[i, j] = stock[top]
                    top += 1
                    continue
                if not shuffled:
                    _shuffle(pile, piled, state)
                    shuffled = True
                at = _first_not_own(pile, left, thrown, counts, i)
                if at < 0 and n_earlier > 0:  # the round's pile cannot serve: the earlier discards go in below it
                    _shuffle(earlier, n_earlier, state)
                    pile[left : left + n_earlier] = earlier[:n_earlier]
                    left += n_earlier
                    n_earlier = 0
                    at = _first_not_own(pile, left, thrown, counts, i)
                if at < 0:
                    raise ValueError("the stock and the reshuffled discards cannot serve every seat")
                held[i, j] = pile[at]
                for k in range(at, left - 1):  # the rest of the pile keeps its order, as the dealer's does
                    pile[k] = pile[k + 1]
                left -= 1
    if not shuffled:
        left = piled  # nothing was dealt from the round's discards: all of them go out of play
    earlier[n_earlier : n_earlier + left] = pile[:left]
    return top, n_earlier + left


@njit(cache=True)
def _shuffle(cards: np.ndarray, size: int, state: np.ndarray) -> None:
    """Fisher-Yates over ``cards[:size]`` from the SplitMix64 ``state``."""
    for a in range(size - 1, 0, -1):
        b = np.int64(splitmix(state) % np.uint64(a + 1))
        cards[a], cards[b] = cards[b], cards[a]


@njit(cache=True)
def _first_not_own(pile: np.ndarray, left: int, thrown: np.ndarray, counts: np.ndarray, i: int) -> int:
    """The index of the first of ``pile[:left]`` that seat ``i`` did not throw this round, or -1."""
    for a in range(left):
        own = False
        for t in range(counts[i]):
            own = own or thrown[i, t] == pile[a]
        if not own:
            return a
    return -1


@njit(cache=True)
def _tally(keys: np.ndarray, tally: np.ndarray, unit: int) -> None:
    n = keys.shape[0]
    best = keys[0]
    for i in range(n):
        best = max(best, keys[i])
    k = 0
    for i in range(n):
        if keys[i] == best:
            k += 1
    for i in range(n):
        if keys[i] == best:
            if k == 1:
                tally[0, i] += 1
            else:
                tally[1, i] += 1
                tally[4 + k, i] += 1
            tally[2, i] += unit // k
            tally[3, i] += (unit // k) * (unit // k)
