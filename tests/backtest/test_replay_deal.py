"""A recorded game's cards dealt again for the replay: every stage is what the live deal showed, in every game.

Each game of the rule texts is dealt live by :class:`~exchange.game.deal.GameDeal` from a seeded deck; its
final cards are written as ``games.parquet`` writes them; :func:`recorded_stages` must give back, reveal by
reveal, exactly the public cards the live deal showed (hands in the order dealt, faces, board, draws).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import format_cards
from engine.variants import get_variant
from exchange.backtest.replay_deal import RecordedDealError, recorded_stages
from exchange.game.deal import GameDeal, PublicCards, seeded_decks
from exchange.game.layouts import LAYOUTS, Layout

HANDS = 4


def live_stages(layout: Layout, seed: int) -> list[PublicCards]:
    dealer = seeded_decks(seed)(0)
    pack = get_variant(layout.variant).deck.cards()
    if not set(dealer.remaining) <= set(pack):
        dealer = dealer.restricted(pack)
    deal = GameDeal(dealer, hands=HANDS, layout=layout)
    stages = [deal.public]
    deal.turn_hole_cards()
    stages.append(deal.public)
    while deal.steps_done < len(layout.steps):
        deal.deal_next()
        stages.append(deal.public)
    return stages


def games_row(public: PublicCards, layout: Layout) -> dict[str, Any]:
    """The final cards as the collector writes them (``exchange.tables.collector``)."""
    row: dict[str, Any] = {"market_id": f"{layout.variant}.0", "board": format_cards(public.board)}
    for i, hand in enumerate(public.visible_hands(), start=1):
        row[f"hand_{i}"] = format_cards(hand)
        if layout.draws:
            row[f"dealt_{i}"] = format_cards(public.dealt[i - 1])
            row[f"drawn_{i}"] = " / ".join(format_cards(d) or "-" for d in public.drawn[i - 1])
    return row


@pytest.mark.parametrize("variant", sorted(LAYOUTS))
@pytest.mark.parametrize("seed", [1, 7])
def test_every_stage_of_a_recorded_deal_is_the_live_ones(variant: str, seed: int) -> None:
    layout = LAYOUTS[variant]
    live = live_stages(layout, seed)
    assert recorded_stages(layout, HANDS, games_row(live[-1], layout)) == tuple(live)


def test_cards_that_are_no_deal_of_the_game_are_refused_naming_the_game() -> None:
    layout = LAYOUTS["holdem"]
    row = games_row(live_stages(layout, 1)[-1], layout)
    row["board"] = row["hand_1"] + " " + row["board"].split(" ", 2)[2]  # a hole card on the board too
    with pytest.raises(RecordedDealError, match=r"holdem\.0: the recorded cards are not a holdem deal"):
        recorded_stages(layout, HANDS, row)


def test_a_game_whose_cards_were_never_turned_has_only_the_face_down_stage() -> None:
    row = {"market_id": "holdem.3", "board": "", **{f"hand_{i}": None for i in range(1, 5)}}
    assert recorded_stages(LAYOUTS["holdem"], HANDS, row) == (PublicCards(hands=(None,) * HANDS),)
