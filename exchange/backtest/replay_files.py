"""Reading a backtest's output folder for the replay: its tables, grouped by market, and its stream recordings.

A live server's recording (``serve --record DIR``) is read the same way: its tables are folders of part files
(pyarrow reads each as one table), its games may be of several channels (one is replayed: ``channel``), and
whose bets are shown is any account's (``account``; a backtest's strategy account by default).

Each table is read as today's (:func:`~exchange.tables.outputs.read_table`): a column that a file or part was
written without reads as null. A folder written before ``equities.parquet`` existed is read without equities;
one written before hi/lo games recorded their Low market's stream shows that
market without prices; one written before fills recorded when the exchange
voided them (``voided_ms``) leaves those fills out; one written before
``irregularities.parquet`` existed shows no card a dealer's error exposed, and
one written before its ``dead_cards`` column none of them dead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.replay_deal import RecordedDealError, recorded_stages
from exchange.backtest.replay_market import PublishedEquity, RecordedMarket
from exchange.betfair import apiformat
from exchange.game.channels import ChannelConfig, UnknownChannel, get_channel, parse_market_id
from exchange.game.deal import PublicCards
from exchange.game.layouts import MarketKind
from exchange.tables.outputs import read_table

JsonDict = dict[str, Any]
REQUIRED = ("games.parquet", "orders.parquet", "fills.parquet", "settlements.parquet")


@dataclass(frozen=True)
class Exposure:
    """Cards a dealer's error showed before their time (``irregularities.parquet``): when, which, and those of them
    out of play from then on (``dead``: every card so far, as the game's ``deadCards`` says it)."""

    at_ms: int
    cards: tuple[str, ...]
    dead: tuple[str, ...]


class ReplayError(ValueError):
    """The folder is not a backtest's output (the message says what is missing)."""


@dataclass(frozen=True)
class Folder:
    """A backtest folder's rows: games in order, and the strategy's orders, fills and results by market."""

    directory: Path
    games: list[JsonDict]
    orders: dict[str, list[JsonDict]]
    fills: dict[str, list[JsonDict]]
    settled: dict[str, list[JsonDict]]
    equities: dict[str, list[JsonDict]]
    irregularities: dict[str, list[JsonDict]] = field(default_factory=dict)
    #: Whose bets: the account as the tables spell it (account names are the same whatever their case); ``None``:
    #: a backtest's strategy.
    account: str | None = None

    def channel(self, row: JsonDict) -> ChannelConfig:
        """The channel of the game of ``row``, with the windows it was played with (a server's may be shorter than
        the channel's; a folder written before they were recorded has the channel's)."""
        try:
            config = get_channel(row["channel"])
        except UnknownChannel as exc:
            raise ReplayError(f"{row['market_id']}: {exc.args[0]}") from None
        betting = row["betting_window_ms"]
        return config if not betting else config.with_times(betting, row["playing_window_ms"])

    def stages(self, row: JsonDict) -> tuple[PublicCards, ...]:
        """The game's public cards after each reveal (a voided game whose cards cannot be dealt again: none)."""
        config = self.channel(row)
        try:
            return recorded_stages(config.layout, config.hands, row)
        except RecordedDealError as exc:
            if row["status"] == "VOID":
                return (PublicCards(hands=(None,) * config.hands),)
            raise ReplayError(str(exc)) from None

    def game_number(self, row: JsonDict) -> int:
        """The number the game of ``row`` was dealt as, its market id's (a backtest's ``game_index``; a recording's
        ``game_index`` counts the games recorded)."""
        parsed = parse_market_id(row["market_id"])
        if parsed is None:
            raise ReplayError(f"{row['market_id']!r} is not a game's market id (channel.number)")
        return parsed[1]

    def market(self, row: JsonDict, market_id: str, kind: MarketKind) -> RecordedMarket:
        """One market of the game of ``row``: its recording, its result, its equities and the strategy's orders."""
        low = "low_" if kind is MarketKind.LOW else ""
        winners = frozenset(int(w) for w in (row.get(f"{low}winners") or "").split(",") if w)
        return RecordedMarket(
            market_id=market_id, kind=kind, names=self.channel(row).selection_names(kind),
            stream=_read_stream(self.directory / "streams" / market_id, market_id),
            winners=winners, dead_heat=bool(row.get(f"{low}dead_heat")), early=bool(row.get(f"{low}early")),
            equities=_publications(self.equities.get(market_id, [])),
            orders=self.orders.get(market_id, []), fills=self.fills.get(market_id, []),
        )

    def exposures(self, row: JsonDict) -> tuple[Exposure, ...]:
        """The cards a dealer's error exposed in the game of ``row``, each irregularity's when it happened."""
        return tuple(Exposure(at_ms=r["at_ms"], cards=_cards(r["cards"]), dead=_cards(r["dead_cards"]))
                     for r in sorted(self.irregularities.get(row["market_id"], []), key=lambda r: r["at_ms"]))

    def settlement(self, market_id: str) -> JsonDict | None:
        """The strategy's result on ``market_id`` as a grouped cleared order; None if it had no bet settled there
        (no row, or one of no bets: as ``listClearedOrders`` lists a live account's settled markets, the page listed
        every game of the replay as "0 bets, £0.00")."""
        rows = self.settled.get(market_id)
        if not rows or not rows[0]["bets"]:
            return None
        row = rows[0]
        return {"marketId": market_id, "betCount": row["bets"], "profit": apiformat.money(row["gross_profit"]),
                "commission": apiformat.money(row["commission"])}


def read_folder(directory: Path, account: str | None = None, channel: str | None = None) -> Folder:
    """Read what the replay needs of ``directory``, the games of ``channel`` (may be left out when the folder holds
    one channel's) and ``account``'s bets (a backtest's strategy by default; a recording has no default);
    :class:`ReplayError` saying what is missing if it is not a backtest's output or a server's recording, or naming
    the channels (or accounts) to choose from."""
    if directory.exists() and not directory.is_dir():
        hint = f" (the folder holding it: {directory.parent})" if directory.suffix == ".parquet" else ""
        raise ReplayError(f"{directory} is a file: give the folder of a backtest's output or a server's "
                          f"recording{hint}")
    for name in REQUIRED:
        if not (directory / name).exists():
            raise ReplayError(f"{directory} is not a backtest's output or a server's recording: {name} is missing "
                              "(write one with 'exchange-poker backtest --out DIR' or 'exchange-poker serve --record "
                              "DIR')")
    recording = (directory / "games.parquet").is_dir()  # a backtest writes each table as one file
    if not (directory / "streams").is_dir():
        raise ReplayError(f"{directory}/streams is missing: the replay needs the recorded markets, which "
                          + ("a server recorded before its recordings had stream files does not have" if recording
                             else "a backtest run with --no-streams does not write"))
    if recording and account is None:
        raise ReplayError(f"{directory} is a server's recording: choose whose bets to show with --account (the "
                          f"accounts that bet in it: {', '.join(_bettors(directory)) or 'none yet'})")
    # each table as today's: a column a file or part was written without (by an older version) reads as null
    games = _games_of(read_table(directory, "games").to_pylist(), channel)
    if games and account is not None:
        bettors = _bettors(directory, {m for g in games for m in (g["market_id"], g["low_market_id"]) if m})
        account = next((name for name in bettors if name.casefold() == account.casefold()), account)
        if bettors and account not in bettors:  # a name mistyped, most likely (where nobody bet, any shows none)
            raise ReplayError(f"{account!r} placed no bet on the {games[0]['channel']} games of {directory}: the page "
                              f"would show no bets (the accounts that did: {', '.join(bettors)})")
    mine = account or STRATEGY_ACCOUNT
    equities = directory / "equities.parquet"
    irregularities = directory / "irregularities.parquet"
    return Folder(
        directory=directory,
        games=games,
        orders=_rows_by_market(directory, "orders", lambda r: r["account"] == mine and not r["error_code"]),
        fills=_rows_by_market(directory, "fills",
                              lambda r: mine in (r["back_account"], r["lay_account"]) and _when_known(r)),
        settled=_rows_by_market(directory, "settlements", lambda r: r["account"] == mine),
        equities=_rows_by_market(directory, "equities", lambda r: True) if equities.exists() else {},
        irregularities=(_rows_by_market(directory, "irregularities", lambda r: True) if irregularities.exists()
                        else {}),
        account=account,
    )


def _bettors(directory: Path, markets: set[str] | None = None) -> list[str]:
    """The accounts that placed a bet in the folder (one refused is none), or on one of ``markets``."""
    rows = read_table(directory, "orders", ["account", "market_id", "error_code"]).to_pylist()
    placed = (r for r in rows if r["error_code"] is None and (markets is None or r["market_id"] in markets))
    return sorted({r["account"] for r in placed})


def _games_of(games: list[JsonDict], channel: str | None) -> list[JsonDict]:
    """The games of ``channel``, or of the one channel the folder holds (a server records several)."""
    held = sorted({row["channel"] for row in games})
    if channel is None:
        if len(held) > 1:
            raise ReplayError(f"the folder holds games of {len(held)} channels ({', '.join(held)}): choose one "
                              "with --channel")
        return games
    if channel not in held:
        raise ReplayError(f"the folder holds no game of channel {channel!r}; it holds "
                          f"{', '.join(held) or 'no game yet'}")
    return [row for row in games if row["channel"] == channel]


def _cards(text: str | None) -> tuple[str, ...]:
    """Cards as a table writes them (``"As Kd"``); none for an empty or missing column."""
    return tuple((text or "").split())


def _when_known(fill: JsonDict) -> bool:
    """A fill the replay can place in time: one that stood, or one voided whose void time was recorded (a folder
    written before ``voided_ms`` existed leaves its voided fills out, as the replay did then)."""
    return not fill["voided"] or fill["voided_ms"] is not None


def _rows_by_market(directory: Path, table: str, keep: Callable[[JsonDict], bool]) -> dict[str, list[JsonDict]]:
    out: dict[str, list[JsonDict]] = {}
    for row in read_table(directory, table).to_pylist():
        if keep(row):
            out.setdefault(row["market_id"], []).append(row)
    return out


def _publications(rows: list[JsonDict]) -> list[tuple[int, dict[int, PublishedEquity]]]:
    """A market's equity rows as publications in order: one per (time, round) run of rows, each equity with its
    standard error where it was a Monte Carlo estimate (a folder written before ``stderr`` existed has none)."""
    out: list[tuple[int, dict[int, PublishedEquity]]] = []
    key = None
    for row in rows:
        if (row["at_ms"], row["round"]) != key:
            key = (row["at_ms"], row["round"])
            out.append((row["at_ms"], {}))
        stderr = row["stderr"]
        out[-1][1][row["selection_id"]] = PublishedEquity(Fraction(row["equity_exact"]),
                                                          None if stderr is None else Fraction(stderr))
    return out


def _read_stream(path: Path, market_id: str) -> list[tuple[int, JsonDict]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        message = json.loads(line)
        out += [(message["pt"], mc) for mc in message.get("mc", ()) if mc.get("id") == market_id]
    return out
