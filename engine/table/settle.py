"""The end of a hand: who shows first, and who wins each pot.

Show order (``variants.md``): the last aggressor of the final betting round first;
with no bet there, the first live seat left of the button, or in stud the best hand
showing (in Stud Hi/Lo the first live seat left of the button); then clockwise.

Each pot is decided among its own seats: the best high hand takes it, or in hi/lo
games the high half (the odd chip) and the best qualifying low the other half (no
qualifying low: the high hand scoops). Equal hands share, odd chips one each to the
winners closest to the button's left. Telesina's heads-up rule applies when exactly
two seats reach the showdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from engine.cards import Card
from engine.rankings import NO_HAND, Ranking
from engine.table import actions as A
from engine.table.order import best_up_seat, clockwise_from
from engine.table.pots import Pot, pots, split
from engine.variants import HandForm, Variant

if TYPE_CHECKING:
    from engine.table.state import TableState


def show_order(state: TableState) -> list[int]:
    """The live seats in the order they show their cards."""
    variant = state.variant
    first = state.aggressor
    if first is None or not state.live[first]:
        if variant.bring_in is not None and not variant.is_hilo:
            ups = [state.up_cards(s) if state.live[s] else None for s in range(state.seats)]
            first = best_up_seat(ups, variant.name)
        else:
            first = 0
    return [s for s in clockwise_from(first, state.seats) if state.live[s]]


def hand_key(variant: Variant, ranking: Ranking, hand: Sequence[Card], board: Sequence[Card]) -> int:
    """The key (greater is better, ``NO_HAND`` for none) of the best hand the game allows."""
    key5 = ranking.key5
    ids = [c.id for c in hand]
    shared = [c.id for c in board]
    if variant.hand_form is HandForm.OMAHA:
        return max(int(key5(*h, *b)) for h in combinations(ids, 2) for b in combinations(shared, 3))
    pool = ids + shared
    if variant.hand_form is HandForm.EXACT_FIVE or len(pool) == 5:
        return int(key5(*pool))
    return max(int(key5(*five)) for five in combinations(pool, 5))


def remaining_pots(state: TableState) -> tuple[Pot, ...]:
    """The pots still to be won: what was put in, less the pots already divided by a split."""
    left = [c - d for c, d in zip(state.contributed, state.divided, strict=True)]
    return pots(left, state.live)


def divide(state: TableState, accepted: set[int]) -> list[A.Award]:
    """A split offer's awards: each pot whose every seat accepted, equally among its seats."""
    return [
        A.Award(s, amount, k, "split")
        for k, pot in enumerate(remaining_pots(state))
        if set(pot.eligible) <= accepted
        for s, amount in split(pot.amount, pot.eligible)
    ]


def settle(state: TableState) -> list[A.Award]:
    """The awards that empty the pot."""
    layers = remaining_pots(state)
    live = [s for s in range(state.seats) if state.live[s]]
    if len(live) == 1:
        return [A.Award(live[0], pot.amount, k, "uncontested") for k, pot in enumerate(layers) if pot.amount]
    high, low = _keys(state, live)
    left = [c - d for c, d in zip(state.contributed, state.divided, strict=True)]
    awards: list[A.Award] = []
    for k, pot in enumerate(layers):
        if len(pot.eligible) == 1:
            seat = pot.eligible[0]
            own = pot.shares(left)[seat] == pot.amount
            awards.append(A.Award(seat, pot.amount, k, "returned" if own else "uncontested"))
        else:
            awards.extend(_award(k, pot, high, low, forced=_heads_up_winner(state, live, high)))
    return awards


def _keys(state: TableState, live: list[int]) -> tuple[dict[int, int], dict[int, int] | None]:
    variant = state.variant
    high = {s: hand_key(variant, variant.ranking, state.cards[s], state.board) for s in live}
    if variant.low is None:
        return high, None
    return high, {s: hand_key(variant, variant.low, state.cards[s], state.board) for s in live}


def _heads_up_winner(state: TableState, live: list[int], high: dict[int, int]) -> int | None:
    """Telesina: with exactly two hands at the showdown, its heads-up rule may name the winner."""
    rule = state.variant.ranking.heads_up
    if rule is None or len(live) != 2:
        return None
    pools = [(*state.cards[s], *state.board) for s in live]
    override = rule([high[s] for s in live], pools)
    return None if override is None else live[override[0]]


def _award(k: int, pot: Pot, high: dict[int, int], low: dict[int, int] | None, *, forced: int | None) -> list[A.Award]:
    if not pot.amount:
        return []
    if forced is not None:
        high_winners: Sequence[int] = (forced,)
    else:
        best = max(high[s] for s in pot.eligible)
        high_winners = [s for s in pot.eligible if high[s] == best]
    low_winners: list[int] = []
    if low is not None:
        best_low = max(low[s] for s in pot.eligible)
        if best_low != NO_HAND:
            low_winners = [s for s in pot.eligible if low[s] == best_low]
    if not low_winners:
        return [A.Award(s, amount, k, "high") for s, amount in split(pot.amount, high_winners)]
    half = pot.amount // 2
    out = [A.Award(s, amount, k, "high") for s, amount in split(pot.amount - half, high_winners)]
    out.extend(A.Award(s, amount, k, "low") for s, amount in split(half, low_winners) if amount)
    return out
