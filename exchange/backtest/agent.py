"""A :class:`~exchange.backtest.strategy.Strategy` seated at a channel as an ordinary game agent.

The game drives :class:`~exchange.agents.trader.Agent` hooks (house makers, noise
traders and strategies alike, live or in a backtest); :class:`StrategyAgent`
translates them into the flumine-style strategy hooks:

==========================  ==============================================================
agent hook                  strategy hooks
==========================  ==============================================================
``on_game_start``           ``on_game_start``, ``on_market_open``
``on_window_open``          ``on_window_open``, then a market update
``on_reveal``               a market update (cards turned, new equities)
``on_market_update``        a market update
``on_fill``                 ``process_orders`` (the orders that changed)
``on_order_rejected``       ``on_order_rejected``
``on_window_close``         ``process_orders`` (lapsed), ``on_window_close``
``on_game_end``             ``process_orders``, ``on_settlement``, ``on_game_end``
==========================  ==============================================================

A *market update* is ``process_orders`` for the strategy's orders that changed
since it last saw them, then ``check_market_book`` and, if that says yes,
``process_market_book``.

Every agent hook costs the host a fresh view, so :func:`seat` builds the
adapter with only the agent hooks the strategy's own overrides need: a
strategy that only acts when windows open is never woken for each fill. The
game's end is always delivered (once a game): it is where a strategy that has
called :meth:`~exchange.backtest.strategy.Strategy.end_session` retires, and
the driver is told (``on_session_end``) so that a backtest session deals no
further game; a retired strategy is woken no more.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from exchange.agents import host
from exchange.agents.trader import Agent, Trader
from exchange.agents.view import BettorView
from exchange.backtest.bankroll import BankrollWatch
from exchange.backtest.strategy import GameEnd, GameStart, MarketHandle, Settlement, Strategy
from exchange.core.events import BetResult, Matched, OrderRejected
from exchange.core.orders import OrderView
from exchange.game.channel import Channel

SettlementSource = Callable[[str, str], Settlement | None]
"""``(market id, account id) -> Settlement`` once the market is over (``None`` if unknown)."""
SessionEnd = Callable[[str], None]
"""Called once, with the strategy's reason, when a strategy that asked to end its session retires."""


class StrategyAgent(Agent):
    """Runs one :class:`Strategy` through the agent hooks of the game it is seated at."""

    def __init__(
        self,
        strategy: Strategy,
        watch: BankrollWatch,
        *,
        rng: random.Random | None = None,
        settlements: SettlementSource | None = None,
        on_session_end: SessionEnd | None = None,
    ) -> None:
        self.strategy = strategy
        self.name = strategy.name
        self._rng = rng
        self._settlements = settlements
        self._watch = watch
        self._on_session_end = on_session_end
        self._handle: MarketHandle | None = None
        self._seen: dict[int, OrderView] = {}
        #: Set once the strategy has ended its session and its last game is over: no hook runs after.
        self.retired = False

    @property
    def latency_ms(self) -> int:
        return self.strategy.latency_ms

    # --- agent hooks --------------------------------------------------------------------------

    def on_game_start(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        self.strategy.on_game_start(GameStart(view.game_number, (view.market_id,), view.now_ms, handle.bankroll))
        self.strategy.on_market_open(handle)

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        if view.round is not None:
            self.strategy.on_window_open(handle, view.round)
        self._update(handle)

    def on_reveal(self, view: BettorView, trader: Trader) -> None:
        self._update(self._enter(view, trader))

    def on_market_update(self, view: BettorView, trader: Trader) -> None:
        self._update(self._enter(view, trader))

    def on_fill(self, view: BettorView, trader: Trader, fill: Matched) -> None:
        self._orders_changed(self._enter(view, trader))

    def on_order_rejected(self, view: BettorView, trader: Trader, rejection: OrderRejected) -> None:
        if self.retired:
            return
        self.strategy.on_order_rejected(self._enter(view, trader), rejection)

    def on_window_close(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        self._orders_changed(handle)
        if view.round is not None:
            self.strategy.on_window_close(handle, view.round)

    def on_game_end(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        self._orders_changed(handle)
        settlements: list[Settlement] = []
        if self._settlements is not None:
            settlement = self._settlements(view.market_id, trader.account_id)
            if settlement is not None:
                settlements.append(settlement)
                self.strategy.on_settlement(handle, settlement)
        market_ids = (view.market_id,)
        self.strategy.on_game_end(GameEnd(view.game_number, market_ids, tuple(settlements), handle.bankroll))
        reason = self.strategy.session_ended
        if reason is not None:
            self.retired = True
            if self._on_session_end is not None:
                self._on_session_end(reason)

    # --- helpers ------------------------------------------------------------------------------

    def _enter(self, view: BettorView, trader: Trader) -> MarketHandle:
        handle = self._handle
        if handle is None or handle.market_id != view.market_id:
            handle = self._handle = MarketHandle(trader, view, self._rng, self._watch)
            self._seen = {}
        handle._see(view)
        return handle

    def _update(self, handle: MarketHandle) -> None:
        if self.retired:
            return
        self._orders_changed(handle)
        if self.strategy.check_market_book(handle):
            self.strategy.process_market_book(handle)

    def _orders_changed(self, handle: MarketHandle) -> None:
        if self.retired:
            return
        changed = [o for o in handle.view.orders if self._seen.get(o.bet_id) != o]
        if changed:
            self._seen.update((o.bet_id, o) for o in changed)
            self.strategy.process_orders(handle, changed)


#: Agent hook -> the strategy hooks that need it delivered.
_NEEDS: dict[str, tuple[str, ...]] = {
    "on_game_start": ("on_game_start", "on_market_open"),
    "on_window_open": ("on_window_open", "check_market_book", "process_market_book", "process_orders"),
    "on_reveal": ("check_market_book", "process_market_book"),
    "on_market_update": ("check_market_book", "process_market_book", "process_orders"),
    "on_fill": ("process_orders",),
    "on_order_rejected": ("on_order_rejected",),
    "on_window_close": ("on_window_close", "process_orders"),
    "on_game_end": ("on_settlement", "process_orders", "on_game_end"),
}
#: Agent hooks every strategy gets: a game's end is where a strategy that ended its session retires.
_ALWAYS = frozenset({"on_game_end"})
_ADAPTERS: dict[type[Strategy], type[StrategyAgent]] = {}


def _strategy_overrides(cls: type[Strategy], hook: str) -> bool:
    return getattr(cls, hook) is not getattr(Strategy, hook)


def adapter_class(cls: type[Strategy]) -> type[StrategyAgent]:
    """A :class:`StrategyAgent` subclass that leaves out the agent hooks ``cls`` has no use for.

    >>> from exchange.agents.trader import overrides
    >>> class AtOpen(Strategy):
    ...     def on_window_open(self, market, round): ...
    >>> watch = BankrollWatch("me", 0)
    >>> sorted(h for h in _NEEDS if overrides(adapter_class(AtOpen)(AtOpen(), watch), h))
    ['on_game_end', 'on_window_open']
    """
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        unused = {
            hook: getattr(Agent, hook)
            for hook, wanted in _NEEDS.items()
            if hook not in _ALWAYS and not any(_strategy_overrides(cls, name) for name in wanted)
        }
        adapter = type(f"StrategyAgent[{cls.__name__}]", (StrategyAgent,), unused)
        _ADAPTERS[cls] = adapter
    return adapter


def seat(
    strategy: Strategy,
    watch: BankrollWatch,
    *,
    rng: random.Random | None = None,
    settlements: SettlementSource | None = None,
    on_session_end: SessionEnd | None = None,
) -> StrategyAgent:
    """The agent that runs ``strategy``, woken only for the hooks it uses; ``watch`` follows its account."""
    adapter = adapter_class(type(strategy))
    return adapter(strategy, watch, rng=rng, settlements=settlements, on_session_end=on_session_end)


def channel_settlements(channel: Channel) -> SettlementSource:
    """Each account's :class:`Settlement` of a market on ``channel``, read from its exchange once the game is over."""

    def settlement(market_id: str, account: str) -> Settlement | None:
        game = channel.game(market_id)
        if game is None:
            return None
        exchange = channel.exchange
        result = exchange.market_result(account, market_id)
        bets = tuple(
            BetResult(c.bet_id, account, c.selection_id, c.bet_outcome, c.profit)
            for c in exchange.cleared_orders(account, market_id)
            if c.bet_outcome is not None
        )
        return Settlement(
            market_id=market_id,
            status=game.phase,
            winners=tuple(game.winners),
            profit=0 if result is None else result.profit,
            commission=0 if result is None else result.commission,
            bets=bets,
        )

    return settlement


def attach_strategy(
    channel: Channel,
    strategy: Strategy,
    account_id: str,
    *,
    rng: random.Random | None = None,
    on_session_end: SessionEnd | None = None,
) -> StrategyAgent:
    """Seat ``strategy`` at ``channel`` trading for ``account_id`` (funded already), at the strategy's latency.

    The same call seats it on a backtest's virtual-clock channel or on a live one. Its bankroll is
    followed from now: the account's balance now is its ``starting_balance``. ``on_session_end`` is
    told when the strategy, having called ``end_session``, has finished its last game.
    """
    funds = channel.exchange.funds(account_id)
    watch = BankrollWatch(account_id, 0 if funds is None else funds.balance)
    channel.subscribe(watch)
    agent = seat(strategy, watch, rng=rng, settlements=channel_settlements(channel), on_session_end=on_session_end)
    host.seat(channel, agent, account_id, latency_ms=strategy.latency_ms)
    return agent
