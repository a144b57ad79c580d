"""Agents: anything that trades on a channel — house market makers, noise traders, user strategies.

An :class:`Agent` is a small class with hooks (flumine-style). Each hook gets
a :class:`~exchange.agents.view.BettorView` — what a bettor may see, nothing more —
and a :class:`Trader`, the agent's only way to act: it builds the same
``PlaceOrder`` / ``CancelOrder`` / ``ReplaceOrder`` commands a user's HTTP
request becomes, and delivers them to the exchange through the clock after
the agent's *latency* (0 for the house; a backtest gives user strategies
~100 ms). A command is stamped with the round the agent saw when it decided,
so one that arrives after its window closed is refused
(``MARKET_NOT_OPEN_FOR_BETTING``) or, once the next window is open,
``BET_REJECTED_ROUND_STALE`` — exactly as for a slow user.

Hooks run from clock callbacks, never inside another component's step, so an
agent always sees a settled state and cannot re-enter the game or the
exchange. :class:`AgentHost` (see :mod:`exchange.game.seats`) does the wiring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Protocol

from exchange.agents.view import BettorView
from exchange.clock import Clock
from exchange.core import ladder
from exchange.core.commands import CancelOrder, Command, PlaceOrder, ReplaceOrder
from exchange.core.events import Matched, OrderRejected
from exchange.core.order_views import OrderViews
from exchange.core.orders import OrderView
from exchange.core.side import Side


class Arrival(Protocol):
    """Told when the command it was sent with reaches the exchange: for a sender that pairs what it asked with
    what came of it by the command itself, whenever it arrives (a live clock delivers late under load)."""

    def arriving(self) -> None:
        """The command is handed to the exchange now: whatever the exchange says of it comes before
        :meth:`arrived`."""
        ...

    def arrived(self, events: Sequence[object]) -> None:
        """The exchange is done with the command: ``events`` are what it made of it (empty if it raised)."""
        ...


class Gateway(Protocol):
    """Where an agent's commands go and where its views come from (a channel implements it)."""

    @property
    def clock(self) -> Clock:
        """The clock the commands are stamped and scheduled on."""
        ...

    def submit(self, command: Command) -> Sequence[object]:
        """Hand a command to the exchange now; returns the events it produced (also published)."""
        ...

    def view(
        self, account_id: str | None, *, open_orders_only: bool = False, with_book: bool = True
    ) -> BettorView | None:
        """The current game as ``account_id`` may see it; ``None`` before the first game."""
        ...

    def order(self, account_id: str, bet_id: int) -> OrderView | None:
        """One of the account's orders as the exchange has it now (its market over too), or ``None``."""
        ...


#: What a command is stamped with: the market it goes to and the round its sender saw (``None``: before the first).
Stamp = tuple[str, int | None]


def stamp_of(view: BettorView) -> Stamp:
    """The market and round of ``view``: what a command sent from it is stamped with."""
    return view.market_id, None if view.round is None else int(view.round)


class Trader:
    """One agent's hands on the exchange: its account, its latency, its commands.

    Every method schedules the command for ``now + latency_ms`` and returns at
    once; outcomes come back through the agent's hooks (``on_fill``,
    ``on_order_rejected``) and the next view's ``orders``.

    The gateway (the channel) is held privately: an agent reaches the exchange
    only through these methods, for its own account, and sees only its own
    views. (Python cannot sandbox a strategy; this keeps the public API from
    handing out the channel, other accounts' views or face-down cards.)
    """

    def __init__(self, gateway: Gateway, account_id: str, *, latency_ms: int = 0) -> None:
        if latency_ms < 0:
            raise ValueError(f"latency cannot be negative, not {latency_ms} ms")
        self._gateway = gateway
        self.account_id = account_id
        self.latency_ms = latency_ms
        #: The round the agent last saw: commands are stamped with it.
        self.seen_round: int | None = None
        self.seen_market: str | None = None
        self.sent = 0
        #: Commands scheduled but not yet delivered.
        self.in_flight = 0
        self._idle: list[Callable[[], None]] = []

    def now(self) -> int:
        return self._gateway.clock.now()

    def order(self, bet_id: int) -> OrderView | None:
        """One of this account's orders as the exchange has it now, its market over too (``None``: not one)."""
        return self._gateway.order(self.account_id, bet_id)

    def view(self, *, open_orders_only: bool = False, with_book: bool = True) -> BettorView | None:
        """A fresh view of the current game for this account (and remember its round for stamping)."""
        view = self._gateway.view(self.account_id, open_orders_only=open_orders_only, with_book=with_book)
        if view is not None:
            self.saw(view)
        return view

    def saw(self, view: BettorView) -> None:
        """Note what the agent has seen: later commands are stamped with this market and round."""
        self.seen_market, self.seen_round = stamp_of(view)

    def when_idle(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once every command sent so far has been delivered (at once if none is in flight)."""
        if self.in_flight == 0:
            callback()
        else:
            self._idle.append(callback)

    def place(self, hand: int, side: Side, tick: int, size: int, *, customer_ref: str | None = None) -> None:
        """Back or lay ``hand`` at ladder ``tick`` for ``size`` minor units (backer's stake)."""
        self.place_price(hand, side, ladder.price(tick), size, customer_ref=customer_ref)

    def place_price(
        self, hand: int, side: Side, price: Decimal, size: int, *, customer_ref: str | None = None,
        arrival: Arrival | None = None, at: Stamp | None = None,
    ) -> None:
        """As :meth:`place` with a raw decimal price, as a user might send it (the exchange validates it).

        ``arrival`` (here and for a cancel or replace) is told when the command reaches the exchange. ``at``: the
        market and round to stamp it with (here and for a replace; default: the last the agent saw, :meth:`saw`).
        """
        market, rnd = at if at is not None else self._seen()

        def build(ts: int) -> Command:
            return PlaceOrder(
                ts=ts, account_id=self.account_id, market_id=market, selection_id=hand,
                side=side, price=price, size=size, round=rnd, customer_ref=customer_ref,
            )  # fmt: skip

        self._send(build, arrival)

    def cancel(self, bet_id: int, size_reduction: int | None = None, *, arrival: Arrival | None = None) -> None:
        """Cancel an order's unmatched remainder (or reduce it by ``size_reduction``)."""

        def build(ts: int) -> Command:
            return CancelOrder(ts=ts, account_id=self.account_id, bet_id=bet_id, size_reduction=size_reduction)

        self._send(build, arrival)

    def replace(self, bet_id: int, tick: int, *, arrival: Arrival | None = None) -> None:
        """Move an order's unmatched remainder to ``tick`` (a new bet at the back of the queue)."""
        self.replace_price(bet_id, ladder.price(tick), arrival=arrival)

    def replace_price(self, bet_id: int, new_price: Decimal, *, arrival: Arrival | None = None,
                      at: Stamp | None = None) -> None:
        """As :meth:`replace` with a raw decimal price, as a user might send it (the exchange validates it)."""
        _, rnd = at if at is not None else self._seen()

        def build(ts: int) -> Command:
            return ReplaceOrder(ts=ts, account_id=self.account_id, bet_id=bet_id, new_price=new_price, round=rnd)

        self._send(build, arrival)

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> None:
        """Run ``callback`` after ``delay_ms`` of clock time (for agents that act at chosen moments)."""
        self._gateway.clock.call_later(delay_ms, callback)

    def _seen(self) -> Stamp:
        if self.seen_market is None:
            raise RuntimeError("an agent can trade only from a hook, once it has seen a market")
        return self.seen_market, self.seen_round

    def _send(self, build: Callable[[int], Command], arrival: Arrival | None = None) -> None:
        self.sent += 1
        self.in_flight += 1
        gateway = self._gateway

        def deliver() -> None:
            self.in_flight -= 1
            command = build(gateway.clock.now())
            if arrival is None:
                gateway.submit(command)
            else:
                events: Sequence[object] = ()
                arrival.arriving()
                try:
                    events = gateway.submit(command)
                finally:
                    arrival.arrived(events)
            if self.in_flight == 0 and self._idle:
                callbacks, self._idle = self._idle, []
                for callback in callbacks:
                    callback()

        gateway.clock.call_later(self.latency_ms, deliver)


class Agent:
    """Base class of every agent: override the hooks you need; the rest do nothing.

    Hooks are called with the view as of the moment they run and the agent's
    :class:`Trader`. ``on_market_update`` is only delivered to agents that
    override it (conflated: see :mod:`exchange.agents.host`), since it is frequent.
    """

    #: A label for logs and reports.
    name: str = "agent"
    #: Views given to the hooks list only orders with an unmatched remainder (cheaper for busy quoters).
    open_orders_only: bool = False
    #: Views given to the hooks carry the public price ladders (an agent that never reads them can say no).
    wants_book: bool = True
    #: The memo the views given to the hooks list its orders through (``None``: the host's own); an agent that asks
    #: it which orders changed (:meth:`OrderViews.changed`) makes its own, with ``changes=True``.
    order_views: OrderViews | None = None

    def on_game_start(self, view: BettorView, trader: Trader) -> None:
        """A new game (and market) exists; no window is open yet."""

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        """A betting window has opened, or opened again after an operator's suspension inside it (which lapsed
        every resting order): orders are accepted until ``view.window.closes_ms``."""

    def on_window_close(self, view: BettorView, trader: Trader) -> None:
        """The window has closed; unmatched orders have lapsed."""

    def on_reveal(self, view: BettorView, trader: Trader) -> None:
        """Cards were turned and new exact equities published (during the playing window)."""

    def on_market_update(self, view: BettorView, trader: Trader) -> None:
        """The public book changed (an order placed, matched, cancelled or lapsed)."""

    def on_fill(self, view: BettorView, trader: Trader, fill: Matched) -> None:
        """One of this agent's orders was matched (``fill.size`` at ``fill.tick``)."""

    def on_order_rejected(self, view: BettorView, trader: Trader, rejection: OrderRejected) -> None:
        """The exchange refused one of this agent's instructions."""

    def on_market_settled(self, view: BettorView, trader: Trader) -> None:
        """The market is settled or void, at the instant it is: a hi/lo game's market can end before its game."""

    def on_game_end(self, view: BettorView, trader: Trader) -> None:
        """The game is over: every market of it settled or void."""


def overrides(agent: Agent, hook: str) -> bool:
    """Whether ``agent``'s class overrides ``hook`` (so the host can skip delivering no-ops)."""
    return getattr(type(agent), hook) is not getattr(Agent, hook)
