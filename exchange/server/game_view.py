"""What a spectator sees of the channels: the Games API's channel list and snapshots.

A snapshot is what a spectator sees: the channel, the current game, its round
(by the game's own name: "Flop", "4th street") and how far through the betting
window it is, each hand's cards ("NOT AVAILABLE", as Betfair's API wrote it,
for a card not yet dealt or turned) with each card's face (UP or DOWN in the
poker sense) and, in draw games, its draws, the community cards, and every
market of the game (two in hi/lo games) with each selection's status and best
prices. It never shows a card before it is turned, except cards a dealer's
error exposed (``exposedCards``), which everyone has seen.
"""

from __future__ import annotations

from typing import Any

from exchange.agents.view import BettorView, HandView, bettor_view
from exchange.betfair import apiformat
from exchange.betfair.description import market_type_of
from exchange.betfair.stream import market_status
from exchange.core.market import MarketStatus, SelectionStatus
from exchange.game.channel import Channel
from exchange.game.layouts import MarketKind
from exchange.server.service import ExchangeService

NOT_AVAILABLE = "NOT AVAILABLE"

_SELECTION_STATUS = {
    SelectionStatus.IN_PLAY: "IN_PLAY",
    SelectionStatus.WINNER: "WINNER",
    SelectionStatus.TIED_DEAD_HEAT: "TIED_DEAD_HEAT",
    SelectionStatus.LOSER: "LOSER",
}


def market_type(kind: MarketKind) -> str:
    """The type code of a game's market of ``kind``, the one API-NG and the Exchange Stream give it: ``WIN`` for a
    game's one market and for a hi/lo game's High market (the best hand wins it, as Betfair's WIN), ``LOW`` for the
    Low market (:func:`exchange.betfair.description.market_type_of` reads it from the market id's suffix)."""
    return market_type_of(kind.suffix)


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
            "rounds": list(cfg.layout.windows),
            "markets": [market_type(kind) for kind in cfg.markets],
            "bettingWindowTime": cfg.betting_window_ms // 1000,
            "playingWindowTime": cfg.playing_window_ms // 1000,
            "bettingWindowMs": cfg.betting_window_ms,  # exact where the whole seconds above are not (2.5 s)
            "playingWindowMs": cfg.playing_window_ms,
            "gameId": None if game is None else game.market_id,
            "snapshot": f"/games/v1/channels/{name}/snapshot",
        })
    return channels



def channel_snapshot(service: ExchangeService, name: str) -> dict[str, Any] | None:
    """Channel ``name``'s snapshot as a spectator sees it now; None if the server runs no such channel.

    Beside the Games API's fields: each selection's ``equity`` (its dead-heat share as a float) and either
    ``equityExact`` (the same as a fraction ``"p/q"``, where it is exact) or ``equityStderr`` (where the equity is
    a Monte Carlo estimate: its standard error), and the game's ``bettingWindowRemainingMs`` and
    ``bettingWindowMs`` (the window's length to the millisecond: ``bettingWindowTime`` is in whole seconds).
    """
    channel = service.channels.get(name)
    if channel is None:
        return None
    now = channel.clock.now()  # every market's view at one instant: a window's edge falls between none of them
    view = bettor_view(channel, now_ms=now)
    cfg = channel.config
    out: dict[str, Any] = {"channel": {"id": name, "name": cfg.title, "variant": cfg.variant, "status": "RUNNING"}}
    if view is None:
        out["game"] = None
        return out
    others = (bettor_view(channel, market_id=m, now_ms=now) for m in view.market_ids[1:])
    views = [view] + [v for v in others if v is not None]
    hands = [{"name": hand.name, "selectionId": hand.hand, **_cards(view, hand.hand), "status": _status(view, hand)}
             for hand in view.hands]
    board = [str(c) for c in view.board] + [NOT_AVAILABLE] * (cfg.layout.board_cards - len(view.board))
    out["game"] = {
        "id": view.market_id,
        "gameNumber": view.game_number,
        "round": 0 if view.round is None else int(view.round),
        "roundName": view.round_name,
        "bettingWindowTime": cfg.betting_window_ms // 1000,
        "bettingWindowMs": cfg.betting_window_ms,
        "bettingWindowPercentageComplete": view.percentage_complete,
        "bettingWindowRemainingMs": 0 if view.window is None else max(0, view.window.closes_ms - view.now_ms),
        "bettingOpen": any(v.betting_open for v in views),  # a hi/lo game's Low market may trade on alone
        "suspendedReason": _suspended_for(channel, view.market_id),
        "gameData": _game_data(channel, view.market_id, hands, board),
        "markets": [_market(v) for v in views],
    }
    return out


def _suspended_for(channel: Channel, market_id: str) -> str | None:
    """Why the game's markets are suspended inside their window (an operator's reason, a card exposed early)."""
    game = channel.game(market_id)
    return None if game is None else game.suspended_for


def _cards(view: BettorView, hand: int) -> dict[str, Any]:
    """A hand's card slots: ``cards`` (``NOT AVAILABLE`` for the ones not dealt yet) and, beside them,
    ``faces`` (``UP`` or ``DOWN``: how each was dealt); draw games add ``draws``, what each draw threw and drew.
    """
    cards = view.hands[hand - 1].cards or ()
    faces = view.faces[hand - 1] if hand <= len(view.faces) and view.faces[hand - 1] else (False,) * len(cards)
    missing = max(view.seat_cards - len(cards), 0)
    out: dict[str, Any] = {
        "cards": [str(c) for c in cards] + [NOT_AVAILABLE] * missing,
        "faces": ["UP" if up else "DOWN" for up in faces] + ["DOWN"] * missing,
    }
    if view.discarded:
        out["draws"] = apiformat.hand_draws(view.discarded[hand - 1], view.drawn[hand - 1])
    return out


def _status(view: BettorView, hand: HandView) -> str:
    """A selection's status; a hand still in play when its market was voided is REMOVED (its bets were refunded),
    as the market stream and the results route say."""
    status = _SELECTION_STATUS[hand.status]
    if view.market_status in (MarketStatus.ACTIVE, MarketStatus.SUSPENDED) and hand.status is SelectionStatus.LOSER:
        status = "CAN_NOT_WIN"
    elif view.market_status is MarketStatus.VOID and hand.status is SelectionStatus.IN_PLAY:
        status = "REMOVED"
    return status


def _market(view: BettorView) -> dict[str, Any]:
    """One market of the game: its status, minimum stake, and each selection's status, best prices and equity."""
    selections = []
    for hand in view.hands:
        book = hand.book
        selections.append({
            "selectionId": hand.hand,
            "name": hand.name,
            "status": _status(view, hand),
            "bestAvailableToBackPrices": apiformat.price_sizes(book.available_to_back[:3]) if book else [],
            "bestAvailableToLayPrices": apiformat.price_sizes(book.available_to_lay[:3]) if book else [],
            "lastPriceTraded": None if book is None or book.last_traded_tick is None
            else apiformat.tick_price(book.last_traded_tick),
            # A Monte Carlo estimate (a game with too many deals to count in a window) says so, with its error; none
            # while the cards just turned are being priced (the last figures are of other cards)
            **({} if view.pricing else apiformat.equity(hand.equity, hand.stderr)),
        })
    return {
        "marketId": view.market_id,
        "marketType": market_type_of(view.market_id),
        "marketName": view.market_kind.label,
        "status": str(market_status(view.market_status)),
        "marketStatus": view.market_status.value,
        "minStake": apiformat.money(view.min_stake),
        "equitiesPending": view.pricing,
        "selections": selections,
    }


def _game_data(channel: Channel, market_id: str, hands: list[dict[str, Any]], board: list[str]) -> dict[str, Any]:
    """Hands and community cards; ``exposedCards`` too when a dealer's error showed cards before their time.

    ``deadCards``: those of them out of play for the rest of the game (burned), which every price counts out.
    """
    data: dict[str, Any] = {"hands": hands, "communityCards": board}
    game = channel.game(market_id)
    if game is not None:
        data |= apiformat.dealer_error_cards(game.public.exposed, game.public.out_of_play)
    return data
