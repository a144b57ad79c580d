"""A backtest's output folder read back as a timeline of games: what a spectator saw at any instant.

``exchange-poker replay DIR`` shows a backtest on the trading page. Everything
comes from the files the backtest wrote: ``games.parquet`` (each hand's cards,
the board, the winners), ``streams/<marketId>`` (the market as Betfair's
stream recorded it: prices, statuses, settlement), ``orders.parquet`` and
``fills.parquet`` (the strategy's bets and every fill, with its time). The
cards are shown when the live game turns them (hole cards when the Deal window
closes, the flop, turn and river at the next closes), and each reveal's exact
equities are computed again by the engine, as the live table computes them.

:meth:`Timeline.snapshot` answers in the shape of the Games API snapshot
(``/games/v1/channels/{id}/snapshot``), with the strategy's orders in
``game.orders`` (API-NG's ``CurrentOrderSummary``) so the page lists them and
their "if it wins" P&L. The files keep each order's final state and every
fill's time but not when a remainder was cancelled: an unmatched remainder is
shown until its window closes.

Games follow one another on the timeline at their recorded start times
(a backtest deals them back to back), so a position is milliseconds since the
first game's start.
"""

from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

import engine
from exchange.backtest.runner import STRATEGY_ACCOUNT
from exchange.game.channels import ChannelConfig, get_channel
from exchange.game.rounds import Window, timetable

NOT_AVAILABLE = "NOT AVAILABLE"
BOARD_CARDS = 5
#: Board cards face up once the cards of each stage are turned (stage 5: the river, after the Turn window).
_BOARD_AT_STAGE = {1: 0, 2: 0, 3: 3, 4: 4, 5: 5}
_RUNNER_STATUS = {"ACTIVE": "IN_PLAY", "WINNER": "WINNER", "LOSER": "LOSER", "REMOVED": "LOSER"}
JsonDict = dict[str, Any]


class ReplayError(ValueError):
    """The folder is not a backtest's output (the message says what is missing)."""


@dataclass
class RecordedGame:
    """One game of the backtest: its deal and result, its recorded market, the strategy's orders and fills."""

    market_id: str
    game_index: int
    channel: ChannelConfig
    start_ms: int
    hands: tuple[tuple[str, ...], ...]
    board: tuple[str, ...]
    winners: frozenset[int]
    dead_heat: bool
    stream: list[tuple[int, JsonDict]]  # (pt, mc entry), in order
    orders: list[JsonDict] = field(default_factory=list)
    fills: list[JsonDict] = field(default_factory=list)
    settlement: JsonDict | None = None
    _equities: dict[int, tuple[Fraction, ...]] = field(default_factory=dict, repr=False)

    @functools.cached_property
    def windows(self) -> tuple[Window, ...]:
        return timetable(self.channel, self.start_ms)

    @property
    def end_ms(self) -> int:
        return self.start_ms + self.channel.game_ms

    def stage(self, now_ms: int) -> tuple[Window, int]:
        """The window of ``now_ms`` (the last one opened) and the cards turned by then (1 none … 5 the river)."""
        window = self.windows[0]
        for w in self.windows:
            if w.opens_ms <= now_ms:
                window = w
        return window, int(window.round) + (1 if now_ms >= window.closes_ms else 0)

    def equities(self, stage: int) -> tuple[Fraction, ...]:
        """Each hand's exact share of the pot once the cards of ``stage`` are turned (computed once a stage)."""
        if stage not in self._equities:
            self._equities[stage] = self._compute_equities(stage)
        return self._equities[stage]

    def _compute_equities(self, stage: int) -> tuple[Fraction, ...]:
        n = len(self.hands)
        if stage <= 1:
            return tuple(Fraction(1, n) for _ in range(n))
        if stage >= 5:
            return tuple(Fraction(1, len(self.winners)) if i + 1 in self.winners else Fraction(0) for i in range(n))
        result = engine.equity(self.channel.variant, ["".join(h) for h in self.hands],
                               board="".join(self.board[:_BOARD_AT_STAGE[stage]]))
        return tuple(r.exact_equity for r in result.results)


class Timeline:
    """Every game of a backtest folder, by start time."""

    def __init__(self, games: Sequence[RecordedGame]) -> None:
        if not games:
            raise ReplayError("the backtest has no games to replay")
        self.games = sorted(games, key=lambda g: g.start_ms)
        self._starts = [g.start_ms for g in self.games]
        self.channel = self.games[0].channel
        self.origin_ms = self.games[0].start_ms

    @property
    def length_ms(self) -> int:
        return self.games[-1].end_ms - self.origin_ms

    def game_at(self, position_ms: int) -> RecordedGame:
        """The game on the table ``position_ms`` after the first game's start."""
        i = bisect.bisect_right(self._starts, self.origin_ms + position_ms) - 1
        return self.games[max(0, i)]

    def next_start(self, position_ms: int) -> int | None:
        """The position where the game after the one at ``position_ms`` starts; None after the last."""
        i = bisect.bisect_right(self._starts, self.origin_ms + position_ms)
        return None if i >= len(self._starts) else self._starts[i] - self.origin_ms

    def channel_entry(self) -> JsonDict:
        """The channel as ``/games/v1/channels`` lists it."""
        cfg = self.channel
        return {"id": cfg.name, "name": f"{cfg.title} (replay)", "variant": cfg.variant, "status": "RUNNING",
                "bettingWindowTime": cfg.betting_window_ms // 1000, "playingWindowTime": cfg.playing_window_ms // 1000,
                "gameId": None, "snapshot": f"/games/v1/channels/{cfg.name}/snapshot"}

    def settled_before(self, position_ms: int) -> list[JsonDict]:
        """The strategy's result on each game settled by ``position_ms`` (oldest first), as grouped cleared orders."""
        now = self.origin_ms + position_ms
        return [g.settlement for g in self.games if g.settlement is not None and g.windows[-1].closes_ms <= now]

    def results_before(self, position_ms: int, count: int = 10) -> list[JsonDict]:
        """The last ``count`` games settled by ``position_ms``, newest first: id, winners, board (for the page)."""
        now = self.origin_ms + position_ms
        done = [g for g in self.games if g.windows[-1].closes_ms <= now][-count:]
        out = []
        for game in reversed(done):
            final = game_snapshot(game, game.windows[-1].closes_ms)["game"]
            selections = [{"name": s["name"], "status": s["status"]} for s in final["markets"][0]["selections"]]
            out.append({"id": game.market_id, "channel": f"{self.channel.title} (replay)", "game": {
                "markets": [{"marketId": game.market_id, "selections": selections}],
                "gameData": {"communityCards": final["gameData"]["communityCards"]}}})
        return out

    def snapshot(self, position_ms: int) -> JsonDict:
        """The channel's snapshot ``position_ms`` after the first game's start."""
        game = self.game_at(position_ms)
        return game_snapshot(game, self.origin_ms + position_ms)


def game_snapshot(game: RecordedGame, now_ms: int) -> JsonDict:
    """``game`` at ``now_ms`` in the Games API snapshot shape, the strategy's orders in ``game.orders``."""
    cfg = game.channel
    window, stage = game.stage(now_ms)
    market = _market_at(game, now_ms)
    hole_up = stage >= 2
    shares = game.equities(stage)
    hands, selections = [], []
    for i, cards in enumerate(game.hands):
        selection_id = i + 1
        status = _selection_status(market["runners"].get(selection_id, "ACTIVE"), market["status"], game.dead_heat)
        hands.append({"name": f"Hand {selection_id}", "selectionId": selection_id, "status": status,
                      "cards": list(cards) if hole_up else [NOT_AVAILABLE] * len(cards)})
        book = market["books"].get(selection_id, ({}, {}))
        selections.append({
            "selectionId": selection_id, "name": f"Hand {selection_id}", "status": status,
            "bestAvailableToBackPrices": _best(book[0], back=True),
            "bestAvailableToLayPrices": _best(book[1], back=False),
            "lastPriceTraded": market["ltp"].get(selection_id),
            "equity": round(float(shares[i]), 6),
            "equityExact": f"{shares[i].numerator}/{shares[i].denominator}",
        })
    shown = _BOARD_AT_STAGE[stage]
    betting_open = window.opens_ms <= now_ms < window.closes_ms and market["status"] == "OPEN"
    return {
        "channel": {"id": cfg.name, "name": f"{cfg.title} (replay)", "variant": cfg.variant, "status": "RUNNING"},
        "game": {
            "id": game.market_id,
            "gameNumber": game.game_index,
            "round": int(window.round),
            "roundName": window.round.label,
            "bettingWindowTime": cfg.betting_window_ms // 1000,
            "bettingWindowPercentageComplete": window.percentage_complete(now_ms),
            "bettingWindowRemainingMs": max(0, window.closes_ms - now_ms) if betting_open else 0,
            "bettingOpen": betting_open,
            "gameData": {"hands": hands,
                         "communityCards": list(game.board[:shown]) + [NOT_AVAILABLE] * (BOARD_CARDS - shown)},
            "markets": [{"marketId": game.market_id, "status": market["status"], "selections": selections}],
            "orders": _orders_at(game, now_ms),
        },
    }


def _selection_status(runner: str, market_status: str, dead_heat: bool) -> str:
    status = _RUNNER_STATUS.get(runner, "IN_PLAY")
    if status == "LOSER" and market_status != "CLOSED":
        return "CAN_NOT_WIN"
    if status == "WINNER" and dead_heat:
        return "TIED_DEAD_HEAT"
    return status


def _market_at(game: RecordedGame, now_ms: int) -> JsonDict:
    """The recorded market folded up to ``now_ms``: status, runner statuses, ladders by price, last prices."""
    status = "INACTIVE"
    runners: dict[int, str] = {}
    books: dict[int, tuple[dict[float, float], dict[float, float]]] = {}
    ltp: dict[int, float] = {}
    for pt, change in game.stream:
        if pt > now_ms:
            break
        definition = change.get("marketDefinition")
        if definition is not None:
            status = definition.get("status", status)
            runners.update({r["id"]: r.get("status", "ACTIVE") for r in definition.get("runners", ())})
        if change.get("img"):
            books.clear()
        for rc in change.get("rc", ()):
            atb, atl = books.setdefault(rc["id"], ({}, {}))
            for key, ladder in (("atb", atb), ("atl", atl)):
                for price, size in rc.get(key, ()):
                    if size:
                        ladder[price] = size
                    else:
                        ladder.pop(price, None)
            if "ltp" in rc:
                ltp[rc["id"]] = rc["ltp"]
    return {"status": status, "runners": runners, "books": books, "ltp": ltp}


def _best(ladder: Mapping[float, float], *, back: bool) -> list[JsonDict]:
    prices = sorted(ladder, reverse=back)[:3]
    return [{"price": p, "size": ladder[p]} for p in prices]


def _orders_at(game: RecordedGame, now_ms: int) -> list[JsonDict]:
    """The strategy's orders placed by ``now_ms``, matched as far as their fills by then (CurrentOrderSummary)."""
    out = []
    for order in game.orders:
        if order["placed_ms"] > now_ms:
            continue
        bet_id = order["bet_id"]
        fills = [f for f in game.fills if f["at_ms"] <= now_ms and bet_id in (f["back_bet_id"], f["lay_bet_id"])]
        matched = sum(f["size"] for f in fills)
        ends = game.windows[order["round"] - 1].closes_ms if order["round"] else game.end_ms
        remaining = order["size"] - matched if now_ms < ends else 0
        average = (sum(f["size"] * f["price"] for f in fills) / matched) if matched else 0.0
        out.append({
            "betId": str(bet_id), "marketId": game.market_id, "selectionId": order["selection_id"],
            "side": order["side"], "priceSize": {"price": order["price"], "size": order["size"] / 100},
            "sizeMatched": matched / 100, "sizeRemaining": max(0, remaining) / 100,
            "averagePriceMatched": round(average, 2),
            "status": "EXECUTABLE" if remaining > 0 else "EXECUTION_COMPLETE",
        })
    return out


# --- reading a folder ----------------------------------------------------------------------------------------------


def load_timeline(directory: Path, account: str = STRATEGY_ACCOUNT) -> Timeline:
    """Read a backtest's output folder (``exchange-poker backtest --out DIR``) as a :class:`Timeline`."""
    for name in ("games.parquet", "orders.parquet", "fills.parquet", "settlements.parquet"):
        if not (directory / name).is_file():
            raise ReplayError(f"{directory} is not a backtest output folder: {name} is missing "
                              "(write one with 'exchange-poker backtest --out DIR')")
    streams = directory / "streams"
    if not streams.is_dir():
        raise ReplayError(f"{directory}/streams is missing: the backtest was run with --no-streams, and the replay "
                          "needs the recorded markets")
    orders = _rows_by_market(directory / "orders.parquet", lambda r: r["account"] == account and not r["error_code"])
    fills = _rows_by_market(directory / "fills.parquet",
                            lambda r: account in (r["back_account"], r["lay_account"]) and not r["voided"])
    settled = _rows_by_market(directory / "settlements.parquet", lambda r: r["account"] == account)
    games = []
    for row in pq.read_table(directory / "games.parquet").to_pylist():
        market_id = row["market_id"]
        mine = settled.get(market_id, [])
        games.append(RecordedGame(
            market_id=market_id,
            game_index=row["game_index"],
            channel=get_channel(row["channel"]),
            start_ms=row["start_ms"],
            hands=tuple(tuple(row[f"hand_{i}"].split()) for i in range(1, 5) if row.get(f"hand_{i}")),
            board=tuple((row["board"] or "").split()),
            winners=frozenset(int(w) for w in (row["winners"] or "").split(",") if w),
            dead_heat=bool(row["dead_heat"]),
            stream=_read_stream(streams / market_id, market_id),
            orders=orders.get(market_id, []),
            fills=fills.get(market_id, []),
            settlement=_settlement(market_id, mine[0]) if mine else None,
        ))
    return Timeline(games)


def _rows_by_market(path: Path, keep: Any) -> dict[str, list[JsonDict]]:
    out: dict[str, list[JsonDict]] = {}
    for row in pq.read_table(path).to_pylist():
        if keep(row):
            out.setdefault(row["market_id"], []).append(row)
    return out


def _read_stream(path: Path, market_id: str) -> list[tuple[int, JsonDict]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        message = json.loads(line)
        out += [(message["pt"], mc) for mc in message.get("mc", ()) if mc.get("id") == market_id]
    return out


def _settlement(market_id: str, row: JsonDict) -> JsonDict:
    return {"marketId": market_id, "betCount": row["bets"], "profit": row["gross_profit"] / 100,
            "commission": row["commission"] / 100}

