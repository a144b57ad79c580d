"""The tests' cheap prospects: every hand equal before the river, the engine's own showdown at it, and a variant
they cannot settle refused at once (an Omaha Hi/Lo game left with uniform prospects at its river had no winner,
and its test ran on with a game that never ended)."""

from __future__ import annotations

import pytest

from engine import equity
from engine.cards import parse_cards
from exchange.server.fallback_equities import SETTLED, river_only_equities

HANDS = {
    "holdem": ["As Ks", "Qd Qc", "2c 3d", "7h 7s"],
    "omaha": ["As Ks Kd 2h", "Qd Qc Jc Tc", "2c 3d 4d 5s", "7h 7s 8h 9h"],
}
BOARD = "Ah 7c 2s Td 3h"


@pytest.mark.parametrize("variant", sorted(SETTLED))
def test_the_river_is_the_engines_showdown(variant: str) -> None:
    hands = [parse_cards(h) for h in HANDS[variant]]
    prospects = river_only_equities(variant, hands, parse_cards(BOARD))
    exact = equity(variant, HANDS[variant], board=BOARD).results  # one board left: its showdown
    assert [h.equity for h in prospects.hands] == [r.equity for r in exact]
    assert prospects.boards == 1


@pytest.mark.parametrize("variant", sorted(SETTLED))
def test_before_the_river_every_hand_is_equal(variant: str) -> None:
    hands = [parse_cards(h) for h in HANDS[variant]]
    prospects = river_only_equities(variant, hands, parse_cards(BOARD)[:4])
    assert prospects.boards == 0 and len({h.equity for h in prospects.hands}) == 1


@pytest.mark.parametrize("variant", ["omaha-hilo", "stud7", "draw5"])
def test_a_variant_they_cannot_settle_is_refused(variant: str) -> None:
    with pytest.raises(ValueError, match=f"settle holdem and omaha games only, not {variant}: give the game its own"):
        river_only_equities(variant, [], ())
