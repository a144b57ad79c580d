"""The game's prices where pokerkit knows the game: the last reveal's result (what settles the markets) on random deals.

At the last reveal the game's equity is one deal, and its counts decide every market. pokerkit
(a peer library, sharing no code with the engine) judges the same cards: the best high hand, the
best eight-or-better low (or none), the best deuce-to-seven low.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest
from pokerkit import (
    EightOrBetterLowHand,
    Hand,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    StandardHighHand,
    StandardLowHand,
)

from engine.cards import Card, deck52
from exchange.game.equities import game_equities

Judge = Callable[[str, str], Hand | None]  # (own cards, board) -> a pokerkit hand (greater is better) or None


def best(hands: Sequence[Hand | None]) -> tuple[int, ...]:
    made = [h for h in hands if h is not None]
    if not made:
        return ()
    top = max(made)
    return tuple(i + 1 for i, h in enumerate(hands) if h is not None and h == top)


def text(cards: Sequence[Card]) -> str:
    return "".join(map(str, cards))


CASES: dict[str, tuple[int, int, Judge, Judge | None]] = {
    "stud7": (7, 0, lambda own, board: StandardHighHand.from_game(own), None),
    "stud7-hilo": (7, 0, lambda own, board: StandardHighHand.from_game(own),
                   lambda own, board: EightOrBetterLowHand.from_game_or_none(own)),
    "omaha-hilo": (4, 5, lambda own, board: OmahaHoldemHand.from_game(own, board),
                   lambda own, board: OmahaEightOrBetterLowHand.from_game_or_none(own, board)),
    "draw5": (5, 0, lambda own, board: StandardHighHand.from_game(own), None),
    "triple-draw-27": (5, 0, lambda own, board: StandardLowHand.from_game(own), None),
}


@pytest.mark.parametrize("variant", sorted(CASES))
def test_the_last_reveal_settles_as_pokerkit_judges(variant: str) -> None:
    own, board_size, high, low = CASES[variant]
    rng = random.Random(variant)
    for _ in range(60):
        cards = rng.sample(deck52(), 4 * own + board_size)
        hands = [tuple(cards[i * own : (i + 1) * own]) for i in range(4)]
        board = tuple(cards[4 * own :])
        markets = game_equities(variant, hands, board, draws_left=0)  # the last reveal: no draw to come
        judged = [best([high(text(h), text(board)) for h in hands])]
        if low is not None:
            lows = best([low(text(h), text(board)) for h in hands])
            judged.append(lows or (5,))  # no qualifying low: "No low" (selection 5) wins
        for prospects, winners in zip(markets, judged, strict=True):
            assert prospects.exact and prospects.boards == 1
            assert tuple(h.hand for h in prospects.hands if h.win + h.tie) == winners
