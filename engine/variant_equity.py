"""Equity for every game dealt without decisions: the board games and the stud games.

Given what each hand holds so far (and the board or vela), every way the rest of
the cards can fall is either enumerated exactly or sampled, and each deal is
settled as at the showdown: the pot, or its two halves in hi/lo games, goes to the
best hands, split on a dead heat. A hand's ``equity`` is its expected share of the
pot. Draw games have no equity here: their cards depend on the players' draws.

Exact enumeration is used when it costs at most :data:`EXACT_LIMIT` hand
evaluations (deals times hands); beyond that, or when ``samples`` is given, a
seeded Monte Carlo deals ``samples`` random completions. The same seed gives the
same result on any machine and any number of threads.

>>> r = variant_equity("stud7", ["As Ad Kc Kd 2h 3h", "9c Tc Jc Qc 2c 4d"])
>>> r.exact, r.boards, [round(e, 4) for e in r.equity]
(True, 1560, [0.0974, 0.9026])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np
from numba import njit, prange

from engine._errors import EngineInputError
from engine._kernels import eval_ids, eval_omaha_ids
from engine.cards import Card, format_cards
from engine.rankings.americana import americana_key5
from engine.rankings.fast import AMERICANA_CODE, EIGHT_LOW_CODE, HIGH_CODE, SOKO_CODE, TELESINA_CODE
from engine.rankings.lowball import eight_low_best, eight_low_omaha
from engine.rankings.soko import soko_key5
from engine.rankings.telesina import heads_up_override, telesina_best
from engine.showdown import CardsLike, check_cards, parse_hand
from engine.variants import VARIANTS, HandForm, Variant, get_variant

EXACT_LIMIT = 50_000_000
DEFAULT_SAMPLES = 200_000
CHUNKS = 64  # work units: fixed, so results do not depend on the number of threads

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

# tally rows, per hand (NO_LOW_DEALS is the same in every column)
HIGH_WIN, HIGH_TIE, HIGH_SHARE, LOW_WIN, LOW_TIE, LOW_SHARE, EQUITY, SCOOP, PARTIAL, NO_LOW_DEALS = range(10)
TALLY_ROWS = 10


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


@njit(cache=True)
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
        return eval_omaha_ids(hole, board, card_keys, hash_rows, hash_values, flush_values)
    if form == FORM_EXACT:
        if code == SOKO_CODE:
            return soko_key5(hole[0], hole[1], hole[2], hole[3], hole[4])
        return americana_key5(hole[0], hole[1], hole[2], hole[3], hole[4])
    if code == HIGH_CODE:
        return eval_ids(pool, card_keys, hash_rows, hash_values, flush_values)
    return telesina_best(pool, pool.shape[0])


@njit(cache=True)
def _low_key(form: int, hole: np.ndarray, board: np.ndarray, pool: np.ndarray) -> int:
    """A hand's best eight-or-better low (the one low ranking of the games with equity)."""
    if form == FORM_OMAHA:
        return eight_low_omaha(hole, hole.shape[0], board, board.shape[0])
    return eight_low_best(pool, pool.shape[0])


@njit(cache=True)
def _settle(keys: np.ndarray, n: int, tally: np.ndarray, row_win: int, row_tie: int, row_share: int) -> int:
    """Tally one pot half; return the number of winners (0 when no hand qualifies)."""
    best = NO_LOW
    for i in range(n):
        if keys[i] > best:
            best = keys[i]
    if best < 0:
        return 0
    winners = 0
    for i in range(n):
        if keys[i] == best:
            winners += 1
    for i in range(n):
        if keys[i] == best:
            if winners == 1:
                tally[row_win, i] += 1.0
            else:
                tally[row_tie, i] += 1.0
            tally[row_share, i] += 1.0 / winners
    return winners


@njit(cache=True)
def _play_deal(
    dealt: np.ndarray,
    known: np.ndarray,
    known_n: np.ndarray,
    need: np.ndarray,
    board_known: np.ndarray,
    code_hi: int,
    code_lo: int,
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
    """Complete every hand and the board from ``dealt``, settle the pot and add to ``tally``."""
    n = known.shape[0]
    hole_size = holes.shape[1]
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
    for i in range(n):
        for j in range(hole_size):
            pools[i, j] = holes[i, j]
        for j in range(board.shape[0]):
            pools[i, hole_size + j] = board[j]
        hi[i] = _high_key(code_hi, form, holes[i], board, pools[i], tables)
        if code_lo >= 0:
            lo[i] = _low_key(form, holes[i], board, pools[i])
    if heads_up:
        m0 = 0
        m1 = 0
        for j in range(pools.shape[1]):
            m0 |= np.int64(1) << pools[0, j]
            m1 |= np.int64(1) << pools[1, j]
        winner = heads_up_override(hi[0], m0, hi[1], m1)
        if winner >= 0:
            hi[winner] = 1 << 62
    high_winners = _settle(hi, n, tally, HIGH_WIN, HIGH_TIE, HIGH_SHARE)
    low_winners = _settle(lo, n, tally, LOW_WIN, LOW_TIE, LOW_SHARE) if code_lo >= 0 else 0
    half = 0.5 if low_winners else 1.0
    best_hi = hi[0]
    best_lo = lo[0]
    for i in range(1, n):
        best_hi = max(best_hi, hi[i])
        best_lo = max(best_lo, lo[i])
    for i in range(n):
        share = 0.0
        if hi[i] == best_hi:
            share += half / high_winners
        if low_winners and lo[i] == best_lo:
            share += half / low_winners
        tally[EQUITY, i] += share
        if share == 1.0:
            tally[SCOOP, i] += 1.0
        elif share > 0.0:
            tally[PARTIAL, i] += 1.0
        if code_lo >= 0 and low_winners == 0:
            tally[NO_LOW_DEALS, i] += 1.0


@njit(cache=True, parallel=True)
def run_deals(
    exact: bool,
    count: int,
    seed: int,
    known: np.ndarray,
    known_n: np.ndarray,
    need: np.ndarray,
    board_known: np.ndarray,
    board_size: int,
    rest: np.ndarray,
    code_hi: int,
    code_lo: int,
    form: int,
    heads_up: bool,
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    binom: np.ndarray,
) -> np.ndarray:
    """Tally ``count`` deals: all of them in order (``exact``) or ``count`` random ones.

    The work is cut into :data:`CHUNKS` fixed pieces, each with its own random
    stream derived from ``seed``, so the result does not depend on scheduling.
    Returns the tally, shape ``(TALLY_ROWS, hands)``.
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
    chunk_tallies = np.zeros((CHUNKS, TALLY_ROWS, n))
    for c in prange(CHUNKS):
        start = count * c // CHUNKS
        stop = count * (c + 1) // CHUNKS
        state = np.empty(1, dtype=np.uint64)
        state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(c)
        _splitmix(state)
        avail = np.empty(rest.shape[0], dtype=np.int64)
        dealt = np.empty(max(dealt_total, 1), dtype=np.int64)
        holes = np.empty((n, hole_size), dtype=np.int64)
        board = np.empty(board_size, dtype=np.int64)
        pools = np.empty((n, hole_size + board_size), dtype=np.int64)
        hi = np.empty(n, dtype=np.int64)
        lo = np.empty(n, dtype=np.int64)
        lo[:] = NO_LOW
        tally = chunk_tallies[c]
        for d in range(start, stop):
            if exact:
                _deal_exact(d, groups, rest, binom, avail, dealt)
            else:
                _deal_random(state, dealt_total, rest, avail, dealt)
            _play_deal(
                dealt, known, known_n, need, board_known, code_hi, code_lo, form, heads_up, tables,
                holes, board, pools, hi, lo, tally,
            )  # fmt: skip
    total = np.zeros((TALLY_ROWS, n))
    for c in range(CHUNKS):
        total += chunk_tallies[c]
    return total


# ------------------------------------------------------------------------------ Python side


@dataclass(frozen=True)
class VariantEquityResult:
    """Each hand's chances over every deal considered (all of them, or ``boards`` samples).

    For every hand: ``win``, the share of deals where it takes the whole pot alone;
    ``tie``, where it gets part of the pot (a dead heat, or in hi/lo games one half or
    a split half); ``equity``, its expected share of the pot. Hi/lo games add, per
    hand, each half's outcomes (``high_win``, ``high_tie``, ``low_win``, ``low_tie``:
    sole and shared wins of that half) and expected shares of each half
    (``high_share``, ``low_share``), and ``no_low``, the share of deals where no hand
    qualifies for low (the high hand then takes the whole pot).
    """

    variant: str
    hands: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]
    dead: tuple[Card, ...]
    exact: bool
    boards: int
    win: tuple[float, ...]
    tie: tuple[float, ...]
    equity: tuple[float, ...]
    seed: int | None = None
    high_win: tuple[float, ...] | None = None
    high_tie: tuple[float, ...] | None = None
    high_share: tuple[float, ...] | None = None
    low_win: tuple[float, ...] | None = None
    low_tie: tuple[float, ...] | None = None
    low_share: tuple[float, ...] | None = None
    no_low: float | None = None

    @property
    def is_hilo(self) -> bool:
        return self.no_low is not None

    def to_dict(self) -> dict[str, object]:
        hands: list[dict[str, object]] = []
        for i, cards in enumerate(self.hands):
            entry: dict[str, object] = {
                "cards": format_cards(cards),
                "win": self.win[i],
                "tie": self.tie[i],
                "equity": self.equity[i],
            }
            for name in ("high_win", "high_tie", "high_share", "low_win", "low_tie", "low_share"):
                values = getattr(self, name)
                if values is not None:
                    entry[name] = values[i]
            hands.append(entry)
        out: dict[str, object] = {
            "variant": self.variant,
            "board": format_cards(self.board),
            "dead": format_cards(self.dead),
            "exact": self.exact,
            "boards": self.boards,
            "seed": self.seed,
            "hands": hands,
        }
        if self.no_low is not None:
            out["no_low"] = self.no_low
        return out


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
) -> VariantEquityResult:
    """Each hand's equity in ``variant`` given the cards known so far.

    ``hands``: each seat's known cards (hole cards in board games; the cards dealt so
    far in stud games, up to 7 or 5). ``board``: the community cards so far, or
    Telesina's vela. ``dead``: cards known to be out of play. ``samples``: force a
    Monte Carlo of this many deals; otherwise exact when it costs at most
    :data:`EXACT_LIMIT` hand evaluations, else :data:`DEFAULT_SAMPLES` deals.
    ``seed`` (default 0) makes the sampling reproducible.
    """
    game = get_variant(variant)
    if game.has_draws:
        raise NoEquityError(
            f"{game.title} is a draw game: its cards depend on the players' draws, so it has no equity; "
            f"equity covers {', '.join(equity_variants())}"
        )
    seats = [parse_hand(h) for h in hands]
    shared = parse_hand(board)
    out_of_play = parse_hand(dead)
    check_cards(game, seats, shared, complete=False, dead=out_of_play)
    if samples is not None and samples < 1:
        raise EngineInputError(f"samples must be a positive number of deals, got {samples}")

    total = deal_count(game, seats, shared, out_of_play)
    exact = samples is None and total * len(seats) <= EXACT_LIMIT
    count = total if exact else (samples or DEFAULT_SAMPLES)
    tally = _run(game, seats, shared, out_of_play, exact, count, 0 if seed is None else seed)
    return _result(game, seats, shared, out_of_play, exact, count, None if exact else (seed or 0), tally)


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
    need = game.hole_cards - known_n
    used = {c.id for group in (*seats, shared, dead) for c in group}
    rest = np.array([c.id for c in game.deck.cards() if c.id not in used], dtype=np.int64)
    t = tables()
    arrays = (t.card_keys, t.hash_rows, t.hash_values, t.flush_values)
    heads_up = game.ranking.code == TELESINA_CODE and n == 2
    code_lo = NO_LOW if game.low is None else game.low.code
    form = FORM_CODES[game.hand_form]
    if (game.ranking.code, form) not in KERNEL_PAIRS or code_lo not in (NO_LOW, EIGHT_LOW_CODE):
        raise NoEquityError(f"the equity kernel does not evaluate {game.title} hands")
    return run_deals(
        exact, count, seed & (2**63 - 1), known, known_n, need,
        np.array([c.id for c in shared], dtype=np.int64), game.board_cards, rest,
        game.ranking.code, code_lo, form, heads_up, arrays, binomials(),
    )  # fmt: skip


def _result(
    game: Variant,
    seats: Sequence[tuple[Card, ...]],
    shared: tuple[Card, ...],
    dead: tuple[Card, ...],
    exact: bool,
    count: int,
    seed: int | None,
    tally: np.ndarray,
) -> VariantEquityResult:
    rates = tally / count

    def row(r: int) -> tuple[float, ...]:
        return tuple(float(x) for x in rates[r])

    hilo = game.low is not None
    return VariantEquityResult(
        variant=game.name,
        hands=tuple(seats),
        board=shared,
        dead=dead,
        exact=exact,
        boards=count,
        win=row(SCOOP),
        tie=row(PARTIAL),
        equity=row(EQUITY),
        seed=seed,
        high_win=row(HIGH_WIN) if hilo else None,
        high_tie=row(HIGH_TIE) if hilo else None,
        high_share=row(HIGH_SHARE) if hilo else None,
        low_win=row(LOW_WIN) if hilo else None,
        low_tie=row(LOW_TIE) if hilo else None,
        low_share=row(LOW_SHARE) if hilo else None,
        no_low=float(rates[NO_LOW_DEALS, 0]) if hilo else None,
    )
