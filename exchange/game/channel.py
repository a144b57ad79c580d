"""A channel: games back to back on one clock, one event bus, one deck source.

The channel numbers its games 0, 1, 2, … and gives each a market id derived
from the channel name and the number (``holdem.17``), so a replay from the
same seed produces the same ids. When a game ends, the next starts after one
playing window.
"""

from __future__ import annotations

from collections.abc import Callable

from exchange.channels import ChannelConfig
from exchange.clock import Clock
from exchange.game.deal import DeckSource
from exchange.game.events import EventBus, Listener
from exchange.game.port import MarketPort
from exchange.game.table import EquityFn, Game

MarketFactory = Callable[[ChannelConfig, str], MarketPort]
"""Create the market for a new game: ``(channel config, market id) -> port``."""


class Channel:
    """Runs a channel's games back to back.

    ``games`` limits how many are dealt (``None``: until :meth:`stop`).
    """

    def __init__(
        self,
        config: ChannelConfig,
        clock: Clock,
        *,
        markets: MarketFactory,
        decks: DeckSource,
        equities: EquityFn,
        bus: EventBus | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.bus = bus if bus is not None else EventBus()
        self._markets = markets
        self._decks = decks
        self._equities = equities
        self._next_number = 0
        self._remaining: int | None = None
        self._stopping = False
        self.current: Game | None = None
        self.finished: list[Game] = []
        self._game_listeners: list[Callable[[Game], None]] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every stamped event of every game on this channel; returns an unsubscribe function."""
        return self.bus.subscribe(listener)

    def on_new_game(self, callback: Callable[[Game], None]) -> None:
        """Call ``callback(game)`` when each game is created, before its first event."""
        self._game_listeners.append(callback)

    def start(self, at_ms: int | None = None, *, games: int | None = None) -> Game:
        """Schedule the first game at ``at_ms`` (default: now); deal ``games`` games in all (``None``: no limit)."""
        if self.current is not None:
            raise RuntimeError(f"channel {self.config.name} is already running")
        if games is not None and games < 1:
            raise ValueError(f"games must be at least 1, not {games}")
        self._remaining = games
        self._stopping = False
        return self._schedule(self.clock.now() if at_ms is None else at_ms)

    def stop(self) -> None:
        """Deal no further game once the current one is over."""
        self._stopping = True

    def game(self, market_id: str) -> Game | None:
        """The current game if it has this market id (earlier games are over)."""
        if self.current is not None and self.current.market_id == market_id:
            return self.current
        return None

    def _schedule(self, start_ms: int) -> Game:
        number = self._next_number
        self._next_number += 1
        market_id = self.config.market_id(number)
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
        )
        self.current = game
        for callback in self._game_listeners:
            callback(game)
        game.start()
        return game

    def _finished(self, game: Game) -> None:
        self.finished.append(game)
        if self._remaining is not None:
            self._remaining -= 1
        if self._stopping or self._remaining == 0:
            return
        self._schedule(self.clock.now() + self.config.playing_window_ms)
