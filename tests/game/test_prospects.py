"""Prospects._check: each corrupted field is caught, by an exception that survives ``python -O``."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import pytest

from engine import InvariantError
from exchange.game.prospects import Prospects

# 10 boards: hand 1 wins 7 and ties 3, hand 2 ties those 3, hands 3 and 4 are drawing dead.
COUNTED = Prospects.from_counts(
    boards=10, wins=(7, 0, 0, 0), ties=(3, 3, 0, 0), shares=(Fraction(17, 2), Fraction(3, 2), 0, 0)
)


def corrupt(prospects: Prospects, hand: int, **change: Any) -> Prospects:
    """``prospects`` with one field of one hand's counts changed."""
    hands = list(prospects.hands)
    hands[hand - 1] = dataclasses.replace(hands[hand - 1], **change)
    return dataclasses.replace(prospects, hands=tuple(hands))


def test_the_fixtures_hold() -> None:
    COUNTED._check()
    Prospects.uniform(4)._check()


@pytest.mark.parametrize(
    ("prospects", "match"),
    [
        (corrupt(COUNTED, 1, equity=Fraction(9, 10)), "equities sum to 21/20, not 1"),
        (corrupt(Prospects.uniform(4), 2, win=1), "hand 2: 1 wins and 0 ties counted without boards"),
        (corrupt(COUNTED, 1, tie=4), "hand 1: 7 wins \\+ 4 ties do not fit 10 boards"),
        (corrupt(COUNTED, 3, win=-1), "hand 3: -1 wins \\+ 0 ties do not fit 10 boards"),
        (corrupt(COUNTED, 2, tie=1), "hand 2: equity 3/20 outside \\[0, 1/10\\]"),
        (dataclasses.replace(COUNTED, known_losers=(2, 3)), "hand 2 cannot win, but its equity is 3/20"),
    ],
    ids=["equities-sum", "counts-without-boards", "counts-exceed-boards", "negative-count", "equity-outside-counts",
         "known-loser-with-equity"],
)
def test_a_corrupted_field_is_caught(prospects: Prospects, match: str) -> None:
    with pytest.raises(InvariantError, match=match):
        prospects._check()


def test_a_sampled_share_the_cards_decide_has_no_standard_error() -> None:
    """A hand proven unable to win has exactly 0 however the deals were sampled, and the last hand standing
    exactly 1: neither is an estimate. The others' shares are."""
    sampled = Prospects.from_counts(boards=10, wins=(6, 4, 0, 0), ties=(0, 0, 0, 0), shares=(6, 4, 0, 0),
                                    exact=False, known_losers=(3, 4))
    errors = [h.stderr for h in sampled.hands]
    assert errors[2:] == [None, None]
    assert [float(e) for e in errors[:2] if e is not None] == pytest.approx([_adjusted(6, 10), _adjusted(4, 10)],
                                                                            abs=1e-6)
    alone = Prospects.from_counts(boards=10, wins=(10, 0, 0, 0), ties=(0, 0, 0, 0), shares=(10, 0, 0, 0),
                                  exact=False, known_losers=(2, 3, 4))
    assert [h.stderr for h in alone.hands] == [None] * 4
    guessed = Prospects.from_counts(boards=10, wins=(10, 0, 0, 0), ties=(0, 0, 0, 0), shares=(10, 0, 0, 0),
                                    exact=False, known_losers=(3, 4))
    # hand 2 is not proven lost, only never seen to win in 10 deals: an error as wide as hand 1's, never 0
    first, second, *rest = [h.stderr for h in guessed.hands]
    assert rest == [None, None] and first == second and first is not None
    assert float(first) == pytest.approx(_adjusted(10, 10), abs=1e-6) and first > 0


def _adjusted(share: int, deals: int) -> float:
    """Agresti and Coull's standard error of a share seen ``share`` times in ``deals`` (two errors' band)."""
    q = (share + 2) / (deals + 4)
    return math.sqrt(q * (1 - q) / (deals + 4))
