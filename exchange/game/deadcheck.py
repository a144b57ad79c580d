"""Which hands can no longer win or tie, proven from the cards where the equity is only sampled.

A Monte Carlo equity settles nothing from its counts: a hand that never won in
the sample might win on a deal the sample missed. Yet a hand that cannot win or
tie on *any* remaining deal must be settled LOSER at the window where it becomes
so (``exchange.md``: a selection whose outcome is certain is settled at once).
:func:`high_losers` decides it exactly, without enumerating every deal:

hand *i* can still win or tie iff, for some run of the shared cards still to come
and some completion *c* of hand *i*, every other hand has a completion, all of
them disjoint from each other and from *c*, that makes it no better than hand *i*
(each hand's final key depends only on its own cards and the board).

Each hand's completions are keyed once (the engine's kernels); the search then
looks, for each completion of hand *i*, for disjoint weak completions of the
others, fewest candidates first, with backtracking. The answer is sound (a hand
is named only when no deal lets it win or tie) and, within :data:`CHECK_LIMIT`
keyed completions and :data:`SEARCH_LIMIT` search steps, complete; beyond them a
hand is taken as alive, so nothing is settled on a guess. A hand the sample saw
win or tie (``scored``) is alive without a search, and where every hand did,
nothing is keyed at all: nearly every sampled reveal. Within the limit: every
window with three cards or fewer to come for each hand (7-Card Stud's 4th street,
Soko's second card, Telesina's third), Americana's from the second card, and most
positions before a last draw. A search costs a few ms with two cards to come, 5
to 30 ms (at worst 150) with three, and is run only for a hand the sample never
saw score; 7-Card Stud's 3rd street (four to come, 365,560 completions, about
0.4 s) and Telesina's second card (three and the vela, 170,016) stay beyond it.

The low half of Stud Hi/Lo is decided the same way (:func:`eight_low_losers`), a completion counting for a hand
only where it makes a qualifying low: card removal included (a low reachable alone may need ranks the other
hands and the dead cards have used up), which the shortcuts of :mod:`exchange.game.lowcheck` leave out.

A draw game before its last draw is decided the same way (:func:`draw_losers`):
each hand keeps what the published policy keeps and is completed by replacements;
where the stock may run out, by any card no hand keeps (more deals than can
happen: a hand still named is dead on every deal that can). A heads-up Telesina
table is decided as any other, then a hand that may yet play the low spade
straight flush is let go: heads-up it beats the hearts royal, the one comparison
the rule changes (a hand alive only by holding that royal is not named).
Left out (nothing is named): a draw game with more than one draw to come (the
policy will decide on cards not yet dealt: a hand that discards all five can
make any hand of the unseen cards), and Omaha forms, whose sampled window is
pre-flop: the board's 376,992 runs (36 cards, five to come) are what the sample
avoids, and a hand dead pre-flop there is all but impossible (any hand the sample
saw score is alive regardless).

>>> from engine.cards import parse_cards
>>> hands = [parse_cards(h) for h in ("Ah Ad As Kc Kd", "2c 7d 9h Jc 4s", "Qs Qh 3c 4d 6s", "5h 6h 7h 8c Th")]
>>> high_losers("stud7", hands, ())   # 5th street: two cards to come make no more than trips of 2-7-9-J-4
(2,)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from engine.cards import Card

if TYPE_CHECKING:
    from engine.variants import Variant

#: Most completions (over every run of the board) keyed for one check; beyond, nothing is named.
CHECK_LIMIT = 60_000
#: Most search steps for one check; beyond, the hand searched is taken as alive.
SEARCH_LIMIT = 200_000

Completions = tuple[np.ndarray, np.ndarray]
"""One hand's completions (card ids, one row each) sorted by the key they give it, ascending, and those keys."""


class _Budget:
    def __init__(self, steps: int) -> None:
        self.steps = steps


def high_losers(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card],
                dead: Sequence[Card] = (), *, scored: Collection[int] = ()) -> tuple[int, ...]:
    """The hands (numbered from 1) that cannot win or tie the high (the pot, or its high half) on any deal of the
    cards still to come; see the module docstring for the games it decides and its limits.

    ``scored``: hands (from 1) already seen to win or tie on some deal (a sampled one): they are alive, and
    only the others are searched (none at all when every hand scored)."""
    from engine.variants import HandForm, get_variant  # the rankings (numba) load with the engine, not at import

    _check_scored(scored, len(hands))
    game = get_variant(variant)
    if game.has_draws or game.hand_form is HandForm.OMAHA or len(set(scored)) == len(hands):
        return ()
    held, missing, pool, to_board = _deal_left(game, hands, board, dead)
    losers = _losers(game.ranking.code, held, missing, pool, to_board, scored)
    if game.ranking.heads_up and len(hands) == 2:  # Telesina's: the low spade straight flush beats a hearts royal
        from engine.rankings.telesina import LOW_SPADE_STRAIGHT_FLUSH

        spades = frozenset(c.id for c in LOW_SPADE_STRAIGHT_FLUSH)
        return tuple(i for i in losers if not _may_hold(spades, held[i - 1], missing[i - 1] + to_board, pool))
    return losers


def eight_low_losers(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card],
                     dead: Sequence[Card] = (), *, scored: Collection[int] = ()) -> tuple[int, ...]:
    """As :func:`high_losers` for the low half of a stud hi/lo game (eight or better): the hands that no deal of
    the cards still to come gives a qualifying low that wins or ties it. Card removal counts: a hand is named
    though it could reach a better low alone, when every card it needs would have to go to another hand too.
    ``scored``: hands seen to win or tie the low on some deal. Omaha forms: nothing (see
    :func:`exchange.game.lowcheck.low_losers`, which decides them exactly)."""
    from engine.rankings.core import NO_HAND
    from engine.rankings.fast import EIGHT_LOW_CODE
    from engine.variants import HandForm, get_variant

    _check_scored(scored, len(hands))
    game = get_variant(variant)
    if game.has_draws or game.hand_form is HandForm.OMAHA or len(set(scored)) == len(hands):
        return ()
    held, missing, pool, to_board = _deal_left(game, hands, board, dead)
    return _losers(EIGHT_LOW_CODE, held, missing, pool, to_board, scored, floor=NO_HAND)


def _deal_left(game: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]
               ) -> tuple[list[tuple[int, ...]], list[int], list[int], int]:
    """What is left to deal: each hand's cards held (with the board so far), how many each still gets, the cards
    they may come from, and how many the board still gets."""
    seen = {c.id for group in (*hands, board, dead) for c in group}
    pool = [c.id for c in game.deck.cards() if c.id not in seen]
    missing = [game.hole_cards - len(h) for h in hands]
    held = [tuple(c.id for c in h) + tuple(c.id for c in board) for h in hands]
    return held, missing, pool, game.board_cards - len(board)


def _check_scored(scored: Collection[int], hands: int) -> None:
    """Refuse a ``scored`` hand number outside 1 to ``hands``: taken for alive, a wrong number (0, counted from
    0) would leave a hand that did score unproven, and could end a search before the deal that shows it."""
    wrong = sorted(i for i in scored if not 1 <= i <= hands)
    if wrong:
        raise ValueError(f"scored hands are numbered from 1 to {hands}, not {wrong}")


def _may_hold(cards: frozenset[int], held: tuple[int, ...], to_come: int, pool: Sequence[int]) -> bool:
    """Whether a hand holding ``held`` may yet hold every one of ``cards``, given ``to_come`` more from ``pool``."""
    lacking = cards.difference(held)
    return len(lacking) <= to_come and lacking.issubset(pool)


def draw_losers(variant: str, hands: Sequence[Sequence[Card]], dead: Sequence[Card], *, draws_left: int,
                stock: int | None = None, scored: Collection[int] = ()) -> tuple[int, ...]:
    """As :func:`high_losers` in a draw game before its last draw: each hand keeps what the policy keeps and is
    dealt replacements for the rest, off the unseen cards, or where the stock may run out off every card no
    hand keeps (discards are then shuffled back in). Nothing is named with more than one draw to come (the
    policy then decides on cards not yet dealt)."""
    from engine.draw_policy import discards  # the rankings (numba) load with the engine, not at import
    from engine.variants import get_variant

    _check_scored(scored, len(hands))
    game = get_variant(variant)
    if draws_left != 1 or (game.ranking.heads_up and len(hands) == 2) or len(set(scored)) == len(hands):
        return ()
    thrown = [discards(variant, h) for h in hands]
    kept = [tuple(c.id for c in h if c not in t) for h, t in zip(hands, thrown, strict=True)]
    seen = {c.id for group in (*hands, dead) for c in group}
    pool = [c.id for c in game.deck.cards() if c.id not in seen]
    if sum(len(t) for t in thrown) >= (len(pool) if stock is None else stock):  # a burn, then the replacements
        # The stock may run out: then discards are shuffled and dealt. Every card no hand keeps is a possible
        # replacement: more deals than can happen, so a hand named is still dead on every deal that can.
        held = {c for k in kept for c in k}
        pool = [c.id for c in game.deck.cards() if c.id not in held]
    return _losers(game.ranking.code, kept, [len(t) for t in thrown], pool, 0, scored)


def _losers(code: int, held: Sequence[tuple[int, ...]], missing: Sequence[int], pool: Sequence[int],
            to_board: int, scored: Collection[int], *, floor: int | None = None) -> tuple[int, ...]:
    """The hands (from 1) holding ``held`` (their cards and the board so far) that no deal of ``missing`` more
    cards each and ``to_board`` shared ones, all from ``pool``, lets win or tie (``scored`` are known to).
    ``floor``: a key that wins nothing (a low that does not qualify), however the others' compare."""
    if min(missing) < 0 or to_board < 0 or sum(missing) + to_board > len(pool):
        return ()
    keyed = comb(len(pool), to_board) * sum(comb(len(pool) - to_board, m) for m in missing)
    if keyed > CHECK_LIMIT:
        return ()
    alive = {i - 1 for i in scored}
    budget = _Budget(SEARCH_LIMIT)
    for run in combinations(pool, to_board):
        rest = [c for c in pool if c not in run]
        completions = [_completions(code, cards + run, rest, m) for cards, m in zip(held, missing, strict=True)]
        alive.update(i for i in range(len(held)) if i not in alive and _can_score(i, completions, budget, floor))
        if len(alive) == len(held):
            break
    return tuple(i + 1 for i in range(len(held)) if i not in alive)


@lru_cache(maxsize=64)
def _choices(n: int, k: int) -> np.ndarray:
    """Every ``k`` of ``n`` positions, one row each (``comb(n, k)`` rows; one empty row for ``k = 0``)."""
    return np.array(list(combinations(range(n), k)), dtype=np.int64).reshape(comb(n, k), k)


def _completions(code: int, cards: tuple[int, ...], rest: Sequence[int], missing: int) -> Completions:
    from engine.rankings.fast import keys_batch

    extra = np.asarray(rest, dtype=np.int64)[_choices(len(rest), missing)]
    held = np.broadcast_to(np.asarray(cards, dtype=np.int64), (len(extra), len(cards)))
    keys = keys_batch(code, np.ascontiguousarray(np.hstack((held, extra))))
    order = np.argsort(keys, kind="stable")
    return extra[order], keys[order]


def _can_score(i: int, completions: Sequence[Completions], budget: _Budget, floor: int | None = None) -> bool:
    """Whether some completion of hand ``i`` keyed above ``floor`` leaves every other hand a disjoint completion
    keyed no higher."""
    own, own_keys = completions[i]
    others = [completions[j] for j in range(len(completions)) if j != i]
    # How many of each other hand's completions (weakest first) are keyed no higher than each of hand i's.
    weak = np.array([np.searchsorted(keys, own_keys, side="right") for _, keys in others]).reshape(len(others), -1)
    scoring = weak.min(axis=0) > 0
    if floor is not None:
        scoring &= own_keys > floor
    for k in np.flatnonzero(scoring)[::-1]:  # hand i's best completions first
        choices = sorted((extras[: weak[j, k]] for j, (extras, _) in enumerate(others)), key=len)
        if _disjoint(set(own[k].tolist()), choices, budget):
            return True
        if budget.steps <= 0:  # searched as far as allowed: take the hand as alive, settle nothing on a guess
            return True
    return False


def _disjoint(used: set[int], choices: list[np.ndarray], budget: _Budget) -> bool:
    """Whether one completion (row) of each of ``choices`` can be picked, none sharing a card with another or
    ``used``."""
    if not choices:
        return True
    first, *rest = choices
    for r in range(len(first)):
        budget.steps -= 1
        if budget.steps <= 0:
            return False
        row = first[r].tolist()
        if used.isdisjoint(row) and _disjoint(used | set(row), rest, budget):
            return True
    return False
