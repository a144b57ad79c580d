"""A recorded game's cards, dealt again street by street: what a spectator saw after each of its reveals.

``games.parquet`` keeps each game's final cards: every hand's cards in the order
dealt (all seven in 7-Card Stud), the board (Telesina's vela too), and in draw
games the five dealt, what each draw threw and drew. :func:`recorded_stages`
arranges a deck from which the game's own dealer (:class:`~exchange.game.deal.GameDeal`,
the code the live table runs) deals exactly those cards
(:func:`~exchange.game.deal.arrange_game_deck`), and steps it through the
channel's layout: stage 0 is the deal face down, stage 1 the first cards turned
(the Deal window's close), stage *k* the cards after the *k*-th close, the last
stage everything. Each stage is the :class:`~exchange.game.deal.PublicCards` the
live snapshot is built from (cards, faces, the board, draws), so every variant
is shown as the live page shows it. A game whose cards were never turned (a
misdeal) has stage 0 only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.cards import Card, format_cards, parse_cards
from engine.dealer import Dealer
from exchange.game.deal import GameDeal, PublicCards, arrange_game_deck
from exchange.game.layouts import Layout

MAX_HANDS = 4


class RecordedDealError(ValueError):
    """The recorded cards are not a deal of the game's layout (the message says which game and what differs)."""


def recorded_stages(layout: Layout, hands: int, row: Mapping[str, Any]) -> tuple[PublicCards, ...]:
    """The public cards of ``row`` (a ``games.parquet`` row) after each reveal, stage 0 (nothing turned) first."""
    facedown = PublicCards(hands=(None,) * hands)
    held = [str(row.get(f"hand_{i}") or "") for i in range(1, hands + 1)]
    if not all(held):
        return (facedown,)
    board = parse_cards(row.get("board") or "")
    if layout.draws:
        seats = [parse_cards(row[f"dealt_{i}"]) for i in range(1, hands + 1)]
        replacements = _replacements(row, hands, layout.draws)
    else:
        seats, replacements = [parse_cards(h) for h in held], []
    recorded = ([format_cards(parse_cards(h)) for h in held], board)
    try:
        deck = arrange_game_deck(layout, seats, board, replacements)
        deal = GameDeal(Dealer(deck), hands=hands, layout=layout)
        stages = [deal.public]
        deal.turn_hole_cards()
        stages.append(deal.public)
        # Up to the recorded cards: a game voided before its end was dealt no further.
        while deal.steps_done < len(layout.steps) and _shown(deal.public) != recorded:
            deal.deal_next()
            stages.append(deal.public)
    except (ValueError, IndexError) as exc:
        raise RecordedDealError(f"{row.get('market_id')}: the recorded cards are not a {layout.variant} deal: "
                                f"{exc!r:.200}") from None
    if _shown(deal.public) != recorded:
        raise RecordedDealError(f"{row.get('market_id')}: dealing the recorded cards again gives "
                                f"{_shown(deal.public)}, not the recorded {recorded}")
    return tuple(stages)


def _shown(public: PublicCards) -> tuple[list[str], tuple[Card, ...]]:
    return [format_cards(h) for h in public.visible_hands()], public.board


def _replacements(row: Mapping[str, Any], hands: int, draws: int) -> list[list[tuple[Card, ...]]]:
    """``replacements[d][i]``: what seat ``i`` drew at draw ``d`` (``-``: it stood pat)."""
    per_seat = [(row.get(f"drawn_{i}") or "").split(" / ") for i in range(1, hands + 1)]
    out: list[list[tuple[Card, ...]]] = []
    for d in range(draws):
        if any(d >= len(seat) or not seat[d] for seat in per_seat):
            break  # a game voided before this draw
        out.append([() if seat[d] == "-" else parse_cards(seat[d]) for seat in per_seat])
    return out

