"""Numba dispatch over the rankings, for the equity kernels.

A ranking is named by its :attr:`~engine.rankings.core.Ranking.code`; these
functions take card ids in ``int64`` arrays and return keys (greater is better,
``NO_HAND`` for a non-qualifying low).

>>> import numpy as np
>>> from engine.cards import parse_cards
>>> from engine.rankings import HIGH
>>> cards = np.array([c.id for c in parse_cards("As Ks Qs Js Ts 2c 3d")], dtype=np.int64)
>>> best_any(HIGH.code, cards, 7) == HIGH.evaluate(parse_cards("As Ks Qs Js Ts")).key
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.rankings.americana import americana_key5
from engine.rankings.draw32 import draw32_key5
from engine.rankings.high import high_key5
from engine.rankings.lowball import deuce_to_seven_key5, eight_low_best, eight_low_key5, eight_low_omaha
from engine.rankings.soko import soko_key5
from engine.rankings.telesina import telesina_key5

HIGH_CODE, EIGHT_LOW_CODE, DEUCE_SEVEN_CODE, SOKO_CODE, AMERICANA_CODE, TELESINA_CODE, DRAW32_CODE = range(7)


@njit(cache=True)
def key5(code: int, c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """The key of five cards under the ranking ``code``."""
    if code == HIGH_CODE:
        return high_key5(c0, c1, c2, c3, c4)
    if code == EIGHT_LOW_CODE:
        return eight_low_key5(c0, c1, c2, c3, c4)
    if code == DEUCE_SEVEN_CODE:
        return deuce_to_seven_key5(c0, c1, c2, c3, c4)
    if code == SOKO_CODE:
        return soko_key5(c0, c1, c2, c3, c4)
    if code == AMERICANA_CODE:
        return americana_key5(c0, c1, c2, c3, c4)
    if code == TELESINA_CODE:
        return telesina_key5(c0, c1, c2, c3, c4)
    return draw32_key5(c0, c1, c2, c3, c4)


@njit(cache=True)
def best_any(code: int, cards: np.ndarray, n: int) -> int:
    """The best key of any five of ``cards[:n]`` (n >= 5)."""
    if code == EIGHT_LOW_CODE:
        return eight_low_best(cards, n)
    best = -1
    for a in range(n - 4):
        for b in range(a + 1, n - 3):
            for c in range(b + 1, n - 2):
                for d in range(c + 1, n - 1):
                    for e in range(d + 1, n):
                        k = key5(code, cards[a], cards[b], cards[c], cards[d], cards[e])
                        if k > best:
                            best = k
    return best


@njit(cache=True)
def best_omaha(code: int, hole: np.ndarray, nh: int, board: np.ndarray, nb: int) -> int:
    """The best key of exactly two of ``hole[:nh]`` and exactly three of ``board[:nb]``."""
    if code == EIGHT_LOW_CODE:
        return eight_low_omaha(hole, nh, board, nb)
    best = -1
    for i in range(nh - 1):
        for j in range(i + 1, nh):
            for a in range(nb - 2):
                for b in range(a + 1, nb - 1):
                    for c in range(b + 1, nb):
                        k = key5(code, hole[i], hole[j], board[a], board[b], board[c])
                        if k > best:
                            best = k
    return best


@njit(cache=True)
def keys_batch(code: int, hands: np.ndarray) -> np.ndarray:
    """The best key of each row of ``hands`` (shape ``(n, k)``, k >= 5): best of any five."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = best_any(code, hands[i], hands.shape[1])
    return out
