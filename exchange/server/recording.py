"""The backtest's Parquet tables, recorded by the live server as its games end (``serve --record DIR``).

Every channel's stamped events feed a :class:`~exchange.tables.collector.Collector` for each game, from its
start (a game under way when the server started is not recorded). When a game ends its rows join those
waiting; every ``every`` games, and when the server stops, the waiting rows are written as one part file per
table, ``DIR/<table>.parquet/part-<first>-<last>.parquet`` (the first and last ``game_index`` in it). A folder
of part files named ``<table>.parquet`` is read as one table by pandas and pyarrow
(``pd.read_parquet(DIR / "settlements.parquet")``), so the settlements notebook reads a recording as it reads a
backtest. A part file appears whole (written under a name readers skip, then renamed), and a restart carries
on after the last ``game_index`` written.

What differs from a backtest's tables: ``game_index`` counts the games recorded in ``DIR`` in the order they
ended, over every channel (``market_id`` names the game); the recording is one session (``session`` 0,
``session_game`` the game index); a settlement row is written for each account with a result in the market,
and the house's commission account. A refused instruction's row says what the client asked (a placement's
side, price, size and round; a cancel's size reduction; a replace's new price), as a backtest's does: the
refusal is published while its command executes (:attr:`ExchangeService.executing`). Rows still waiting when
the server is killed are lost: the journal still holds every order and settlement.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from exchange.core.commands import CancelOrder, Command, PlaceOrder, ReplaceOrder
from exchange.core.events import OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channels import ChannelConfig
from exchange.game.events import GameStarted, Stamped
from exchange.tables.collector import Collector
from exchange.tables.outputs import TABLES, empty_tables

log = logging.getLogger(__name__)

#: Games written together in one part file of each table.
DEFAULT_EVERY = 100
_PART = re.compile(r"part-(\d+)-(\d+)\.parquet")
#: The largest whole number a table's integer column holds.
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Requested:
    """What a client's command asked, as the tables' refusal rows read it
    (:class:`~exchange.tables.collector.Asked`)."""

    market_id: str
    side: Side | None
    price: Decimal | None
    size: int | None
    round: int | None


class RecordingRefused(ValueError):
    """``DIR`` cannot take a recording; the message says why."""


def next_game_index(directory: Path) -> int:
    """The ``game_index`` after the last one recorded in ``directory`` (0 for a new folder).

    Refuses a folder it cannot record into: one holding a backtest's tables (``games.parquet`` a file),
    or a path that is not a folder.
    """
    if directory.exists() and not directory.is_dir():
        raise RecordingRefused(f"{directory} is not a folder")
    for spec in TABLES.values():
        table = directory / spec.file_name
        if table.exists() and not table.is_dir():
            raise RecordingRefused(f"{directory} holds a backtest's tables ({table.name} is a file); record into "
                                   "another folder")
    games = directory / TABLES["games"].file_name
    last = -1
    if games.is_dir():
        for path in games.iterdir():
            match = _PART.fullmatch(path.name)
            if match is not None:
                last = max(last, int(match[2]))
    return last + 1


class Recording:
    """Subscribed to every channel (:meth:`__call__` takes each stamped event); :meth:`close` when the server stops.

    ``configs``: the server's channels by name; ``exchange``: read for each account's balance when its game ends;
    ``executing()``: the client command being executed now, if any (what a refusal refused).
    """

    def __init__(self, directory: Path, exchange: Exchange, configs: Mapping[str, ChannelConfig], *,
                 every: int = DEFAULT_EVERY, executing: Callable[[], Command | None] = lambda: None) -> None:
        if every < 1:
            raise ValueError(f"games per part file must be at least 1, not {every}")
        self.directory = directory
        self.every = every
        self.next_index = next_game_index(directory)
        for spec in TABLES.values():
            (directory / spec.file_name).mkdir(parents=True, exist_ok=True)
        self._exchange = exchange
        self._configs = configs
        self._executing = executing
        self._games: dict[str, Collector] = {}  # market id -> its game's collector (a hi/lo game: both markets)
        self._waiting = empty_tables()
        self._first_waiting = self.next_index
        self._writes: list[Future[None]] = []
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recording")
        #: Why the recording stopped (a fault of its own), or None while it records.
        self.stopped: str | None = None

    def __call__(self, stamped: Stamped) -> None:
        """Note one stamped event of a channel. A fault of the recording stops the recording, never the games: it
        is logged with its traceback and nothing more is recorded (what was written stays)."""
        if self.stopped is not None:
            return
        try:
            self._note(stamped)
        except Exception as exc:
            self.stopped = f"{type(exc).__name__}: {exc}"
            self._games.clear()
            log.exception("recording: stopped at event %d of %s (%s); the games go on unrecorded, the journal "
                          "keeps every order and settlement", stamped.seq, stamped.market_id, self.stopped)

    def _note(self, stamped: Stamped) -> None:
        event = stamped.event
        if type(event) is GameStarted:
            self._start(event)
        if stamped.market_id is None:  # a game is always stamped with its market: this is a refusal naming none
            if type(event) is OrderRejected:
                self._refused_without_market(event)
            return
        collector = self._games.get(stamped.market_id)
        if collector is None:
            return
        collector(stamped)
        if collector.ended:
            self._end(collector)

    def _start(self, started: GameStarted) -> None:
        config = self._configs[started.channel]
        market_ids = config.market_ids(started.game_number)
        # numbered when it ends (renumber): the recording's games are counted in the order they end
        collector = Collector(-1, market_ids, (), session=0, balance=self._balance, asked=self._asked,
                              min_stake=config.min_stake)
        for market_id in market_ids:
            self._games[market_id] = collector

    def _refused_without_market(self, rejection: OrderRejected) -> None:
        """A refused cancel or replace names only the bet id it was given: its row goes to the game whose market
        holds that bet of the account, else to the game of the bet's market (dropped if that game has ended)."""
        games = list(dict.fromkeys(self._games.values()))
        holder = next((c for c in games if c.holds_bet(rejection.account_id, rejection.bet_id)), None)
        if holder is None:
            asked = self._asked(rejection)
            holder = None if asked is None else self._games.get(asked.market_id)
        if holder is not None:
            holder.refused_without_market(rejection)

    def _asked(self, rejection: OrderRejected) -> Requested | None:
        """What the command being executed asked, if ``rejection`` is its refusal (its account's, not one of an
        agent reacting meanwhile)."""
        command = self._executing()
        if getattr(command, "account_id", None) != rejection.account_id:
            return None
        if isinstance(command, PlaceOrder):
            return Requested(command.market_id, command.side, command.price, command.size, command.round)
        bet = self._exchange.orders.get(getattr(command, "bet_id", -1))
        market_id = rejection.market_id or (bet.market_id if bet is not None else "")
        if isinstance(command, CancelOrder):  # a reduction past any stake (refused) is not a size a column holds
            reduction = command.size_reduction
            return Requested(market_id, None, None, reduction if reduction is None or reduction <= _INT64_MAX else None,
                             None)
        if isinstance(command, ReplaceOrder):
            return Requested(market_id, None, command.new_price, None, command.round)
        return None

    def _balance(self, account: str) -> int:
        funds = self._exchange.funds(account)
        return 0 if funds is None else funds.balance

    def _end(self, collector: Collector) -> None:
        for market_id in collector.market_ids:
            del self._games[market_id]
        collector.renumber(self.next_index, session=0, session_game=self.next_index)
        self.next_index += 1
        collector.write(self._waiting)
        if self.next_index - self._first_waiting >= self.every:
            self.flush()

    def flush(self) -> None:
        """Write the rows of the games ended since the last part (none: nothing), on the writer thread."""
        first, last = self._first_waiting, self.next_index - 1
        if last < first:
            return
        tables = {name: table.to_arrow() for name, table in self._waiting.items()}
        self._waiting, self._first_waiting = empty_tables(), self.next_index
        self._writes = [w for w in self._writes if not w.done()]
        self._writes.append(self._writer.submit(self._write, tables, first, last))

    def _write(self, tables: dict[str, pa.Table], first: int, last: int) -> None:
        """Every table's part, each written under a name readers skip and renamed once all six are written (a
        failed write leaves none; a crash between the renames can leave the later tables without the part)."""
        name = f"part-{first:09d}-{last:09d}.parquet"
        written: list[tuple[Path, Path]] = []
        try:
            for table_name, table in tables.items():
                folder = self.directory / TABLES[table_name].file_name
                hidden = folder / f".{name}.tmp"  # pyarrow and pandas skip names beginning with a dot
                written.append((hidden, folder / name))
                pq.write_table(table, hidden, compression="zstd")
            for hidden, final in written:
                os.replace(hidden, final)
        except OSError as exc:
            for hidden, _ in written:
                with contextlib.suppress(OSError):
                    hidden.unlink()
            log.error("recording: games %d to %d were not written to %s: %s", first, last, self.directory, exc)

    async def written(self) -> None:
        """Wait until the parts handed to the writer thread so far are on disk (or their failure logged)."""
        pending = [asyncio.wrap_future(w) for w in self._writes]
        if pending:
            await asyncio.gather(*pending)

    async def close(self) -> None:
        """Write the games ended since the last part and wait until every part is on disk (games still under
        way are not recorded)."""
        if self.stopped is None:
            try:
                self.flush()
            except Exception as exc:  # the server's stop goes on: the journal keeps every order and settlement
                self.stopped = f"{type(exc).__name__}: {exc}"
                log.exception("recording: the games since the last part were not written (%s)", self.stopped)
        await self.written()
        self._writer.shutdown(wait=True)
