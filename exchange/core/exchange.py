"""The exchange: accounts and markets; commands in, events out.

:class:`Exchange` is the one place money changes.  Drivers (the game, the
HTTP server, backtests, tests) send it commands (:mod:`exchange.core.commands`)
and get back the events (:mod:`exchange.core.events`) that record what happened.
It reads no clock (each command carries ``ts``) and no randomness; bet ids and
match ids are counters.  State is a fold over the events: :meth:`Exchange.apply`
replays one, :meth:`Exchange.replay` rebuilds an exchange from a journal of
events (or of commands), and :meth:`Exchange.state_digest` compares states.

How the drivers use it:

* **Game driver** (owns the clock and the cards): ``CreateMarket`` (SUSPENDED,
  round 0); per betting window ``OpenMarket`` (ACTIVE, next round) and
  ``SuspendMarket`` (lapses every unmatched order); ``ResumeMarket`` (ACTIVE
  again in the same round, an operator's resume); ``SettleSelection`` when a
  hand can no longer win or tie (its bets settle at once; the market settles
  by itself when one hand is left); ``SettleMarket(winners)`` at the river
  (several winners = dead heat); ``VoidMarket`` on a misdeal;
  ``VoidMatchedSince(since_ts)`` when a card was exposed early (an account
  that a voided hedge leaves short has its unmatched orders on the market
  cancelled, ``ACCOUNT_OVERDRAWN``; see the command).  Misuse (unknown
  market, settling twice) raises :class:`ExchangeError`.
* **HTTP layer / agents** (trade for one account each): ``PlaceOrder``,
  ``CancelOrder``, ``ReplaceOrder``, ``ReplaceOrders``, ``OpenAccount``, ``Deposit``,
  ``Withdraw``; a refused instruction comes back as one ``OrderRejected`` /
  ``CommandRejected`` event with an API-NG error code and a message.  Reads:
  :meth:`Exchange.market_book` (``listMarketBook``), :meth:`Exchange.current_orders`,
  :meth:`Exchange.order_view`, :meth:`Exchange.cleared_orders` and
  :meth:`Exchange.market_result` (``listClearedOrders`` with commission),
  :meth:`Exchange.matched_on` (the matched stake by price, for the order stream),
  :meth:`Exchange.matches` (each fill of the account's bets, ``listMarketBook``'s matches),
  :meth:`Exchange.funds` (``getAccountFunds``), :meth:`Exchange.profit_and_loss`.
  Every read takes the caller's account id and shows only that account's data.
* **Journal / stream / backtests**: every event has ``to_dict()``;
  :func:`exchange.core.events.event_from_dict` and :meth:`Exchange.replay` read a
  journal back.

Where things are: the state and the one function per event that changes it
(:mod:`exchange.core.state`), a trader's instructions and matching
(:mod:`exchange.core.trading`), accounts and the market lifecycle
(:mod:`exchange.core.lifecycle`), exposure arithmetic
(:mod:`exchange.core.positions`), settlement arithmetic
(:mod:`exchange.core.settlement`).  This module dispatches commands and
answers the reads.

>>> from decimal import Decimal
>>> from exchange.core.commands import *
>>> ex = Exchange()
>>> for cmd in (OpenAccount(0, "alice"), Deposit(0, "alice", 10_000), OpenAccount(0, "bob"),
...             Deposit(0, "bob", 10_000), CreateMarket(0, "1.1", (1, 2, 3, 4)), OpenMarket(1, "1.1")):
...     _ = ex.execute(cmd)
>>> [type(e).__name__ for e in ex.execute(PlaceOrder(2, "alice", "1.1", 1, Side.LAY, Decimal("3"), 1000))]
['OrderPlaced']
>>> [type(e).__name__ for e in ex.execute(PlaceOrder(3, "bob", "1.1", 1, Side.BACK, Decimal("2.5"), 400))]
['OrderPlaced', 'Matched']
>>> ex.order_view("bob", 2).average_price_matched
Fraction(3, 1)
>>> ex.execute(PlaceOrder(4, "bob", "1.1", 1, Side.BACK, Decimal("2.03"), 400))[0].message
'price 2.03 is not on the ladder; nearest ticks 2.02, 2.04'
>>> _ = ex.execute(SuspendMarket(5, "1.1"))  # alice's unmatched 6.00 lapses
>>> ev = ex.execute(SettleMarket(6, "1.1", winners=(1,)))[-1]
>>> [(a.account_id, a.profit, a.commission) for a in ev.accounts]
[('alice', -800, 0), ('bob', 800, 20)]
>>> ex.funds("bob").balance, ex.funds("HOUSE").balance
(10780, 20)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any

from exchange.core import audit, lifecycle, trading
from exchange.core.accounts import AccountFunds
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    ReplaceOrders,
    ResumeMarket,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
    Withdraw,
)
from exchange.core.errors import ExchangeError, Rejection
from exchange.core.events import AccountResult, Event
from exchange.core.market import ClosedMarket, MarketBook, MarketStatus, SelectionStatus
from exchange.core.order_views import OrderViews
from exchange.core.orders import ClearedOrder, MatchedRow, MatchView, OrderView
from exchange.core.side import Side
from exchange.core.state import ExchangeConfig, ExchangeState

__all__ = ["Exchange", "ExchangeConfig", "cleared_matched_on"]

#: Each command's decider: the function that checks it against the state and applies its events. (Its second
#: argument is the command of the key's type, which a dict's type cannot say.)
_DECIDERS: dict[type[Command], Callable[[ExchangeState, Any], list[Event]]] = {
    PlaceOrder: trading.place,
    CancelOrder: trading.cancel,
    ReplaceOrder: trading.replace,
    ReplaceOrders: trading.replace_orders,
    OpenAccount: lifecycle.open_account,
    Deposit: lifecycle.deposit,
    Withdraw: lifecycle.withdraw,
    CreateMarket: lifecycle.create_market,
    OpenMarket: lifecycle.open_market,
    SuspendMarket: lifecycle.suspend_market,
    ResumeMarket: lifecycle.resume_market,
    SettleSelection: lifecycle.settle_selection,
    SettleMarket: lifecycle.settle_market,
    VoidMarket: lifecycle.void_market,
    VoidMatchedSince: lifecycle.void_matched_since,
}


class Exchange(ExchangeState):
    """Accounts, markets and orders; the single entry point for changing them.

    Write side: :meth:`execute` (a command -> its events), :meth:`apply` (an
    event -> state), :meth:`replay`; :meth:`check_places` tries a batch of
    placements without changing anything.  Read side: :meth:`market_book`,
    :meth:`market_status`, :meth:`selection_statuses`, :meth:`order_view`,
    :meth:`current_orders`, :meth:`cleared_orders`, :meth:`matched_on`, :meth:`matches`,
    :meth:`funds`, :meth:`market_result`, :meth:`profit_and_loss`.
    """

    # ------------------------------------------------------------------ write side

    def execute(self, command: Command) -> list[Event]:
        """Carry out one command; return the events it produced (state already updated).

        A trader's invalid request yields a single rejection event; a driver's
        invalid lifecycle command raises :class:`ExchangeError`.
        """
        decide = _DECIDERS.get(type(command))
        if decide is None:
            raise ExchangeError(f"not a command: {command!r}")
        return decide(self, command)

    def check_places(self, commands: Sequence[PlaceOrder]) -> list[Rejection | None]:
        """What each of several place instructions would meet if they were executed one after another.

        API-NG's ``placeOrders`` is atomic: a call's instructions are all placed
        or none is.  This returns ``None`` for each that would be accepted or
        the :class:`Rejection` it would get; nothing changes
        (:func:`exchange.core.trading.check_places`).

        >>> from exchange.core.commands import *
        >>> ex = Exchange()
        >>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 1000),
        ...             CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1")):
        ...     _ = ex.execute(cmd)
        >>> batch = [PlaceOrder(1, "al", "1.1", 1, Side.BACK, Decimal("2"), 600)] * 2
        >>> [r if r is None else r.code.value for r in ex.check_places(batch)], ex.funds("al").exposure
        ([None, 'INSUFFICIENT_FUNDS'], 0)
        """
        return trading.check_places(self, commands)

    @classmethod
    def replay(cls, records: Iterable[Event | Command], config: ExchangeConfig | None = None) -> Exchange:
        """A new exchange rebuilt from a journal: events are applied, commands executed."""
        exchange = cls(config)
        for record in records:
            if isinstance(record, Event):
                exchange.apply(record)
            elif isinstance(record, Command):
                exchange.execute(record)
            else:
                raise ExchangeError(f"not an event or command: {record!r}")
        return exchange

    # ------------------------------------------------------------------ read side

    def market_book(self, market_id: str, depth: int | None = 3) -> MarketBook | None:
        """``listMarketBook``: status, round, and per runner the best ``depth`` levels (all if None)."""
        market = self.markets.get(market_id)
        if isinstance(market, ClosedMarket):
            return market.book
        return market.view(depth) if market is not None else None

    def market_status(self, market_id: str) -> MarketStatus | None:
        """The market's status; ``None`` for an unknown market (or a closed one no longer kept)."""
        market = self.markets.get(market_id)
        return market.status if market is not None else None

    def selection_statuses(self, market_id: str) -> tuple[SelectionStatus, ...] | None:
        """Each selection's status, in the market's selection order; ``None`` for an unknown market."""
        market = self.markets.get(market_id)
        return None if market is None else tuple(market.selection_status)

    def order_view(self, account_id: str, bet_id: int) -> OrderView | None:
        """One of the account's orders, or ``None`` (also for another account's bet id)."""
        order = self.orders.get(bet_id)
        if order is not None:
            return order.view() if order.account_id == account_id else None
        cleared = self.cleared.get(bet_id)
        return cleared.view() if cleared is not None and cleared.account_id == account_id else None

    def current_orders(
        self, account_id: str, market_id: str | None = None, *, live_only: bool = False,
        views: OrderViews | None = None,
    ) -> tuple[OrderView, ...]:
        """``listCurrentOrders``: the account's orders on markets not yet settled or voided, market by market
        (in the order it first bet on them), each market's by bet id; a bet on a hand settled early is among
        them until its market closes (as Betfair lists it till the market settles).

        ``live_only``: only the orders with an unmatched remainder. ``views``: a caller's memo of the views it
        listed before, for one that lists the same orders at every turn.
        """
        account = self.accounts.get(account_id)
        if account is None:
            return ()
        if market_id is None:
            positions = list(account.positions.values())
        else:
            positions = [account.positions[market_id]] if market_id in account.positions else []
        if views is not None:
            return views.of(positions, live_only)
        return tuple(o.view() for pos in positions for o in pos.orders if o.remaining or not live_only)

    def cleared_orders(self, account_id: str, market_id: str | None = None) -> tuple[ClearedOrder, ...]:
        """``listClearedOrders``: orders on settled or voided markets, and on selections settled early."""
        account = self.accounts.get(account_id)
        if account is None:
            return ()
        out: list[ClearedOrder] = []
        # One market's: looked up, not found by walking them all (a resubscription asks for each closed market).
        markets = account.cleared.keys() | account.positions.keys() if market_id is None else (market_id,)
        for mid in markets:
            out.extend(account.cleared.get(mid, ()))
            pos = account.positions.get(mid)
            if pos is not None:
                statuses = pos.market.selection_status
                done = [o for o in pos.orders if statuses[o.sel] is not SelectionStatus.IN_PLAY]
                if done:
                    matched = pos.market.matched_by_tick({o.bet_id for o in done})
                    out.extend(o.cleared(matched.get(o.bet_id, ())) for o in done)
        return tuple(sorted(out, key=lambda c: c.bet_id))

    def matched_on(self, account_id: str, market_id: str, selection_ids: Iterable[int]
                   ) -> dict[int, tuple[MatchedRow, ...]]:
        """The account's standing matched stake on some selections of a market: per selection id, one
        ``(side, strategy ref, stake by tick)`` row per bet of the account with a standing match, by bet id
        (voided matches left out; a selection with none absent), from the fills while the market is open, from
        the cleared orders once it has closed.  One pass over the market's fills, whatever the selections.

        >>> from exchange.core.commands import *
        >>> ex = Exchange()
        >>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 5000), OpenAccount(0, "bo"), Deposit(0, "bo", 5000),
        ...             CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
        ...             PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3.2"), 200),
        ...             PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 200),
        ...             PlaceOrder(1, "bo", "1.1", 2, Side.LAY, Decimal("2"), 300),
        ...             PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 400, strategy_ref="s1"),
        ...             PlaceOrder(2, "al", "1.1", 2, Side.BACK, Decimal("2"), 300)):
        ...     _ = ex.execute(cmd)
        >>> ex.matched_on("al", "1.1", [1])
        {1: ((<Side.BACK: 'BACK'>, 's1', ((149, 200), (153, 200))),)}
        >>> ex.matched_on("bo", "1.1", [1, 9]), ex.matched_on("cy", "1.1", [1])
        ({1: ((<Side.LAY: 'LAY'>, None, ((153, 200),)), (<Side.LAY: 'LAY'>, None, ((149, 200),)))}, {})
        >>> _ = ex.execute(SettleMarket(3, "1.1", (1,)))
        >>> ex.matched_on("al", "1.1", [1, 2]) == {1: ((Side.BACK, "s1", ((149, 200), (153, 200))),),
        ...                                        2: ((Side.BACK, None, ((99, 300),)),)}  # from the cleared orders
        True
        """
        account = self.accounts.get(account_id)
        if account is None:
            return {}
        wanted = set(selection_ids)
        pos = account.positions.get(market_id)
        if pos is None:  # closed (or never bet on): what the cleared orders kept
            return cleared_matched_on(account.cleared.get(market_id, ()), wanted)
        mine = {o.bet_id: o for o in pos.orders if o.selection_id in wanted}
        matched = pos.market.matched_by_tick(mine) if mine else {}
        return _by_selection([(o.selection_id, bet_id, (o.side, o.strategy_ref, matched[bet_id]))
                              for bet_id, o in mine.items() if bet_id in matched])

    def matches(self, account_id: str, market_id: str) -> tuple[MatchView, ...]:
        """The account's matches on an open market, one per fill of each of its bets, in match order, voided
        matches left out; ``()`` once the market has closed (its fills are released; :meth:`matched_on`
        still has the stake by price).  O(the market's fills).
        """
        account = self.accounts.get(account_id)
        pos = account.positions.get(market_id) if account is not None else None
        if pos is None:
            return ()
        market = pos.market
        mine = {o.bet_id for o in pos.orders}
        out = []
        for match_id, ts, sel, tick, size, back_id, lay_id in market.standing_fills():
            for bet_id, side in ((back_id, Side.BACK), (lay_id, Side.LAY)):
                if bet_id in mine:
                    out.append(MatchView(bet_id, match_id, market.selection_ids[sel], side, tick, size, ts))
        return tuple(out)

    def funds(self, account_id: str) -> AccountFunds | None:
        """``getAccountFunds``: balance, exposure, available to bet (minor units)."""
        account = self.accounts.get(account_id)
        return account.funds() if account is not None else None

    def market_result(self, account_id: str, market_id: str) -> AccountResult | None:
        """An account's net P&L and commission on a settled or voided market."""
        account = self.accounts.get(account_id)
        return account.results.get(market_id) if account is not None else None

    def profit_and_loss(self, account_id: str, market_id: str) -> dict[int, Decimal] | None:
        """``listMarketProfitAndLoss``: matched P&L if each selection wins alone, in minor units (pennies) as exact
        ``Decimal`` (a fraction of a penny kept: commission and rounding not applied)."""
        account = self.accounts.get(account_id)
        pos = account.positions.get(market_id) if account is not None else None
        if pos is None:
            return None
        return {sid: Decimal(x).scaleb(-2) for sid, x in pos.if_win().items()}

    # ------------------------------------------------------------------ checking

    def state_digest(self) -> str:
        """A SHA-256 of the whole state; equal digests mean equal states (see :mod:`exchange.core.audit`)."""
        return audit.state_digest(self)

    def _check(self) -> None:
        """Raise :class:`~exchange.core.errors.LedgerError` if any invariant is broken (O(state); for tests)."""
        audit.check(self)


def cleared_matched_on(cleared: Iterable[ClearedOrder], selection_ids: Iterable[int]
                       ) -> dict[int, tuple[MatchedRow, ...]]:
    """:meth:`Exchange.matched_on` of a closed market, from an account's cleared orders there (also those of a
    market the exchange has just forgotten, :attr:`~exchange.core.state.ExchangeState.forgotten`)."""
    wanted = set(selection_ids)
    return _by_selection([(c.selection_id, c.bet_id, (c.side, c.strategy_ref, c.matched_by_tick))
                          for c in cleared if c.selection_id in wanted and c.matched_by_tick])


def _by_selection(rows: Iterable[tuple[int, int, MatchedRow]]) -> dict[int, tuple[MatchedRow, ...]]:
    """``(selection id, bet id, row)`` triples as :meth:`Exchange.matched_on` answers them: by selection, in bet
    id order."""
    out: dict[int, list[MatchedRow]] = {}
    for selection_id, _, row in sorted(rows, key=lambda r: r[1]):
        out.setdefault(selection_id, []).append(row)
    return {selection_id: tuple(runner_rows) for selection_id, runner_rows in out.items()}
