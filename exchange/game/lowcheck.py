"""What the cards already prove about a hi/lo game's Low market, without counting deals.

Where the equity is a Monte Carlo estimate, its counts settle nothing: a hand
that never won in the sample might still win. But some outcomes follow from the
cards alone, and ``channels.md`` settles them at once:

* a 7-Card Stud Hi/Lo hand **cannot make a qualifying low** (five different ranks,
  ace to eight) when its different low ranks plus the cards still to come are
  fewer than five, and **can no longer be best low** when another hand holds a
  made low better than the best this hand could reach, even if each card to come
  brought it the lowest rank it lacks (the other hand's low can only get better);
* an Omaha Hi/Lo hand **cannot win or tie the low** when on no board it can still
  be dealt its low is a qualifying one and no other hand's is better. An Omaha
  low is two hole cards and three board cards of five different low ranks, so it
  depends only on the different low ranks of the hand's hole cards and of the
  board: the check runs over the sets of low ranks the board can still show (at
  most 182 with five cards to come), not over its 376,992 runs, and is exact;
* **"No low" has lost** once some hand holds a made low.

A low is compared as its five ranks from the highest down (the ace is 1): the
lower tuple is the better low, and the best low of some different ranks is their
lowest five.

>>> from engine.cards import parse_cards
>>> hands = [parse_cards("As 2d 3c 4h 5s"), parse_cards("Kd Qd Jd"), parse_cards("9c 9d Tc Ts")]
>>> low_losers("stud7-hilo", hands, ())
((2, 3), True)
>>> hands = [parse_cards("As 2d 4h 5c 7s"), parse_cards("8c 7d 6h Qs Jd"), parse_cards("2h 3d 6c Jc Js")]
>>> low_losers("stud7-hilo", hands, ())   # 8-7-6-2-A at best loses to 7-5-4-2-A; 6-4-3-2-A would not
((2,), True)
>>> hands = [parse_cards(h) for h in ("Ts 2s 8s Jd", "5d 4s 9h 4c", "Th 5c Jc 8c", "8h Td Ad 3c")]
>>> low_losers("omaha-hilo", hands, ())   # pre-flop: 8-5 never makes a low that 5-4 or A-3 do not beat
((3,), False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from engine.cards import Card

LOW_LIMIT = 8
STUD_CARDS = 7
BOARD_CARDS = 5
DECK_CARDS = 52
SUITS = 4


def low_rank(card: Card) -> int | None:
    """The card's rank in an eight-or-better low (the ace as 1); None above eight."""
    return 1 if card.rank == 14 else int(card.rank) if card.rank <= LOW_LIMIT else None


def low_ranks(cards: Sequence[Card]) -> set[int]:
    """The different ranks of ``cards`` that count in an eight-or-better low."""
    return {rank for c in cards if (rank := low_rank(c)) is not None}


def best_low(ranks: set[int]) -> tuple[int, ...] | None:
    """The best low of these different low ranks, highest rank first (lower is better); None below five ranks.

    >>> best_low({1, 2, 3, 5, 7, 8}), best_low({2, 3})
    ((7, 5, 3, 2, 1), None)
    """
    return tuple(sorted(ranks)[:5][::-1]) if len(ranks) >= 5 else None


def best_reachable_low(ranks: set[int], to_come: int) -> tuple[int, ...] | None:
    """The best low a hand holding these low ranks could reach if each of ``to_come`` cards brought the lowest
    rank it lacks (no low can do better); None if even then it has fewer than five ranks.

    >>> best_reachable_low({2, 6, 7}, 2), best_reachable_low({8, 7}, 2)
    ((7, 6, 3, 2, 1), None)
    """
    lacking = sorted(set(range(1, LOW_LIMIT + 1)) - ranks)[:to_come]
    return best_low(ranks | set(lacking))


def low_losers(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card],
               dead: Sequence[Card] = ()) -> tuple[tuple[int, ...], bool]:
    """``(hands that cannot make a qualifying low, or can no longer be best low, whether some hand holds a made
    low)``; hands numbered from 1. ``dead``: cards seen and out of play (none of them can come)."""
    if variant == "stud7-hilo":
        made = [low for h in hands if (low := best_low(low_ranks(h))) is not None]
        best_made = min(made, default=None)
        losers = tuple(i for i, h in enumerate(hands, start=1)
                       if (reach := best_reachable_low(low_ranks(h), STUD_CARDS - len(h))) is None
                       or (best_made is not None and reach > best_made))
        return losers, bool(made)
    if variant == "omaha-hilo":
        holes = [low_ranks(h) for h in hands]
        alive: set[int] = set()
        for shown in _board_low_ranks([*(c for h in hands for c in h), *dead], board):
            lows = [omaha_low(hole, shown) for hole in holes]
            best = min((low for low in lows if low is not None), default=None)
            alive.update(i for i, low in enumerate(lows, start=1) if best is not None and low == best)
            if len(alive) == len(hands):
                break
        return tuple(i for i in range(1, len(hands) + 1) if i not in alive), False
    return (), False


def omaha_low(hole: set[int], board: set[int]) -> tuple[int, ...] | None:
    """The best Omaha low of a hand whose hole cards hold the low ranks ``hole`` on a board showing the low ranks
    ``board``: two of the hole's and three of the board's, five different ranks (for a pair of the hole's, the
    board's three lowest others are best); None if there is none.

    >>> omaha_low({8, 5}, {1, 2, 5, 7}), omaha_low({8, 5}, {5, 7, 8})
    ((8, 7, 5, 2, 1), None)
    """
    lows = []
    for pair in combinations(sorted(hole), 2):
        rest = sorted(board - set(pair))[:3]
        if len(rest) == 3:
            lows.append(tuple(sorted((*pair, *rest), reverse=True)))
    return min(lows, default=None)


def _board_low_ranks(seen: Sequence[Card], board: Sequence[Card]) -> Iterator[set[int]]:
    """Each set of at least three different low ranks that the whole board can still show (a board showing
    fewer makes no low for anyone): its own low ranks and one unseen card of each new rank, the rest of the cards
    to come unseen cards that show no other low rank. ``seen``: every card seen off the board."""
    seen_ranks = Counter(low_rank(c) for c in (*seen, *board))
    unseen = {rank: SUITS - seen_ranks[rank] for rank in range(1, LOW_LIMIT + 1)}
    unseen_cards = DECK_CARDS - len(seen) - len(board)
    known, to_come = low_ranks(board), BOARD_CARDS - len(board)
    new_ranks = [rank for rank in unseen if rank not in known and unseen[rank] > 0]
    for count in range(to_come + 1):
        for added in combinations(new_ranks, count):
            shown = known | set(added)
            showing_another = sum(unseen[rank] for rank in unseen if rank not in shown)
            if len(shown) >= 3 and unseen_cards - showing_another >= to_come:
                yield shown
