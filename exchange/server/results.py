"""The last games each channel settled or voided: what ``GET /games/v1/channels/{channel}/results`` answers.

A page opened in the middle of the day should see what the table dealt before it
came, not only what settles while it watches. :class:`RecentResults` is a
projection of the channels' event streams, as the journal and the Exchange Stream
are: it folds each game's events (the cards as they are turned, each market's
declared result or void, the hands settled early) and, when the game ends, keeps
one frozen :class:`~exchange.server.kept_results.GameResult` and hands it back
(the server journals it). Per channel it keeps the newest ``keep`` results
(:class:`~exchange.server.kept_results.KeptResults`) and drops older ones as new
games end, so a server left running for months holds ``keep`` × channels
results, never more; a game being played holds one pending record, replaced
when the channel deals the next.

The results survive a restart: recovery rebuilds the kept results from the
newest snapshot and the journal's ``result`` records after it, and
:meth:`RecentResults.restore` takes them. A game a restart voided (its markets
voided by recovery, not by the game) is listed too, with the restart's reason and
no cards (they were in the stopped server's memory alone):
:meth:`RecentResults.voided_at_start`.

>>> from exchange.game.events import GameStarted, ResultDeclared, GameEnded, Stamped
>>> from exchange.game.channels import HOLDEM
>>> from exchange.game.rounds import timetable
>>> results = RecentResults({"holdem": HOLDEM}, keep=2)
>>> ended = [results.note(Stamped(0, 1_000, "holdem.7", event))
...          for event in (GameStarted("holdem", 7, "holdem", 4, timetable(HOLDEM, 0)),
...                        ResultDeclared((2, 3), (), False), GameEnded("SETTLED"))]
>>> [result.game_id if result else None for result in ended]
[None, None, 'holdem.7']
>>> [(r.game_id, r.markets[0].winners, r.markets[0].dead_heat) for r in results.recent("holdem", 5)]
[('holdem.7', (2, 3), True)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card
from exchange.betfair import apiformat
from exchange.betfair.description import market_type_of
from exchange.core.events import MarketVoided
from exchange.core.market import ClosedMarket, Market, SelectionStatus
from exchange.game.channels import ChannelConfig, parse_market_id
from exchange.game.events import (
    BoardTurned,
    DrawMade,
    GameEnded,
    GameStarted,
    GameVoided,
    HandsCannotWin,
    HoleCardsTurned,
    ResultDeclared,
    SeatCardsTurned,
    Stamped,
)
from exchange.game.irregular import IrregularityOccurred
from exchange.server.kept_results import KEEP_RESULTS, Draw, GameResult, KeptResults, MarketResult

NOT_AVAILABLE = "NOT AVAILABLE"


@dataclass(slots=True)
class _Pending:
    """What a game in play has shown so far (its hands are every card turned, in the order dealt)."""

    game_id: str
    number: int
    hands: tuple[tuple[Card, ...], ...] = ()
    board: tuple[Card, ...] = ()
    results: dict[str, ResultDeclared] = field(default_factory=dict)
    settled_early: dict[str, list[int]] = field(default_factory=dict)
    voids: dict[str, str] = field(default_factory=dict)
    void_reason: str | None = None
    exposed: tuple[Card, ...] = ()
    dead: tuple[Card, ...] = ()
    draws: tuple[Draw, ...] = ()


class RecentResults:
    """The newest ``keep`` finished games of each channel, folded from the channels' stamped events."""

    def __init__(self, channels: Mapping[str, ChannelConfig], *, keep: int = KEEP_RESULTS) -> None:
        self.channels = dict(channels)
        self.kept = KeptResults(keep)
        self._pending: dict[str, _Pending] = {}  # per channel: the game in play

    @property
    def keep(self) -> int:
        """Finished games kept per channel."""
        return self.kept.keep

    def recent(self, channel: str, limit: int) -> list[GameResult]:
        """Channel ``channel``'s last ``limit`` finished games, newest first (``KeyError`` for an unknown one)."""
        if channel not in self.channels:
            raise KeyError(channel)
        return self.kept.recent(channel, limit)

    def restore(self, kept: KeptResults) -> None:
        """Start from the results recovery rebuilt (the newest ``keep`` of them a channel), before any game ends."""
        self.kept = kept.kept_to(self.keep)

    def voided_at_start(self, voided: Iterable[str], at_ms: int, reason: str,
                        markets: Mapping[str, Market | ClosedMarket]) -> list[GameResult]:
        """Keep and return the results of the games whose markets a start found open and voided (``voided``), with
        ``reason``; a market of such a game settled before the stop (a hi/lo game's Low, certain early) keeps its
        winners, read from the exchange's ``markets``. No cards: the stopped server alone knew them."""
        games: dict[tuple[str, int], set[str]] = {}
        for market_id in voided:
            parsed = parse_market_id(market_id)
            if parsed is not None and parsed[0] in self.channels:  # (a channel no longer served is not listed)
                games.setdefault(parsed[:2], set()).add(market_id)
        ended = []
        for (channel, number), void in games.items():
            config, results = self.channels[channel], []
            for market_id, kind in zip(config.market_ids(number), config.markets, strict=True):
                market = markets.get(market_id)
                statuses = {} if market is None else dict(zip(market.selection_ids, market.selection_status,
                                                              strict=True))
                if market_id in void or market is None:  # its hands settled as losers before the stop stay so
                    losers = tuple(sid for sid, status in statuses.items() if status is SelectionStatus.LOSER)
                    results.append(MarketResult(market_id, kind, (), False, losers, reason))
                else:  # settled while the game went on: its result was certain early
                    winners = tuple(sid for sid, status in statuses.items() if status in _WON)
                    results.append(MarketResult(market_id, kind, winners, True, (), None))
            ended.append(GameResult(channel, config.market_id(number), number, "VOID", at_ms, reason, (), (),
                                    tuple(results)))
            self.kept.add(ended[-1])
        return ended

    def note(self, stamped: Stamped) -> GameResult | None:
        """Fold one event of a channel's stream in (every other kind of event is passed over at once); the game's
        result if the event ended it (it is kept), else None."""
        event, market_id = stamped.event, stamped.market_id
        if market_id is None or type(event) not in _FOLDED:
            return None
        parsed = parse_market_id(market_id)
        if parsed is None or parsed[0] not in self.channels:
            return None
        channel = parsed[0]
        if isinstance(event, GameStarted):
            self._pending[channel] = _Pending(self.channels[channel].market_id(parsed[1]), parsed[1])
            return None
        pending = self._pending.get(channel)
        if pending is None or pending.number != parsed[1]:
            return None  # a game begun before this listener was: nothing to say of it
        if not isinstance(event, GameEnded):
            _fold(pending, market_id, event)
            return None
        del self._pending[channel]
        result = self._finish(channel, pending, event.status, stamped.at_ms)
        self.kept.add(result)
        return result

    def _finish(self, channel: str, pending: _Pending, status: str, at_ms: int) -> GameResult:
        config = self.channels[channel]
        markets = []
        for market_id, kind in zip(config.market_ids(pending.number), config.markets, strict=True):
            declared = pending.results.get(market_id)
            reason = None if declared else pending.voids.get(market_id, pending.void_reason or "voided")
            markets.append(MarketResult(market_id, kind, declared.winners if declared else (),
                                        declared.early if declared else False,
                                        tuple(pending.settled_early.get(market_id, ())), reason))
        return GameResult(channel, pending.game_id, pending.number, status, at_ms, pending.void_reason,
                          pending.hands, pending.board, tuple(markets), pending.exposed, pending.dead, pending.draws)


def _fold(pending: _Pending, market_id: str, event: object) -> None:
    if isinstance(event, HoleCardsTurned | SeatCardsTurned | DrawMade):
        pending.hands = event.hands
        if isinstance(event, DrawMade):
            pending.draws += ((event.discarded, event.drawn),)
    elif isinstance(event, BoardTurned):
        pending.board = event.board
    elif isinstance(event, ResultDeclared):
        pending.results[market_id] = event
        pending.board = event.board
    elif isinstance(event, HandsCannotWin):
        pending.settled_early.setdefault(market_id, []).extend(event.hands)
    elif isinstance(event, MarketVoided):
        pending.voids[market_id] = event.reason
    elif isinstance(event, GameVoided):
        pending.void_reason = event.reason
    elif isinstance(event, IrregularityOccurred):
        pending.exposed += event.cards
        pending.dead = event.dead  # every card out of play so far


_WON = (SelectionStatus.WINNER, SelectionStatus.TIED_DEAD_HEAT)
_FOLDED = frozenset({GameStarted, GameEnded, HoleCardsTurned, SeatCardsTurned, DrawMade, BoardTurned,
                     ResultDeclared, HandsCannotWin, MarketVoided, GameVoided, IrregularityOccurred})


# --- JSON ----------------------------------------------------------------------------------------------------------


def result_json(result: GameResult, config: ChannelConfig) -> dict[str, Any]:
    """A finished game as the results route answers it: the snapshot's shapes (hands, community cards, markets
    with each selection's final status) plus each market's ``winners``, ``deadHeat``, ``early``, ``settledEarly``
    and ``voidReason``."""
    layout = config.layout
    faces = (False,) * layout.seat_cards if layout.draws else layout.face_up()
    hands = []
    for i in range(config.hands):
        cards = [str(c) for c in result.hands[i]] if i < len(result.hands) else []
        cards += [NOT_AVAILABLE] * (layout.seat_cards - len(cards))
        hand: dict[str, Any] = {"name": f"Hand {i + 1}", "selectionId": i + 1, "cards": cards,
                                "faces": ["UP" if up else "DOWN" for up in faces]}
        if result.draws:  # as the snapshot's: what the hand threw and drew at each draw
            hand["draws"] = apiformat.hand_draws((discarded[i] for discarded, _ in result.draws),
                                                 (drawn[i] for _, drawn in result.draws))
        hands.append(hand)
    board = [str(c) for c in result.board] + [NOT_AVAILABLE] * (layout.board_cards - len(result.board))
    return {
        "id": result.game_id,
        "gameNumber": result.game_number,
        "channel": {"id": config.name, "name": config.title, "variant": config.variant},
        "status": result.status,
        "endedMs": result.ended_ms,
        "voidReason": result.void_reason,
        "gameData": {"hands": hands, "communityCards": board,
                     **apiformat.dealer_error_cards(result.exposed, result.dead)},
        "markets": [_market_json(m, config) for m in result.markets],
    }


def _selection_status(market: MarketResult, selection: int, won: str) -> str:
    if selection in market.winners:
        return won
    if market.voided and selection not in market.settled_early:
        return "REMOVED"  # voided with the market: its bets were refunded
    return "LOSER"


def _market_json(market: MarketResult, config: ChannelConfig) -> dict[str, Any]:
    names = config.selection_names(market.kind)
    won = "TIED_DEAD_HEAT" if market.dead_heat else "WINNER"
    selections = [{"selectionId": i, "name": name, "status": _selection_status(market, i, won)}
                  for i, name in enumerate(names, start=1)]
    return {
        "marketId": market.market_id,
        "marketType": market_type_of(market.market_id),
        "marketName": market.kind.label,
        "status": "CLOSED",
        "result": "VOID" if market.voided else "SETTLED",
        "winners": list(market.winners),
        "deadHeat": market.dead_heat,
        "early": market.early,
        "settledEarly": sorted(market.settled_early),
        "voidReason": market.void_reason,
        "selections": selections,
    }
