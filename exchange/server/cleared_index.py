"""Each account's cleared orders, kept in ``listClearedOrders`` order between requests.

The core answers :meth:`~exchange.core.exchange.Exchange.cleared_orders` by
walking every order of every market the account ever bet on: about 9 µs an
order, so 45 ms for an account with 5,000 settled bets, on every call, with the
loop stopped. This index does that walk once per account, at the server's start (or
when an account opens, with nothing to walk) and afterwards refreshes only the
markets whose cleared orders may have changed: those named by a settling,
voiding, lapsing or cancelling event since the account's last request, among
the markets it has orders on, a few markets per turn of the loop. The house's
own account (thousands of orders a game, and no client) is left out. A page
is then an index lookup (``O(log n + page)``) in a
:class:`~sortedcontainers.SortedKeyList` per bet status, sorted by
``(settled_ts, bet_id)`` as the listing is.

Memory stays bounded as the core's does: the rows of a market the core has
forgotten (``ExchangeConfig.keep_closed_markets``) are read from the server's
memory of how it ended (:mod:`~exchange.server.ended_markets`) until that too
forgets it and the service calls :meth:`ClearedIndex.forget`; and the log of changed markets is cut short once
it is :data:`LOG_LIMIT` long (an account that has not read since the part cut
off keeps the markets it named, among its own, as pending).

The core (and, for the markets it forgot, that memory) stays the authority:
:meth:`ClearedIndex._check` compares the index with their own answer, and the
tests call it after random flows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass, field
from itertools import chain

from sortedcontainers import SortedKeyList

from engine import InvariantError
from exchange.core.events import (
    AccountOpened,
    Event,
    MarketSettled,
    MarketVoided,
    MatchVoided,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    SelectionSettled,
)
from exchange.core.exchange import Exchange
from exchange.core.orders import BetStatus, ClearedOrder
from exchange.server.ended_markets import EndedMarkets

#: Events after which a market's cleared orders may differ.
_CHANGES = (SelectionSettled, MarketSettled, MarketVoided, MatchVoided, OrderLapsed, OrderCancelled)
#: The change log is cut to half this length when it reaches it.
LOG_LIMIT = 4096


def _key(order: ClearedOrder) -> tuple[int, int]:
    return order.settled_ts, order.bet_id


def _listed(order: ClearedOrder) -> tuple[ClearedOrder, ...]:
    """The rows ``order`` is listed as, each under its own ``bet_status``: the bet, and the voided part of a bet
    settled on the rest (:meth:`~exchange.core.orders.ClearedOrder.voided_part`) under ``VOIDED``."""
    part = order.voided_part()
    return (order,) if part is None else (order, part)


def _by_bet(order: ClearedOrder) -> tuple[int, str]:
    return order.bet_id, order.bet_status


def _rows() -> SortedKeyList:
    return SortedKeyList(key=_key)


@dataclass
class _AccountRows:
    seen: int  # the change log's end (an absolute position) when this account's rows were last brought up to date
    markets: set[str]  # markets the account has orders on (the ones a change can concern)
    pending: set[str] = field(default_factory=set)  # its changed markets named by log entries cut before it read
    by_market: dict[str, tuple[ClearedOrder, ...]] = field(default_factory=dict)
    by_status: dict[BetStatus, SortedKeyList] = field(default_factory=lambda: {s: _rows() for s in BetStatus})

    def add_listed(self, orders: Iterable[ClearedOrder]) -> None:
        for order in orders:
            for row in _listed(order):
                self.by_status[row.bet_status].add(row)

    def remove_listed(self, orders: Iterable[ClearedOrder]) -> None:
        for order in orders:
            for row in _listed(order):
                self.by_status[row.bet_status].remove(row)


class ClearedIndex:
    """Cleared orders by account and bet status, refreshed from the events the service sees."""

    def __init__(self, exchange: Callable[[], Exchange], ended: EndedMarkets, *,
                 unindexed: Collection[str] = ()) -> None:
        self._exchange = exchange
        self._ended = ended
        self._unindexed = frozenset(unindexed)
        self._changed: list[str] = []  # market ids, in the order their changes happened (runs collapsed)
        self._base = 0  # the absolute position of _changed[0] (entries cut from the front so far)
        self._accounts: dict[str, _AccountRows] = {}
        self._read = 0  # the log's end (absolute) at the last read

    @property
    def _end(self) -> int:
        return self._base + len(self._changed)

    def note(self, event: Event) -> None:
        """Called with every core event (O(1) amortised); an account is indexed from its opening (but ``unindexed``)."""
        if isinstance(event, OrderPlaced):
            rows = self._accounts.get(event.account_id)
            if rows is not None:
                rows.markets.add(event.market_id)
        elif isinstance(event, _CHANGES):
            # A run of changes to one market is one entry, unless someone has read since it began.
            if self._end <= self._read or self._changed[-1] != event.market_id:
                self._changed.append(event.market_id)
                if len(self._changed) >= LOG_LIMIT:
                    self._cut(len(self._changed) - LOG_LIMIT // 2)
        elif isinstance(event, AccountOpened) and event.account_id not in self._unindexed:
            self._accounts.setdefault(event.account_id, _AccountRows(seen=self._end, markets=set()))
            self._read = self._end  # its changes must start an entry of their own, past what it counts as seen

    def _cut(self, count: int) -> None:
        """Drop the oldest ``count`` log entries; an account not yet past them keeps its markets among them."""
        cut_end = self._base + count
        for rows in self._accounts.values():
            if rows.seen < cut_end:
                rows.pending.update(set(self._changed[max(0, rows.seen - self._base):count]) & rows.markets)
        del self._changed[:count]
        self._base = cut_end

    def forget(self, market_id: str) -> None:
        """Neither the core nor the ended markets keep ``market_id``: drop its rows from every account.
        O(accounts)."""
        for rows in self._accounts.values():
            if market_id in rows.markets:
                rows.markets.discard(market_id)
                rows.pending.discard(market_id)
                rows.remove_listed(rows.by_market.pop(market_id, ()))

    def rebuild(self) -> None:
        """Index every account of the exchange now (but ``unindexed`` ones): at start, before serving."""
        self._changed.clear()
        self._base = self._read = 0
        self._accounts.clear()
        for account in list(self._exchange().accounts):
            if account not in self._unindexed:
                self._build(account)

    def rows(self, account: str, status: BetStatus) -> SortedKeyList:
        """The account's cleared orders of ``status`` in ``(settled_ts, bet_id)`` order; do not modify."""
        rows = self._accounts.get(account)
        if rows is None:
            rows = self._build(account)
        stale, seen = self._stale(rows), self._end
        for market_id in stale:
            self._refresh(account, rows, market_id)
        self._caught_up(rows, stale, seen)
        return rows.by_status[status]

    async def rows_soon(self, account: str, status: BetStatus, pause: Callable[[], Awaitable[None]],
                        per_turn: int = 20) -> SortedKeyList:
        """:meth:`rows`, refreshing ``per_turn`` markets between turns of the loop (``await pause()``).

        The caller must keep other readers of this index out meanwhile (the server's list lane).
        """
        rows = self._accounts.get(account)
        if rows is None:
            rows = self._build(account)
        stale, seen = self._stale(rows), self._end
        for i, market_id in enumerate(stale):
            if i and i % per_turn == 0:
                await pause()
            self._refresh(account, rows, market_id)
        self._caught_up(rows, stale, seen)
        return rows.by_status[status]

    def _stale(self, rows: _AccountRows) -> list[str]:
        """The account's markets changed since it last read (the log's entries after it, and its pending ones)."""
        self._read = self._end
        if rows.seen >= self._end and not rows.pending:
            return []
        return sorted((set(self._changed[max(0, rows.seen - self._base):]) & rows.markets) | rows.pending)

    @staticmethod
    def _caught_up(rows: _AccountRows, refreshed: list[str], seen: int) -> None:
        rows.seen = seen
        rows.pending.difference_update(refreshed)  # a cut during the refresh may have added some of them

    def _build(self, account: str) -> _AccountRows:
        exchange = self._exchange()
        current = exchange.current_orders(account)
        rows = _AccountRows(seen=self._end, markets={o.market_id for o in current})
        grouped: dict[str, list[ClearedOrder]] = {}
        for order in self._all_cleared(account):
            grouped.setdefault(order.market_id, []).append(order)
        rows.add_listed(chain.from_iterable(grouped.values()))
        rows.by_market = {m: tuple(orders) for m, orders in grouped.items()}
        rows.markets |= set(grouped)
        self._accounts[account] = rows
        return rows

    def _refresh(self, account: str, rows: _AccountRows, market_id: str) -> None:
        rows.remove_listed(rows.by_market.pop(market_id, ()))
        exchange = self._exchange()
        if exchange.market_status(market_id) is not None:
            fresh = exchange.cleared_orders(account, market_id)
        else:
            fresh = self._ended.cleared_orders(account, market_id)
        if fresh:
            rows.by_market[market_id] = fresh
            rows.add_listed(fresh)

    def _all_cleared(self, account: str) -> list[ClearedOrder]:
        """The account's cleared orders, by bet id: on the markets the core keeps and those it forgot that the
        server remembers."""
        kept = self._exchange().cleared_orders(account)
        return sorted([*kept, *self._ended.all_cleared_orders(account)], key=lambda o: o.bet_id)

    def _check(self) -> None:
        """Every indexed account's rows, brought up to date, equal the core's cleared orders."""
        for account in list(self._accounts):
            mine = sorted((o for s in BetStatus for o in self.rows(account, s)), key=_by_bet)
            theirs = sorted(chain.from_iterable(map(_listed, self._all_cleared(account))), key=_by_bet)
            if mine != theirs:
                raise InvariantError(f"cleared index of {account!r}: {len(mine)} orders, the core and the ended "
                                     f"markets have {len(theirs)}")
            for status, listed in self._accounts[account].by_status.items():
                if any(o.bet_status is not status for o in listed) or list(listed) != sorted(listed, key=_key):
                    raise InvariantError(f"cleared index of {account!r}: {status} rows out of place or order")
