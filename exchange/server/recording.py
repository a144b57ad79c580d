"""The backtest's Parquet tables and stream files, recorded by the live server as its games end (``serve --record
DIR``).

Every channel's stamped events feed a :class:`~exchange.tables.collector.Collector` for each game, from its
start (a game under way when the server started is not recorded). When a game ends its rows join those
waiting; every ``every`` games or ``every_ms`` (at the first game end after it), and when the server stops,
the waiting rows are written as one part file per table, ``DIR/<table>.parquet/part-<first>-<last>.parquet``
(the first and last ``game_index`` in it). A folder of part files named ``<table>.parquet`` is read as one
table by pandas and pyarrow (``pd.read_parquet(DIR / "settlements.parquet")``), so the settlements notebook
reads a recording as it reads a backtest. Each market of a game written has its Betfair stream file
``DIR/streams/<marketId>`` (:class:`~exchange.tables.streams.StreamFeed`, as a backtest writes them), which flumine
and betfairlightweight read as Betfair's historical files. A restart carries on after the last ``game_index``
written.

What is written is what the journal holds, whole:

* **only games on disk**: a game's rows are written once the journal has its records (:meth:`ExchangeService.durable
  <exchange.server.service.ExchangeService.durable>`); after a journal failure, a restart finds the games that
  were not on disk unsettled, and the recording never said otherwise;
* **the games on disk, even after a kill**: from then on until its part is written, the game's rows are held in
  the folder too, and the recording a start after a kill makes writes them first (:meth:`RecordFolder.hold
  <exchange.server.record_folder.RecordFolder.hold>`);
* **one game at a time**: each ended game's rows are converted on their own, so a fault in one game's rows stops
  the recording there and every game ended before it is still written; after a fault in writing a part nothing
  more is held or written (no gap in ``game_index``), the games held before it are written at the next start;
* **parts in order, a part of every table or of none, retried, one server per folder**: the folder's side,
  :mod:`exchange.server.record_folder`.

What differs from a backtest's tables: ``game_index`` counts the games recorded in ``DIR`` in the order they
ended, over every channel (``market_id`` names the game); the recording is one session (``session`` 0,
``session_game`` the game index); a settlement row is written for each account that had a bet in the market
(a row of zeros for one whose bets all lapsed or were cancelled), and the house's commission account. A refused
instruction's row says what the client asked (a placement's side, price, size and round; a cancel's size
reduction; a replace's new price), as a backtest's does: the
refusal is published while its command executes (:attr:`ExchangeService.executing`). A kill loses from the
recording the games that had ended but were not held yet (those of its last moments, or all since the last part
after a game could not be held): the journal still holds their every order and settlement.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pyarrow as pa

from exchange.clock import Clock
from exchange.core.commands import CancelOrder, Command, PlaceOrder, ReplaceOrder, ReplaceOrders
from exchange.core.events import OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channels import ChannelConfig
from exchange.game.events import GameStarted, Stamped
from exchange.server.record_folder import INT64_MAX, RecordFolder, Streams, Tables
from exchange.server.recording_options import DEFAULT_EVERY, DEFAULT_EVERY_MS
from exchange.tables.collector import Collector
from exchange.tables.outputs import TABLES, empty_tables
from exchange.tables.streams import StreamFeed

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Requested:
    """What a client's command asked, as the tables' refusal rows read it
    (:class:`~exchange.tables.market_record.Asked`)."""

    market_id: str
    side: Side | None
    price: Decimal | None
    size: int | None
    round: int | None


@dataclass(frozen=True, slots=True)
class _Ended:
    """One ended game's rows and stream files, and the journal's word that the game is on disk."""

    index: int
    tables: Tables
    streams: Streams
    on_disk: asyncio.Future[None]


class Recording:
    """Subscribed to every channel (:meth:`__call__` takes each stamped event); :meth:`close` when the server stops.

    ``configs``: the server's channels by name; ``exchange``: read for each account's balance when its game ends;
    ``executing()``: the client command being executed now, if any (what a refusal refused); ``durable()``: waits
    until everything executed so far is on disk (raising if it never will be); ``clock``: the server's, for
    ``every_ms`` (0: parts by the number of games only); ``next_games``: the number each channel deals next (a
    folder holding a game from there on is another exchange's: refused); ``exchange_id``: the exchange's own (a
    folder naming another is refused). Made inside the server's event loop.
    """

    def __init__(self, directory: Path, exchange: Exchange, configs: Mapping[str, ChannelConfig], *,
                 durable: Callable[[], Awaitable[None]], clock: Clock, next_games: Mapping[str, int],
                 exchange_id: str,
                 every: int = DEFAULT_EVERY, every_ms: int = DEFAULT_EVERY_MS,
                 executing: Callable[[], Command | None] = lambda: None) -> None:
        if every < 1 or every_ms < 0:
            raise ValueError(f"a part is written every 1 or more games and every 0 or more ms, not {every} games "
                             f"and {every_ms} ms")
        self.directory = directory
        self.every = every
        self.every_ms = every_ms
        self._clock = clock
        self._last_part_ms = clock.now()
        self._folder = RecordFolder(directory, next_games, exchange_id)
        self.next_index = self._folder.next_index
        self._exchange = exchange
        self._configs = configs
        self._executing = executing
        self._durable = durable
        self._games: dict[str, Collector] = {}  # market id -> its game's collector (a hi/lo game: both markets)
        self._feeds: dict[str, StreamFeed] = {}  # market id -> its stream file's recording
        self._ended: list[_Ended] = []  # the games ended since the last part
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recording")
        # the last step handed to the writer (a game to hold, a part to write): each waits for the one before
        self._write_fault = False  # a part failed to be written other than by the disk: nothing more is written
        self._left_out = False  # games ended were left out, the journal failing before they were on disk
        # the games a kill left held (if any), written first
        self._last_step = asyncio.ensure_future(self._on_writer("the games held were not written", self._folder.retry))
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
            self._feeds.clear()
            log.exception("recording: stopped at event %d of %s (%s); the games go on unrecorded, the journal "
                          "keeps every order and settlement", stamped.seq, stamped.market_id, self.stopped)

    def _note(self, stamped: Stamped) -> None:
        event = stamped.event
        if type(event) is GameStarted:
            self._start(event, stamped.at_ms)
        if stamped.market_id is None:  # a game is always stamped with its market: this is a refusal naming none
            if type(event) is OrderRejected:
                self._refused_without_market(event)
            return
        collector = self._games.get(stamped.market_id)
        if collector is None:
            return
        collector(stamped)
        self._feeds[stamped.market_id].on_event(stamped)
        if collector.ended:
            self._end(collector)

    def _start(self, started: GameStarted, at_ms: int) -> None:
        config = self._configs[started.channel]
        market_ids = config.market_ids(started.game_number)
        # numbered when it ends (renumber): the recording's games are counted in the order they end
        collector = Collector(-1, market_ids, (), session=0, balance=self._balance, asked=self._asked,
                              min_stake=config.min_stake)
        for market_id, kind in zip(market_ids, config.markets, strict=True):
            self._games[market_id] = collector
            self._feeds[market_id] = StreamFeed(self._clock, market_id, config, at_ms, kind)

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
        sent_through = getattr(command, "market_id", None)  # a bet id the account never had: the call's market
        market_id = rejection.market_id or (bet.market_id if bet is not None else sent_through or "")
        if isinstance(command, CancelOrder):  # a reduction past any stake (refused) is not a size a column holds
            reduction = command.size_reduction
            return Requested(market_id, None, None, reduction if reduction is None or reduction <= INT64_MAX else None,
                             None)
        if isinstance(command, ReplaceOrder):
            return Requested(market_id, None, command.new_price, None, command.round)
        if isinstance(command, ReplaceOrders):
            move = next((m for m in command.moves if m.bet_id == rejection.bet_id), None)
            return None if move is None else Requested(command.market_id, None, move.new_price, None, command.round)
        return None

    def _balance(self, account: str) -> int:
        funds = self._exchange.funds(account)
        return 0 if funds is None else funds.balance

    def _end(self, collector: Collector) -> None:
        """The ended game's rows, converted on their own (a fault here records nothing of it), wait for the next
        part with the journal's promise that the game is on disk."""
        for market_id in collector.market_ids:
            del self._games[market_id]
        streams = tuple((market_id, self._feeds.pop(market_id).text()) for market_id in collector.market_ids)
        index = self.next_index
        collector.renumber(index, session=0, session_game=index)
        rows = empty_tables()
        collector.write(rows)
        tables = {name: table.to_arrow() for name, table in rows.items()}
        game = _Ended(index, tables, streams, _on_disk(self._durable))
        self._ended.append(game)
        self._last_step = asyncio.ensure_future(self._hold(game, self._last_step))
        self.next_index += 1
        due = self.every_ms and self._clock.now() - self._last_part_ms >= self.every_ms
        if len(self._ended) >= self.every or due:
            self.flush()

    def flush(self) -> None:
        """Hand the games ended since the last part to be written (none: nothing), once they are held."""
        if not self._ended:
            return
        games, self._ended = self._ended, []
        self._last_part_ms = self._clock.now()
        self._last_step = asyncio.ensure_future(self._write_part(games, self._last_step))

    async def _hold(self, game: _Ended, previous: asyncio.Future[None]) -> None:
        """Once the journal has the game on disk, hold its rows on the disk too (after the games before it): a
        start after a kill writes them."""
        await asyncio.wait((previous, game.on_disk))  # a journal failure: the part leaving the game out says it
        if _journal_failure(game) is None and not self._write_fault:
            await self._on_writer(f"game {game.index} was not held", self._folder.hold, game.index, game.tables,
                                  game.streams)

    async def _write_part(self, games: list[_Ended], previous: asyncio.Future[None]) -> None:
        """Write the games the journal holds, after the games before them are held or written; the games after a
        journal failure are left out, said once."""
        await asyncio.wait((previous,))  # it has waited for each game's journal
        outcomes = [_journal_failure(game) for game in games]
        kept = next((i for i, outcome in enumerate(outcomes) if outcome is not None), len(games))
        if kept < len(games):
            self._left_out = True
            log.error("recording: games %d to %d are not recorded: the journal failed before they were on disk "
                      "(%s); a restart finds them unsettled", games[kept].index, games[-1].index, outcomes[kept])
        if kept and not self._write_fault:
            await self._on_writer(f"games {games[0].index} to {games[kept - 1].index} were not written",
                                  self._write, games[:kept])

    def _write(self, games: list[_Ended]) -> None:
        """The part of ``games`` (on the writer thread)."""
        tables = {name: pa.concat_tables([game.tables[name] for game in games]) for name in TABLES}
        streams = tuple(stream for game in games for stream in game.streams)
        self._folder.write(tables, games[0].index, games[-1].index, streams)

    async def _on_writer(self, failed: str, step: Callable[..., None], *args: object) -> None:
        """``step(*args)`` on the recording's writer thread. A fault of the recording's (not the disk's: the folder
        keeps the rows then) stops it, logged as ``failed``: what follows is not written (no gap in
        ``game_index``); the server's stop goes on."""
        try:
            await asyncio.get_running_loop().run_in_executor(self._writer, step, *args)
        except Exception as exc:
            self._write_fault = True
            self.stopped = f"{type(exc).__name__}: {exc}"
            log.exception("recording: %s (%s); nothing more is recorded", failed, self.stopped)

    async def written(self) -> None:
        """Wait until the games ended so far are held and the parts handed over written (or their failure logged):
        the last step waits for those before it."""
        await asyncio.wait((self._last_step,))

    async def close(self) -> None:
        """Write the games ended since the last part, also after a fault stopped the recording (each of them is
        whole), try once more a part that could not be written, and give the folder up. Games under way are not
        recorded."""
        try:
            self.flush()
            await self.written()
            if not self._write_fault:
                await asyncio.get_running_loop().run_in_executor(self._writer, self._folder.retry)
        finally:
            self._writer.shutdown(wait=True)
            self._folder.close()
        if self.stopped is None and not self._write_fault and not self._left_out:  # (a fault said what is missing)
            last = "before its first game" if self.next_index == 0 else f"after game_index {self.next_index - 1}"
            log.info("recording: %s stopped %s (a game under way is voided at the next start, and not recorded)",
                     self.directory, last)


def _journal_failure(game: _Ended) -> BaseException | None:
    """Why the journal never had ``game`` on disk (None: it has it), once its promise is kept or broken."""
    return asyncio.CancelledError() if game.on_disk.cancelled() else game.on_disk.exception()


def _on_disk(durable: Callable[[], Awaitable[None]]) -> asyncio.Future[None]:
    """``durable()`` as a future; a failure at once (the journal has failed) is the future's."""
    try:
        return asyncio.ensure_future(durable())
    except Exception as exc:
        failed = asyncio.get_running_loop().create_future()
        failed.set_exception(exc)
        return failed
