"""Equity in the draw games, over the replacement cards, every hand drawing by its published policy.

A draw hand's future depends only on chance once its policy is fixed
(:mod:`engine.draw_policy`): each remaining draw, every seat throws what the
policy says and is dealt replacements in seat order, off the stock after a
burn, and off that round's shuffled discards (never its own) once the stock
is out. This module plays that forward from what bettors know — the cards each
hand holds, the cards seen discarded (``dead``), how many cards are left in the
stock — and counts who wins.

With one draw left and no reshuffle possible, the replacements are a uniform
draw of the unseen cards, so every way they can fall is enumerated exactly when
that costs at most ``exact_limit`` deals; otherwise ``samples`` seeded deals are
played (Monte Carlo, with the standard error of each equity).

>>> r = draw_equity("draw5", ["As Ad Ac Kd Ks", "2c 3d 4h 5s 7c"], draws_left=1)
>>> r.exact, r.results[0].exact_equity > r.results[1].exact_equity
(True, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations
from math import comb

from engine._equity_result import MAX_HANDS, EquityResult, HandEquity, check_samples, check_seed, run_seed
from engine._errors import EngineInputError
from engine.cards import Card
from engine.draw_policy import POLICIES, decide, discards
from engine.rankings import HIGH, DeckSize
from engine.showdown import CardsLike, check_cards, parse_hand, parse_hands
from engine.variants import Deal, Face, ForcedBets, HandForm, Street, Variant, get_variant
from engine.wording import counted

#: The most deals an exact count may take by default (about half a second for three 5-Card Draw hands drawing one
#: card each): a caller waits a moment for an exact answer. The live game passes its own, a hundredth of it.
DEFAULT_EXACT_LIMIT = 2_000_000
#: Deals sampled by default where the exact count is past the limit: a standard error near 0.3 %, in under a second.
DEFAULT_SAMPLES = 20_000
SQ_UNIT = 840 * 840  # 1/k^2 is a whole number of these for k <= 8
#: The policy's decision per holding (sorted card ids), kept for the process: the policy never changes.
MEMO_SIZE = 500_000
_MEMOS: dict[str, dict[tuple[int, ...], tuple[int, ...]]] = {}


def draw_variants() -> tuple[str, ...]:
    """The games :func:`draw_equity` knows (those with a draw policy)."""
    return tuple(POLICIES)


class _Tally:
    """Wins, ties, split counts and pot shares per hand over the deals played."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.deals = 0
        self.wins = [0] * n
        self.ties = [0] * n
        self.splits = [[0] * (MAX_HANDS + 1) for _ in range(n)]
        self.share_sq = [0] * n  # in 1/SQ_UNIT of a pot squared

    def add(self, keys: Sequence[int]) -> None:
        self.deals += 1
        best = max(keys)
        winners = [i for i, k in enumerate(keys) if k == best]
        k = len(winners)
        for i in winners:
            if k == 1:
                self.wins[i] += 1
            else:
                self.ties[i] += 1
                self.splits[i][k] += 1
            self.share_sq[i] += SQ_UNIT // (k * k)


def draw_equity(
    variant: str,
    hands: Sequence[CardsLike],
    dead: CardsLike = (),
    *,
    draws_left: int,
    stock: int | None = None,
    samples: int | None = None,
    seed: int | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    fallback_samples: int = DEFAULT_SAMPLES,
) -> EquityResult:
    """Each hand's equity with ``draws_left`` draws still to come under the game's policy.

    ``hands``: the five cards each hand holds now, 2 hands up to the game's seats (as
    :func:`~engine.showdown.showdown` takes them). ``dead``: cards seen out of play
    (earlier discards). ``stock``: cards left in the deck (default: every unseen
    card). ``samples``: force a Monte Carlo of this many deals (else
    ``fallback_samples`` where exact enumeration is out of reach); ``seed`` its
    seed (default: 64 random bits, as every game's Monte Carlo takes; the result's ``seed`` deals the same
    sample again).
    """
    _check_numbers(draws_left, stock, samples, seed, fallback_samples)
    plan = _plan(variant, hands, dead, draws_left, stock, exact_limit)
    seats, out, drawing, unseen = plan.seats, plan.dead, plan.drawing, plan.unseen
    if plan.completions:
        return _completions(seats, drawing, out, samples, seed, exact_limit, fallback_samples)
    if samples is None and (draws_left == 0 or plan.fits):
        tally = _exact(plan.game.name, seats, drawing, unseen, draws_left)
        return _result(plan.game.name, seats, out, tally, exact=True, seed=None)
    rng_seed = run_seed(seed)
    tally = _sampled(plan.game.name, seats, unseen, plan.stock, draws_left, samples or fallback_samples, rng_seed, out)
    return _result(plan.game.name, seats, out, tally, exact=False, seed=rng_seed)


def draw_counts_exactly(
    variant: str,
    hands: Sequence[CardsLike],
    dead: CardsLike = (),
    *,
    draws_left: int,
    stock: int | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
) -> bool:
    """Whether :func:`draw_equity` without ``samples`` counts every deal (else it samples): known at once,
    before any deal is played. Raises as :func:`draw_equity` does for bad input.

    >>> draw_counts_exactly("draw5", ["As Ad Ac Kd Ks", "2c 3d 4h 5s 7c"], draws_left=1)
    True
    >>> draw_counts_exactly("triple-draw-27", ["2c 3d 4h 7s 9c", "Kc Qd 9h 8s 3c"], draws_left=3)
    False
    """
    from engine.variant_equity import counts_exactly, deal_count

    _check_numbers(draws_left, stock, None, None, None)
    plan = _plan(variant, hands, dead, draws_left, stock, exact_limit)
    if plan.completions:
        kept, thrown = _kept(plan.seats, plan.drawing, plan.dead)
        return deal_count(_DRAW5_COMPLETION, kept, (), thrown) <= exact_limit and counts_exactly(
            _DRAW5_COMPLETION, kept, (), thrown
        )
    return draws_left == 0 or plan.fits


@dataclass(frozen=True)
class _Plan:
    """The cards known, checked, and how the count goes: by the compiled completions (5-Card Draw's one draw
    with no reshuffle), or exactly where ``fits`` (one draw left, no reshuffle, few enough deals)."""

    game: Variant
    seats: list[tuple[Card, ...]]
    dead: tuple[Card, ...]
    drawing: list[tuple[Card, ...]]
    unseen: list[Card]
    stock: int
    completions: bool
    fits: bool


def _plan(
    variant: str, hands: Sequence[CardsLike], dead: CardsLike, draws_left: int, stock: int | None, exact_limit: int
) -> _Plan:
    game = get_variant(variant)
    if game.name not in POLICIES:
        raise EngineInputError(f"{game.title} is not a draw game; draw equity knows {', '.join(POLICIES)}")
    seats = parse_hands(hands)
    out = parse_hand(dead, "dead cards")
    check_cards(game, seats, (), dead=out)  # the seats, five cards each, in the pack, none twice: as at the showdown
    if not 0 <= draws_left <= len(game.draws):
        raise EngineInputError(f"{game.title} has {counted(len(game.draws), 'draw')}; {draws_left} cannot be left "
                               f"(0 to {len(game.draws)} can)")
    seen = {c for s in seats for c in s} | set(out)
    unseen = [c for c in game.deck.cards() if c not in seen]
    stock_size = len(unseen) if stock is None else stock
    if not 0 <= stock_size <= len(unseen):
        raise EngineInputError(f"the stock cannot hold {counted(stock_size, 'card')} with {len(unseen)} unseen")
    drawing = [discards(game.name, s) for s in seats]
    no_reshuffle = sum(len(d) for d in drawing) < stock_size  # a burn, then every replacement off the stock
    completions = game.name == "draw5" and draws_left == 1 and no_reshuffle
    fits = draws_left == 1 and no_reshuffle and _exact_count(len(unseen), [len(d) for d in drawing]) <= exact_limit
    return _Plan(game, seats, out, drawing, unseen, stock_size, completions, fits)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_numbers(draws_left: object, stock: object, samples: object, seed: object, fallback: object) -> None:
    """Refuse counts and seeds that are not whole numbers (or not positive, for sample sizes)."""
    if not _whole(draws_left):
        raise EngineInputError(f"draws_left must be a whole number of draws, not {draws_left!r}")
    if stock is not None and not _whole(stock):
        raise EngineInputError(f"stock must be a whole number of cards, not {stock!r}")
    for size in (samples, fallback):
        check_samples(size, "deals")
    check_seed(seed)


# 5-Card Draw's one draw, when the stock can serve every hand, deals each hand's kept cards random unseen
# cards: a stud completion, which the compiled kernels price (exact where the deals fit, else sampled).
_DRAW5_COMPLETION = Variant(
    "draw5", "5-Card Draw (the cards kept, completed)", DeckSize.FULL, 8, ForcedBets.BLINDS,
    (Street("replacements", (Deal(Face.DOWN, 5),)),), HandForm.BEST_FIVE, HIGH,
)  # fmt: skip


def _completions(
    seats: Sequence[tuple[Card, ...]],
    drawing: Sequence[tuple[Card, ...]],
    dead: tuple[Card, ...],
    samples: int | None,
    seed: int | None,
    exact_limit: int,
    fallback_samples: int,
) -> EquityResult:
    """5-Card Draw priced by the compiled kernels: kept cards plus random replacements, discards dead."""
    from engine.variant_equity import deal_count, variant_equity

    kept, thrown = _kept(seats, drawing, dead)
    if samples is None and deal_count(_DRAW5_COMPLETION, kept, (), thrown) > exact_limit:
        samples = fallback_samples
    result = variant_equity(_DRAW5_COMPLETION, kept, (), thrown, samples=samples, seed=seed)
    results = tuple(replace(h, cards=s) for h, s in zip(result.results, seats, strict=True))
    return replace(result, hands=tuple(seats), dead=dead, results=results)


def _kept(
    seats: Sequence[tuple[Card, ...]], drawing: Sequence[tuple[Card, ...]], dead: tuple[Card, ...]
) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """What each hand keeps, and the cards out of play once it has thrown: its discards and ``dead``."""
    kept = [tuple(c for c in s if c not in d) for s, d in zip(seats, drawing, strict=True)]
    return kept, tuple(c for d in drawing for c in d) + dead


def _exact_count(unseen: int, draws: Sequence[int]) -> int:
    total = 1
    for k in draws:
        total *= comb(unseen, k)
        unseen -= k
    return total


def _key(variant: str, cards: Sequence[Card]) -> int:
    a, b, c, d, e = (card.id for card in cards)
    return int(get_variant(variant).ranking.key5(a, b, c, d, e))


def _exact(
    variant: str,
    seats: Sequence[tuple[Card, ...]],
    drawing: Sequence[tuple[Card, ...]],
    unseen: Sequence[Card],
    draws_left: int,
) -> _Tally:
    """Every way the replacements can fall (one draw, no reshuffle), or the showdown as it stands."""
    tally = _Tally(len(seats))
    kept = [tuple(c for c in s if c not in d) for s, d in zip(seats, drawing, strict=True)]
    if draws_left == 0:
        tally.add([_key(variant, s) for s in seats])
        return tally

    def deal(i: int, free: tuple[Card, ...], hands: list[tuple[Card, ...]]) -> None:
        if i == len(seats):
            tally.add([_key(variant, h) for h in hands])
            return
        for got in combinations(free, len(drawing[i])):
            rest = tuple(c for c in free if c not in got)
            deal(i + 1, rest, [*hands, kept[i] + got])

    deal(0, tuple(unseen), [])
    return tally


def _sampled(
    variant: str,
    seats: Sequence[tuple[Card, ...]],
    unseen: Sequence[Card],
    stock_size: int,
    draws_left: int,
    samples: int,
    seed: int,
    dead: Sequence[Card] = (),
) -> _Tally:
    """``samples`` deals of the unseen cards, each played through the remaining draws as the dealer would.

    ``dead``: the earlier draws' discards, the last resort of a reshuffle (:func:`_one_draw`).
    Cards are ids here (ints hash and compare fast); the policy is memoised per holding.
    """
    if variant == "triple-draw-27":
        return _sampled_27(seats, unseen, stock_size, draws_left, samples, seed, dead)
    return _sampled_python(variant, seats, unseen, stock_size, draws_left, samples, seed, dead)


def _sampled_python(
    variant: str,
    seats: Sequence[tuple[Card, ...]],
    unseen: Sequence[Card],
    stock_size: int,
    draws_left: int,
    samples: int,
    seed: int,
    dead: Sequence[Card] = (),
) -> _Tally:
    """The reference simulation, in Python over the policy table (the only one for 32-Card Draw)."""
    rng = random.Random(f"draw-equity/{variant}/{seed}")
    tally = _Tally(len(seats))
    key5 = get_variant(variant).ranking.key5
    memo = _MEMOS.setdefault(variant, {})
    pool = [c.id for c in unseen]
    start = [tuple(c.id for c in s) for s in seats]
    # No more than this many stock cards can be used (a burn and five per seat per draw): deal only those.
    depth = min(stock_size, draws_left * (1 + 5 * len(seats)))
    for _ in range(samples):
        deck = rng.sample(pool, depth)
        deck.reverse()  # pop() from the end is the top of the stock
        hands = start
        earlier = [c.id for c in dead]
        for _ in range(draws_left):
            hands = _one_draw(variant, hands, deck, rng, memo, earlier)
        tally.add([int(key5(*h)) for h in hands])
    return tally


def _sampled_27(
    seats: Sequence[tuple[Card, ...]], unseen: Sequence[Card], stock_size: int, draws_left: int, samples: int,
    seed: int, dead: Sequence[Card] = (),
) -> _Tally:
    """The compiled 2-7 simulation (:mod:`engine._draw_kernels`), read into a :class:`_Tally`."""
    import numpy as np

    from engine._draw_kernels import simulate_27

    hands = np.array([[c.id for c in s] for s in seats], dtype=np.int64)
    pool = np.array([c.id for c in unseen], dtype=np.int64)
    out = np.array([c.id for c in dead], dtype=np.int64)
    rows = simulate_27(hands, pool, stock_size, draws_left, samples, np.uint64(seed % 2**64), 840, out).tolist()
    tally = _Tally(len(seats))
    tally.deals = samples
    tally.wins, tally.ties, tally.share_sq = rows[0], rows[1], rows[3]
    tally.splits = [[rows[4 + k][i] if k >= 2 else 0 for k in range(MAX_HANDS + 1)] for i in range(len(seats))]
    return tally


def _throw(variant: str, hand: tuple[int, ...], memo: dict[tuple[int, ...], tuple[int, ...]]) -> tuple[int, ...]:
    key = tuple(sorted(hand))
    thrown = memo.get(key)
    if thrown is None:
        cards = tuple(Card(i) for i in key)
        kept = {c.id for c in decide(variant, cards)[1]}
        thrown = tuple(i for i in key if i not in kept)
        if len(memo) < MEMO_SIZE:
            memo[key] = thrown
    return thrown


def _one_draw(
    variant: str,
    hands: Sequence[tuple[int, ...]],
    deck: list[int],
    rng: random.Random,
    memo: dict[tuple[int, ...], tuple[int, ...]],
    earlier: list[int],
) -> list[tuple[int, ...]]:
    """Every seat discards by the policy and is served in seat order; ``deck`` (top last) is consumed, burn first.

    Once the deck is out, this round's discards are shuffled and dealt, each seat taking the first card that is
    not its own. Should no such card be left, ``earlier`` (the earlier draws' discards still out of play) is
    shuffled in below them. ``earlier`` is updated: the cards of the round not dealt again join it.
    """
    throws = [_throw(variant, hand, memo) for hand in hands]
    if deck:
        deck.pop()
    pile: list[int] | None = None
    out = []
    for hand, thrown in zip(hands, throws, strict=True):
        if not thrown:
            out.append(hand)
            continue
        got = []
        for _ in thrown:
            if deck:
                got.append(deck.pop())
                continue
            if pile is None:
                pile = [c for t in throws for c in t]
                rng.shuffle(pile)
            got.append(_from_pile(pile, thrown, earlier, rng))
        out.append(tuple(c for c in hand if c not in thrown) + tuple(got))
    earlier.extend(pile if pile is not None else (c for t in throws for c in t))
    return out


def _from_pile(pile: list[int], own: tuple[int, ...], earlier: list[int], rng: random.Random) -> int:
    """The first card of ``pile`` that is not ``own``, shuffling ``earlier`` in (and emptying it) if none is."""
    mine = next((i for i, c in enumerate(pile) if c not in own), None)
    if mine is None and earlier:
        extra = earlier[:]
        earlier.clear()
        rng.shuffle(extra)
        pile.extend(extra)
        mine = next((i for i, c in enumerate(pile) if c not in own), None)
    if mine is None:
        raise EngineInputError("the stock and the reshuffled discards cannot serve every seat")
    return pile.pop(mine)


def _result(
    variant: str,
    seats: Sequence[tuple[Card, ...]],
    dead: tuple[Card, ...],
    tally: _Tally,
    *,
    exact: bool,
    seed: int | None,
) -> EquityResult:
    count = tally.deals
    results = []
    for i, cards in enumerate(seats):
        splits = tuple(tally.splits[i])
        share = tally.wins[i] + sum((Fraction(m, k) for k, m in enumerate(splits) if m), Fraction(0))
        stderr = None if exact else _stderr(share, tally.share_sq[i], count)
        results.append(HandEquity(cards, tally.wins[i] / count, tally.ties[i] / count, float(share / count),
                                  tally.wins[i], tally.ties[i], splits, count, stderr))
    result = EquityResult(variant, tuple(seats), (), dead, exact, count, tuple(results), seed)
    result._check()
    return result


def _stderr(share: Fraction, square: int, n: int) -> float:
    if n < 2:
        return math.nan
    mean = float(share) / n
    variance = (square / SQ_UNIT - n * mean * mean) / (n - 1)
    return math.sqrt(max(variance, 0.0) / n)
