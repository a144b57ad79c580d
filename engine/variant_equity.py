"""Equity for the games dealt without decisions beyond Hold'em and Omaha: Omaha Hi/Lo and the stud games.

Given what each hand holds so far (and the board, or Telesina's vela), every way
the rest of the cards can fall is enumerated exactly or sampled, and each deal is
settled as at :func:`engine.showdown.showdown`: the pot, or each half of it in
hi/lo games, goes to the best hands, split on a dead heat. The result has the
shape of Hold'em's :class:`engine.equity.EquityResult`: per hand ``win`` (the
share of deals where it takes the whole pot alone), ``tie`` (where it gets part of
the pot) and ``equity`` (its expected share of the pot), with the integer counts
behind them. Hi/lo games add each half's outcomes (:class:`HiLoHandEquity`).

Exact enumeration is used unless it would cost more than :data:`EXACT_LIMIT` hand
evaluations (deals times hands) or ``samples`` is given; then a Monte Carlo deals
``samples`` (default :data:`DEFAULT_SAMPLES`) random completions from a SplitMix64
stream. A missing seed is drawn from the OS and recorded in the result, so every
run can be replayed. Draw games are not priced here: their cards depend on the draws,
which :mod:`engine.draw_equity` plays under the published draw policies.

>>> r = variant_equity("stud7", ["As Ad Kc Kd 2h 3h", "9c Tc Jc Qc 2c 4d"])
>>> r.exact, r.boards, [h.wins for h in r.results], r.results[0].exact_equity
(True, 1560, [152, 1408], Fraction(19, 195))
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
from numba import njit

from engine._equity_result import MAX_HANDS, EquityResult, HandEquity
from engine._errors import EngineInputError
from engine._hilo_result import SHARE_UNIT, HiLoEquityResult, HiLoHandEquity
from engine._kernels import eval_ids, lookup_ranks
from engine.cards import Card
from engine.rankings import EIGHT_OR_BETTER
from engine.rankings.americana import americana_key5
from engine.rankings.fast import AMERICANA_CODE, HIGH_CODE, SOKO_CODE, TELESINA_CODE
from engine.rankings.lowball import eight_low_best, eight_low_omaha
from engine.rankings.soko import soko_key5
from engine.rankings.telesina import heads_up_override, telesina_best
from engine.showdown import CardsLike, check_cards, parse_hand
from engine.variants import VARIANTS, Deal, Face, HandForm, Street, Variant, get_variant

EXACT_LIMIT = 50_000_000
DEFAULT_SAMPLES = 200_000

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


class NoEquityError(EngineInputError):
    """The game's cards depend on decisions (a draw game), so there is no equity to compute."""


def equity_variants() -> tuple[str, ...]:
    """The variants :func:`variant_equity` accepts (every game without draws)."""
    return tuple(name for name, v in VARIANTS.items() if not v.has_draws)


# ------------------------------------------------------------------------------ kernels


def binomials(n: int = 52, k: int = 8) -> np.ndarray:
    """``out[m, j]`` = C(m, j) for m <= n, j < k, as int64."""
    out = np.zeros((n + 1, k), dtype=np.int64)
    for m in range(n + 1):
        for j in range(k):
            out[m, j] = comb(m, j)
    return out


@njit(cache=True, nogil=True)
def _splitmix(state: np.ndarray) -> np.uint64:
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
        j = i + np.int64(_splitmix(state) % np.uint64(m - i))
        avail[i], avail[j] = avail[j], avail[i]
        dealt[i] = avail[i]


@njit(cache=True)
def _high_key(
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
def _low_key(form: int, hole: np.ndarray, board: np.ndarray, pool: np.ndarray) -> int:
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
        hi[i] = _high_key(code_hi, form, holes[i], board, pools[i], tables)
        if hilo:
            lo[i] = _low_key(form, holes[i], board, pools[i])
    if heads_up:
        _heads_up_override(pools, hi)
    _settle(hilo, hi, lo, tally)


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
def _settle(hilo: bool, hi: np.ndarray, lo: np.ndarray, tally: np.ndarray) -> None:
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


# ------------------------------------------------------------------------------ results


# ------------------------------------------------------------------------------ Python side


def deal_count(variant: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]) -> int:
    """How many distinct ways the missing cards can fall (hands in order, then the board)."""
    free = variant.deck - sum(len(h) for h in hands) - len(board) - len(dead)
    total = 1
    for missing in [variant.hole_cards - len(h) for h in hands] + [variant.board_cards - len(board)]:
        total *= comb(free, missing)
        free -= missing
    return total


def variant_equity(
    variant: str | Variant,
    hands: Sequence[CardsLike],
    board: CardsLike = (),
    dead: CardsLike = (),
    samples: int | None = None,
    seed: int | None = None,
) -> EquityResult:
    """Each hand's equity in ``variant`` given the cards known so far.

    ``hands``: each seat's known cards (hole cards in board games; the cards dealt
    so far in stud games, up to 7 or 5; Telesina's own five). ``board``: the board
    so far, or Telesina's vela. ``dead``: cards known to be out of play.
    ``samples``: Monte Carlo over this many deals; without it, exact unless that
    costs more than :data:`EXACT_LIMIT` hand evaluations (then
    :data:`DEFAULT_SAMPLES` deals). ``seed``: the Monte Carlo seed (drawn from the
    OS and recorded in the result when missing).

    Returns an :class:`~engine.equity.EquityResult` (a :class:`HiLoEquityResult`
    in hi/lo games). Raises :class:`~engine.EngineInputError` (a ``ValueError``)
    naming the problem: an unknown or draw game, cards that do not fit the game.
    """
    if isinstance(hands, str):
        raise EngineInputError(f"hands must be a list of hands, e.g. ['As Ks', 'Qd Qc'], not the string {hands!r}")
    seats = [parse_hand(h, f"hand {i + 1}") for i, h in enumerate(hands)]
    shared = parse_hand(board, "board")
    out_of_play = parse_hand(dead, "dead cards")
    game = shared_last_card(_equity_game(variant), seats, shared, out_of_play)
    check_cards(game, seats, shared, complete=False, dead=out_of_play)
    if samples is not None and (not isinstance(samples, int) or isinstance(samples, bool) or samples < 1):
        raise EngineInputError(f"samples must be a positive whole number of deals, not {samples!r}")
    _check_enough_cards(game, seats, shared, out_of_play)
    total = deal_count(game, seats, shared, out_of_play)
    exact = samples is None and total * len(seats) <= EXACT_LIMIT
    if exact:
        count, seed = total, None
    else:
        count = samples or DEFAULT_SAMPLES
        seed = secrets.randbits(64) if seed is None else seed
    tally = _run(game, seats, shared, out_of_play, exact, count, seed or 0)
    return _result(game, seats, shared, out_of_play, exact, count, seed, tally)


def _check_enough_cards(
    game: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]
) -> None:
    unseen = game.deck - sum(map(len, hands)) - len(board) - len(dead)
    needed = sum(game.hole_cards - len(h) for h in hands) + game.board_cards - len(board)
    if unseen < needed:
        raise EngineInputError(
            f"the hands and board still need {needed} cards; only {unseen} of the {int(game.deck)}-card pack are left"
        )


def shared_last_card(
    game: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]
) -> Variant:
    """``game`` as it is dealt from here: with one shared face-up last card if the pack runs short.

    In 7-Card Stud, when the cards left cannot give every hand its own last card, one
    card goes face up to the board as everyone's last (``variants.md``): the game is
    then six own cards and a one-card board. That is the case when the unseen cards
    are fewer than the hands still need, or when that shared card is already given
    as ``board`` (as :func:`~engine.showdown.showdown` takes it). Else ``game`` as it is.
    """
    if not game.shared_last_card or any(len(h) >= game.hole_cards for h in hands):
        return game
    unseen = game.deck - sum(map(len, hands)) - len(board) - len(dead)
    if not board and unseen >= sum(game.hole_cards - len(h) for h in hands):
        return game
    last = game.streets[-1]
    return replace(game, streets=(*game.streets[:-1], Street(last.name, (Deal(Face.BOARD, 1),), last.big_bet)))


def _equity_game(variant: str | Variant) -> Variant:
    if isinstance(variant, str) and variant not in VARIANTS:
        raise EngineInputError(f"unknown variant {variant!r}; equity knows {', '.join(equity_variants())}")
    game = get_variant(variant)
    if game.has_draws:
        raise NoEquityError(
            f"{game.title} is a draw game: its cards depend on the draws (engine.draw_equity prices them "
            f"under the published policy); variant_equity knows "
            f"{', '.join(equity_variants())}"
        )
    return game


def _run(
    game: Variant,
    seats: Sequence[tuple[Card, ...]],
    shared: tuple[Card, ...],
    dead: tuple[Card, ...],
    exact: bool,
    count: int,
    seed: int,
) -> np.ndarray:
    from engine.evaluator import tables

    n = len(seats)
    known = np.full((n, game.hole_cards), -1, dtype=np.int64)
    for i, seat in enumerate(seats):
        known[i, : len(seat)] = [c.id for c in seat]
    known_n = np.array([len(s) for s in seats], dtype=np.int64)
    used = {c.id for group in (*seats, shared, dead) for c in group}
    rest = np.array([c.id for c in game.deck.cards() if c.id not in used], dtype=np.int64)
    form = FORM_CODES[game.hand_form]
    if (game.ranking.code, form) not in KERNEL_PAIRS or game.low not in (None, EIGHT_OR_BETTER):
        raise NoEquityError(f"the equity kernel does not evaluate {game.title} hands")
    t = tables()
    heads_up = game.ranking.code == TELESINA_CODE and n == 2
    board_known = np.array([c.id for c in shared], dtype=np.int64)
    return run_deals(
        exact, count, np.uint64(seed % 2**64), known, known_n, game.hole_cards - known_n,
        board_known, game.board_cards, rest,
        game.ranking.code, game.low is not None, form, heads_up,
        (t.card_keys, t.hash_rows, t.hash_values, t.flush_values), binomials(),
    )  # fmt: skip


def _stderr(share_sum: int, square_sum: int, n: int) -> float:
    """Standard error of the mean pot share over ``n`` sampled deals (sums in share units)."""
    if n < 2:
        return math.nan
    mean = share_sum / SHARE_UNIT / n
    variance = (square_sum / SHARE_UNIT**2 - n * mean * mean) / (n - 1)
    return math.sqrt(max(variance, 0.0) / n)


def _result(
    game: Variant,
    seats: Sequence[tuple[Card, ...]],
    shared: tuple[Card, ...],
    dead: tuple[Card, ...],
    exact: bool,
    count: int,
    seed: int | None,
    tally: np.ndarray,
) -> EquityResult:
    t = tally.tolist()
    results: list[HandEquity] = []
    for i, cards in enumerate(seats):
        wins, ties = t[SCOOP][i], t[PARTIAL][i]
        equity = float(Fraction(t[SHARE][i], SHARE_UNIT * count))
        stderr = None if exact else _stderr(t[SHARE][i], t[SHARE_SQ][i], count)
        if game.low is None:
            splits = tuple(t[SPLIT + k][i] for k in range(MAX_HANDS + 1))
            results.append(HandEquity(cards, wins / count, ties / count, equity, wins, ties, splits, count, stderr))
        else:
            results.append(
                HiLoHandEquity(
                    cards, wins / count, ties / count, equity, wins, ties, (0,) * (MAX_HANDS + 1), count, stderr,
                    share_units=t[SHARE][i],
                    high_win=t[HIGH_WIN][i] / count,
                    high_tie=t[HIGH_TIE][i] / count,
                    high_share=t[HIGH_SHARE][i] / SHARE_UNIT / count,
                    low_win=t[LOW_WIN][i] / count,
                    low_tie=t[LOW_TIE][i] / count,
                    low_share=t[LOW_SHARE][i] / SHARE_UNIT / count,
                    high_wins=t[HIGH_WIN][i],
                    high_ties=t[HIGH_TIE][i],
                    high_units=t[HIGH_SHARE][i],
                    low_wins=t[LOW_WIN][i],
                    low_ties=t[LOW_TIE][i],
                    low_units=t[LOW_SHARE][i],
                )
            )
    common: dict[str, Any] = {
        "variant": game.name,
        "hands": tuple(seats),
        "board": shared,
        "dead": dead,
        "exact": exact,
        "boards": count,
        "results": tuple(results),
        "seed": seed,
    }
    if game.low is None:
        return EquityResult(**common)
    return HiLoEquityResult(**common, no_low=t[NO_LOW_DEALS][0] / count, no_low_deals=t[NO_LOW_DEALS][0])
