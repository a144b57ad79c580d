"""The backtest's Parquet tables, recorded by the live server as its games end (``serve --record DIR``).

Every channel's stamped events feed a :class:`~exchange.tables.collector.Collector` for each game, from its
start (a game under way when the server started is not recorded). When a game ends its rows join those
waiting; every ``every`` games or ``every_ms`` (at the first game end after it), and when the server stops,
the waiting rows are written as one part file per table, ``DIR/<table>.parquet/part-<first>-<last>.parquet``
(the first and last ``game_index`` in it). A folder of part files named ``<table>.parquet`` is read as one
table by pandas and pyarrow (``pd.read_parquet(DIR / "settlements.parquet")``), so the settlements notebook
reads a recording as it reads a backtest. A restart carries on after the last ``game_index`` written.

What is written is what the journal holds:

* **only games on disk**: a game's rows are written once the journal has its records (:meth:`ExchangeService.durable
  <exchange.server.service.ExchangeService.durable>`); after a journal failure, a restart finds the games that
  were not on disk unsettled, and the recording never said otherwise;
* **a part of every table or of none**: each of the six files is written under a name readers skip, and renamed
  once all six are written; a crash between the renames is finished at the next start (the six hidden files were
  whole before the first rename);
* **no gap**: a part that cannot be written (disk full) is tried again with the next one, games and all;
* **one game at a time**: each ended game's rows are converted on their own, so a fault in one game's rows stops
  the recording there and every game ended before it is still written;
* **one server per folder**: the recording holds a lock on ``DIR/.recording.lock``.

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
import fcntl
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from exchange.clock import Clock
from exchange.core.commands import CancelOrder, Command, PlaceOrder, ReplaceOrder
from exchange.core.events import OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channels import ChannelConfig
from exchange.game.events import GameStarted, Stamped
from exchange.tables.collector import Collector
from exchange.tables.outputs import TABLES, empty_tables

Tables = dict[str, pa.Table]

log = logging.getLogger(__name__)

#: Games written together in one part file of each table, at most.
DEFAULT_EVERY = 100
#: And a part is written at the first game end this long after the last one (ms): what a killed server loses.
DEFAULT_EVERY_MS = 10 * 60_000
_PART = re.compile(r"part-(\d+)-(\d+)\.parquet")
_HIDDEN = re.compile(r"\.(part-\d+-\d+\.parquet)\.tmp")  # a part being written (readers skip a leading dot)
#: The lock file a recording holds in its folder.
LOCK_NAME = ".recording.lock"
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
    """The ``game_index`` after the last one recorded in ``directory`` (0 for a new folder), over all six tables.

    Refuses a folder it cannot record into: one holding a backtest's tables (one of them a file), or a path that
    is not a folder.
    """
    if directory.exists() and not directory.is_dir():
        raise RecordingRefused(f"{directory} is not a folder")
    last = -1
    for folder in _folders(directory):
        if folder.exists() and not folder.is_dir():
            raise RecordingRefused(f"{directory} holds a backtest's tables ({folder.name} is a file); record into "
                                   "another folder")
        if folder.is_dir():
            last = max([last, *(int(match[2]) for p in folder.iterdir() if (match := _PART.fullmatch(p.name)))])
    return last + 1


def check_folder(directory: Path) -> None:
    """Raise :class:`RecordingRefused` if ``directory`` cannot take a recording now: see :func:`next_game_index`,
    and another server recording there."""
    next_game_index(directory)
    if (directory / LOCK_NAME).exists():
        os.close(_lock(directory))


def _folders(directory: Path) -> list[Path]:
    return [directory / spec.file_name for spec in TABLES.values()]


def _lock(directory: Path) -> int:
    """The descriptor holding the folder's lock (closing it gives the lock up, as does the process's end)."""
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RecordingRefused(f"another server is recording into {directory} (it holds {LOCK_NAME} there); give "
                               "each server its own folder") from None
    return fd


def _finish_interrupted_parts(directory: Path) -> None:
    """A part that some tables have and the others have only under its hidden name (a crash between the renames)
    is finished; the hidden files of a part no table has (a crash while writing) are removed."""
    folders = _folders(directory)
    finished = {p.name for folder in folders for p in folder.iterdir() if _PART.fullmatch(p.name)}
    for folder in folders:
        for hidden in folder.iterdir():
            match = _HIDDEN.fullmatch(hidden.name)
            if match is None:
                continue
            if match[1] in finished:
                log.warning("recording: %s was written but not renamed when the server stopped: renamed now",
                            hidden)
                os.replace(hidden, folder / match[1])
            else:
                hidden.unlink()


def _take(directory: Path) -> tuple[int, int]:
    """Make the tables' folders, take the folder's lock and finish a part a crash interrupted: the lock's
    descriptor and the next ``game_index``."""
    next_game_index(directory)  # refuses a folder that cannot take a recording, before anything is made
    lock = None
    try:
        for folder in _folders(directory):
            folder.mkdir(parents=True, exist_ok=True)
        lock = _lock(directory)
        _finish_interrupted_parts(directory)
        return lock, next_game_index(directory)
    except BaseException as exc:
        if lock is not None:
            os.close(lock)
        if isinstance(exc, OSError):
            raise RecordingRefused(f"cannot record into {directory}: {exc.strerror or exc}") from None
        raise


@dataclass(frozen=True, slots=True)
class _Ended:
    """One ended game's rows, and the journal's word that the game is on disk."""

    index: int
    tables: Tables
    on_disk: asyncio.Future[None]


class Recording:
    """Subscribed to every channel (:meth:`__call__` takes each stamped event); :meth:`close` when the server stops.

    ``configs``: the server's channels by name; ``exchange``: read for each account's balance when its game ends;
    ``executing()``: the client command being executed now, if any (what a refusal refused); ``durable()``: waits
    until everything executed so far is on disk (raising if it never will be); ``clock``: the server's, for
    ``every_ms`` (0: parts by the number of games only). Made inside the server's event loop.
    """

    def __init__(self, directory: Path, exchange: Exchange, configs: Mapping[str, ChannelConfig], *,
                 durable: Callable[[], Awaitable[None]], clock: Clock, every: int = DEFAULT_EVERY,
                 every_ms: int = DEFAULT_EVERY_MS, executing: Callable[[], Command | None] = lambda: None) -> None:
        if every < 1 or every_ms < 0:
            raise ValueError(f"a part is written every 1 or more games and every 0 or more ms, not {every} games "
                             f"and {every_ms} ms")
        self.directory = directory
        self.every = every
        self.every_ms = every_ms
        self._clock = clock
        self._last_part_ms = clock.now()
        self._lock, self.next_index = _take(directory)
        self._exchange = exchange
        self._configs = configs
        self._executing = executing
        self._durable = durable
        self._games: dict[str, Collector] = {}  # market id -> its game's collector (a hi/lo game: both markets)
        self._ended: list[_Ended] = []  # the games ended since the last part
        self._parts: list[asyncio.Task[None]] = []  # the parts handed over, each written after the one before
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recording")
        self._unwritten: tuple[int, Tables] | None = None  # (first game, rows) of a part that could not be written
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
        """The ended game's rows, converted on their own (a fault here records nothing of it), wait for the next
        part with the journal's promise that the game is on disk."""
        for market_id in collector.market_ids:
            del self._games[market_id]
        index = self.next_index
        collector.renumber(index, session=0, session_game=index)
        rows = empty_tables()
        collector.write(rows)
        tables = {name: table.to_arrow() for name, table in rows.items()}
        self._ended.append(_Ended(index, tables, _on_disk(self._durable)))
        self.next_index += 1
        due = self.every_ms and self._clock.now() - self._last_part_ms >= self.every_ms
        if len(self._ended) >= self.every or due:
            self.flush()

    def flush(self) -> None:
        """Hand the games ended since the last part to be written (none: nothing), once they are on disk."""
        if not self._ended:
            return
        games, self._ended = self._ended, []
        self._last_part_ms = self._clock.now()
        previous = self._parts[-1] if self._parts else None
        self._parts = [p for p in self._parts if not p.done()]
        self._parts.append(asyncio.ensure_future(self._write_once_on_disk(games, previous)))

    async def _write_once_on_disk(self, games: list[_Ended], previous: asyncio.Task[None] | None) -> None:
        """Write the games the journal holds, after the part before (parts are written in order); the games
        after a journal failure are left out, said once."""
        if previous is not None:
            await asyncio.shield(previous)  # it logs its own failures
        outcomes = await asyncio.gather(*(game.on_disk for game in games), return_exceptions=True)
        held = next((i for i, outcome in enumerate(outcomes) if isinstance(outcome, BaseException)), len(games))
        if held < len(games):
            log.error("recording: games %d to %d are not recorded: the journal failed before they were on disk "
                      "(%s); a restart finds them unsettled", games[held].index, games[-1].index, outcomes[held])
        if not held:
            return
        try:
            tables = {name: pa.concat_tables([game.tables[name] for game in games[:held]]) for name in TABLES}
            await asyncio.get_running_loop().run_in_executor(self._writer, self._write, tables, games[0].index,
                                                             games[held - 1].index)
        except Exception as exc:  # a fault of the recording's: the server's stop goes on
            self.stopped = f"{type(exc).__name__}: {exc}"
            log.exception("recording: games %d to %d were not written (%s); nothing more is recorded",
                          games[0].index, games[held - 1].index, self.stopped)

    def _write(self, tables: Tables, first: int, last: int) -> None:
        """The part of games ``first`` to ``last`` (with those of a part that could not be written before), on the
        writer thread; if it cannot be written its rows are kept for the next part."""
        if self._unwritten is not None:
            first, earlier = self._unwritten
            tables = {name: pa.concat_tables([earlier[name], table]) for name, table in tables.items()}
        try:
            self._write_part(tables, f"part-{first:09d}-{last:09d}.parquet")
        except OSError as exc:
            self._unwritten = first, tables
            log.error("recording: games %d to %d could not be written to %s (%s); they are tried again with the "
                      "next part", first, last, self.directory, exc)
        else:
            self._unwritten = None

    def _write_part(self, tables: Tables, name: str) -> None:
        """Every table's part, each written under a name readers skip and renamed once all six are written (a
        failed write leaves none; a crash between the renames is finished at the next start)."""
        written: list[tuple[Path, Path]] = []
        try:
            for table_name, table in tables.items():
                folder = self.directory / TABLES[table_name].file_name
                hidden = folder / f".{name}.tmp"
                written.append((hidden, folder / name))
                pq.write_table(table, hidden, compression="zstd")
        except OSError:
            for hidden, _ in written:
                with contextlib.suppress(OSError):
                    hidden.unlink()
            raise
        for hidden, final in written:
            os.replace(hidden, final)

    async def written(self) -> None:
        """Wait until the parts handed over so far are written (or their failure logged)."""
        for part in list(self._parts):
            await asyncio.shield(part)

    async def close(self) -> None:
        """Write the games ended since the last part, also after a fault stopped the recording (each of them is
        whole), wait until every part is written and give the folder up. Games under way are not recorded."""
        self.flush()
        await self.written()
        self._writer.shutdown(wait=True)
        if self._unwritten is not None:
            first, tables = self._unwritten
            last = max(tables["games"].column("game_index").to_pylist(), default=first)
            log.error("recording: games %d to %d could not be written to %s and are lost from the recording (the "
                      "journal keeps their orders and settlements)", first, last, self.directory)
        os.close(self._lock)


def _on_disk(durable: Callable[[], Awaitable[None]]) -> asyncio.Future[None]:
    """``durable()`` as a future; a failure at once (the journal has failed) is the future's."""
    try:
        return asyncio.ensure_future(durable())
    except Exception as exc:
        failed = asyncio.get_running_loop().create_future()
        failed.set_exception(exc)
        return failed
