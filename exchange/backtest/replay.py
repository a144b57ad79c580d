"""A backtest's output folder read back as a timeline of games: what a spectator saw at any instant.

``exchange-poker replay DIR`` shows a backtest of any channel on the trading
page. Everything comes from the files the backtest wrote: ``games.parquet``
(each hand's cards, the board, the draws, each market's winners),
``streams/<marketId>`` (every market of the game, a hi/lo game's High and Low,
as Betfair's stream recorded it: prices, statuses, settlement),
``equities.parquet`` (each market's prices as the game published them at every
reveal), ``orders.parquet`` (the strategy's orders, with when each was
cancelled and when its remainder lapsed) and ``fills.parquet`` (every fill,
with its time, and when the exchange voided it if it did, for a dealer's error
or with its whole market: the match is shown from its time and voided from the
void's). The cards are dealt again from the recorded ones by the game's
own dealer (:mod:`exchange.backtest.replay_deal`) and shown when the live game
turned them, in the live snapshot's shape (faces, draws, the board a game has).

:meth:`Timeline.snapshot` answers in the shape of the Games API snapshot
(``/games/v1/channels/{id}/snapshot``), with the strategy's orders in
``game.orders`` (API-NG's ``CurrentOrderSummary``: matched, remaining,
cancelled, lapsed and voided as they stood at that instant, the average matched price
exact and rounded only as the live API rounds it) so the page lists them and
their "if it wins" P&L. Cards a dealer's error showed before their time are in
``gameData.exposedCards`` from the moment they were seen, and those the rules
take out of play (the burned exposed card of rules 1 and 5) in ``deadCards``, as
the live snapshot has them, from ``irregularities.parquet``. A folder written before the equities table and the
cancel and lapse times were recorded still replays: without equities, and with
an order's cancelled or lapsed part taken off at its window's close.

Games follow one another on the timeline at their recorded start times
(a backtest deals them back to back), so a position is milliseconds since the
first game's start, less the time no game was played (:class:`Timeline`).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exchange.backtest.replay_files import Exposure, ReplayError, read_folder
from exchange.backtest.replay_market import RecordedMarket, orders_at, position_at
from exchange.betfair.apiformat import dealer_error_cards, hand_draws
from exchange.betfair.description import market_type_of
from exchange.game.channels import ChannelConfig
from exchange.game.deal import PublicCards
from exchange.game.rounds import Window, timetable

NOT_AVAILABLE = "NOT AVAILABLE"
JsonDict = dict[str, Any]


@dataclass
class RecordedGame:
    """One game of the backtest: its deal (the public cards after each reveal), status and recorded markets."""

    market_id: str
    game_number: int
    channel: ChannelConfig
    start_ms: int
    status: str
    stages: tuple[PublicCards, ...]
    markets: tuple[RecordedMarket, ...]
    settlements: list[JsonDict] = field(default_factory=list)
    exposures: tuple[Exposure, ...] = ()

    @functools.cached_property
    def windows(self) -> tuple[Window, ...]:
        return timetable(self.channel, self.start_ms)

    @property
    def end_ms(self) -> int:
        return self.start_ms + self.channel.game_ms

    @property
    def main(self) -> RecordedMarket:
        return self.markets[0]

    @functools.cached_property
    def closed_ms(self) -> int | None:
        """When the last of its markets closed (settled or voided), by the recordings."""
        times = [m.closed_ms for m in self.markets]
        return None if any(t is None for t in times) else max(t for t in times if t is not None)

    def window_at(self, now_ms: int) -> Window:
        """The window of ``now_ms``: the last one opened."""
        window = self.windows[0]
        for w in self.windows:
            if w.opens_ms <= now_ms:
                window = w
        return window

    def public_at(self, now_ms: int) -> PublicCards:
        """The cards face up at ``now_ms``: one more stage at each window's close; all of them once settled."""
        closed = self.closed_ms
        if closed is not None and closed <= now_ms and self.status == "SETTLED":
            return self.stages[-1]
        until = now_ms if closed is None else min(now_ms, closed)
        shown = sum(1 for w in self.windows if w.closes_ms <= until)
        return self.stages[min(shown, len(self.stages) - 1)]

    def exposed_at(self, now_ms: int) -> JsonDict:
        """``exposedCards`` (every card a dealer's error showed by ``now_ms``) and ``deadCards`` (those of them out
        of play), as the live snapshot's game data has them: each only when there is one."""
        shown = [e for e in self.exposures if e.at_ms <= now_ms]
        return dealer_error_cards([c for e in shown for c in e.cards], shown[-1].dead if shown else ())


class Timeline:
    """Every game of a backtest folder, by start time; ``account``: whose bets it shows (None: the strategy's).

    A position is milliseconds of the recording since the first game's start, less the time no game was played:
    a wait between two games longer than a playing window is cut to one (a recording over several runs of a server
    replays its games back to back, however short the stop, and a backtest in sessions that ended early does not
    wait out the games it did not deal; games dealt one after the other have no wait between them).
    """

    def __init__(self, games: Sequence[RecordedGame], account: str | None = None) -> None:
        if not games:
            raise ReplayError("the folder has no games to replay")
        self.account = account
        self.games = sorted(games, key=lambda g: g.start_ms)
        self.channel = self.games[0].channel
        self.origin_ms = self.games[0].start_ms
        self._cuts: list[int] = []  # per game: the recorded time cut before it
        self._starts: list[int] = []  # per game: its start's position
        cut = 0
        for before, game in zip([None, *self.games[:-1]], self.games, strict=True):
            wait = 0 if before is None else game.start_ms - before.end_ms
            if wait > game.channel.playing_window_ms:
                cut += wait - game.channel.playing_window_ms
            self._cuts.append(cut)
            self._starts.append(game.start_ms - cut - self.origin_ms)
        self._results: dict[str, JsonDict] = {}

    @property
    def length_ms(self) -> int:
        return self.games[-1].end_ms - self._cuts[-1] - self.origin_ms

    def game_at(self, position_ms: int) -> RecordedGame:
        """The game on the table at ``position_ms``."""
        return self.games[self.place_at(position_ms)]

    def place_at(self, position_ms: int) -> int:
        """The place (from 0) among the folder's games of the one on the table at ``position_ms`` (not its game
        number: a session ended early leaves the games it did not deal out)."""
        return max(0, bisect.bisect_right(self._starts, position_ms) - 1)

    def next_start(self, position_ms: int) -> int | None:
        """The position where the game after the one at ``position_ms`` starts; None after the last."""
        i = bisect.bisect_right(self._starts, position_ms)
        return None if i >= len(self._starts) else self._starts[i]

    def recorded_ms(self, position_ms: int) -> int:
        """The time in the recording that ``position_ms`` shows."""
        return self.origin_ms + position_ms + self._cuts[self.place_at(position_ms)]

    def channel_entry(self) -> JsonDict:
        """The channel as ``/games/v1/channels`` lists it."""
        cfg = self.channel
        return {"id": cfg.name, "name": f"{cfg.title} (replay)", "variant": cfg.variant, "status": "RUNNING",
                "rounds": list(cfg.layout.windows), "markets": [market_type_of(kind.suffix) for kind in cfg.markets],
                "bettingWindowTime": cfg.betting_window_ms // 1000, "playingWindowTime": cfg.playing_window_ms // 1000,
                "bettingWindowMs": cfg.betting_window_ms, "playingWindowMs": cfg.playing_window_ms,
                "gameId": None, "snapshot": f"/games/v1/channels/{cfg.name}/snapshot"}

    def _done(self, position_ms: int) -> list[RecordedGame]:
        return [g for g, cut in zip(self.games, self._cuts, strict=True)
                if g.windows[-1].closes_ms - cut - self.origin_ms <= position_ms]

    def settled_before(self, position_ms: int) -> list[JsonDict]:
        """The strategy's result on each market settled by ``position_ms`` (oldest first), as grouped cleared
        orders."""
        return [s for g in self._done(position_ms) for s in g.settlements]

    def results_before(self, position_ms: int, count: int = 10) -> list[JsonDict]:
        """The last ``count`` games settled by ``position_ms``, newest first: id, every market's winners, board."""
        return [self._result(game) for game in reversed(self._done(position_ms)[-count:])]

    def _result(self, game: RecordedGame) -> JsonDict:
        """A finished game for the page's recent results (worked out once: it never changes)."""
        if game.market_id not in self._results:
            final = game_snapshot(game, game.windows[-1].closes_ms)["game"]
            markets = [{"marketId": m["marketId"], "marketName": m["marketName"], "early": m.get("early", False),
                        "selections": [{"name": s["name"], "status": s["status"]} for s in m["selections"]]}
                       for m in final["markets"]]
            self._results[game.market_id] = {"id": game.market_id, "channel": f"{self.channel.title} (replay)",
                                             "game": {"markets": markets, "gameData": {
                                                 "communityCards": final["gameData"]["communityCards"]}}}
        return self._results[game.market_id]

    def snapshot(self, position_ms: int) -> JsonDict:
        """The channel's snapshot at ``position_ms``."""
        return game_snapshot(self.game_at(position_ms), self.recorded_ms(position_ms))


def game_snapshot(game: RecordedGame, now_ms: int) -> JsonDict:
    """``game`` at ``now_ms`` in the Games API snapshot shape, the strategy's orders in ``game.orders`` and its
    matched position by fill price in ``game.positions`` (as the order stream's ``oc``)."""
    cfg = game.channel
    window = game.window_at(now_ms)
    public = game.public_at(now_ms)
    markets = [market.at(now_ms, len(game.markets)) for market in game.markets]
    betting_open = window.open_at(now_ms) and any(m["status"] == "OPEN" for m in markets)
    statuses = {s["selectionId"]: s["status"] for s in markets[0]["selections"]}
    hands = [{"name": f"Hand {i + 1}", "selectionId": i + 1, "status": statuses.get(i + 1, "IN_PLAY"),
              **_cards(public, i, cfg.layout.seat_cards)} for i in range(cfg.hands)]
    board_cards = cfg.layout.board_cards
    return {
        "channel": {"id": cfg.name, "name": f"{cfg.title} (replay)", "variant": cfg.variant, "status": "RUNNING"},
        "game": {
            "id": game.market_id,
            "gameNumber": game.game_number,
            "round": int(window.round),
            "roundName": cfg.layout.windows[window.round - 1],
            "bettingWindowTime": cfg.betting_window_ms // 1000,
            "bettingWindowMs": cfg.betting_window_ms,
            "bettingWindowPercentageComplete": window.percentage_complete(now_ms),
            "bettingWindowRemainingMs": max(0, window.closes_ms - now_ms) if betting_open else 0,
            "bettingOpen": betting_open,
            "suspendedReason": None,  # (a recording keeps no suspension's reason)
            "gameData": {"hands": hands, "communityCards": [str(c) for c in public.board]
                         + [NOT_AVAILABLE] * (board_cards - len(public.board)), **game.exposed_at(now_ms)},
            "markets": markets,
            "orders": [o for m in game.markets for o in orders_at(m, now_ms, game.windows, game.end_ms)],
            "positions": [position_at(m, now_ms) for m in game.markets],
        },
    }


def _cards(public: PublicCards, hand: int, seat_cards: int) -> JsonDict:
    """A hand's card slots as the live snapshot gives them: cards (``NOT AVAILABLE`` until turned), faces, draws."""
    cards = public.hands[hand] or ()
    faces = public.faces(hand) if cards else ()
    missing = max(seat_cards - len(cards), 0)
    out: JsonDict = {"cards": [str(c) for c in cards] + [NOT_AVAILABLE] * missing,
                     "faces": ["UP" if up else "DOWN" for up in faces] + ["DOWN"] * missing}
    if public.discarded:
        out["draws"] = hand_draws(public.discarded[hand], public.drawn[hand])
    return out


# --- reading a folder ----------------------------------------------------------------------------------------------


def load_timeline(directory: Path, account: str | None = None, channel: str | None = None) -> Timeline:
    """Read a backtest's output folder (``exchange-poker backtest --out DIR``), or a live server's recording
    (``serve --record DIR``), as a :class:`Timeline` of ``channel``'s games with ``account``'s bets (see
    :func:`~exchange.backtest.replay_files.read_folder`)."""
    folder = read_folder(directory, account, channel)
    games = []
    for row in folder.games:
        config = folder.channel(row)
        number = folder.game_number(row)
        markets = tuple(folder.market(row, market_id, kind)
                        for market_id, kind in zip(config.market_ids(number), config.markets, strict=True))
        games.append(RecordedGame(
            market_id=row["market_id"], game_number=number, channel=config, start_ms=row["start_ms"],
            status=row["status"], stages=folder.stages(row), markets=markets,
            settlements=[s for m in markets if (s := folder.settlement(m.market_id)) is not None],
            exposures=folder.exposures(row),
        ))
    return Timeline(games, folder.account)


__all__ = ["NOT_AVAILABLE", "RecordedGame", "ReplayError", "Timeline", "game_snapshot", "load_timeline"]
