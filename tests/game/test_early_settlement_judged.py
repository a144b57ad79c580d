"""A hand is settled as a loser early exactly when it can no longer win or tie, as pokerkit judges it.

``exchange.game.prospects.resolve`` decides, from a reveal's exact prospects, which hands lose now: it must
never settle a hand that could still win or share the pot on some run of the cards to come (never too early),
and it must settle every hand that cannot (never too late, where the prospects are exact). The judge here
shares no code with the game: for seeded random Hold'em and Omaha positions at the turn (where hands drawing
dead are common), with and without a card out of play, pokerkit ranks every hand on every possible river.
"""

from __future__ import annotations

import itertools
import random

import pytest
from pokerkit import OmahaHoldemHand, StandardHighHand

from engine.cards import parse_cards
from exchange.game.equities import exact_equities
from exchange.game.prospects import resolve

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
JUDGES = {"holdem": (StandardHighHand, 2), "omaha": (OmahaHoldemHand, 4)}


def _can_still_win_or_tie(variant: str, hands: list[str], board: list[str], rest: list[str]) -> set[int]:
    """The hands (1-4) that win or share the pot on at least one completion of the board from ``rest``."""
    judge, _ = JUDGES[variant]
    alive: set[int] = set()
    for more in itertools.combinations(rest, 5 - len(board)):
        full = "".join(board) + "".join(more)
        ranked = [judge.from_game(hand, full) for hand in hands]
        best = max(ranked)
        alive |= {seat for seat, hand in enumerate(ranked, start=1) if hand == best}
    return alive


def _position(rng: random.Random, variant: str, board_cards: int, with_dead: bool
              ) -> tuple[list[str], list[str], list[str], list[str]]:
    deck = DECK[:]
    rng.shuffle(deck)
    per_hand = JUDGES[variant][1]
    hands = ["".join(deck[per_hand * i: per_hand * (i + 1)]) for i in range(4)]
    at = 4 * per_hand
    board, dead = deck[at: at + board_cards], deck[at + board_cards: at + board_cards + int(with_dead)]
    return hands, board, dead, deck[at + board_cards + len(dead):]


@pytest.mark.parametrize(("variant", "board_cards", "positions"), [("holdem", 4, 40), ("omaha", 4, 12)])
def test_the_losers_settled_early_are_exactly_the_hands_that_cannot_win_or_tie(
        variant: str, board_cards: int, positions: int) -> None:
    rng = random.Random(f"{variant}-{board_cards}")
    settled_some = 0
    for n in range(positions):
        hands, board, dead, rest = _position(rng, variant, board_cards, with_dead=n % 3 == 0)
        prospects = exact_equities(variant, [parse_cards(h) for h in hands], parse_cards("".join(board)),
                                   dead=parse_cards("".join(dead)))
        losers = resolve(prospects, (1, 2, 3, 4)).losers
        cannot = tuple(seat for seat in (1, 2, 3, 4) if seat not in _can_still_win_or_tie(variant, hands, board, rest))
        assert losers == cannot, (hands, board, dead)
        settled_some += bool(losers)
    assert settled_some >= positions // 4  # the positions really put hands drawing dead
