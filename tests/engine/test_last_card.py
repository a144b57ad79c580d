"""The last-card kernel against the general one: the same tally, deal for deal counted, on random windows."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine._variant_kernels import FORM_CODES, binomials, run_deals
from engine.evaluator import tables
from engine.last_card import last_card_tally
from engine.variant_equity import deal_count
from engine.variants import get_variant


@pytest.mark.parametrize(("variant", "hands", "own", "board"), [
    ("stud7", 3, 6, 0), ("stud7-hilo", 4, 6, 0), ("soko", 2, 4, 0), ("americana", 3, 4, 0),
    ("telesina", 3, 4, 0), ("telesina", 4, 4, 0), ("telesina", 3, 5, 0), ("omaha-hilo", 3, 4, 4),
    ("stud7-hilo", 2, 7, 0), ("soko", 4, 4, 0),
])
def test_last_card_tally_is_the_general_tally(variant: str, hands: int, own: int, board: int) -> None:
    game = get_variant(variant)
    rng = random.Random(f"{variant}/{hands}/{own}")
    t = tables()
    packed = (t.card_keys, t.hash_rows, t.hash_values, t.flush_values)
    for _ in range(3):
        cards = rng.sample(game.deck.cards(), hands * own + board)
        seats = [cards[i * own : (i + 1) * own] for i in range(hands)]
        # Telesina's windows before the vela: some hands may be complete while others lack a card.
        if variant == "telesina" and own == 5:
            seats[0] = seats[0][:4]
        shared = cards[hands * own :]
        known = np.full((hands, game.hole_cards), -1, dtype=np.int64)
        for i, seat in enumerate(seats):
            known[i, : len(seat)] = [c.id for c in seat]
        known_n = np.array([len(s) for s in seats], dtype=np.int64)
        used = {c.id for group in (*seats, shared) for c in group}
        rest = np.array([c.id for c in game.deck.cards() if c.id not in used], dtype=np.int64)
        board_known = np.array([c.id for c in shared], dtype=np.int64)
        form = FORM_CODES[game.hand_form]
        count = deal_count(game, seats, shared, ())
        general = run_deals(True, count, np.uint64(0), known, known_n, game.hole_cards - known_n, board_known,
                            game.board_cards, rest, game.ranking.code, game.low is not None, form, False, packed,
                            binomials())
        fast = last_card_tally(known, known_n, board_known, game.board_cards, rest, game.ranking.code,
                               game.low is not None, form, packed)
        assert (fast == general).all()


@pytest.mark.parametrize("variant", ["stud7", "stud7-hilo"])
def test_eight_stud_hands_at_sixth_street_share_the_last_card(variant: str) -> None:
    # Four cards left for eight hands: one shared seventh card (the general equity is held to showdown() on this).
    from engine.last_card import last_card_applies, last_card_equity
    from engine.variant_equity import variant_equity

    pack = sorted(get_variant(variant).deck.cards(), key=lambda c: (c.id * 37) % 53)
    hands = [pack[6 * i : 6 * i + 6] for i in range(8)]
    assert last_card_applies(variant, hands, [])
    fast, general = last_card_equity(variant, hands), variant_equity(variant, hands)
    assert fast.boards == general.boards == 4
    assert [h.exact_equity for h in fast.results] == [h.exact_equity for h in general.results]
