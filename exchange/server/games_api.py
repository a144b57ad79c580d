"""The Exchange Games API, read side: ``/games/v1/channels`` and a channel's snapshot.

A snapshot is what a spectator sees: the channel, the current game, its round
and how far through the betting window it is, each hand's cards ("NOT
AVAILABLE" while face down, as Betfair's API wrote it), the community cards,
and the market with each selection's status and best prices. It never shows
a card before it is turned.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from exchange.agents.view import bettor_view
from exchange.betfair import apiformat
from exchange.core.market import MarketStatus, SelectionStatus
from exchange.server import keys

NOT_AVAILABLE = "NOT AVAILABLE"
BOARD_CARDS = 5

_SELECTION_STATUS = {
    SelectionStatus.IN_PLAY: "IN_PLAY",
    SelectionStatus.WINNER: "WINNER",
    SelectionStatus.TIED_DEAD_HEAT: "TIED_DEAD_HEAT",
    SelectionStatus.LOSER: "LOSER",
}


async def list_channels(request: web.Request) -> web.Response:
    service = request.app[keys.SERVICE]
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
    return web.json_response({"channels": channels})


async def snapshot(request: web.Request) -> web.Response:
    service = request.app[keys.SERVICE]
    name = request.match_info["channel"]
    channel = service.channels.get(name)
    if channel is None:  # 404, as the OpenAPI document says: the path names nothing
        raise web.HTTPNotFound(text=f"no channel {name[:40]!r}; channels are {', '.join(service.channels)}")
    view = bettor_view(channel)
    cfg = channel.config
    out: dict[str, Any] = {"channel": {"id": name, "name": cfg.title, "variant": cfg.variant, "status": "RUNNING"}}
    if view is None:
        out["game"] = None
        return web.json_response(out)
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
        })
    board = [str(c) for c in view.board] + [NOT_AVAILABLE] * (BOARD_CARDS - len(view.board))
    out["game"] = {
        "id": view.market_id,
        "gameNumber": view.game_number,
        "round": 0 if view.round is None else int(view.round),
        "roundName": None if view.round is None else view.round.label,
        "bettingWindowTime": cfg.betting_window_ms // 1000,
        "bettingWindowPercentageComplete": view.percentage_complete,
        "bettingOpen": view.betting_open,
        "gameData": {"hands": hands, "communityCards": board},
        "markets": [{
            "marketId": view.market_id,
            "status": apiformat.MARKET_STATUS[view.market_status],
            "marketStatus": view.market_status.value,
            "selections": selections,
        }],
    }
    return web.json_response(out)
