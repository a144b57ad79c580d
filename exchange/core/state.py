"""The exchange's state and the one function per event that changes it.

State is a fold over events (:meth:`ExchangeState.apply`).  The deciding side
(:mod:`exchange.core.trading`, :mod:`exchange.core.lifecycle`) works out the
events of a command and hands each to the same ``apply_*`` function the
journal fold uses, so there is one way to change state, live or replayed.
(The placement and the fills of the live path call :meth:`~ExchangeState.add_order`
and :meth:`~ExchangeState.fill`, the bodies of ``apply_order_placed`` and
``apply_matched`` without their look-ups, since its checks have just found
the account, market, selection and orders.)

======================  =====================================================
event                   what changes
======================  =====================================================
``OrderPlaced``         a new order, queued in its book; its position reserves it
``Matched``             both orders fill at the match's tick; the level and the traded volume
``OrderCancelled``      unmatched size leaves the book and the position
``OrderLapsed``         the same, counted as lapsed
``MatchVoided``         a match is undone; its stake is refunded
``SelectionSettled``    a selection loses early; its bets' results are fixed
``MarketSettled``       the result: balances move, the market is compacted
``MarketVoided``        the same with only early results counting
account, market events  balances, statuses, rounds
======================  =====================================================

When a market closes, its orders are compacted into each account's
:class:`~exchange.core.orders.ClearedOrder` records (one that matched at
several prices keeps its stake at each, summed from the fills), kept per account and
market (:mod:`exchange.core.cleared`), and the market into a
:class:`~exchange.core.market.ClosedMarket`; books, positions, orders and the
fills are released.  With ``ExchangeConfig.keep_closed_markets`` set, only that many
closed markets are kept at all (the oldest go first), so a long-running
server's memory stays bounded; the journal keeps the full record.  What the
latest close forgot stays readable in :attr:`ExchangeState.forgotten` until the
next close: with none kept, a market is forgotten in the very step that closes
it, and a driver still has to tell its clients how it ended.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from exchange.core.accounts import Account
from exchange.core.cleared import ClearedByBetId, ClearedOrders
from exchange.core.errors import ExchangeError
from exchange.core.events import (
    AccountCredited,
    AccountDebited,
    AccountOpened,
    AccountResult,
    CommandRejected,
    Event,
    IdsSkipped,
    MarketCreated,
    MarketOpened,
    MarketSettled,
    MarketSuspended,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    OrderRejected,
    SelectionSettled,
)
from exchange.core.market import ClosedMarket, Market, MarketStatus, SelectionStatus
from exchange.core.orders import Order
from exchange.core.records import Record
from exchange.core.side import Side

# Enum members used on every instruction, as module constants: on CPython 3.11 ``Enum.MEMBER``
# is a class-attribute lookup through the enum's metaclass (about 60 ns, a tenth of a placement).
_BACK = Side.BACK


@dataclass(frozen=True, slots=True)
class ForgottenMarket:
    """A closed market as the exchange forgot it: its closed record, each account's cleared orders there and
    each account's result on it (net P&L and commission)."""

    market: ClosedMarket
    cleared: dict[str, ClearedOrders]
    results: dict[str, AccountResult]


@dataclass(frozen=True, slots=True)
class ExchangeConfig(Record):
    """Exchange-wide settings.

    ``house_account_id`` receives commission and rounding.  ``min_stake`` (minor
    units) and ``commission_bps`` are a new market's own unless its
    ``CreateMarket`` names others.  ``keep_closed_markets``:
    how many settled or voided markets (with their cleared orders and account
    results) to keep in memory, newest first; ``None`` keeps them all.
    """

    house_account_id: str = "HOUSE"
    min_stake: int = 200
    commission_bps: int = 250
    keep_closed_markets: int | None = None


class ExchangeState:
    """Accounts, markets and orders, and the ``apply_*`` functions that change them."""

    def __init__(self, config: ExchangeConfig | None = None) -> None:
        self.config = config if config is not None else ExchangeConfig()
        self.accounts: dict[str, Account] = {self.config.house_account_id: Account(self.config.house_account_id)}
        #: Every market kept, by market id: the open ones and the closed ones kept (``ClosedMarket``).
        self.markets: dict[str, Market | ClosedMarket] = {}
        #: The markets not yet settled or voided, by market id.
        self.open_markets: dict[str, Market] = {}
        #: The orders of open markets, by bet id.
        self.orders: dict[int, Order] = {}
        #: The cleared orders of the closed markets kept, by bet id.
        self.cleared = ClearedByBetId()
        #: Closed markets kept, oldest first (pruned beyond ``keep_closed_markets``).
        self.closed: deque[str] = deque()
        #: The markets the latest close forgot (``keep_closed_markets``), as they were; replaced at every close.
        #: Not part of the state (no digest or check reads it): only what a driver reads of a close just made.
        self.forgotten: dict[str, ForgottenMarket] = {}
        self.next_bet_id = 1
        self.next_match_id = 1
        #: Deposits minus withdrawals: the sum of all balances, always.
        self.money_in = 0
        self._appliers = self._applier_table()

    def _applier_table(self) -> dict[type, Callable[[Any], object]]:
        """Each event type's ``apply_*`` method of this state (not pickled: a snapshot names no method)."""
        return {
            OrderPlaced: self.apply_order_placed,
            Matched: self.apply_matched,
            OrderCancelled: self.apply_order_cancelled,
            OrderLapsed: self.apply_order_lapsed,
            MatchVoided: self.apply_match_voided,
            AccountOpened: self.apply_account_opened,
            AccountCredited: self.apply_account_credited,
            AccountDebited: self.apply_account_debited,
            MarketCreated: self.apply_market_created,
            MarketOpened: self.apply_market_opened,
            MarketSuspended: self.apply_market_suspended,
            SelectionSettled: self.apply_selection_settled,
            MarketSettled: self.apply_market_settled,
            MarketVoided: self.apply_market_voided,
            IdsSkipped: self.apply_ids_skipped,
            OrderRejected: _ignore,
            CommandRejected: _ignore,
        }

    def __getstate__(self) -> dict[str, Any]:
        """The state as a snapshot pickles it: without :attr:`forgotten`, which is no part of it, nor the table of
        ``apply_*`` methods (a snapshot that named them would not load once one is renamed)."""
        state = self.__dict__.copy()
        state.pop("forgotten", None)
        state.pop("_appliers", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A pickled state (a snapshot), nothing forgotten yet, its appliers this code's."""
        self.__dict__.update(state)
        self.forgotten = {}
        self._appliers = self._applier_table()

    def apply(self, event: Event) -> None:
        """Fold one event into the state."""
        applier = self._appliers.get(type(event))
        if applier is None:
            raise ExchangeError(f"not an event: {event!r}")
        applier(event)

    def require_open_market(self, market_id: str, action: str = "change") -> Market:
        """The open market ``market_id``; a closed or unknown one is a driver's error (for ``action``)."""
        if type(market_id) is not str:
            raise ExchangeError(f"a market id is a string, not {market_id!r:.40}")
        market = self.open_markets.get(market_id)
        if market is None:
            closed = self.markets.get(market_id)
            if closed is None:
                raise ExchangeError(f"market {market_id!r} does not exist")
            raise ExchangeError(f"cannot {action} market {market_id}: it is {closed.status}")
        return market

    # -- orders --------------------------------------------------------------------

    def apply_order_placed(self, ev: OrderPlaced) -> Order:
        """A new order: reserved in its position and queued at the back of its level."""
        if ev.bet_id != self.next_bet_id:
            raise ExchangeError(f"bet id {ev.bet_id} out of order; next is {self.next_bet_id}")
        market = self.open_markets[ev.market_id]
        return self.add_order(ev, self.accounts[ev.account_id], market, market.index[ev.selection_id])

    def add_order(self, ev: OrderPlaced, account: Account, market: Market, sel: int) -> Order:
        """:meth:`apply_order_placed` once the event's account, market and selection index are known
        (the live path has them from its checks)."""
        position = account.positions.get(ev.market_id) or account.open_position(market)
        order = Order(ev.bet_id, position, sel, ev.side is _BACK, ev.tick, ev.size, ev.ts, ev.round, ev.customer_ref,
                      ev.strategy_ref)
        self.orders[ev.bet_id] = order
        self.next_bet_id = ev.bet_id + 1
        position.add_order(order)
        market.books[sel].add(order)
        return order

    def apply_matched(self, ev: Matched) -> None:
        """Both orders fill ``size`` at the match's tick; the book's levels and traded volume follow."""
        if ev.match_id != self.next_match_id:
            raise ExchangeError(f"match id {ev.match_id} out of order; next is {self.next_match_id}")
        back = self.orders[ev.back_bet_id]
        lay = self.orders[ev.lay_bet_id]
        book = back.position.market.books[back.sel]
        resting = lay if ev.taker_side is _BACK else back
        if book.front(resting.is_back, ev.tick) is not resting:
            raise ExchangeError(f"match {ev.match_id} out of order: bet {resting.bet_id} is not first in its queue")
        self.fill(ev, back, lay)

    def fill(self, ev: Matched, back: Order, lay: Order) -> None:
        """:meth:`apply_matched` once its orders are known and checked (the live path has them from the book)."""
        size, tick = ev.size, ev.tick
        market = back.position.market
        market.books[back.sel].trade(back, lay, size, tick)
        back.position.fill(back, size, tick, ev.ts)
        lay.position.fill(lay, size, tick, ev.ts)
        market.fills.append((ev.match_id, ev.ts, back.sel, tick, size, back.bet_id, lay.bet_id))
        self.next_match_id = ev.match_id + 1

    def apply_order_cancelled(self, ev: OrderCancelled) -> None:
        order = self._take_unmatched(ev.bet_id, ev.size)
        order.cancelled += ev.size
        order.cancelled_ts = ev.ts

    def apply_order_lapsed(self, ev: OrderLapsed) -> None:
        order = self._take_unmatched(ev.bet_id, ev.size)
        order.lapsed += ev.size
        order.lapsed_ts, order.lapse_reason = ev.ts, ev.reason

    def _take_unmatched(self, bet_id: int, amount: int) -> Order:
        order = self.orders[bet_id]
        order.position.market.books[order.sel].reduce(order, amount)
        order.position.release(order, amount)
        return order

    def apply_match_voided(self, ev: MatchVoided) -> None:
        """A match is undone: both stakes refunded (voided, not returned to the book)."""
        market = self.require_open_market(ev.market_id)
        fill = market.standing_fill(ev.match_id)
        if fill is None:
            raise ExchangeError(f"match {ev.match_id} is not a standing match of market {market.market_id}")
        _, _, sel, tick, size, back_id, lay_id = fill
        if (market.selection_ids[sel], tick, size, back_id, lay_id) != (
            ev.selection_id, ev.tick, ev.size, ev.back_bet_id, ev.lay_bet_id
        ):
            raise ExchangeError(f"the void of match {ev.match_id} does not name the match: {ev!r}")
        for bet_id in (ev.back_bet_id, ev.lay_bet_id):
            order = self.orders[bet_id]
            order.position.void_fill(order, ev.size, ev.tick)
        market.voided_matches.add(ev.match_id)
        market.books[sel].unrecord_trade(ev.tick, ev.size, market.last_traded_tick(sel))

    # -- accounts ------------------------------------------------------------------

    def apply_account_opened(self, ev: AccountOpened) -> None:
        self.accounts[ev.account_id] = Account(ev.account_id)

    def apply_account_credited(self, ev: AccountCredited) -> None:
        self.accounts[ev.account_id].balance += ev.amount
        self.money_in += ev.amount

    def apply_account_debited(self, ev: AccountDebited) -> None:
        self.accounts[ev.account_id].balance -= ev.amount
        self.money_in -= ev.amount

    def apply_ids_skipped(self, ev: IdsSkipped) -> None:
        if type(ev.count) is not int or ev.count < 0:
            raise ExchangeError(f"ids skipped must be a count (an int from 0 up), not {ev.count!r}")
        self.next_bet_id += ev.count
        self.next_match_id += ev.count

    # -- market lifecycle ------------------------------------------------------------

    def apply_market_created(self, ev: MarketCreated) -> None:
        market = Market(ev.market_id, ev.selection_ids, ev.min_stake, ev.commission_bps)
        self.markets[ev.market_id] = self.open_markets[ev.market_id] = market

    def apply_market_opened(self, ev: MarketOpened) -> None:
        market = self.require_open_market(ev.market_id)
        market.status = MarketStatus.ACTIVE
        market.round = ev.round

    def apply_market_suspended(self, ev: MarketSuspended) -> None:
        self.require_open_market(ev.market_id).status = MarketStatus.SUSPENDED

    def apply_selection_settled(self, ev: SelectionSettled) -> None:
        """A selection lost early: its status, its bets' results, and each position's ``settled`` (the P&L it
        keeps if the market is voided)."""
        market = self.require_open_market(ev.market_id)
        sel = market.index[ev.selection_id]
        market.selection_status[sel] = ev.status
        market.live.remove(sel)
        market.books[sel].clear()
        market.selection_settled_ts[sel] = ev.ts  # every order on the selection is cleared now
        for bet in ev.bets:
            order = self.orders[bet.bet_id]
            order.result = bet
            order.position.settled += bet.profit

    def apply_market_settled(self, ev: MarketSettled) -> None:
        market = self.require_open_market(ev.market_id)
        winners = {market.index[w] for w in ev.winners}
        won = SelectionStatus.WINNER if len(winners) == 1 else SelectionStatus.TIED_DEAD_HEAT
        for i in market.live:
            market.selection_status[i] = won if i in winners else SelectionStatus.LOSER
        market.live = []
        for bet in ev.bets:
            self.orders[bet.bet_id].result = bet
        self._close(market, MarketStatus.SETTLED, ev.ts, ev.accounts, ev.house_account_id, ev.rounding)

    def apply_market_voided(self, ev: MarketVoided) -> None:
        market = self.require_open_market(ev.market_id)
        self._close(market, MarketStatus.VOID, ev.ts, ev.accounts, ev.house_account_id, 0)

    def _close(
        self,
        market: Market,
        status: MarketStatus,
        ts: int,
        results: tuple[AccountResult, ...],
        house_account_id: str,
        rounding: int,
    ) -> None:
        """Post each account's result, pay the house, and compact the market into its cleared records."""
        house = self.accounts[house_account_id]
        for result in results:
            account = self.accounts[result.account_id]
            account.balance += result.profit - result.commission
            house.balance += result.commission
            account.results[market.market_id] = result
        house.balance += rounding
        for book in market.books:
            book.clear()
        matched = market.matched_by_tick()  # what the cleared orders keep of the fills, released with the market
        self.markets[market.market_id] = market.close(status, ts)
        del self.open_markets[market.market_id]
        for account_id, pos in market.positions.items():
            account = self.accounts[account_id]
            del account.positions[market.market_id]
            account.reserved -= pos.reserve()
            cleared = ClearedOrders(order.cleared(matched.get(order.bet_id, ())) for order in pos.orders)
            account.cleared[market.market_id] = cleared
            self.cleared.file(cleared)
            for order in pos.orders:
                del self.orders[order.bet_id]
        self.closed.append(market.market_id)
        self._prune()

    def _prune(self) -> None:
        """Forget the oldest closed markets beyond ``keep_closed_markets`` (kept in :attr:`forgotten` until the
        next close)."""
        keep = self.config.keep_closed_markets
        self.forgotten = {}
        while keep is not None and len(self.closed) > keep:
            market_id = self.closed.popleft()
            market = self.markets.pop(market_id)
            if not isinstance(market, ClosedMarket):  # only closed markets are in self.closed
                raise ExchangeError(f"market {market_id} is in the closed markets but is {market.status}")
            forgotten = self.forgotten[market_id] = ForgottenMarket(market, {}, {})
            for account in self.accounts.values():
                result = account.results.pop(market_id, None)
                if result is not None:
                    forgotten.results[account.account_id] = result
                cleared = account.cleared.pop(market_id, None)
                if cleared is not None:
                    self.cleared.forget(cleared)
                    forgotten.cleared[account.account_id] = cleared


def _ignore(event: Event) -> None:
    """Rejections change nothing."""
