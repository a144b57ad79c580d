"""Seats agents at a channel: turns the channel's events into agent hooks.

The host listens to the channel's event bus and, for every event that
concerns an agent, schedules the hook on the clock *after* the current step
(``call_later(0)``): the agent then reads a view of a settled state and its
commands cannot re-enter the game or the exchange mid-step. Hooks an agent
does not override are never scheduled, and ``on_market_update`` is
conflated: the book changes made while one is pending for an agent join it,
and a change made after it has run brings another, at the same instant too.
So an instant can bring several, each showing the book as it then stood (a
noise trader's trade, then the house's requote answering it at 0 ms), the last
the book as the instant left it; a stream subscriber, and a replay of the
recorded stream files, sees one message an instant, that last book.

A seat watches one market of each game: the main one, or (``market=``) a hi/lo
game's Low market. The game's own events (start, windows, end) reach every
seat; a market's events (equities, book changes, fills, rejections) only the
seats watching that market.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from exchange.agents.trader import Agent, Trader, overrides
from exchange.agents.view import BettorView, bettor_view
from exchange.clock import Clock
from exchange.core.commands import Command
from exchange.core.events import (
    MarketSettled,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    OrderRejected,
)
from exchange.core.order_views import OrderViews
from exchange.core.orders import OrderView
from exchange.game.channels import parse_market_id
from exchange.game.events import (
    EquitiesPublished,
    GameEnded,
    GameStarted,
    Stamped,
    WindowClosed,
    WindowOpened,
    WindowResumed,
)
from exchange.game.layouts import MarketKind

if TYPE_CHECKING:
    from exchange.game.channel import Channel

_BOOK_EVENTS = (OrderPlaced, Matched, OrderCancelled, OrderLapsed, MatchVoided)
_MARKET_ENDS = (MarketSettled, MarketVoided)
_BROADCAST: dict[type, str] = {
    GameStarted: "on_game_start",
    WindowOpened: "on_window_open",
    WindowResumed: "on_window_open",  # the same window open again (its resting orders lapsed at the suspension)
    WindowClosed: "on_window_close",
    GameEnded: "on_game_end",
}


_HOOKS = (
    "on_game_start", "on_window_open", "on_window_close", "on_reveal",
    "on_market_update", "on_fill", "on_order_rejected", "on_market_settled", "on_game_end",
)  # fmt: skip


@dataclass(slots=True)
class Seat:
    agent: Agent
    trader: Trader
    #: The memo its hooks' views list its orders through: each builds again only those of orders that changed.
    views: OrderViews
    hooks: frozenset[str] = frozenset()
    update_pending: bool = False
    market: MarketKind | None = None


class AgentHost:
    """The agents seated at one channel, in the order they were attached (which is the order hooks run)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.seats: list[Seat] = []
        self._by_account: dict[str, list[Seat]] = {}
        channel.subscribe(self._on_event)

    def attach(self, agent: Agent, account_id: str, *, latency_ms: int = 0, market: MarketKind | None = None) -> Trader:
        """Seat ``agent`` trading for ``account_id`` (the account must exist and be funded) on ``market``."""
        if market is not None and market not in self.channel.config.markets:
            raise ValueError(f"channel {self.channel.config.name} has no {market.value} market")
        trader = Trader(ChannelGateway(self.channel, market), account_id, latency_ms=latency_ms)
        views = OrderViews() if agent.order_views is None else agent.order_views
        seat = Seat(agent, trader, views, frozenset(h for h in _HOOKS if overrides(agent, h)), market=market)
        self.seats.append(seat)
        self._by_account.setdefault(account_id, []).append(seat)
        return trader

    def _watching(self, market_id: str | None) -> list[Seat]:
        """The seats that watch the market ``market_id`` (all of them where it names no other market)."""
        parsed = None if market_id is None or len(self.channel.config.markets) == 1 else parse_market_id(market_id)
        if parsed is None:
            return self.seats
        main = self.channel.config.markets[0]
        return [s for s in self.seats if (s.market or main) is parsed[2]]

    def _on_event(self, stamped: Stamped) -> None:
        event = stamped.event
        kind = type(event)
        market_id = stamped.market_id
        hook = _BROADCAST.get(kind)
        if hook is not None:
            for seat in self.seats:
                self._defer(seat, hook, market_id)
        elif isinstance(event, EquitiesPublished):
            if event.round is None or event.round > 1:
                for seat in self._watching(market_id):
                    self._defer(seat, "on_reveal", market_id)
        elif isinstance(event, OrderRejected):
            for seat in self._by_account.get(event.account_id, ()):
                if seat in self._watching(market_id):
                    self._defer(seat, "on_order_rejected", market_id, event)
        elif kind in _MARKET_ENDS:
            for seat in self._watching(market_id):
                self._defer(seat, "on_market_settled", market_id)
        if isinstance(event, Matched):
            watching = self._watching(market_id)
            for account in dict.fromkeys((event.back_account_id, event.lay_account_id)):
                for seat in self._by_account.get(account, ()):
                    if seat in watching:
                        self._defer(seat, "on_fill", market_id, event)
        if kind in _BOOK_EVENTS:
            for seat in self._watching(market_id):
                if not seat.update_pending and "on_market_update" in seat.hooks:
                    seat.update_pending = True
                    self._defer(seat, "on_market_update", market_id)

    def _defer(self, seat: Seat, hook: str, market_id: str | None, *args: object) -> None:
        if hook not in seat.hooks:
            return
        channel = self.channel

        def run() -> None:
            if hook == "on_market_update":
                seat.update_pending = False
            agent = seat.agent
            view = bettor_view(
                channel,
                seat.trader.account_id,
                market_id,
                open_orders_only=agent.open_orders_only,
                with_book=agent.wants_book,
                market=seat.market,
                views=seat.views,
            )
            if view is None:
                return
            seat.trader.saw(view)
            method: Callable[..., None] = getattr(seat.agent, hook)
            method(view, seat.trader, *args)

        channel.clock.call_later(0, run)


@dataclass(frozen=True, slots=True)
class ChannelGateway:
    """A channel as a :class:`~exchange.agents.trader.Gateway`: commands to its exchange, views of its game.

    ``market``: which market of each game the views show (``None``: the main one).
    """

    channel: Channel
    market: MarketKind | None = None

    @property
    def clock(self) -> Clock:
        return self.channel.clock

    def submit(self, command: Command) -> Sequence[object]:
        return self.channel.submit(command)

    def view(
        self, account_id: str | None, *, open_orders_only: bool = False, with_book: bool = True
    ) -> BettorView | None:
        return bettor_view(self.channel, account_id, open_orders_only=open_orders_only, with_book=with_book,
                           market=self.market)

    def order(self, account_id: str, bet_id: int) -> OrderView | None:
        return self.channel.exchange.order_view(account_id, bet_id)


#: Each channel's host, by the channel's id. The values are weak: a host lives as long as its channel (which
#: holds it, subscribed) or whoever else holds it, and a channel no longer reachable goes with its host. A
#: weak-keyed map by the channel would keep both for ever, since the host (its traders too) holds the channel.
_HOSTS: weakref.WeakValueDictionary[int, AgentHost] = weakref.WeakValueDictionary()


def host_of(channel: Channel) -> AgentHost:
    """The channel's agent host (made on first use: one per channel, so hooks run in seating order)."""
    host = _HOSTS.get(id(channel))
    if host is None or host.channel is not channel:  # a dead channel's id may be reused while its host is held
        host = _HOSTS[id(channel)] = AgentHost(channel)
    return host


def release(channel: Channel) -> None:
    """Forget ``channel``'s agents, for a channel that will run no more (a finished backtest session's), at once
    rather than at the next collection of the channel and its host."""
    host = _HOSTS.get(id(channel))
    if host is not None and host.channel is channel:
        del _HOSTS[id(channel)]


def seat(
    channel: Channel, agent: Agent, account_id: str, *, latency_ms: int = 0, market: MarketKind | None = None
) -> Trader:
    """Seat ``agent`` at ``channel`` trading for ``account_id``; its hooks run on the channel's clock.

    The account must exist and be funded (:meth:`Channel.open_account`). ``market``:
    the market of each game the agent trades (``None``: the main one; ``MarketKind.LOW``
    for a hi/lo game's Low market).
    """
    return host_of(channel).attach(agent, account_id, latency_ms=latency_ms, market=market)
