"""A channel: games back to back on one clock, one exchange, one event bus.

The channel numbers its games 0, 1, 2, … and gives each a market id derived
from the channel name and the number (``holdem.17``), so a replay from the
same seed produces the same ids. When a game ends, the next starts after one
playing window.

The channel is also the *gateway* of everyone who trades on it: users (the
HTTP server), backtest strategies and the house agents all send commands
through :meth:`Channel.submit` and look at the game through its public state
(:meth:`Channel.game`, :meth:`Channel.market_book`; the agents' views are built from these in
:mod:`exchange.agents.view`). Every event — the game's and the exchange's — goes out
on the channel's :class:`~exchange.game.events.EventBus`, stamped by the clock.

>>> from exchange.game.channels import HOLDEM
>>> from exchange.clock import VirtualClock
>>> from exchange.core.exchange import Exchange
>>> from exchange.game.deal import seeded_decks
>>> channel = Channel(HOLDEM, VirtualClock(), Exchange(), decks=seeded_decks(1))
>>> _ = channel.start(games=1)
>>> channel.game().market_id
'holdem.0'
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from exchange.clock import Clock
from exchange.core.commands import Command, Deposit, OpenAccount
from exchange.core.events import Event
from exchange.core.exchange import Exchange
from exchange.core.market import MarketBook
from exchange.game.channels import ChannelConfig
from exchange.game.deal import DeckSource
from exchange.game.equities import EquityRunner, game_equities, run_inline
from exchange.game.events import EventBus, Listener
from exchange.game.irregular import IrregularitySource, ScriptedIrregularities, SeededIrregularities
from exchange.game.market import ExchangeMarket
from exchange.game.port import MarketPort
from exchange.game.table import EquityFn, Game, Phase

MarketFactory = Callable[[ChannelConfig, str], MarketPort]
"""Create the market for a new game: ``(channel config, market id) -> port``."""

#: How many finished games a channel keeps for late views (hooks of a game that just ended).
KEEP_GAMES = 4


class Channel:
    """Runs a channel's games back to back and is the gateway for everyone trading on them."""

    def __init__(
        self,
        config: ChannelConfig,
        clock: Clock,
        exchange: Exchange,
        *,
        decks: DeckSource,
        equities: EquityFn = game_equities,
        runner: EquityRunner = run_inline,
        bus: EventBus | None = None,
        markets: MarketFactory | None = None,
        view_depth: int | None = 3,
        first_game: int = 0,
        irregularities: IrregularitySource | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.exchange = exchange
        self.bus = bus if bus is not None else EventBus()
        self.view_depth = view_depth
        self._markets: MarketFactory = markets or (lambda cfg, market_id: ExchangeMarket(exchange, cfg, market_id))
        self._decks = decks
        self._equities = equities
        self._runner = runner
        self._irregularities: IrregularitySource | None = None
        self.irregularities = irregularities
        if first_game < 0:
            raise ValueError(f"game numbers start at 0, not {first_game}")
        #: The number (deck and market id) of the next game to be scheduled.
        self.next_game_number = first_game
        self._remaining: int | None = None
        self._stopping = False
        self.current: Game | None = None
        self.games_finished = 0
        self._recent: OrderedDict[str, Game] = OrderedDict()
        self._game_listeners: list[Callable[[Game], None]] = []
        self._book_cache: tuple[tuple[str, int], MarketBook | None] | None = None

    # --- listening ------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every stamped event of every game on this channel; returns an unsubscribe function."""
        return self.bus.subscribe(listener)

    def on_new_game(self, callback: Callable[[Game], None]) -> None:
        """Call ``callback(game)`` when each game is created, before its first event."""
        self._game_listeners.append(callback)

    # --- running --------------------------------------------------------------------------

    def start(self, at_ms: int | None = None, *, games: int | None = None) -> Game:
        """Schedule the first game at ``at_ms`` (default: now); deal ``games`` games in all (``None``: no limit).

        Nothing runs until the clock does: ``VirtualClock.run()`` plays them all at once,
        a ``WallClock`` in real time on the asyncio loop.
        """
        if self.current is not None and not self.current.over:
            raise RuntimeError(f"channel {self.config.name} is already running")
        if games is not None and games < 1:
            raise ValueError(f"games must be at least 1, not {games}")
        self._remaining = games
        self._stopping = False
        return self._schedule(self.clock.now() if at_ms is None else at_ms)

    def stop(self) -> None:
        """Deal no further game once the current one is over."""
        self._stopping = True

    def halt(self) -> None:
        """Stop at once (a server shutting down): no further game, the current one frozen where it is.

        The market is left as it stands (not voided): a driver that restarts
        from its journal decides what to do with it.
        """
        self._stopping = True
        if self.current is not None and not self.current.over:
            self.current.halt()

    def game(self, market_id: str | None = None) -> Game | None:
        """The game of ``market_id``; only recent games are kept.

        With no ``market_id``: the game on the table — the latest that has begun
        (a finished one stays on show until the next deals), else the scheduled one.
        """
        if market_id is not None:
            return self._recent.get(market_id)
        for game in reversed(self._recent.values()):  # a hi/lo game is there under each market id
            if game.phase is not Phase.SCHEDULED:
                return game
        return self.current

    # --- the gateway ------------------------------------------------------------------------

    def submit(self, command: Command) -> list[Event]:
        """Execute a trader's command on the exchange now and publish its events; returns them.

        The command's ``ts`` should be the clock's now (its arrival). Order
        rules — window open, round not stale, funds, ladder — are the exchange's; a window whose closing
        time has come is closed first, even if its timer has not run yet (:meth:`Game.close_if_due`).
        """
        if self.current is not None:
            self.current.close_if_due()
        events = self.exchange.execute(command)
        now = self.clock.now()
        fallback = getattr(command, "market_id", None)
        for event in events:
            self.bus.publish(now, getattr(event, "market_id", None) or fallback, event)
        return events

    def open_account(self, account_id: str, deposit: int = 0) -> list[Event]:
        """Open (and fund) an account on the exchange, if it does not exist yet."""
        events: list[Event] = []
        now = self.clock.now()
        if self.exchange.funds(account_id) is None:
            events += self.submit(OpenAccount(now, account_id))
        if deposit:
            events += self.submit(Deposit(now, account_id, deposit, "funding"))
        return events

    # --- internals --------------------------------------------------------------------------

    def market_book(self, market_id: str) -> MarketBook | None:
        """The public book (``view_depth`` levels), cached until the next event (every change publishes one)."""
        key = (market_id, self.bus.published)
        if self._book_cache is not None and self._book_cache[0] == key:
            return self._book_cache[1]
        book = self.exchange.market_book(market_id, self.view_depth)
        self._book_cache = (key, book)
        return book

    @property
    def irregularities(self) -> IrregularitySource | None:
        """Where each game's dealer error comes from (``None``: every deal clean); settable while running.

        The dealer's irregularities are Hold'em's: only a channel dealt as hole cards then
        flop, turn and river takes them (``ValueError`` otherwise), and a scripted or seeded
        source only if every plan fits the channel's deal (an exposed hole card among those it deals).
        """
        return self._irregularities

    @irregularities.setter
    def irregularities(self, source: IrregularitySource | None) -> None:
        if source is not None and not self.config.layout.holdem_streets:
            raise ValueError(f"channel {self.config.name} ({self.config.variant}) is not dealt as hole cards then "
                             "flop, turn and river: dealer irregularities apply only to such channels")
        if isinstance(source, ScriptedIrregularities | SeededIrregularities):
            try:
                source.check_deal(self.config.first_deal)
            except ValueError as error:
                raise ValueError(f"channel {self.config.name}: {error}") from None
        self._irregularities = source

    def _schedule(self, start_ms: int) -> Game:
        number = self.next_game_number
        self.next_game_number += 1
        market_id, *others = self.config.market_ids(number)
        game = Game(
            config=self.config,
            number=number,
            dealer=self._decks(number),
            start_ms=start_ms,
            clock=self.clock,
            port=self._markets(self.config, market_id),
            bus=self.bus,
            equities=self._equities,
            on_finished=self._finished,
            runner=self._runner,
            ports=[self._markets(self.config, other) for other in others],
            irregularity=None if self._irregularities is None else self._irregularities(number),
        )
        self.current = game
        for market in game.markets:
            self._recent[market.market_id] = game
        while len(self._recent) > KEEP_GAMES * len(game.markets):
            self._recent.popitem(last=False)
        for callback in self._game_listeners:
            callback(game)
        game.start()
        return game

    def _finished(self, game: Game) -> None:
        self.games_finished += 1
        if self._remaining is not None:
            self._remaining -= 1
        if self._stopping or self._remaining == 0:
            return
        self._schedule(self.clock.now() + self.config.playing_window_ms)
