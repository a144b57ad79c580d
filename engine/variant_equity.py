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
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from engine._equity_result import MAX_HANDS, EquityResult, HandEquity, check_samples, check_seed, run_seed
from engine._errors import EngineInputError
from engine._hilo_result import SHARE_UNIT, HiLoEquityResult, HiLoHandEquity
from engine._variant_kernels import (
    FORM_CODES,
    HIGH_SHARE,
    HIGH_TIE,
    HIGH_WIN,
    KERNEL_PAIRS,
    LOW_SHARE,
    LOW_TIE,
    LOW_WIN,
    NO_LOW_DEALS,
    PARTIAL,
    SCOOP,
    SHARE,
    SHARE_SQ,
    SPLIT,
    binomials,
    run_deals,
)
from engine.cards import Card
from engine.rankings import EIGHT_OR_BETTER
from engine.rankings.fast import TELESINA_CODE
from engine.showdown import CardsLike, check_cards, check_shared_card, parse_hand, parse_hands
from engine.streets import check_between_streets
from engine.variants import VARIANTS, Deal, Face, Street, Variant, get_variant
from engine.wording import counted

EXACT_LIMIT = 50_000_000
DEFAULT_SAMPLES = 200_000


class NoEquityError(EngineInputError):
    """The game's cards depend on decisions (a draw game), so there is no equity to compute."""


def equity_variants() -> tuple[str, ...]:
    """The variants :func:`variant_equity` accepts (every game without draws)."""
    return tuple(name for name, v in VARIANTS.items() if not v.has_draws)


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
    hands: Iterable[CardsLike],
    board: CardsLike = (),
    dead: CardsLike = (),
    samples: int | None = None,
    seed: int | None = None,
) -> EquityResult:
    """Each hand's equity in ``variant`` given the cards known so far.

    ``hands``: each seat's known cards (hole cards in board games; the cards dealt
    so far in stud games, up to 7 or 5; Telesina's own five). ``board``: the board
    so far, or Telesina's vela. Hands and board are as a street leaves them
    (:mod:`engine.streets`): every hand as many cards as the others, or none at all
    before the deal. ``dead``: cards known to be out of play.
    ``samples``: Monte Carlo over this many deals; without it, exact unless that
    costs more than :data:`EXACT_LIMIT` hand evaluations (then
    :data:`DEFAULT_SAMPLES` deals). ``seed``: the Monte Carlo seed (drawn from the
    OS and recorded in the result when missing).

    Returns an :class:`~engine.equity.EquityResult` (a :class:`HiLoEquityResult`
    in hi/lo games). Raises :class:`~engine.EngineInputError` (a ``ValueError``)
    naming the problem: an unknown or draw game, cards that do not fit the game.
    """
    game, seats, shared, out_of_play = _known(variant, hands, board, dead)
    check_samples(samples, "deals")
    check_seed(seed)
    total = deal_count(game, seats, shared, out_of_play)
    exact = samples is None and _fits(total, seats)
    if exact:
        count, seed = total, None
    else:
        count = samples or DEFAULT_SAMPLES
        seed = run_seed(seed)
    tally = _run(game, seats, shared, out_of_play, exact, count, seed or 0)
    return tally_result(game, seats, shared, out_of_play, exact, count, seed, tally)


def counts_exactly(
    variant: str | Variant, hands: Iterable[CardsLike], board: CardsLike = (), dead: CardsLike = ()
) -> bool:
    """Whether :func:`variant_equity` without ``samples`` counts every deal (else it samples): known at once,
    before any deal is played. Raises as :func:`variant_equity` does for cards that do not fit the game.

    >>> counts_exactly("stud7", ["AsKsQsJs9d", "2c2d2h3c3d"]), counts_exactly("stud7", ["AsKsQs", "2c2d2h"])
    (True, False)
    """
    game, seats, shared, out_of_play = _known(variant, hands, board, dead)
    return _fits(deal_count(game, seats, shared, out_of_play), seats)


def _fits(deals: int, seats: Sequence[Sequence[Card]]) -> bool:
    """Whether ``deals`` of these hands are few enough to enumerate (:data:`EXACT_LIMIT` hand evaluations)."""
    return deals * len(seats) <= EXACT_LIMIT


def _known(
    variant: str | Variant, hands: Iterable[CardsLike], board: CardsLike, dead: CardsLike
) -> tuple[Variant, list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]]:
    """The game as dealt from here and the cards known, parsed and checked to fit it: in a game of
    :data:`~engine.variants.VARIANTS`, as its streets leave them; a :class:`Variant` built by the caller (the kept
    cards of a draw, completed) is taken as it is given."""
    seats = parse_hands(hands)
    shared = parse_hand(board, "board")
    out_of_play = parse_hand(dead, "dead cards")
    dealt = equity_game(variant)
    game = shared_last_card(dealt, seats, shared, out_of_play)
    check_cards(game, seats, shared, complete=False, dead=out_of_play)
    if VARIANTS.get(dealt.name) is dealt:
        check_between_streets(game, seats, shared)
    _check_enough_cards(game, seats, shared, out_of_play)
    return game, seats, shared, out_of_play


def _check_enough_cards(
    game: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]
) -> None:
    unseen = game.deck - sum(map(len, hands)) - len(board) - len(dead)
    needed = sum(game.hole_cards - len(h) for h in hands) + game.board_cards - len(board)
    if unseen < needed:
        raise EngineInputError(
            f"the hands and board still need {counted(needed, 'card')}; only {unseen} of the {int(game.deck)}-card "
            f"pack {'is' if unseen == 1 else 'are'} left"
        )


def shared_last_card(
    game: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]
) -> Variant:
    """``game`` as it is dealt from here: with one shared face-up last card if the pack runs short.

    In 7-Card Stud, when the cards left cannot give every hand its own last card, one
    card goes face up to the board as everyone's last (``variants.md``): the game is
    then six own cards and a one-card board. That is the case when the unseen cards
    are fewer than the hands still need, or when that shared card is already given
    as ``board`` (as :func:`~engine.showdown.showdown` takes it); a ``board`` given
    where the pack was not short, or before sixth street, is refused. Else ``game`` as it is.
    """
    if not game.shared_last_card:
        return game
    unseen = game.deck - sum(map(len, hands)) - len(board) - len(dead)
    if board:
        check_shared_card(game, hands, dead)
    elif any(len(h) >= game.hole_cards for h in hands) or unseen >= sum(game.hole_cards - len(h) for h in hands):
        return game
    last = game.streets[-1]
    return replace(game, streets=(*game.streets[:-1], Street(last.name, (Deal(Face.BOARD, 1),), last.big_bet)))


def equity_game(variant: str | Variant) -> Variant:
    if not isinstance(variant, str | Variant) or (isinstance(variant, str) and variant not in VARIANTS):
        raise EngineInputError(f"unknown variant {variant!r:.60}; equity knows {', '.join(equity_variants())}")
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


def _bound(share: float, n: int) -> float:
    """``sqrt(p (1 - p) / n)``: the most the standard error of a mean of ``n`` values between 0 and 1 with mean ``p``
    can be (a half's share, or a deal without a low, sampled)."""
    return math.sqrt(max(share * (1 - share), 0.0) / n)


def _hilo_hand(cards: tuple[Card, ...], t: list[list[int]], i: int, count: int, equity: float, stderr: float | None,
               *, exact: bool) -> HiLoHandEquity:
    """Hand ``i``'s result in a hi/lo game from the tally ``t`` over ``count`` deals."""
    wins, ties = t[SCOOP][i], t[PARTIAL][i]
    high_share, low_share = t[HIGH_SHARE][i] / SHARE_UNIT / count, t[LOW_SHARE][i] / SHARE_UNIT / count
    return HiLoHandEquity(
        cards, wins / count, ties / count, equity, wins, ties, (0,) * (MAX_HANDS + 1), count, stderr,
        share_units=t[SHARE][i],
        high_win=t[HIGH_WIN][i] / count, high_tie=t[HIGH_TIE][i] / count, high_share=high_share,
        low_win=t[LOW_WIN][i] / count, low_tie=t[LOW_TIE][i] / count, low_share=low_share,
        high_wins=t[HIGH_WIN][i], high_ties=t[HIGH_TIE][i], high_units=t[HIGH_SHARE][i],
        low_wins=t[LOW_WIN][i], low_ties=t[LOW_TIE][i], low_units=t[LOW_SHARE][i],
        high_stderr=None if exact else _bound(high_share, count),
        low_stderr=None if exact else _bound(low_share, count),
    )


def tally_result(
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
            results.append(_hilo_hand(cards, t, i, count, equity, stderr, exact=exact))
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
    no_low = t[NO_LOW_DEALS][0] / count
    return HiLoEquityResult(**common, no_low=no_low, no_low_deals=t[NO_LOW_DEALS][0],
                            no_low_stderr=None if exact else _bound(no_low, count))
