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
  ``SuspendMarket`` (lapses every unmatched order); ``SettleSelection`` when a
  hand can no longer win or tie (its bets settle at once; the market settles
  by itself when one hand is left); ``SettleMarket(winners)`` at the river
  (several winners = dead heat); ``VoidMarket`` on a misdeal;
  ``VoidMatchedSince(since_ts)`` when a card was exposed early (an account
  that a voided hedge leaves short has its unmatched orders on the market
  cancelled, ``ACCOUNT_OVERDRAWN``; see the command).  Misuse (unknown
  market, settling twice) raises :class:`ExchangeError`.
* **HTTP layer / agents** (trade for one account each): ``PlaceOrder``,
  ``CancelOrder``, ``ReplaceOrder``, ``OpenAccount``, ``Deposit``,
  ``Withdraw``; a refused instruction comes back as one ``OrderRejected`` /
  ``CommandRejected`` event with an API-NG error code and a message.  Reads:
  :meth:`Exchange.market_book` (``listMarketBook``), :meth:`Exchange.current_orders`,
  :meth:`Exchange.order_view`, :meth:`Exchange.cleared_orders` and
  :meth:`Exchange.market_result` (``listClearedOrders`` with commission),
  :meth:`Exchange.funds` (``getAccountFunds``), :meth:`Exchange.profit_and_loss`.
  Every read takes the caller's account id and shows only that account's data.
* **Journal / stream / backtests**: every event has ``to_dict()``;
  :func:`exchange.core.events.event_from_dict` and :meth:`Exchange.replay` read a
  journal back.

Precedence of a place instruction's checks: account, market, runner, then the
selection's own status (a bet on a settled selection gets
``SELECTION_ALREADY_LOST`` / ``SELECTION_ALREADY_WON``, also after the market
settled), then the market's (``MARKET_NOT_OPEN_FOR_BETTING`` while suspended,
before the first window and once voided), round, order and persistence type,
price, size, funds.

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

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from exchange.core import audit, ladder
from exchange.core.accounts import Account, AccountFunds, Position, order_reserve
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
    Withdraw,
)
from exchange.core.errors import ErrorCode, ExchangeError, Rejection
from exchange.core.events import (
    AccountCredited,
    AccountDebited,
    AccountOpened,
    AccountResult,
    CancelReason,
    CommandRejected,
    Event,
    LapseReason,
    MarketCreated,
    MarketOpened,
    MarketSettled,
    MarketSuspended,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderAction,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    OrderRejected,
    SelectionSettled,
    new_order_cancelled,
    new_order_lapsed,
    new_order_rejected,
)
from exchange.core.market import Market, MarketBook, MarketStatus, SelectionStatus
from exchange.core.money import format_minor
from exchange.core.orders import ClearedOrder, Order, OrderType, OrderView, PersistenceType, new_order
from exchange.core.records import Record, mutable_twin
from exchange.core.settlement import final_results, loser_results, void_results
from exchange.core.side import Side

_PX = ladder.PRICE_X100
_MatchedTwin = mutable_twin(Matched)
_OrderPlacedTwin = mutable_twin(OrderPlaced)
_TICK_OF_PRICE = ladder.TICK_OF_PRICE
_BACK = Side.BACK
_LAY = Side.LAY
_ACTIVE = MarketStatus.ACTIVE
_IN_PLAY = SelectionStatus.IN_PLAY
_LIMIT = OrderType.LIMIT
_LAPSE = PersistenceType.LAPSE
#: ``_AT_OR_BELOW[t]``: the bitmask of ticks ``0..t`` (a book's resting backs at or below ``t`` are ``mask & this``).
_AT_OR_BELOW = tuple((2 << t) - 1 for t in range(ladder.TICK_COUNT))
#: ``_BIT[t] == 1 << t`` (a level's bit in a book's mask), without making the big int each time.
_BIT = tuple(1 << t for t in range(ladder.TICK_COUNT))


@dataclass(frozen=True, slots=True)
class ExchangeConfig(Record):
    """Exchange-wide settings: the house account (receives commission and rounding) and market defaults."""

    house_account_id: str = "HOUSE"
    min_stake: int = 200
    commission_bps: int = 250


class Exchange:
    """Accounts, markets and orders; the single entry point for changing them.

    Write side: :meth:`execute` (a command -> its events), :meth:`apply` (an
    event -> state), :meth:`replay`.  Read side: :meth:`market_book`,
    :meth:`order_view`, :meth:`current_orders`, :meth:`cleared_orders`,
    :meth:`funds`, :meth:`market_result`, :meth:`profit_and_loss`.
    """

    def __init__(self, config: ExchangeConfig | None = None) -> None:
        self.config = config if config is not None else ExchangeConfig()
        self.accounts: dict[str, Account] = {self.config.house_account_id: Account(self.config.house_account_id)}
        self.markets: dict[str, Market] = {}
        #: Every order ever accepted, by bet id.
        self.orders: dict[int, Order] = {}
        self.next_bet_id = 1
        self.next_match_id = 1
        #: Deposits minus withdrawals: the sum of all balances, always.
        self.money_in = 0
        self._handlers: dict[type, Callable[[Any], list[Event]]] = {
            CancelOrder: self._cancel,
            ReplaceOrder: self._replace,
            OpenAccount: self._open_account,
            Deposit: self._deposit,
            Withdraw: self._withdraw,
            CreateMarket: self._create_market,
            OpenMarket: self._open_market,
            SuspendMarket: self._suspend_market,
            SettleSelection: self._settle_selection,
            SettleMarket: self._settle_market,
            VoidMarket: self._void_market,
            VoidMatchedSince: self._void_matched_since,
        }
        self._appliers: dict[type, Callable[[Any], None]] = {
            OrderPlaced: self._apply_placed,
            Matched: self._apply_matched,
            OrderCancelled: self._apply_cancelled,
            OrderLapsed: self._apply_lapsed,
            MatchVoided: self._apply_match_voided,
            AccountOpened: self._apply_account_opened,
            AccountCredited: self._apply_credited,
            AccountDebited: self._apply_debited,
            MarketCreated: self._apply_market_created,
            MarketOpened: self._apply_market_opened,
            MarketSuspended: self._apply_market_suspended,
            SelectionSettled: self._apply_selection_settled,
            MarketSettled: self._apply_market_settled,
            MarketVoided: self._apply_market_voided,
            OrderRejected: _ignore,
            CommandRejected: _ignore,
        }

    # ------------------------------------------------------------------ write side

    def execute(self, command: Command) -> list[Event]:
        """Carry out one command; return the events it produced (state already updated).

        A trader's invalid request yields a single rejection event; a driver's
        invalid lifecycle command raises :class:`ExchangeError`.
        """
        if type(command) is not PlaceOrder:
            handler = self._handlers.get(type(command))
            if handler is None:
                raise ExchangeError(f"not a command: {command!r}")
            return handler(command)
        # A PlaceOrder: the hot path, written here rather than in a method of its own, which
        # would cost every placement one more call.  The common case is checked inline,
        # including the funds check (first the account's reserve, then the exact arithmetic of
        # accounts.py, unrolled for an account with one open market); anything else goes to
        # _verify_place, which finds the precise reason for a rejection (or accepts, e.g., a
        # price sent as text).  Then the order is accepted: recorded, its exposure reserved,
        # matched, and what is left queued.
        cmd: PlaceOrder = command
        ok = False
        try:
            account = self.accounts.get(cmd.account_id)
            market = self.markets.get(cmd.market_id)
            size = cmd.size
            side = cmd.side
            if (
                account is not None
                and market is not None
                and type(size) is int
                and (cmd.round is None or cmd.round == market.round)
                and cmd.order_type is _LIMIT
                and cmd.persistence_type is _LAPSE
            ):
                # None unless the market is ACTIVE and the selection in play (Market.betting)
                sel = market.betting.get(cmd.selection_id)
                tick = _TICK_OF_PRICE.get(cmd.price)  # a Decimal (or an equal int) on the ladder
                if (
                    sel is not None
                    and tick is not None
                    and size >= market.min_stake
                    and (side is _BACK or side is _LAY)
                ):
                    # First the account's bound (accounts.py): if what it has not reserved covers this
                    # order's largest loss, the order is affordable whatever its exposure is.
                    reserve = size if side is _BACK else -((size * (100 - _PX[tick])) // 100)
                    if account.balance - account.reserved >= reserve:
                        ok = True
                        pos = account.positions.get(cmd.market_id)
                    else:
                        positions = account.positions
                        pos = positions.get(cmd.market_id)
                        if (
                            pos is None
                            or len(positions) != 1
                            or not market.all_live
                            or len(pos.d) != 4
                            or pos.settled
                        ):
                            ok = _funds_ok(account, market, sel, side is _BACK, tick, size)
                        else:
                            # Four selections in play, one market: the worst outcome with the order (in
                            # hundredths of a unit), unrolled.  An unmatched back adds its stake to its
                            # selection's outcome and takes it from every outcome; a lay takes its
                            # liability from its selection's.  Nothing is settled early here (all four
                            # in play, pos.settled == 0), so the VOID outcome loses nothing.
                            d = pos.d
                            if side is _BACK:
                                dd = 100 * size
                                d[sel] += dd
                                a, b, c, e = d
                                d[sel] -= dd
                                y = pos.ltot - dd
                            else:
                                a, b, c, e = d
                                v = d[sel] + (100 - _PX[tick]) * size
                                if v < a:
                                    a = v
                                y = pos.ltot
                            if b < a:
                                a = b
                            if e < c:
                                c = e
                            y += a if a < c else c
                            if y >= 0 or account.balance >= -(y // 100):
                                ok = True
                            else:
                                x = pos.ltot + min(d)  # short of funds: allowed only if exposure does not rise
                                ok = -(y // 100) <= (-(x // 100) if x < 0 else 0)
        except TypeError:  # an unhashable selection id or a signalling-NaN price
            pass
        if not ok:
            try:
                account, market, sel, tick = self._verify_place(cmd)
            except Rejection as r:
                return [
                    new_order_rejected(
                        cmd.ts, OrderAction.PLACE, cmd.account_id, r.code, r.message,
                        cmd.market_id, cmd.selection_id, None, cmd.customer_ref,
                    )
                ]  # fmt: skip
            pos = account.positions.get(cmd.market_id)
            reserve = order_reserve(side is _BACK, tick, size)
        if TYPE_CHECKING:  # (both paths set them; a runtime assert would cost every placement)
            assert account is not None and market is not None and sel is not None and tick is not None
        ts = cmd.ts
        bet_id = self.next_bet_id
        self.next_bet_id = bet_id + 1
        account_id = cmd.account_id
        market_id = cmd.market_id
        selection_id = cmd.selection_id
        round_ = market.round
        customer_ref = cmd.customer_ref
        placed: Any = _OrderPlacedTwin()  # new_order_placed(...), inlined: one per placement
        placed.ts = ts
        placed.bet_id = bet_id
        placed.account_id = account_id
        placed.market_id = market_id
        placed.selection_id = selection_id
        placed.side = side
        placed.tick = tick
        placed.size = size
        placed.round = round_
        placed.customer_ref = customer_ref
        placed.replaces = None
        placed.__class__ = OrderPlaced
        events: list[Event] = [placed]
        if pos is None:
            pos = _open_position(account, market)
        is_back = side is _BACK
        order: Any = Order()  # orders.new_order(...), inlined: one per placement
        order.bet_id = bet_id
        order.sel = sel
        order.is_back = is_back
        order.tick = tick
        order.remaining = size
        order.matched = 0
        order.matched_x100 = 0
        order.lapsed = 0
        order.cancelled = 0
        order.placed_ts = ts
        order.matched_ts = None
        order.round = round_
        order.customer_ref = customer_ref
        order.position = pos
        order.result = None
        self.orders[bet_id] = order
        pos.orders.append(order)
        book = market.books[sel]
        # Match, then queue what is left (Book.add, inlined: the side is known here).
        account.reserved += reserve
        if is_back:
            stake = 100 * size
            pos.d[sel] += stake
            pos.ltot -= stake
            if book.lay_mask >> tick:  # a resting lay at or above the order's price
                self._match_back(order, market, ts, events)
            left = order.remaining
            if left:
                q = book.backs[tick]
                if q is None:
                    q = book.backs[tick] = deque()
                q.append(order)
                resting = book.back_size[tick]
                book.back_size[tick] = resting + left
                if not resting:
                    book.back_mask |= _BIT[tick]
        else:
            pos.d[sel] -= size * (_PX[tick] - 100)
            if book.back_mask & _AT_OR_BELOW[tick]:  # a resting back at or below it
                self._match_lay(order, market, ts, events)
            left = order.remaining
            if left:
                q = book.lays[tick]
                if q is None:
                    q = book.lays[tick] = deque()
                q.append(order)
                resting = book.lay_size[tick]
                book.lay_size[tick] = resting + left
                if not resting:
                    book.lay_mask |= _BIT[tick]
        return events


    def check_places(self, commands: Sequence[PlaceOrder]) -> list[Rejection | None]:
        """What each of several place instructions would meet if they were executed one after another.

        API-NG's ``placeOrders`` is atomic: a call's instructions are all placed
        or none is.  This checks each one as :meth:`execute` would, counting the
        ones before it as placed and unmatched, and returns ``None`` for each
        that would be accepted or the :class:`Rejection` it would get.  A fill
        only lowers exposure, so an instruction that passes here passes when the
        batch is then executed (barring a driver command in between).  Nothing
        changes: the tentative exposure is taken back before returning.

        >>> from exchange.core.commands import *
        >>> ex = Exchange()
        >>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 1000),
        ...             CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1")):
        ...     _ = ex.execute(cmd)
        >>> batch = [PlaceOrder(1, "al", "1.1", 1, Side.BACK, Decimal("2"), 600)] * 2
        >>> [r if r is None else r.code.value for r in ex.check_places(batch)], ex.funds("al").exposure
        ([None, 'INSUFFICIENT_FUNDS'], 0)
        """
        results: list[Rejection | None] = []
        undo: list[tuple[Position, int, int, int]] = []
        opened: list[tuple[Account, Market]] = []
        try:
            for cmd in commands:
                try:
                    account, market, sel, tick = self._verify_place(cmd)
                except Rejection as r:
                    results.append(r)
                    continue
                results.append(None)
                pos = account.positions.get(market.market_id)
                if pos is None:
                    pos = _open_position(account, market)
                    opened.append((account, market))
                dd, dl = (100 * cmd.size, -100 * cmd.size) if cmd.side is _BACK else (-cmd.size * (_PX[tick] - 100), 0)
                pos.d[sel] += dd
                pos.ltot += dl
                undo.append((pos, sel, dd, dl))
        finally:
            for pos, sel, dd, dl in reversed(undo):
                pos.d[sel] -= dd
                pos.ltot -= dl
            for account, market in opened:
                del account.positions[market.market_id]
                del market.positions[account.account_id]
        return results

    def apply(self, event: Event) -> None:
        """Fold one event into the state (what :meth:`execute` does after deciding)."""
        applier = self._appliers.get(type(event))
        if applier is None:
            raise ExchangeError(f"not an event: {event!r}")
        applier(event)

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

    # -- orders ------------------------------------------------------------

    def _match_and_queue(self, order: Order, market: Market, ts: int, events: list[Event]) -> None:
        """Match a new order against the book, then queue what is left of it at its price.

        (Replaying the events queues the order first and takes the fills off its
        level; the resulting book is the same.)
        """
        book = market.books[order.sel]
        if order.is_back:
            if book.lay_mask >> order.tick:
                self._match_back(order, market, ts, events)
        elif book.back_mask & _AT_OR_BELOW[order.tick]:
            self._match_lay(order, market, ts, events)
        if order.remaining:
            book.add(order)

    def _verify_place(self, cmd: PlaceOrder) -> tuple[Account, Market, int, int]:
        """Check a place instruction; raise :class:`Rejection` with the first problem found."""
        account = self.accounts.get(cmd.account_id)
        if account is None:
            raise Rejection(ErrorCode.INVALID_ACCOUNT, f"account {cmd.account_id!r} does not exist")
        market = self.markets.get(cmd.market_id)
        if market is None:
            raise Rejection(ErrorCode.INVALID_MARKET_ID, f"market {cmd.market_id!r} does not exist")
        sel = market.index.get(cmd.selection_id) if type(cmd.selection_id) is int else None
        if sel is None:
            raise Rejection(
                ErrorCode.INVALID_RUNNER,
                f"selection {cmd.selection_id!r} is not in market {market.market_id}; "
                f"selections are {', '.join(map(str, market.selection_ids))}",
            )
        _check_selection_in_play(market, sel)
        _check_market_active(market, cmd.round)
        if cmd.order_type is not _LIMIT:
            raise Rejection(ErrorCode.INVALID_ORDER_TYPE, f"order type {cmd.order_type} is not offered; use LIMIT")
        if cmd.persistence_type is not _LAPSE:
            raise Rejection(
                ErrorCode.INVALID_PERSISTENCE_TYPE,
                f"persistence type {cmd.persistence_type} is not offered; use LAPSE",
            )
        if cmd.side is not _BACK and cmd.side is not _LAY:
            raise ExchangeError(f"side must be a Side, not {cmd.side!r}")
        tick = _tick_of(cmd.price)
        size = cmd.size
        if type(size) is not int or size < market.min_stake:
            raise Rejection(ErrorCode.INVALID_BET_SIZE, _size_message(size, market.min_stake))
        if not _funds_ok(account, market, sel, cmd.side is _BACK, tick, size):
            pos = account.positions.get(market.market_id)
            current, after = _exposure_change(pos, market, sel, cmd.side is _BACK, tick, size)
            available = account.available()
            raise Rejection(
                ErrorCode.INSUFFICIENT_FUNDS,
                f"this order needs {format_minor(after - current)} more exposure "
                f"but only {format_minor(max(available, 0))} is available to bet",
            )
        return account, market, sel, tick

    def _add_order(
        self, ev: OrderPlaced, account: Account, market: Market, sel: int, pos: Position | None, queue: bool = True
    ) -> Order:
        """Create the order of an :class:`OrderPlaced`, reserve its exposure and (if ``queue``) queue it.

        ``pos`` is the account's position on the market, or ``None`` to create it.
        """
        if pos is None:
            pos = _open_position(account, market)
        order = new_order(ev.bet_id, sel, ev.side is _BACK, ev.tick, ev.size, ev.ts, ev.round, ev.customer_ref, pos)
        self.orders[ev.bet_id] = order
        self.next_bet_id = ev.bet_id + 1
        pos.orders.append(order)
        size = ev.size
        account.reserved += order_reserve(order.is_back, ev.tick, size)
        if order.is_back:
            pos.d[sel] += 100 * size
            pos.ltot -= 100 * size
        else:
            pos.d[sel] -= size * (_PX[ev.tick] - 100)
        if queue:
            market.books[sel].add(order)
        return order

    def _match_back(self, order: Order, market: Market, ts: int, events: list[Event]) -> None:
        """Match an incoming back against resting lays at ticks >= its own, best (highest) first.

        Called only when the book crosses the order.  The hot loop: each fill is
        at the resting lay's tick, updates the resting order, its position and
        the level in O(1), and emits a Matched; the taker's own sums, the
        level's volume and the book's totals are updated once per level or once
        per order.
        """
        book = market.books[order.sel]
        mask = book.lay_mask
        limit = order.tick
        sel = order.sel
        rem = order.remaining
        lays = book.lays
        lay_size = book.lay_size
        volume = book.volume
        add_fill = market.fills.extend
        bet_id = order.bet_id
        account_id = order.position.account_id
        market_id = market.market_id
        sid = market.selection_ids[sel]
        match_id = self.next_match_id
        filled_x100 = 0
        last = limit
        append = events.append
        while mask:
            t = mask.bit_length() - 1
            if t < limit:
                break
            q = lays[t]
            assert q is not None
            p = _PX[t]
            left = lay_size[t]
            start = rem
            while True:
                r = q[0]
                rr = r.remaining
                if not rr:
                    q.popleft()
                    continue
                m = rr if rr < rem else rem
                r.remaining = rr - m
                r.matched += m
                r.matched_x100 += m * p
                r.matched_ts = ts
                rpos = r.position
                c = 100 * m
                rpos.d[sel] -= c
                rpos.ltot += c
                r_id = r.bet_id
                r_acc = rpos.account_id
                ev: Any = _MatchedTwin()  # new_matched(...), inlined: the loop makes one per fill
                ev.ts = ts
                ev.match_id = match_id
                ev.market_id = market_id
                ev.selection_id = sid
                ev.tick = t
                ev.size = m
                ev.back_bet_id = bet_id
                ev.lay_bet_id = r_id
                ev.back_account_id = account_id
                ev.lay_account_id = r_acc
                ev.taker_side = _BACK
                ev.__class__ = Matched
                append(ev)
                add_fill((match_id, ts, sel, t, m, bet_id, r_id))
                match_id += 1
                rem -= m
                left -= m
                if m == rr:
                    q.popleft()
                if not left or not rem:
                    break
            last = t
            traded = start - rem
            volume[t] += traded
            filled_x100 += traded * p
            lay_size[t] = left
            if not left:
                q.clear()
                mask ^= _BIT[t]
            if not rem:
                break
        book.lay_mask = mask
        filled = order.remaining - rem
        self.next_match_id = match_id
        order.remaining = rem
        order.matched += filled
        order.matched_x100 += filled_x100
        order.matched_ts = ts
        order.position.d[sel] += filled_x100 - 100 * filled
        book.last_tick = last
        book.total_matched += filled

    def _match_lay(self, order: Order, market: Market, ts: int, events: list[Event]) -> None:
        """Match an incoming lay against resting backs at ticks <= its own, best (lowest) first (see _match_back)."""
        book = market.books[order.sel]
        mask = book.back_mask
        limit = order.tick
        sel = order.sel
        rem = order.remaining
        backs = book.backs
        back_size = book.back_size
        volume = book.volume
        add_fill = market.fills.extend
        bet_id = order.bet_id
        account_id = order.position.account_id
        market_id = market.market_id
        sid = market.selection_ids[sel]
        match_id = self.next_match_id
        filled_x100 = 0
        last = limit
        append = events.append
        while mask:
            low = mask & -mask
            t = low.bit_length() - 1
            if t > limit:
                break
            q = backs[t]
            assert q is not None
            p = _PX[t]
            gain = p - 100
            left = back_size[t]
            start = rem
            while True:
                r = q[0]
                rr = r.remaining
                if not rr:
                    q.popleft()
                    continue
                m = rr if rr < rem else rem
                r.remaining = rr - m
                r.matched += m
                r.matched_x100 += m * p
                r.matched_ts = ts
                rpos = r.position
                rpos.d[sel] += m * gain
                r_id = r.bet_id
                r_acc = rpos.account_id
                ev: Any = _MatchedTwin()  # new_matched(...), inlined: the loop makes one per fill
                ev.ts = ts
                ev.match_id = match_id
                ev.market_id = market_id
                ev.selection_id = sid
                ev.tick = t
                ev.size = m
                ev.back_bet_id = r_id
                ev.lay_bet_id = bet_id
                ev.back_account_id = r_acc
                ev.lay_account_id = account_id
                ev.taker_side = _LAY
                ev.__class__ = Matched
                append(ev)
                add_fill((match_id, ts, sel, t, m, r_id, bet_id))
                match_id += 1
                rem -= m
                left -= m
                if m == rr:
                    q.popleft()
                if not left or not rem:
                    break
            last = t
            traded = start - rem
            volume[t] += traded
            filled_x100 += traded * p
            back_size[t] = left
            if not left:
                q.clear()
                mask ^= low
            if not rem:
                break
        book.back_mask = mask
        filled = order.remaining - rem
        self.next_match_id = match_id
        order.remaining = rem
        order.matched += filled
        order.matched_x100 += filled_x100
        order.matched_ts = ts
        pos = order.position
        pos.d[sel] += filled * (_PX[limit] - 100) - filled_x100
        pos.ltot += 100 * filled
        book.last_tick = last
        book.total_matched += filled

    def _cancel(self, cmd: CancelOrder) -> list[Event]:
        # The common cases inline: a whole cancel of one's own live order, and a bet already filled
        # or cancelled (refused without raising); anything else goes through _own_live_order.
        bet_id = cmd.bet_id
        order = self.orders.get(bet_id) if type(bet_id) is int else None
        if order is not None and cmd.size_reduction is None:
            pos = order.position
            if pos.account_id == cmd.account_id:
                amount = order.remaining
                if amount and pos.market.status is _ACTIVE:
                    market = pos.market
                    ev = new_order_cancelled(
                        cmd.ts, bet_id, pos.account_id, market.market_id, market.selection_ids[order.sel], amount,
                        CancelReason.BY_USER,
                    )  # fmt: skip
                    # self._apply_cancelled(ev), inlined (cancels are common): the whole remainder comes off
                    market.books[order.sel].reduce(order, amount)
                    self._unreserve(order, amount)
                    order.remaining = 0
                    order.cancelled += amount
                    if order.is_back:
                        pos.d[order.sel] -= 100 * amount
                        pos.ltot += 100 * amount
                    else:
                        pos.d[order.sel] += amount * (_PX[order.tick] - 100)
                    return [ev]
                if not amount:
                    message = _taken_message(order)
                    return [
                        new_order_rejected(
                            cmd.ts, OrderAction.CANCEL, cmd.account_id, ErrorCode.BET_TAKEN_OR_LAPSED, message,
                            None, None, bet_id, None,
                        )
                    ]  # fmt: skip
        try:
            order = self._own_live_order(cmd.account_id, cmd.bet_id)
            reduction = cmd.size_reduction
            if reduction is None:
                amount = order.remaining
            elif type(reduction) is not int or reduction <= 0:
                raise Rejection(
                    ErrorCode.INVALID_BET_SIZE,
                    f"size reduction {reduction!r} must be a positive number of minor units",
                )
            else:
                amount = min(reduction, order.remaining)
        except Rejection as r:
            return [_order_rejected(cmd.ts, OrderAction.CANCEL, cmd.account_id, r, cmd.bet_id)]
        ev = new_order_cancelled(
            cmd.ts, order.bet_id, order.account_id, order.market_id, order.selection_id, amount, CancelReason.BY_USER
        )
        self._apply_cancelled(ev)
        return [ev]

    def _own_live_order(self, account_id: str, bet_id: int) -> Order:
        """The caller's own order with unmatched size in an ACTIVE market, else a Rejection."""
        if account_id not in self.accounts:
            raise Rejection(ErrorCode.INVALID_ACCOUNT, f"account {account_id!r} does not exist")
        order = self.orders.get(bet_id) if type(bet_id) is int else None
        if order is None or order.position.account_id != account_id:
            # Someone else's bet is reported exactly like a bet that does not exist.
            raise Rejection(ErrorCode.INVALID_BET_ID, f"bet id {bet_id!r} is not one of your orders")
        if not order.remaining:
            raise Rejection(ErrorCode.BET_TAKEN_OR_LAPSED, _taken_message(order))
        market = order.position.market
        if market.status is not _ACTIVE:  # pragma: no cover - unmatched orders lapse when a window closes
            raise Rejection(ErrorCode.MARKET_NOT_OPEN_FOR_BETTING, f"market {market.market_id} is {market.status}")
        return order

    def _replace(self, cmd: ReplaceOrder) -> list[Event]:
        try:
            order = self._own_live_order(cmd.account_id, cmd.bet_id)
            market = order.position.market
            _check_market_active(market, cmd.round)
            tick = _tick_of(cmd.new_price)
            amount = order.remaining
            if not order.is_back and tick > order.tick:
                # Only a lay's exposure depends on its price, and only a longer price needs more.
                account = self.accounts[cmd.account_id]
                pos = order.position
                dd = amount * (_PX[order.tick] - _PX[tick])
                current = pos.exposure()
                after = pos.exposure_if(order.sel, dd, 0)
                available = account.available()
                if available - (after - current) < 0:
                    raise Rejection(
                        ErrorCode.INSUFFICIENT_FUNDS,
                        f"the new price needs {format_minor(after - current)} more exposure "
                        f"but only {format_minor(max(available, 0))} is available to bet",
                    )
        except Rejection as r:
            return [_order_rejected(cmd.ts, OrderAction.REPLACE, cmd.account_id, r, cmd.bet_id)]
        cancelled = OrderCancelled(
            cmd.ts, order.bet_id, order.account_id, order.market_id, order.selection_id, amount, CancelReason.REPLACED
        )
        self._apply_cancelled(cancelled)
        placed = OrderPlaced(
            cmd.ts, self.next_bet_id, order.account_id, order.market_id, order.selection_id,
            order.side, tick, amount, market.round, order.customer_ref, order.bet_id,
        )  # fmt: skip
        new = self._add_order(placed, self.accounts[cmd.account_id], market, order.sel, order.position, queue=False)
        events: list[Event] = [cancelled, placed]
        self._match_and_queue(new, market, cmd.ts, events)
        return events

    # -- accounts ----------------------------------------------------------

    def _open_account(self, cmd: OpenAccount) -> list[Event]:
        if not isinstance(cmd.account_id, str) or not cmd.account_id:
            return [_command_rejected(cmd, ErrorCode.INVALID_ACCOUNT, "account id must be a non-empty string")]
        if cmd.account_id in self.accounts:
            return [_command_rejected(cmd, ErrorCode.DUPLICATE_ACCOUNT, f"account {cmd.account_id!r} already exists")]
        ev = AccountOpened(cmd.ts, cmd.account_id)
        self._apply_account_opened(ev)
        return [ev]

    def _deposit(self, cmd: Deposit) -> list[Event]:
        if cmd.account_id not in self.accounts:
            return [_command_rejected(cmd, ErrorCode.INVALID_ACCOUNT, f"account {cmd.account_id!r} does not exist")]
        if type(cmd.amount) is not int or cmd.amount <= 0:
            return [_command_rejected(cmd, ErrorCode.INVALID_AMOUNT, f"amount {cmd.amount!r} must be positive")]
        ev = AccountCredited(cmd.ts, cmd.account_id, cmd.amount, cmd.reason)
        self._apply_credited(ev)
        return [ev]

    def _withdraw(self, cmd: Withdraw) -> list[Event]:
        account = self.accounts.get(cmd.account_id)
        if account is None:
            return [_command_rejected(cmd, ErrorCode.INVALID_ACCOUNT, f"account {cmd.account_id!r} does not exist")]
        if type(cmd.amount) is not int or cmd.amount <= 0:
            return [_command_rejected(cmd, ErrorCode.INVALID_AMOUNT, f"amount {cmd.amount!r} must be positive")]
        available = account.available()
        if cmd.amount > available:
            return [
                _command_rejected(
                    cmd,
                    ErrorCode.INSUFFICIENT_FUNDS,
                    f"cannot withdraw {format_minor(cmd.amount)}; available {format_minor(max(available, 0))}",
                )
            ]
        ev = AccountDebited(cmd.ts, cmd.account_id, cmd.amount, cmd.reason)
        self._apply_debited(ev)
        return [ev]

    # -- market lifecycle (game driver; misuse raises) ------------------------

    def _market(self, market_id: str) -> Market:
        market = self.markets.get(market_id)
        if market is None:
            raise ExchangeError(f"market {market_id!r} does not exist")
        return market

    def _open_only(self, market_id: str, action: str) -> Market:
        market = self._market(market_id)
        if not market.is_open:
            raise ExchangeError(f"cannot {action} market {market_id}: it is {market.status}")
        return market

    def _create_market(self, cmd: CreateMarket) -> list[Event]:
        if cmd.market_id in self.markets:
            raise ExchangeError(f"market {cmd.market_id!r} already exists")
        ids = tuple(cmd.selection_ids)
        if len(ids) < 2 or len(set(ids)) != len(ids) or not all(type(i) is int for i in ids):
            raise ExchangeError(f"selection ids must be at least two distinct ints, not {ids!r}")
        min_stake = self.config.min_stake if cmd.min_stake is None else cmd.min_stake
        bps = self.config.commission_bps if cmd.commission_bps is None else cmd.commission_bps
        if type(min_stake) is not int or min_stake <= 0:
            raise ExchangeError(f"minimum stake must be a positive int of minor units, not {min_stake!r}")
        if type(bps) is not int or not 0 <= bps <= 10_000:
            raise ExchangeError(f"commission must be 0..10000 basis points, not {bps!r}")
        ev = MarketCreated(cmd.ts, cmd.market_id, ids, min_stake, bps)
        self._apply_market_created(ev)
        return [ev]

    def _open_market(self, cmd: OpenMarket) -> list[Event]:
        market = self._market(cmd.market_id)
        if market.status is not MarketStatus.SUSPENDED:
            raise ExchangeError(f"cannot open market {cmd.market_id}: it is {market.status}")
        ev = MarketOpened(cmd.ts, cmd.market_id, market.round + 1)
        self._apply_market_opened(ev)
        return [ev]

    def _suspend_market(self, cmd: SuspendMarket) -> list[Event]:
        market = self._market(cmd.market_id)
        if market.status is not _ACTIVE:
            raise ExchangeError(f"cannot suspend market {cmd.market_id}: it is {market.status}")
        events: list[Event] = self._lapse(market, None, cmd.ts, LapseReason.WINDOW_CLOSED)
        ev = MarketSuspended(cmd.ts, cmd.market_id, market.round)
        self._apply_market_suspended(ev)
        events.append(ev)
        return events

    def _lapse(self, market: Market, only_sel: int | None, ts: int, reason: LapseReason) -> list[Event]:
        """Lapse every live order of a market (or one selection), in book order; apply and return the events."""
        events: list[Event] = []
        for sel, book in enumerate(market.books):
            if only_sel is not None and sel != only_sel:
                continue
            for o in book.live_orders():
                ev = new_order_lapsed(ts, o.bet_id, o.account_id, o.market_id, o.selection_id, o.remaining, reason)
                self._apply_lapsed(ev)
                events.append(ev)
        return events

    def _settle_selection(self, cmd: SettleSelection) -> list[Event]:
        market = self._open_only(cmd.market_id, "settle a selection of")
        sel = market.index.get(cmd.selection_id)
        if sel is None:
            raise ExchangeError(f"selection {cmd.selection_id!r} is not in market {cmd.market_id}")
        if market.selection_status[sel] is not _IN_PLAY:
            raise ExchangeError(f"selection {cmd.selection_id} is already {market.selection_status[sel]}")
        events = self._lapse(market, sel, cmd.ts, LapseReason.SELECTION_SETTLED)
        bets = loser_results(o for pos in market.positions.values() for o in pos.orders if o.sel == sel)
        ev = SelectionSettled(cmd.ts, cmd.market_id, cmd.selection_id, SelectionStatus.LOSER, tuple(bets))
        self._apply_selection_settled(ev)
        events.append(ev)
        if len(market.live) == 1:
            winner = market.selection_ids[market.live[0]]
            events.extend(self._settle(market, (winner,), cmd.ts))
        return events

    def _settle_market(self, cmd: SettleMarket) -> list[Event]:
        market = self._open_only(cmd.market_id, "settle")
        winners = tuple(cmd.winners)
        if not winners or len(set(winners)) != len(winners):
            raise ExchangeError(f"winners must be distinct selection ids, not {winners!r}")
        for w in winners:
            if w not in market.index:
                raise ExchangeError(f"winner {w!r} is not a selection of market {cmd.market_id}")
            if market.selection_status[market.index[w]] is not _IN_PLAY:
                raise ExchangeError(f"winner {w} was already settled {market.selection_status[market.index[w]]}")
        return self._settle(market, winners, cmd.ts)

    def _settle(self, market: Market, winners: tuple[int, ...], ts: int) -> list[Event]:
        events = self._lapse(market, None, ts, LapseReason.MARKET_SETTLED)
        indices = frozenset(market.index[w] for w in winners)
        bets, accounts, rounding = final_results(market.positions.values(), indices, market.commission_bps)
        ev = MarketSettled(
            ts, market.market_id, winners, tuple(bets), tuple(accounts), rounding, self.config.house_account_id
        )
        self._apply_market_settled(ev)
        events.append(ev)
        return events

    def _void_market(self, cmd: VoidMarket) -> list[Event]:
        market = self._open_only(cmd.market_id, "void")
        events: list[Event] = []
        for book in market.books:
            for o in book.live_orders():
                ev = OrderCancelled(
                    cmd.ts, o.bet_id, o.account_id, o.market_id, o.selection_id, o.remaining, CancelReason.MARKET_VOIDED
                )
                self._apply_cancelled(ev)
                events.append(ev)
        events.extend(self._void_matches(market, None, cmd.ts, cmd.reason))
        accounts = void_results(market.positions.values(), market.commission_bps)
        voided = MarketVoided(cmd.ts, cmd.market_id, tuple(accounts), self.config.house_account_id, cmd.reason)
        self._apply_market_voided(voided)
        events.append(voided)
        return events

    def _void_matched_since(self, cmd: VoidMatchedSince) -> list[Event]:
        market = self._open_only(cmd.market_id, "void bets of")
        events = self._void_matches(market, cmd.since_ts, cmd.ts, cmd.reason)
        events.extend(self._cancel_overdrawn(market, events, cmd.ts))
        return events

    def _cancel_overdrawn(self, market: Market, voided: list[Event], ts: int) -> list[Event]:
        """Cancel the unmatched orders on ``market`` of each account that the voids left below zero.

        A voided hedge brings back the risk it covered, so an account party to
        a voided match can find its exposure above its balance.  Cancelling its
        unmatched orders on the market releases what they reserve (unmatched
        orders only ever add exposure); whatever is still short stays short.
        Accounts are taken in order of their first voided match, orders by bet id.
        """
        parties: dict[str, None] = {}
        for ev in voided:
            assert isinstance(ev, MatchVoided)
            parties[ev.back_account_id] = None
            parties[ev.lay_account_id] = None
        events: list[Event] = []
        for account_id in parties:
            if self.accounts[account_id].available() >= 0:
                continue
            for o in market.positions[account_id].orders:
                if o.remaining:
                    ev = OrderCancelled(
                        ts, o.bet_id, account_id, o.market_id, o.selection_id, o.remaining,
                        CancelReason.ACCOUNT_OVERDRAWN,
                    )  # fmt: skip
                    self._apply_cancelled(ev)
                    events.append(ev)
        return events

    def _void_matches(self, market: Market, since_ts: int | None, ts: int, reason: str) -> list[Event]:
        """Void every unvoided match on selections still in play (at or after ``since_ts`` if given)."""
        events: list[Event] = []
        live = set(market.live)
        voided = market.voided_matches
        for match_id, (fill_ts, sel, tick, size, back_id, lay_id) in list(market.matches()):
            if match_id in voided or sel not in live or (since_ts is not None and fill_ts < since_ts):
                continue
            ev = MatchVoided(
                ts, match_id, market.market_id, market.selection_ids[sel], tick, size,
                back_id, lay_id, self.orders[back_id].account_id, self.orders[lay_id].account_id, reason,
            )  # fmt: skip
            self._apply_match_voided(ev)
            events.append(ev)
        return events

    # ------------------------------------------------------------------ appliers

    def _apply_placed(self, ev: OrderPlaced) -> None:
        market = self.markets[ev.market_id]
        account = self.accounts[ev.account_id]
        sel = market.index[ev.selection_id]
        self._add_order(ev, account, market, sel, account.positions.get(ev.market_id))

    def _apply_matched(self, ev: Matched) -> None:
        market = self.markets[ev.market_id]
        sel = market.index[ev.selection_id]
        book = market.books[sel]
        back = self.orders[ev.back_bet_id]
        lay = self.orders[ev.lay_bet_id]
        taker, resting = (back, lay) if ev.taker_side is _BACK else (lay, back)
        if book.front(resting.is_back, ev.tick) is not resting or ev.match_id != self.next_match_id:
            raise ExchangeError(f"event out of order: {ev!r}")
        m = ev.size
        p = _PX[ev.tick]
        for o in (back, lay):
            o.remaining -= m
            o.matched += m
            o.matched_x100 += m * p
            o.matched_ts = ev.ts
        back.position.d[sel] += m * (p - 100)
        lay.position.d[sel] += m * (_PX[lay.tick] - p - 100)
        lay.position.ltot += 100 * m
        book.reduce(resting, m)
        book.reduce(taker, m)
        book.record_trade(ev.tick, m)
        market.add_match(ev.match_id, (ev.ts, sel, ev.tick, m, ev.back_bet_id, ev.lay_bet_id))
        self.next_match_id = ev.match_id + 1

    def _unreserve(self, order: Order, amount: int) -> None:
        """Take ``amount`` off the order's live size in its account's reserve (before the order changes)."""
        live = order.remaining + order.matched
        self.accounts[order.position.account_id].reserved -= order_reserve(
            order.is_back, order.tick, live
        ) - order_reserve(order.is_back, order.tick, live - amount)

    def _release(self, order: Order, amount: int) -> None:
        """Take ``amount`` of an order's unmatched size out of the book, its exposure and its reserve."""
        pos = order.position
        pos.market.books[order.sel].reduce(order, amount)
        self._unreserve(order, amount)
        order.remaining -= amount
        if order.is_back:
            pos.d[order.sel] -= 100 * amount
            pos.ltot += 100 * amount
        else:
            pos.d[order.sel] += amount * (_PX[order.tick] - 100)

    def _apply_cancelled(self, ev: OrderCancelled) -> None:
        order = self.orders[ev.bet_id]
        self._release(order, ev.size)
        order.cancelled += ev.size

    def _apply_lapsed(self, ev: OrderLapsed) -> None:
        order = self.orders[ev.bet_id]
        self._release(order, ev.size)
        order.lapsed += ev.size

    def _apply_match_voided(self, ev: MatchVoided) -> None:
        market = self.markets[ev.market_id]
        sel = market.index[ev.selection_id]
        back = self.orders[ev.back_bet_id]
        lay = self.orders[ev.lay_bet_id]
        m = ev.size
        p = _PX[ev.tick]
        for o in (back, lay):
            self._unreserve(o, m)
            o.matched -= m
            o.matched_x100 -= m * p
            market.voided_stakes[o.bet_id] = market.voided_stakes.get(o.bet_id, 0) + m
        back.position.d[sel] -= m * p
        back.position.ltot += 100 * m
        lay.position.d[sel] += m * p
        lay.position.ltot -= 100 * m
        market.voided_matches.add(ev.match_id)
        market.books[sel].unrecord_trade(ev.tick, m, market.last_traded_tick(sel))

    def _apply_account_opened(self, ev: AccountOpened) -> None:
        self.accounts[ev.account_id] = Account(ev.account_id)

    def _apply_credited(self, ev: AccountCredited) -> None:
        self.accounts[ev.account_id].balance += ev.amount
        self.money_in += ev.amount

    def _apply_debited(self, ev: AccountDebited) -> None:
        self.accounts[ev.account_id].balance -= ev.amount
        self.money_in -= ev.amount

    def _apply_market_created(self, ev: MarketCreated) -> None:
        self.markets[ev.market_id] = Market(ev.market_id, ev.selection_ids, ev.min_stake, ev.commission_bps)

    def _apply_market_opened(self, ev: MarketOpened) -> None:
        market = self.markets[ev.market_id]
        market.status = _ACTIVE
        market.round = ev.round
        market.sync_betting()

    def _apply_market_suspended(self, ev: MarketSuspended) -> None:
        market = self.markets[ev.market_id]
        market.status = MarketStatus.SUSPENDED
        market.sync_betting()

    def _apply_selection_settled(self, ev: SelectionSettled) -> None:
        market = self.markets[ev.market_id]
        sel = market.index[ev.selection_id]
        market.selection_status[sel] = ev.status
        market.live.remove(sel)
        market.all_live = False
        market.sync_betting()
        market.books[sel].clear()
        for bet in ev.bets:
            order = self.orders[bet.bet_id]
            order.result = bet
            order.position.settled += bet.profit  # the position's P&L if the market is voided
        market.selection_settled_ts[sel] = ev.ts  # every order on the selection is cleared now

    def _apply_market_settled(self, ev: MarketSettled) -> None:
        market = self.markets[ev.market_id]
        winners = {market.index[w] for w in ev.winners}
        won = SelectionStatus.WINNER if len(winners) == 1 else SelectionStatus.TIED_DEAD_HEAT
        for i in market.live:
            market.selection_status[i] = won if i in winners else SelectionStatus.LOSER
        market.live = []
        market.all_live = False
        market.sync_betting()
        for bet in ev.bets:
            order = self.orders[bet.bet_id]
            order.result = bet
        self._close(market, MarketStatus.SETTLED, ev.ts, ev.accounts, ev.house_account_id, ev.rounding)

    def _apply_market_voided(self, ev: MarketVoided) -> None:
        self._close(self.markets[ev.market_id], MarketStatus.VOID, ev.ts, ev.accounts, ev.house_account_id, 0)

    def _close(
        self,
        market: Market,
        status: MarketStatus,
        ts: int,
        results: tuple[AccountResult, ...],
        house_account_id: str,
        rounding: int,
    ) -> None:
        """Post each account's result, pay the house, and move positions to the accounts' history."""
        house = self.accounts[house_account_id]
        for result in results:
            account = self.accounts[result.account_id]
            account.balance += result.profit - result.commission
            house.balance += result.commission
            account.results[market.market_id] = result
            pos = account.closed[market.market_id] = account.positions.pop(market.market_id)
            account.reserved -= pos.reserve()
        house.balance += rounding
        market.status = status
        market.sync_betting()
        market.settled_ts = ts
        for book in market.books:
            book.clear()

    # ------------------------------------------------------------------ read side

    def market_book(self, market_id: str, depth: int | None = 3) -> MarketBook | None:
        """``listMarketBook``: status, round, and per runner the best ``depth`` levels (all if None)."""
        market = self.markets.get(market_id)
        return market.view(depth) if market is not None else None

    def market_status(self, market_id: str) -> MarketStatus | None:
        market = self.markets.get(market_id)
        return market.status if market is not None else None

    def order_view(self, account_id: str, bet_id: int) -> OrderView | None:
        """One of the account's orders, or ``None`` (also for another account's bet id)."""
        order = self.orders.get(bet_id)
        if order is None or order.account_id != account_id:
            return None
        return order.view()

    def selection_statuses(self, market_id: str) -> tuple[SelectionStatus, ...] | None:
        """Each selection's status, in the market's selection order; ``None`` for an unknown market."""
        market = self.markets.get(market_id)
        return None if market is None else tuple(market.selection_status)

    def current_orders(
        self, account_id: str, market_id: str | None = None, *, live_only: bool = False
    ) -> tuple[OrderView, ...]:
        """``listCurrentOrders``: the account's orders on markets not yet settled or voided, by bet id.

        ``live_only``: only the orders with an unmatched remainder.
        """
        account = self.accounts.get(account_id)
        if account is None:
            return ()
        positions = [account.positions[market_id]] if market_id in account.positions else []
        if market_id is None:
            positions = list(account.positions.values())
        return tuple(o.view() for pos in positions for o in pos.orders if o.remaining or not live_only)

    def cleared_orders(self, account_id: str, market_id: str | None = None) -> tuple[ClearedOrder, ...]:
        """``listClearedOrders``: orders on settled or voided markets, and on selections settled early."""
        account = self.accounts.get(account_id)
        if account is None:
            return ()
        out: list[ClearedOrder] = []
        for mid, pos in account.closed.items():
            if market_id is None or mid == market_id:
                out.extend(o.cleared() for o in pos.orders)
        for mid, pos in account.positions.items():
            if market_id is None or mid == market_id:
                market = pos.market
                out.extend(o.cleared() for o in pos.orders if market.selection_status[o.sel] is not _IN_PLAY)
        return tuple(sorted(out, key=lambda c: c.bet_id))

    def funds(self, account_id: str) -> AccountFunds | None:
        """``getAccountFunds``: balance, exposure, available to bet (minor units)."""
        account = self.accounts.get(account_id)
        return account.funds() if account is not None else None

    def market_result(self, account_id: str, market_id: str) -> AccountResult | None:
        """An account's net P&L and commission on a settled or voided market."""
        account = self.accounts.get(account_id)
        return account.results.get(market_id) if account is not None else None

    def profit_and_loss(self, account_id: str, market_id: str) -> dict[int, Decimal] | None:
        """``listMarketProfitAndLoss``: matched P&L if each selection wins alone (exact ``Decimal``)."""
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
        """Assert every invariant of the exchange (O(size of state); for tests; see :mod:`exchange.core.audit`)."""
        audit.check(self)


def _exposure_change(
    pos: Position | None, market: Market, sel: int, is_back: bool, tick: int, size: int
) -> tuple[int, int]:
    """The market exposure of an account now and with one more unmatched order (minor units)."""
    if is_back:
        dd = 100 * size
        dl = -dd
    else:
        dd = (100 - _PX[tick]) * size
        dl = 0
    if pos is None:
        x = (dd if dd < 0 or len(market.live) == 1 else 0) + dl
        return 0, (-(x // 100) if x < 0 else 0)
    d = pos.d
    ltot = pos.ltot
    if len(market.live) == len(d):
        now = min(d)
        d[sel] += dd
        then = min(d)
        d[sel] -= dd
    else:
        live = market.live
        now = min([d[i] for i in live])
        then = min([d[i] + dd if i == sel else d[i] for i in live])
    x = ltot + now
    y = ltot + dl + then
    e = -(x // 100) if x < 0 else 0
    f = -(y // 100) if y < 0 else 0
    v = -pos.settled  # the loss if the market is voided; an order does not change it
    return (v if v > e else e), (v if v > f else f)


def _funds_ok(account: Account, market: Market, sel: int, is_back: bool, tick: int, size: int) -> bool:
    """Whether one more unmatched order keeps the account's available to bet from going negative.

    An order that does not raise the account's exposure is always allowed.
    """
    positions = account.positions
    pos = positions.get(market.market_id)
    current, after = _exposure_change(pos, market, sel, is_back, tick, size)
    if after <= current:
        return True
    exposure = current
    if len(positions) > (pos is not None):  # other markets hold exposure too
        exposure = sum(p.exposure() for p in positions.values() if p is not pos) + current
    return account.balance - exposure - (after - current) >= 0


def _open_position(account: Account, market: Market) -> Position:
    """The account's new (empty) position on the market, registered with both."""
    pos = account.positions[market.market_id] = market.positions[account.account_id] = Position(
        account.account_id, market
    )
    return pos


def _ignore(event: Event) -> None:
    """Rejections change nothing."""


def _tick_of(price: object) -> int:
    """The tick of a price (``Decimal`` fast path; str/int/float parsed exactly), else INVALID_ODDS."""
    if type(price) is Decimal:
        try:
            tick = _TICK_OF_PRICE.get(price)
        except TypeError:  # signalling NaN
            tick = None
        if tick is not None:
            return tick
    try:
        return ladder.parse_price(price)  # type: ignore[arg-type]
    except ladder.InvalidPrice as exc:
        raise Rejection(ErrorCode.INVALID_ODDS, str(exc)) from None


def _check_selection_in_play(market: Market, sel: int) -> None:
    status = market.selection_status[sel]
    if status is _IN_PLAY:
        return
    sid = market.selection_ids[sel]
    if status is SelectionStatus.LOSER:
        raise Rejection(
            ErrorCode.SELECTION_ALREADY_LOST, f"selection {sid} has already lost and takes no more bets"
        )
    raise Rejection(
        ErrorCode.SELECTION_ALREADY_WON, f"selection {sid} has already won ({status}) and takes no more bets"
    )


def _check_market_active(market: Market, round_: int | None) -> None:
    if market.status is not _ACTIVE:
        raise Rejection(
            ErrorCode.MARKET_NOT_OPEN_FOR_BETTING,
            f"market {market.market_id} is {market.status}; orders are accepted only while it is ACTIVE",
        )
    if round_ is not None and round_ != market.round:
        if type(round_) is int and round_ < market.round:
            raise Rejection(
                ErrorCode.BET_REJECTED_ROUND_STALE,
                f"order is for round {round_} but market {market.market_id} is in round {market.round}",
            )
        raise Rejection(
            ErrorCode.MARKET_NOT_OPEN_FOR_BETTING,
            f"round {round_!r} is not open; market {market.market_id} is in round {market.round}",
        )


def _size_message(size: object, min_stake: int) -> str:
    if type(size) is not int or size <= 0:
        return f"size {size!r} must be a positive whole number of minor units"
    return f"size {format_minor(size)} is below the minimum stake {format_minor(min_stake)}"


_TAKEN = "bet %d has no unmatched size left (matched %d.%02d, lapsed %d.%02d, cancelled %d.%02d)"


def _taken_message(order: Order) -> str:
    """Why a cancel was refused: one ``%`` format (the three sizes are never negative), as cancels of
    orders already filled are common (a cancel racing a fill) and this is the cost of refusing one."""
    m, lapsed, c = order.matched, order.lapsed, order.cancelled
    return _TAKEN % (order.bet_id, m // 100, m % 100, lapsed // 100, lapsed % 100, c // 100, c % 100)


def _order_rejected(ts: int, action: OrderAction, account_id: str, r: Rejection, bet_id: int) -> OrderRejected:
    return new_order_rejected(ts, action, account_id, r.code, r.message, None, None, bet_id, None)


def _command_rejected(cmd: OpenAccount | Deposit | Withdraw, code: ErrorCode, message: str) -> CommandRejected:
    return CommandRejected(cmd.ts, type(cmd).__name__, cmd.account_id, code, message)
