"""A :class:`~exchange.backtest.strategy.Strategy` seated at a channel as ordinary game agents.

The game drives :class:`~exchange.agents.trader.Agent` hooks (house makers, noise
traders and strategies alike, live or in a backtest). A seated strategy is one
:class:`StrategyAgent` per market of each game it trades (:attr:`Strategy.markets
<exchange.backtest.strategy.Strategy.markets>`: the main market by default, a
Hi/Lo game's Low market too if it asks), each seated on its market with its own
:class:`~exchange.agents.trader.Trader` and its own
:class:`~exchange.backtest.strategy.MarketHandle`, all sharing one
:class:`SeatedStrategy`; each translates its market's agent hooks into the
flumine-style strategy hooks:

==========================  ==============================================================
agent hook                  strategy hooks
==========================  ==============================================================
``on_game_start``           ``on_game_start`` (once a game, first market), ``on_market_open``
``on_window_open``          ``on_window_open``, then a market update
``on_reveal``               a market update (cards turned, new equities)
``on_market_update``        a market update
``on_fill``                 ``process_orders`` (the orders that changed)
``on_order_rejected``       ``on_order_rejected`` (once: a refused cancel, told to every market, on its bet's
                            market, or the one it was sent through)
``on_window_close``         ``process_orders`` (lapsed), ``on_window_close``
``on_market_settled``       ``process_orders`` (settled), ``on_settlement`` (once a market)
``on_game_end``             ``process_orders``; ``on_game_end`` (once, last market)
==========================  ==============================================================

A *market update* is ``process_orders`` for the strategy's orders that changed
since it last saw them, then ``check_market_book`` and, if that says yes,
``process_market_book``. Hooks come in the order of the events behind them, each
run just after the clock step that made its event. ``on_settlement`` comes when
its market settles or is voided: a Hi/Lo game's Low market (or its High market)
can settle early while the other plays on, and its settlement then reaches the
strategy right after that step, before the hooks of the next window or reveal;
a market settled in the game's last step hears of it just before the game's end.
A market settled before a window opens gets no window hooks for that window. The
host runs the agents of one event in the order they were seated (the game's
market order), so in a game the strategy sees ``on_game_start`` before any
``on_market_open``, and ``on_game_end`` once, after every market's
``on_settlement``, with those same settlements in ``GameEnd.settlements`` (in the
game's market order).

Every agent hook costs the host a fresh view, so :func:`adapter_class` builds the
agent with only the agent hooks the strategy's own overrides need: a
strategy that only acts when windows open is never woken for each fill (nor
when a market settles: its settlements are read at the game's end). The
game's end is always delivered (once a game): it is where a strategy that has
called :meth:`~exchange.backtest.strategy.Strategy.end_session` retires, and
the driver is told (``on_session_end``) so that a backtest session deals no
further game; a retired strategy is woken no more.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from exchange.agents import host
from exchange.agents.trader import Agent, Trader, overrides
from exchange.agents.view import MARKET_OVER, BettorView
from exchange.backtest.bankroll import BankrollWatch
from exchange.backtest.instructions import InstructionLog, Sent
from exchange.backtest.strategy import CustomerRefs, GameEnd, GameStart, MarketHandle, Settlement, Strategy
from exchange.backtest.strategy_errors import Guarded, said_yes, session_end_reason, stuck_at_one_instant
from exchange.core.events import BetResult, Matched, OrderRejected
from exchange.core.market import MarketStatus
from exchange.core.order_views import OrderViews
from exchange.core.orders import OrderView
from exchange.game.channel import Channel
from exchange.game.channels import ChannelConfig, parse_market_id
from exchange.game.layouts import MarketKind
from exchange.game.table import Phase

SettlementSource = Callable[[str, str], Settlement | None]
"""``(market id, account id) -> Settlement`` once the market is over (``None`` if unknown)."""
SessionEnd = Callable[[str], None]
"""Called once, with the strategy's reason, when a strategy that asked to end its session retires."""
BetMarket = Callable[[int], str | None]
"""The market of one of the strategy's account's bets (``None`` for a bet id it never had)."""


def traded_markets(strategy: Strategy, config: ChannelConfig) -> tuple[MarketKind, ...]:
    """The kinds of market ``strategy`` trades in each game of ``config``'s channel, in the game's order.

    >>> from exchange.game.channels import get_channel
    >>> class Low(Strategy):
    ...     markets = (MarketKind.LOW,)
    >>> traded_markets(Strategy(), get_channel("omaha-hilo")), traded_markets(Low(), get_channel("omaha-hilo"))
    ((<MarketKind.HIGH: 'high'>,), (<MarketKind.LOW: 'low'>,))
    >>> traded_markets(Low(), get_channel("holdem"))
    Traceback (most recent call last):
    ...
    ValueError: strategy Low trades low markets; channel holdem has a win market only: ...

    A strategy whose ``__init__`` did not call ``Strategy.__init__`` cannot be seated (``ValueError``, saying so).
    """
    _check_set_up(strategy)
    if strategy.markets is None:
        return config.markets[:1]
    wanted = set(_kinds(strategy.name, strategy.markets))
    kinds = tuple(k for k in config.markets if k in wanted)
    if not kinds:
        names = " and ".join(sorted(k.value for k in wanted)) or "no"
        markets = config.markets
        has = f"a {markets[0].value} market only" if len(markets) == 1 else \
            " and ".join(k.value for k in markets) + " markets"  # fmt: skip
        raise ValueError(f"strategy {strategy.name} trades {names} markets; channel {config.name} has {has}: "
                         "set markets = None (the main market) or ALL_MARKETS")
    return kinds


def _check_set_up(strategy: Strategy) -> None:
    """Refuse a strategy that skipped :meth:`Strategy.__init__` (whose settings every seat reads) by name."""
    missing = next((a for a in ("latency_ms", "name", "context") if not hasattr(strategy, a)), None)
    if missing is not None:
        raise ValueError(f"strategy {type(strategy).__name__} was not set up as a Strategy (it has no {missing}): "
                         "its __init__ must call super().__init__(**kwargs)")


def _kinds(name: str, markets: Iterable[object]) -> list[MarketKind]:
    allowed = ", ".join(k.value for k in MarketKind)
    if isinstance(markets, str):
        raise ValueError(f"strategy {name}: markets is a tuple of market kinds ({allowed}), not the text {markets!r}")
    kinds = []
    for kind in markets:
        if not isinstance(kind, str) or kind not in _KIND_VALUES:
            raise ValueError(f"strategy {name}: {kind!r} is not a market kind; allowed: {allowed}")
        kinds.append(MarketKind(kind))
    return kinds


_KIND_VALUES = frozenset(k.value for k in MarketKind)


@dataclass(slots=True)
class _Ending:
    """A game's end as the strategy's markets report it, one after another."""

    markets: int = 0
    settlements: list[Settlement] = field(default_factory=list)


class SeatedStrategy:
    """One strategy seated at a channel: its market agents (one per market it trades) and what they share.

    ``positions``: where the markets it trades stand among each game's markets (0: the main one).
    ``retired`` is set once the strategy has ended its session and its last game is over: no hook runs after.
    """

    def __init__(
        self,
        strategy: Strategy,
        watch: BankrollWatch,
        positions: tuple[int, ...] = (0,),
        *,
        rng: random.Random | None = None,
        settlements: SettlementSource | None = None,
        on_session_end: SessionEnd | None = None,
        bet_market: BetMarket | None = None,
        refs: CustomerRefs | None = None,
    ) -> None:
        self.strategy = Guarded(strategy)  # its errors name the hook that raised (strategy_errors)
        self.bet_market = bet_market
        self.watch = watch
        self.positions = positions
        self.rng = rng
        self.settlements = settlements
        self.on_session_end = on_session_end
        self.retired = False
        self.agents: list[StrategyAgent] = []
        #: What the strategy asked, through any of its markets, until it has arrived (and what a refusal that the
        #: agents choose a market for refused, until they have).
        self.instructions = InstructionLog(keep=self._agents_ask)
        #: The references given to its placements that name none, through any of its markets.
        self.refs = refs if refs is not None else CustomerRefs(watch.account_id)
        self._started: int | None = None
        self._ending: dict[int, _Ending] = {}

    def market_ids(self, view: BettorView) -> tuple[str, ...]:
        """The ids of the markets the strategy trades in ``view``'s game (``view.market_ids`` are all of its
        markets, in the channel's order of kinds)."""
        return tuple(view.market_ids[i] for i in self.positions)

    def hears_through(self, agent: StrategyAgent, rejection: OrderRejected) -> bool:
        """Whether ``agent`` passes ``rejection`` on. A refused cancel or replace names no market, so every market's
        agent is told of it: the strategy hears it once, through the agent of the bet's kind of market (for a bet id
        the account never had, the kind it was sent through; the main market's if that is not known). The last
        agent told lets the refusal's instruction go."""
        if rejection.market_id is not None or len(self.agents) == 1:
            return True
        bet = rejection.bet_id
        market = None if bet is None or self.bet_market is None else self.bet_market(bet)
        if market is None:
            asked = self.instructions.asked(rejection)
            market = None if asked is None else asked.market_id
        if agent is self.agents[-1]:
            self.instructions.let_go(rejection)
        parsed = None if market is None else parse_market_id(market)
        return agent is next((a for a in self.agents if parsed is not None and a.kind is parsed[2]), self.agents[0])

    def _agents_ask(self, rejection: OrderRejected, asked: Sent) -> bool:
        """Whether the agents will ask which market ``rejection`` was sent through (:meth:`hears_through`): each
        is told of a refusal that names no market, if the strategy listens to refusals."""
        agents = self.agents
        return rejection.market_id is None and len(agents) > 1 and overrides(agents[0], "on_order_rejected")

    def game_started(self, view: BettorView, handle: MarketHandle) -> None:
        """The first of the strategy's markets to hear of a new game tells the strategy, once."""
        if self._started == view.game_number:
            return
        self._started = view.game_number
        self.strategy.on_game_start(GameStart(view.game_number, self.market_ids(view), view.now_ms,
                                              handle.bankroll))  # fmt: skip

    def market_ended(self, view: BettorView, handle: MarketHandle, settlement: Settlement | None) -> None:
        """One market of the game is over; once the last of them is, the game's end goes to the strategy."""
        ending = self._ending.setdefault(view.game_number, _Ending())
        ending.markets += 1
        if settlement is not None:
            ending.settlements.append(settlement)
        if ending.markets < len(self.agents):
            return
        del self._ending[view.game_number]
        strategy = self.strategy
        strategy.on_game_end(GameEnd(view.game_number, self.market_ids(view), tuple(ending.settlements),
                                     handle.bankroll))  # fmt: skip
        reason = session_end_reason(strategy.session_ended)
        if reason is not None:
            self.retired = True
            if self.on_session_end is not None:
                self.on_session_end(reason)


#: Updates of one market at one instant of the game's clock past which a strategy is taken to answer its own orders
#: for ever (the example strategies see three at most).
UPDATES_AT_ONE_INSTANT = 1_000


class Instant:
    """How many times in a row something happened at one instant of the clock."""

    __slots__ = ("at_ms", "times")

    def __init__(self) -> None:
        self.at_ms, self.times = -1, 0

    def count(self, now_ms: int) -> int:
        """Count one more at ``now_ms``; how many in a row at it, this one included."""
        self.times = self.times + 1 if now_ms == self.at_ms else 1
        self.at_ms = now_ms
        return self.times


class StrategyAgent(Agent):
    """Runs one :class:`Strategy` on one market of each game, through the agent hooks of that market."""

    order_views: OrderViews

    def __init__(self, seated: SeatedStrategy, kind: MarketKind) -> None:
        self.seated = seated
        self.strategy = seated.strategy
        self.kind = kind
        self.name = seated.strategy.name
        self._handle: MarketHandle | None = None
        self._seen: dict[int, OrderView] = {}
        self.order_views = OrderViews(changes=True)  # which orders changed, without comparing every one
        self._quiet: tuple[str, object] | None = None  # (market, round) of a window its settled market sat out
        self._ended: tuple[str, Settlement | None] | None = None  # (market, settlement) told the strategy
        self._instant = Instant()  # a strategy answering its own orders for ever is updated at one instant
        self._refused_instant = Instant()  # and one answering its refusals with orders refused again, told of them

    @property
    def retired(self) -> bool:
        return self.seated.retired

    @property
    def latency_ms(self) -> int:
        return self.strategy.latency_ms

    # --- agent hooks --------------------------------------------------------------------------

    def on_game_start(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        self.seated.game_started(view, handle)
        self.strategy.on_market_open(handle)

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        if view.market_status is MarketStatus.SETTLED:  # settled early (a Low market) while the game plays on
            self._quiet = (view.market_id, view.round)
            return
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
        if not self.seated.hears_through(self, rejection) or self.retired:  # (every agent is asked: see there)
            return
        handle = self._enter(view, trader)
        if (refusals := self._refused_instant.count(handle.now_ms)) > UPDATES_AT_ONE_INSTANT:
            raise stuck_at_one_instant(refusals, handle.now_ms, handle.latency_ms, hook="on_order_rejected")
        self.strategy.on_order_rejected(handle, rejection)

    def on_window_close(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        self._orders_changed(handle)
        if view.round is not None and self._quiet != (view.market_id, view.round):
            self.strategy.on_window_close(handle, view.round)

    def on_market_settled(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        self._settle(self._enter(view, trader))

    def on_game_end(self, view: BettorView, trader: Trader) -> None:
        if self.retired:
            return
        handle = self._enter(view, trader)
        self._settle(handle)  # its settlement now if it went unheard when the market ended (no hook for it)
        ended, self._ended = self._ended, None
        self.seated.market_ended(view, handle, None if ended is None else ended[1])

    # --- helpers ------------------------------------------------------------------------------

    def _enter(self, view: BettorView, trader: Trader) -> MarketHandle:
        handle = self._handle
        if handle is None or handle.market_id != view.market_id:
            seated = self.seated
            handle = self._handle = MarketHandle(trader, view, seated.rng, seated.watch, seated.instructions,
                                                 seated.refs)
            self._seen = {}
        handle._see(view)
        return handle

    def _update(self, handle: MarketHandle) -> None:
        if self.retired:
            return
        if (updates := self._instant.count(handle.now_ms)) > UPDATES_AT_ONE_INSTANT:
            raise stuck_at_one_instant(updates, handle.now_ms, handle.latency_ms)
        self._orders_changed(handle)
        if said_yes(self.strategy.check_market_book(handle)):
            self.strategy.process_market_book(handle)

    def _settle(self, handle: MarketHandle) -> None:
        """The market is over: the orders its settlement changed, then the account's settlement (once a market)."""
        self._orders_changed(handle)  # a market over shows its orders as they ended: those its end changed too
        market_id = handle.market_id
        if self._ended is not None and self._ended[0] == market_id:
            return
        source = self.seated.settlements
        settlement = None if source is None else source(market_id, handle.account_id)
        self._ended = (market_id, settlement)
        if settlement is not None:
            self.strategy.on_settlement(handle, settlement)

    def _orders_changed(self, handle: MarketHandle) -> None:
        if self.retired:
            return
        view = handle.view
        built = self.order_views.changed(view.market_id)  # the views built since the last look, changed or not
        if view.market_status in MARKET_OVER:  # its orders as they ended, cleared (no memo): every one is looked at
            built = list(view.orders)
        changed = [o for o in built if self._seen.get(o.bet_id) != o]
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
    "on_market_settled": ("on_settlement", "process_orders"),
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
    >>> seated = SeatedStrategy(AtOpen(), BankrollWatch("me", 0))
    >>> sorted(h for h in _NEEDS if overrides(adapter_class(AtOpen)(seated, MarketKind.WIN), h))
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


def channel_settlements(channel: Channel) -> SettlementSource:
    """Each account's :class:`Settlement` of a market on ``channel``, read from its exchange once the game is over."""

    def settlement(market_id: str, account: str) -> Settlement | None:
        game = channel.game(market_id)
        if game is None:
            return None
        market = game.market(market_id)
        exchange = channel.exchange
        result = exchange.market_result(account, market_id)
        bets = tuple(
            BetResult(c.bet_id, account, c.selection_id, c.bet_outcome, c.profit)
            for c in exchange.cleared_orders(account, market_id)
            if c.bet_outcome is not None
        )
        return Settlement(
            market_id=market_id,
            status=Phase.FINISHED if market is not None and market.decided else Phase.VOID,
            winners=() if market is None else market.winners,
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
    ref_prefix: str | None = None,
) -> SeatedStrategy:
    """Seat ``strategy`` at ``channel`` trading for ``account_id`` (funded already), at the strategy's latency.

    One agent per market it trades (:func:`traded_markets`; ``ValueError`` if the channel has none of
    them), each woken only for the hooks the strategy uses. The same call seats it on a backtest's
    virtual-clock channel or on a live one. Its bankroll is followed from now: the account's balance
    now is its ``starting_balance``. ``on_session_end`` is told when the strategy, having called
    ``end_session``, has finished its last game. Its placements that name no ``customer_ref`` get
    ``<ref_prefix>-1``, ``<ref_prefix>-2`` … (by default the account id is the prefix).
    """
    config = channel.config
    kinds = traded_markets(strategy, config)
    funds = channel.exchange.funds(account_id)
    watch = BankrollWatch(account_id, 0 if funds is None else funds.balance)
    channel.subscribe(watch)
    positions = tuple(config.markets.index(kind) for kind in kinds)
    exchange = channel.exchange

    def bet_market(bet_id: int) -> str | None:
        order = exchange.order_view(account_id, bet_id)
        return None if order is None else order.market_id

    seated = SeatedStrategy(strategy, watch, positions, rng=rng, settlements=channel_settlements(channel),
                            on_session_end=on_session_end, bet_market=bet_market,
                            refs=CustomerRefs(account_id if ref_prefix is None else ref_prefix))  # fmt: skip
    adapter = adapter_class(type(strategy))
    main = config.markets[0]
    for kind in kinds:
        agent = adapter(seated, kind)
        seated.agents.append(agent)
        host.seat(channel, agent, account_id, latency_ms=strategy.latency_ms, market=None if kind is main else kind)
    return seated
