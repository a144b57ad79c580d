"""What a spectator sees of the channels: the Games API's channel list and snapshots.

A snapshot is what a spectator sees: the channel, the current game, its round
and how far through the betting window it is, each hand's cards ("NOT
AVAILABLE" while face down, as Betfair's API wrote it), the community cards,
and the market with each selection's status and best prices. It never shows
a card before it is turned.
"""

from __future__ import annotations

from typing import Any

from exchange.agents.view import bettor_view
from exchange.betfair import apiformat
from exchange.core.market import MarketStatus, SelectionStatus
from exchange.game.channel import Channel
from exchange.server.service import ExchangeService

NOT_AVAILABLE = "NOT AVAILABLE"
BOARD_CARDS = 5

_SELECTION_STATUS = {
    SelectionStatus.IN_PLAY: "IN_PLAY",
    SelectionStatus.WINNER: "WINNER",
    SelectionStatus.TIED_DEAD_HEAT: "TIED_DEAD_HEAT",
    SelectionStatus.LOSER: "LOSER",
}


def channel_list(service: ExchangeService) -> list[dict[str, Any]]:
    """Every channel the server runs: its names, window lengths and the game on its table."""
    channels = []
    for name, channel in service.channels.items():
        cfg = channel.config
        # The game on the table, never one only scheduled: its market id is not journaled yet, so a
        # crash before it deals could deal that id again with other cards.
        game = channel.game()
        channels.append({
            "id": name,
            "name": cfg.title,
            "variant": cfg.variant,
            "status": "RUNNING",
            "bettingWindowTime": cfg.betting_window_ms // 1000,
            "playingWindowTime": cfg.playing_window_ms // 1000,
            "gameId": None if game is None else game.market_id,
            "snapshot": f"/games/v1/channels/{name}/snapshot",
        })
    return channels



def channel_snapshot(service: ExchangeService, name: str) -> dict[str, Any] | None:
    """Channel ``name``'s snapshot as a spectator sees it now; None if the server runs no such channel.

    Beside the Games API's fields: each selection's ``equity`` (its exact dead-heat share as a float) and
    ``equityExact`` (the same as a fraction ``"p/q"``), and the game's ``bettingWindowRemainingMs``.
    """
    channel = service.channels.get(name)
    if channel is None:
        return None
    view = bettor_view(channel)
    cfg = channel.config
    out: dict[str, Any] = {"channel": {"id": name, "name": cfg.title, "variant": cfg.variant, "status": "RUNNING"}}
    if view is None:
        out["game"] = None
        return out
    open_market = view.market_status in (MarketStatus.ACTIVE, MarketStatus.SUSPENDED)
    hands = []
    selections = []
    for hand in view.hands:
        cards = [str(c) for c in hand.cards] if hand.cards is not None else [NOT_AVAILABLE] * cfg.hole_cards
        status = _SELECTION_STATUS[hand.status]
        if open_market and hand.status is SelectionStatus.LOSER:
            status = "CAN_NOT_WIN"
        hands.append({"name": hand.name, "selectionId": hand.hand, "cards": cards, "status": status})
        book = hand.book
        selections.append({
            "selectionId": hand.hand,
            "name": hand.name,
            "status": status,
            "bestAvailableToBackPrices": apiformat.price_sizes(book.available_to_back[:3]) if book else [],
            "bestAvailableToLayPrices": apiformat.price_sizes(book.available_to_lay[:3]) if book else [],
            "lastPriceTraded": None if book is None or book.last_traded_tick is None
            else float(apiformat.tick_price(book.last_traded_tick)),
            "equity": round(float(hand.equity), 6),
            "equityExact": f"{hand.equity.numerator}/{hand.equity.denominator}",
        })
    board = [str(c) for c in view.board] + [NOT_AVAILABLE] * (BOARD_CARDS - len(view.board))
    out["game"] = {
        "id": view.market_id,
        "gameNumber": view.game_number,
        "round": 0 if view.round is None else int(view.round),
        "roundName": None if view.round is None else view.round.label,
        "bettingWindowTime": cfg.betting_window_ms // 1000,
        "bettingWindowPercentageComplete": view.percentage_complete,
        "bettingWindowRemainingMs": 0 if view.window is None else max(0, view.window.closes_ms - view.now_ms),
        "bettingOpen": view.betting_open,
        "gameData": _game_data(channel, view.market_id, hands, board),
        "markets": [{
            "marketId": view.market_id,
            "status": apiformat.MARKET_STATUS[view.market_status],
            "marketStatus": view.market_status.value,
            "selections": selections,
        }],
    }
    return out


def _game_data(channel: Channel, market_id: str, hands: list[dict[str, Any]], board: list[str]) -> dict[str, Any]:
    """Hands and community cards; ``exposedCards`` too when a dealer's error showed cards before their time."""
    data: dict[str, Any] = {"hands": hands, "communityCards": board}
    game = channel.game(market_id)
    if game is not None and game.public.exposed:
        data["exposedCards"] = [str(c) for c in game.public.exposed]
    return data
