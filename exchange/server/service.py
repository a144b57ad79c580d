"""The server's one handle on the exchange: the core, the channels, the journal and the stream.

:class:`ExchangeService` owns the exchange core and the channels that run
games on it. Every event the core produces — for a client's order, a house
bot's quote, a window closing, a settlement — is published on a channel's
event bus (or, for account commands, directly here); the service listens
first on every bus and appends each state-changing core event to the
journal, so the journal is the complete, ordered record. Handlers call
:meth:`execute`; the HTTP edge awaits :meth:`durable` before their answer leaves.

**Durable before visible.** The in-memory state runs ahead of the disk by
the records not yet committed, and a settlement or a fill made by a game
timer has no client waiting on it. So nothing read from the state may leave
the process before the records behind it are committed: every answer and
every stream message is computed, then held until :meth:`durable` (every
record appended so far is on disk) — the HTTP edge does it for each answer
and the stream hub for each flush. :meth:`durable` is bounded by the
journal's commit timeout.

**Fail-stop.** When the journal fails (:meth:`Journal.on_failure
<exchange.server.journal.Journal.on_failure>`), the service logs one line,
halts the channels, refuses every later call with ``SERVICE_UNAVAILABLE``
(:meth:`check_available`) and tells its own failure listeners, which stop
the process: what only memory held is never shown, and a restart rebuilds
the state from the journal.

On start, :meth:`recover` rebuilds the core, the market notes and the
channels' recent results (each finished game's is journaled as it ends) from
the newest valid snapshot and the journal records after it
(:func:`exchange.server.recovery.restore`; a full replay without one), voids
every market the crash interrupted (Betfair voided games on a technical
fault: matched bets refunded, unmatched cancelled), logs one line saying
what it did, and lets each channel carry on with its next game number.

**Bounded memory.** The core keeps only the newest
``ExchangeConfig.keep_closed_markets`` closed markets (with their cleared
orders and account results) and forgets older ones as new ones close. The
service follows it: when the core forgets a market (:meth:`_forget_pruned`,
watching ``exchange.closed``), its catalogue entry, its notes and its rows in
the cleared-orders index go too, so ``listMarketCatalogue`` and
``listClearedOrders`` answer for the markets kept; how it ended (and the traders' cleared orders there) is
remembered for as many markets again (:attr:`ended`), for stream clients that come back after a long time away
and the ``listClearedOrders`` they then send. The journal keeps every
record (the audit trail); a restart folds only the tail after the newest
snapshot, whose size is bounded the same way.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from sortedcontainers import SortedKeyList

from exchange.agents.house import MAKER_ACCOUNT, NOISE_ACCOUNT, MakerDesk, seat_house_makers, seat_noise_traders
from exchange.betfair import description, order_changes
from exchange.betfair.stream import MarketInfo as RecorderInfo
from exchange.betfair.stream import MarketSnapshot, snapshot_of
from exchange.clock import Clock
from exchange.core.accounts import AccountFunds
from exchange.core.commands import Command, Deposit, OpenAccount, VoidMarket
from exchange.core.events import Event, MarketCreated, MarketSettled, MarketVoided
from exchange.core.exchange import Exchange, ExchangeConfig, cleared_matched_on
from exchange.core.market import MarketBook, MarketStatus
from exchange.core.orders import BetStatus, ClearedOrder, OrderView
from exchange.game.channel import Channel
from exchange.game.channels import ChannelConfig, parse_market_id
from exchange.game.deal import seeded_decks
from exchange.game.equities import EquityRunner
from exchange.game.events import Stamped
from exchange.game.irregular import seeded_irregularities
from exchange.game.table import EquityFn, Game
from exchange.server.cleared_index import ClearedIndex
from exchange.server.customer_refs import RecentRefs
from exchange.server.ended_markets import ENDED_KIND, EndedMarket, EndedMarkets
from exchange.server.errors import ApiError, ApingCode
from exchange.server.journal import Journal, JournalFailed
from exchange.server.kept_results import KEEP_RESULTS, RESULT_KIND
from exchange.server.limits import pause
from exchange.server.market_infos import MarketInfo, market_info
from exchange.server.notes import MarketNotes
from exchange.server.order_deltas import OrderDirt, cleared_on, closed_image
from exchange.server.recovery import Restored, restore
from exchange.server.results import RecentResults
from exchange.server.statement_index import StatementIndex
from exchange.server.store import Account

log = logging.getLogger(__name__)

HOUSE_BANKROLL = 10**9  # minor units: ten million, enough to quote every channel for ever
NOISE_BANKROLL = 10**7  # minor units: a hundred thousand each
#: A house account (maker, noise trader) found at a start with less than its bankroll divided by this is topped up
#: to the bankroll again: one its losses have nearly drained can no longer quote or trade.
TOP_UP_BELOW = 10
VOID_REASON = "technical fault: the server stopped during the game; matched bets refunded, unmatched cancelled"

Listener = Callable[[Event], None]
#: Told of every change: the market (if any) and the core event (None for a game event such as a card turned).
Touch = Callable[[str | None, Event | None], None]


class ExchangeService:
    """The exchange core plus the channels on it, journaled; what every handler talks to."""

    def __init__(
        self,
        journal: Journal,
        clock: Clock,
        channels: Iterable[ChannelConfig],
        *,
        seed: int | None = None,
        equities: EquityFn | None = None,
        house: bool = True,
        runner: EquityRunner | None = None,
        exchange_config: ExchangeConfig | None = None,
        irregularity_rate: float = 0.0,
        noise_traders: int = 0,
        keep_results: int = KEEP_RESULTS,
        house_bankroll: int = HOUSE_BANKROLL,
    ) -> None:
        self.journal = journal
        self.clock = clock
        self.configs = {c.name: c for c in channels}
        self.seed = seed
        self.irregularity_rate = irregularity_rate
        #: The house's noise traders' accounts (exchange.agents.house.NoiseTrader), one set for every channel.
        self.noise_accounts = tuple(f"{NOISE_ACCOUNT}-{k + 1}" for k in range(noise_traders))
        self.exchange = Exchange(exchange_config or ExchangeConfig())
        #: How the markets the exchange forgot ended, as many as it keeps, for stream clients long away.
        self.ended = EndedMarkets(self.exchange.config.keep_closed_markets or 0)
        #: The core's closed markets as this service last saw them, oldest first (see :meth:`_forget_pruned`).
        self._closed: deque[str] = deque()
        self.channels: dict[str, Channel] = {}
        #: Each channel's last ``keep_results`` finished games (``GET /games/v1/channels/{channel}/results``).
        self.results = RecentResults(self.configs, keep=keep_results)
        self.infos: dict[str, MarketInfo] = {}
        self.currencies: dict[str, str] = {}  # each logged-in account's currency, from the account store
        #: placeOrders' customerRefs of the last minute, per account (a repeated call is refused, not run twice).
        self.recent_refs = RecentRefs()
        self.cleared_index = ClearedIndex(lambda: self.exchange, self.ended,
                                          unindexed=(MAKER_ACCOUNT, *self.noise_accounts))
        #: getAccountStatement's index of the journal's money movements (none for a journal in memory).
        self.statements = StatementIndex(journal.path) if journal.path else None
        self._use_notes(MarketNotes())
        self._equities = equities  # None: each game's own (the engine's exact equities)
        self._house = house
        #: What the house's market maker is funded with, and topped up to at a start that finds it nearly drained.
        self.house_bankroll = house_bankroll
        self._runner = runner
        self._halted = False  # the server started to stop: no game is dealt any more (halt_games)
        self._touch: Touch | None = None
        #: The client command being executed on a channel now (what a refusal published meanwhile refused).
        self.executing: Command | None = None
        self.recovered_voids: list[str] = []
        self.failure: str | None = None  # why the journal failed: nothing is served any more
        self._failure_listeners: list[Callable[[str], None]] = []
        journal.on_failure(self._journal_failed)

    # --- lifecycle ------------------------------------------------------------------------

    def recover(self, *, accept_damaged: bool = False) -> Restored:
        """Restore the core, notes and recent results (snapshot + journal tail), void every market a crash left
        open, log it.

        ``accept_damaged``: carry on from before a damaged record instead of refusing (see :func:`restore`).
        """
        restored = restore(self.journal, self.exchange.config, accept_damaged=accept_damaged,
                           keep_results=self.results.keep)
        self.exchange = restored.exchange
        self._closed = deque(self.exchange.closed)
        self._use_notes(restored.notes)
        self.results.restore(restored.results)
        self.ended.restore(restored.ended)
        for market_id, created_ms in restored.notes.created.items():
            self.infos.setdefault(market_id, market_info(self.configs, market_id, created_ms, None))
        now = self.clock.now()
        for market_id, market in list(self.exchange.markets.items()):
            if market.is_open:
                self._record(self.exchange.execute(VoidMarket(now, market_id, VOID_REASON)))
                self.recovered_voids.append(market_id)
        for ended in self.results.voided_at_start(self.recovered_voids, now, VOID_REASON, self.exchange.markets):
            self.journal.append(RESULT_KIND, ended.to_dict(), ts_ms=now)  # listed with its reason, as a game's end
        self.cleared_index.rebuild()
        voided = ", ".join(self.recovered_voids) or "none"
        worrying = restored.damaged or restored.set_aside or (self.journal.checked and self.journal.checked.accepted)
        log.log(logging.WARNING if worrying else logging.INFO,
                "recovery: %s in %.0f ms; markets voided: %s", restored.summary(), restored.elapsed_ms, voided)
        return restored

    def _use_notes(self, notes: MarketNotes) -> None:
        self.notes = notes
        self.versions = notes.versions  # the same dicts: the read side looks here
        self.last_match = notes.last_match

    def start(self, touch: Touch | None = None, *, run_games: bool = True,
              watchers: Sequence[Callable[[Stamped], None]] = ()) -> None:
        """Build the channels (next game numbers after the journal's), seat the house, start the games.

        ``watchers``: told every stamped event of every channel, after the service (a recording).
        """
        self._touch = touch
        desk = MakerDesk()  # every channel's makers quote for the one house account: they take turns
        for name, config in self.configs.items():
            kwargs: dict[str, Any] = {"equities": self._equities} if self._equities is not None else {}
            deck_seed = f"{self.seed}/{name}" if self.seed is not None else secrets.token_hex(8)
            decks = seeded_decks(deck_seed)
            if self.irregularity_rate > 0 and config.layout.holdem_streets:  # Hold'em's dealer errors
                kwargs["irregularities"] = seeded_irregularities(deck_seed, self.irregularity_rate,
                                                                 hole_cards=config.first_deal)
            if self._runner is not None:
                kwargs["runner"] = self._runner
            channel = Channel(config, self.clock, self.exchange, decks=decks, **kwargs)
            channel.subscribe(self._on_stamped)
            for watcher in watchers:
                channel.subscribe(watcher)
            channel.on_new_game(self._on_new_game)
            channel.next_game_number = self.next_game_number(name)
            self.channels[name] = channel
            if self._house:
                self._fund_house(channel, MAKER_ACCOUNT, self.house_bankroll)
                seat_house_makers(channel, MAKER_ACCOUNT, desk=desk)
            for account in self.noise_accounts:
                self._fund_house(channel, account, NOISE_BANKROLL)
                seat_noise_traders(channel, account, f"{deck_seed}/{account}")
        if run_games:
            self.start_games()

    def next_game_number(self, channel: str) -> int:
        """The number ``channel``'s next game takes: after the last one the journal knows (its markets, or the note
        of its last game when they have all been forgotten since), so market ids stay unique."""
        numbers = [parsed[1] for market_id in self.exchange.markets
                   if (parsed := parse_market_id(market_id)) is not None and parsed[0] == channel]
        return max([*numbers, self.notes.numbers.get(channel, -1)]) + 1

    def _fund_house(self, channel: Channel, account: str, bankroll: int) -> None:
        """Open a house account with ``bankroll``, or top it up to ``bankroll`` if it holds less than
        :data:`TOP_UP_BELOW`-th of it (journaled as funding); one with enough to trade on keeps its balance."""
        balance = self.funds(account).balance
        channel.open_account(account, bankroll - balance if balance < bankroll // TOP_UP_BELOW else 0)

    def start_games(self) -> None:
        """Start dealing games on every channel (:meth:`start` does, unless told not to); none once halted."""
        if self._halted:
            return
        for channel in self.channels.values():
            channel.start()

    def halt_games(self) -> None:
        """Freeze every game where it stands and deal no more: the server starts to stop (the restart voids the
        games under way)."""
        self._halted = True
        for channel in self.channels.values():
            channel.halt()

    def stop(self) -> None:
        self.halt_games()
        if self.statements is not None:
            self.statements.close()

    # --- the write side -------------------------------------------------------------------

    def now(self) -> int:
        return self.clock.now()

    def execute(self, command: Command) -> list[Event]:
        """Run a client command on the core through its market's channel (journaled and published there)."""
        channel = self._channel_of(getattr(command, "market_id", None))
        if channel is None:
            order = self.exchange.orders.get(getattr(command, "bet_id", -1))
            channel = self._channel_of(order.market_id if order is not None else None)
        if channel is not None:
            self.executing = command
            try:
                return channel.submit(command)
            finally:
                self.executing = None
        events = self.exchange.execute(command)
        self._record(events)
        return events

    def durable(self, through: int | None = None) -> Awaitable[None]:
        """Wait until everything executed so far (or up to journal record ``through``) is on disk; the gate of
        every answer.

        ``SERVICE_UNAVAILABLE`` (:class:`~exchange.server.errors.ApiError`) if the journal has failed or fails
        meanwhile (a stalled writer fails it after its commit timeout). The journal's own future when it has
        already succeeded: one coroutine fewer on the hot path.
        """
        self.check_available()
        try:
            future = self.journal.sync(through)
        except JournalFailed:
            raise self._unavailable() from None
        return _durable_or_unavailable(future, self)

    async def held(self) -> bool:
        """Wait until the state just read is on disk; False if it never will be (the journal failed): what a
        push feed checks before it sends what it read."""
        try:
            await self.durable()
        except ApiError:
            return False
        return True

    def check_available(self) -> None:
        """Raise ``SERVICE_UNAVAILABLE`` once the journal has failed (every call is refused from then on)."""
        if self.failure is not None:
            raise self._unavailable()

    def on_failure(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(reason)`` once when the journal fails (after the service has stopped its games)."""
        self._failure_listeners.append(listener)

    def _unavailable(self) -> ApiError:
        return ApiError(ApingCode.SERVICE_UNAVAILABLE,
                        f"the exchange is stopping: {self.failure or 'the journal failed'}; nothing more is accepted "
                        "until it restarts from its journal")

    def _journal_failed(self, reason: str) -> None:
        if self.failure is not None:
            return
        self.failure = reason
        log.critical("fail-stop: %s; no command or read is served any more, the state is rebuilt from the "
                     "journal at the next start", reason)
        self.stop()
        for listener in self._failure_listeners:
            listener(reason)

    def ensure_account(self, account: Account) -> None:
        """Open ``account`` in the core with its deposit, once (journaled); note its currency.

        The core opens an account when it is first used (a login, an operator's deposit), but its opening
        balance was put in when the account was added: the deposit is dated then, as its statement lists it
        (or now, if the server's clock is behind the date the account was added, as a test's clock may be)."""
        self.currencies[account.name] = account.currency
        if account.name in self.exchange.accounts:
            return
        added = min(account.created_ms, self.clock.now())
        self.execute(OpenAccount(added, account.name))
        if account.deposit > 0:
            self.execute(Deposit(added, account.name, account.deposit, "opening balance"))

    def _record(self, events: Iterable[Event]) -> None:
        for event in events:
            self._journal_event(event, self.clock.now())

    def _journal_event(self, event: Event, at_ms: int) -> None:
        if self.failure is not None:  # stopping: nothing more is recorded, shown or answered
            return
        if event.CHANGES_STATE:
            self.journal.append("event", event, ts_ms=at_ms)
        self._note(event)
        if self._touch is not None:
            self._touch(getattr(event, "market_id", None), event)
        if isinstance(event, MarketSettled | MarketVoided):  # once the stream has read the close (by its notes)
            self._forget_pruned()

    def _on_stamped(self, stamped: Stamped) -> None:
        ended = self.results.note(stamped)
        if ended is not None and self.failure is None:  # the route's entry, journaled: it survives a restart
            self.journal.append(RESULT_KIND, ended.to_dict(), ts_ms=stamped.at_ms)
        if isinstance(stamped.event, Event):
            self._journal_event(stamped.event, stamped.at_ms)
        elif self._touch is not None and stamped.market_id is not None:
            self._touch(stamped.market_id, None)

    def _note(self, event: Event) -> None:
        """Keep the catalogue and the market versions in step with the events."""
        market_id = self.notes.note(event)
        self.cleared_index.note(event)
        if isinstance(event, MarketCreated) and market_id is not None and market_id not in self.infos:
            self.infos[market_id] = market_info(self.configs, market_id, event.ts, None)
        elif isinstance(event, MarketSettled | MarketVoided) and market_id is not None:
            self._closed.append(market_id)

    def _forget_pruned(self) -> None:
        """Forget, beside the core, every market it no longer keeps (it forgets the oldest closed ones first).

        O(1) a close: the core prunes ``exchange.closed`` from its oldest end, in the order this service saw them
        close, so the ones gone are a prefix of :attr:`_closed`.
        """
        markets = self.exchange.markets
        while self._closed and self._closed[0] not in markets:
            market_id = self._closed.popleft()
            info = self.infos.pop(market_id, None)
            dropped = self._remember_ending(market_id, info)  # before the notes go: its view reads its version
            self.notes.forget(market_id)
            for gone in dropped:
                self.cleared_index.forget(gone)

    def _remember_ending(self, market_id: str, info: MarketInfo | None) -> list[str]:
        """Keep how ``market_id``, forgotten by the latest close, ended (:mod:`~exchange.server.ended_markets`); the
        markets no longer remembered."""
        forgotten, snapshot = self.exchange.forgotten.get(market_id), self.stream_snapshot(market_id)
        if forgotten is None or snapshot is None or info is None:
            return [market_id]
        house = (MAKER_ACCOUNT, *self.noise_accounts)
        cleared = {a: tuple(orders) for a, orders in forgotten.cleared.items() if a not in house}
        commission = {a: result.commission for a, result in forgotten.results.items() if a not in house}
        ended = EndedMarket(info, snapshot, cleared, commission)
        if self.ended.keep and self.failure is None:  # journaled: a restart remembers it too
            self.journal.append(ENDED_KIND, ended.to_dict(), ts_ms=self.clock.now())
        return self.ended.add(market_id, ended)

    def _on_new_game(self, game: Game) -> None:
        for market in game.markets:  # a hi/lo game has a High and a Low market
            self.infos[market.market_id] = market_info(self.configs, market.market_id, game.start_ms, game)

    def describe(self, market_id: str, start_ms: int) -> MarketInfo | None:
        """The catalogue's entry for ``market_id``; for one no longer kept (``keep_closed_markets``), its names and
        commission made again from its id and channel, as they were; None if no channel here has it."""
        info = self.infos.get(market_id)
        if info is None and market_id.rsplit(".", 1)[0] in self.configs:
            info = market_info(self.configs, market_id, start_ms, None)
        return info

    def knows_market(self, market_id: str) -> bool:
        """Whether ``market_id`` is a market here: open, closed and kept, or closed and remembered
        (:attr:`ended`)."""
        return self.exchange.market_status(market_id) is not None or self.ended.get(market_id) is not None

    def _channel_of(self, market_id: str | None) -> Channel | None:
        if market_id is None:
            return None
        return self.channels.get(market_id.rsplit(".", 1)[0])

    # --- the read side --------------------------------------------------------------------

    def order(self, account: str, bet_id: int) -> OrderView | None:
        return self.exchange.order_view(account, bet_id)

    def orders(self, account: str) -> list[OrderView]:
        return list(self.exchange.current_orders(account))

    def cleared(self, account: str) -> list[ClearedOrder]:
        return list(self.exchange.cleared_orders(account))

    async def cleared_rows(self, account: str, status: BetStatus) -> SortedKeyList:
        """The account's cleared orders of ``status`` by ``(settled_ts, bet_id)``.

        Brings the index (:mod:`~exchange.server.cleared_index`) up to date a
        few markets per turn of the loop: call it in the list lane.
        """
        return await self.cleared_index.rows_soon(account, status, pause)

    def funds(self, account: str) -> AccountFunds:
        funds = self.exchange.funds(account)
        return funds if funds is not None else AccountFunds(account, 0, 0, 0)

    def commission(self, account: str, market_id: str) -> int:
        """The commission charged to ``account`` on ``market_id``, a kept market or one remembered (0 if none)."""
        result = self.exchange.market_result(account, market_id)
        if result is not None:
            return result.commission
        ended = self.ended.get(market_id)
        return ended.commission.get(account, 0) if ended is not None else 0

    def market_book(self, market_id: str, depth: int | None = None) -> MarketBook | None:
        return self.exchange.market_book(market_id, depth)

    def market_version(self, market_id: str) -> int:
        return self.versions.get(market_id, 0)

    def last_match_ms(self, market_id: str) -> int | None:
        return self.last_match.get(market_id)

    def event_id(self, market_id: str) -> str:
        return description.event_id_of(market_id)

    def in_play(self, market_id: str) -> bool:
        """Whether the market is in play now (:func:`exchange.betfair.description.in_play`); False once closed."""
        book = self.exchange.market_book(market_id, 0)
        return book is not None and book.status in _OPEN_STATUSES and description.in_play(book.round)

    def catalogue(self) -> list[MarketInfo]:
        """The markets known (open ones and the closed ones kept), newest first by when they opened."""
        return sorted(self.infos.values(), key=lambda i: (i.open_ms, i.market_id), reverse=True)

    def live_market_ids(self) -> list[str]:
        return [m for m, market in self.exchange.markets.items() if market.is_open]

    def current_game(self, channel: str) -> Game | None:
        ch = self.channels.get(channel)
        return ch.current if ch is not None else None

    # --- stream projections ---------------------------------------------------------------

    def recorder_info(self, market_id: str) -> RecorderInfo | None:
        info = self.infos.get(market_id)
        ended = self.ended.get(market_id) if info is None else None
        return info if ended is None else ended.info

    def stream_snapshot(self, market_id: str) -> MarketSnapshot | None:
        """The market as the stream shows it; also one the exchange has just forgotten as it closed
        (``exchange.forgotten``), so its subscribers see how it ended."""
        book = self.exchange.market_book(market_id, None)
        market = self.exchange.markets.get(market_id)
        if book is None:
            ended = self.ended.get(market_id)  # as it was as it closed, its version with it
            if ended is not None:
                return ended.snapshot
            forgotten = self.exchange.forgotten.get(market_id)
            if forgotten is None:
                return None
            market = forgotten.market
            book = market.book
        return snapshot_of(book, description.in_play(book.round), self.market_version(market_id),
                           None if market is None else market.settled_ts)

    def stream_market_ids(self, wanted: frozenset[str] | None) -> list[str]:
        """Markets for a subscription image: the ones asked for, else every market still open."""
        if wanted is not None:
            return [m for m in sorted(wanted) if m in self.exchange.markets]
        return self.live_market_ids()

    def closed_market_ids(self, since_ms: int) -> list[str]:
        """Markets that closed at or after ``since_ms`` (a stream resubscription missed them), kept or remembered
        (:attr:`ended`). O(markets)."""
        closed = ((m, mk.settled_ts or 0) for m, mk in self.exchange.markets.items() if not mk.is_open)
        return sorted({*(m for m, ts in closed if ts >= since_ms), *self.ended.closed_since(since_ms)})

    def closed_order_images(self, account: str, since_ms: int) -> list[dict[str, Any]]:
        """Per market closed since ``since_ms`` where the account had orders: an image of its final order records
        there, ``closed: true``: each runner a ``fullImage`` with every order and the matched position that
        stood, which a client's cache takes in place of what it held (a level voided while it was away goes).
        O(the closed markets and the account's orders on them)."""
        images = (closed_image(m, self._cleared_orders(account, m)) for m in self.closed_market_ids(since_ms))
        return [image for image in images if image is not None]

    def _cleared_orders(self, account: str, market_id: str) -> Sequence[ClearedOrder]:
        ended = self.ended.get(market_id)
        return self.exchange.cleared_orders(account, market_id) if ended is None else ended.cleared.get(account, ())

    def order_image(self, account: str, *, ended: bool = False) -> list[dict[str, Any]]:
        """An order subscription's image (``oc`` entries): per open market the account has orders on, per runner
        with an executable order or a matched stake, the executable orders and the matched position
        (:func:`order_changes.market_image`; ``ended``: the orders no longer executable too, for a
        resubscription). O(the account's orders and its markets' fills)."""
        out = []
        for market_id in sorted({o.market_id for o in self.exchange.current_orders(account)}):
            rows = [order_changes.open_order(o) for o in self.exchange.current_orders(account, market_id)]
            matched = self.exchange.matched_on(account, market_id, {r.selection_id for r in rows})
            image = order_changes.market_image(market_id, rows, matched, ended=ended)
            if image["orc"]:
                out.append(image)
        return out

    def order_deltas(self, account: str, dirt: Mapping[str, OrderDirt]) -> list[dict[str, Any]]:
        """The ``oc`` entries of an order delta: per market in ``dirt``, the account's changed orders and moved
        matched levels (:func:`order_changes.market_delta`). O(the changed orders) for a place, cancel or lapse;
        when matched levels moved (a fill, a void), one pass over the account's orders and the fills of that
        market (:meth:`Exchange.matched_on`). A market the exchange has forgotten (pruned beyond
        ``keep_closed_markets``) before the latest close is only told ``closed``: its orders and stakes are gone,
        and a level read from nothing would say ``[price, 0]`` of a stake that stands; so the stream hub reads a
        market that closes at once, when the exchange still has it (or has just forgotten it, keeping none)."""
        out = []
        for market_id, changed in sorted(dirt.items()):
            status = self.exchange.market_status(market_id)
            is_open = status in _OPEN_STATUSES
            cleared: Sequence[ClearedOrder] = ()
            if not is_open and (changed.bets or changed.levels):
                found = cleared_on(self.exchange, account, market_id)
                if found is None:
                    changed = OrderDirt()
                else:
                    cleared = found
            moved = {selection_id for selection_id, _, _, _ in changed.levels}
            if is_open:
                views = (self.exchange.order_view(account, bet_id) for bet_id in sorted(changed.bets))
                rows = [order_changes.open_order(v) for v in views if v is not None]
                matched = self.exchange.matched_on(account, market_id, moved) if moved else {}
            else:
                rows = [order_changes.cleared_order(c) for c in cleared if c.bet_id in changed.bets]
                matched = cleared_matched_on(cleared, moved)
            delta = order_changes.market_delta(market_id, rows, changed.levels, matched, closed=not is_open)
            if delta is not None:
                out.append(delta)
        return out


_OPEN_STATUSES = (MarketStatus.ACTIVE, MarketStatus.SUSPENDED)


async def _await_durable(future: Awaitable[None], service: ExchangeService) -> None:
    try:
        await future
    except JournalFailed:
        raise service._unavailable() from None


def _durable_or_unavailable(future: asyncio.Future[None], service: ExchangeService) -> Awaitable[None]:
    if future.done() and future.exception() is None:
        return future
    return _await_durable(future, service)
