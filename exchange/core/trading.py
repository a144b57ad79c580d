"""A trader's instructions: place, cancel, replace; checked, matched, turned into events.

Each function decides the events of one command and applies each as it goes,
since matching depends on the state the previous fill left.  A cancel (a
replace's too) applies its event with the state's ``apply_order_cancelled``,
the function the journal fold calls; a new order (:func:`place`'s, a replace's
new bet) and the fills of :func:`match` call
:meth:`~exchange.core.state.ExchangeState.add_order` and
:meth:`~exchange.core.state.ExchangeState.fill`, the bodies of the fold's
``apply_order_placed`` and ``apply_matched``, which first look up (and, for a
fill, check) what the live path already holds from its own checks.  A refused
instruction yields one ``OrderRejected`` event and changes nothing, but for a
replace whose new bet cannot be placed (a price off the ladder, funds the
account lacks): its cancel stands, as Betfair's (an ``OrderCancelled``, then
the ``OrderRejected``); several replaces at once cancel first, then place all
their new bets or none (:func:`replace_orders`).

Precedence of a place instruction's checks: account, market, runner, then
``MARKET_NOT_OPEN_FOR_BETTING`` if the market is closed (settled or voided),
then the selection's own status (a bet on a selection settled early, in a
market still open, gets ``SELECTION_ALREADY_LOST``; a winner is declared only
as its market closes, so ``SELECTION_ALREADY_WON`` answers a status no open market holds today),
then the market's (``MARKET_NOT_OPEN_FOR_BETTING`` while suspended, before the
first window), round, order and persistence type, side, price, size, the
minimum fill (``fill_or_kill``), funds.

**Matching** is price-time priority at the resting order's price: an incoming
order is queued (``OrderPlaced``), then meets the best opposite level while
the book crosses, one ``Matched`` per resting order, until it is filled or
the book no longer crosses.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import NoReturn

from exchange.core import fill_or_kill, ladder
from exchange.core.accounts import Account
from exchange.core.commands import CancelOrder, Move, PlaceOrder, ReplaceOrder, ReplaceOrders
from exchange.core.errors import ErrorCode, ExchangeError, Rejection
from exchange.core.events import (
    CancelReason,
    Event,
    OrderAction,
    OrderRejected,
    new_matched,
    new_order_placed,
    new_order_rejected,
    order_cancelled,
)
from exchange.core.market import ClosedMarket, Market, MarketStatus, SelectionStatus
from exchange.core.money import format_minor
from exchange.core.orders import Order, OrderType, PersistenceType
from exchange.core.positions import Position, lay_shift
from exchange.core.side import Side
from exchange.core.state import ExchangeState

# Enum members used on every instruction, as module constants: on CPython 3.11 ``Enum.MEMBER``
# is a class-attribute lookup through the enum's metaclass (about 60 ns, a tenth of a placement).
_BACK = Side.BACK
_LAY = Side.LAY
_IN_PLAY = SelectionStatus.IN_PLAY
_ACTIVE = MarketStatus.ACTIVE
_LIMIT = OrderType.LIMIT
_LAPSE = PersistenceType.LAPSE

_TICK_OF_PRICE = ladder.TICK_OF_PRICE

#: What a checked place instruction resolves to: its account, market, the selection's index, the price's tick.
Placement = tuple[Account, Market, int, int]


def place(state: ExchangeState, cmd: PlaceOrder) -> list[Event]:
    """Check a place instruction; if accepted, queue the order and match it."""
    try:
        account, market, sel, tick = verify_place(state, cmd)
    except Rejection as r:
        return [
            new_order_rejected(
                cmd.ts, OrderAction.PLACE, cmd.account_id, r.code, r.message,
                cmd.market_id, cmd.selection_id, None, cmd.customer_ref,
            )
        ]  # fmt: skip
    placed = new_order_placed(
        cmd.ts, state.next_bet_id, cmd.account_id, cmd.market_id, cmd.selection_id,
        cmd.side, tick, cmd.size, market.round, cmd.customer_ref, None, cmd.strategy_ref,
    )  # fmt: skip
    events: list[Event] = [placed]
    order = state.add_order(placed, account, market, sel)
    if cmd.fill_or_kill is None or fill_or_kill.can_fill(order, cmd.fill_or_kill):
        match(state, order, cmd.ts, events)
    if cmd.fill_or_kill is not None and order.remaining:
        events.append(fill_or_kill.kill(state, order, cmd.ts))
    return events


def match(state: ExchangeState, order: Order, ts: int, events: list[Event]) -> None:
    """Match a just-queued order against the opposite side while the book crosses; append the fills."""
    market = order.position.market
    book = market.books[order.sel]
    taker_is_back = order.is_back
    taker_side = _BACK if taker_is_back else _LAY
    while order.remaining:
        resting = book.crossing(taker_is_back, order.tick)
        if resting is None:
            return
        back, lay = (order, resting) if taker_is_back else (resting, order)
        size = order.remaining if order.remaining < resting.remaining else resting.remaining
        ev = new_matched(
            ts, state.next_match_id, market.market_id, market.selection_ids[order.sel], resting.tick, size,
            back.bet_id, lay.bet_id, back.position.account_id, lay.position.account_id, taker_side,
        )  # fmt: skip
        state.fill(ev, back, lay)  # resting is first in its queue: the book just said so
        events.append(ev)


def verify_place(state: ExchangeState, cmd: PlaceOrder) -> Placement:
    """Check a place instruction; raise :class:`Rejection` with the first problem found (see the module)."""
    account = state.accounts.get(cmd.account_id) if type(cmd.account_id) is str else None
    if account is None:
        raise Rejection(ErrorCode.INVALID_ACCOUNT, f"account {cmd.account_id!r:.40} does not exist")
    market = state.open_markets.get(cmd.market_id) if type(cmd.market_id) is str else None
    if market is None:
        _refuse_closed_market(state, cmd)
    sel = market.index.get(cmd.selection_id) if type(cmd.selection_id) is int else None
    if sel is None:
        raise _invalid_runner(market, cmd.selection_id)
    status = market.selection_status[sel]
    if status is not _IN_PLAY:
        raise _selection_settled(cmd.selection_id, status)
    if market.status is not _ACTIVE or (cmd.round is not None and cmd.round != market.round):
        check_market_active(market, cmd.round)
    if cmd.order_type is not _LIMIT:
        raise Rejection(ErrorCode.INVALID_ORDER_TYPE, f"order type {cmd.order_type} is not offered; use LIMIT")
    if cmd.persistence_type is not _LAPSE:
        raise Rejection(
            ErrorCode.INVALID_PERSISTENCE_TYPE, f"persistence type {cmd.persistence_type} is not offered; use LAPSE"
        )
    is_back = cmd.side is _BACK
    if not is_back and cmd.side is not _LAY:
        raise Rejection(ErrorCode.INVALID_BID_TYPE, f"side must be Side.BACK or Side.LAY, not {cmd.side!r:.40}")
    price = cmd.price
    tick = _TICK_OF_PRICE.get(price) if type(price) is Decimal and price.is_finite() else None
    if tick is None:  # text, a number, or a Decimal off the ladder: parsed exactly, or INVALID_ODDS
        tick = _tick_or_invalid_odds(price)
    size = cmd.size
    if type(size) is not int or size < market.min_stake:
        raise Rejection(ErrorCode.INVALID_BET_SIZE, _size_message(size, market.min_stake))
    min_fill = cmd.fill_or_kill
    if min_fill is not None and (type(min_fill) is not int or not 0 < min_fill <= size):
        raise Rejection(
            ErrorCode.INVALID_MIN_FILL_SIZE,
            f"fill_or_kill (the minimum fill) must be a whole number of minor units from 1 to the size {size}, "
            f"not {min_fill!r:.40}",
        )
    if not account.can_afford(market, sel, is_back, tick, size):
        current, after = account.exposure_change(market, sel, is_back, tick, size)
        raise _short_of_funds("this order", account, after - current)
    return account, market, sel, tick


def _refuse_closed_market(state: ExchangeState, cmd: PlaceOrder) -> NoReturn:
    """Why a place instruction for a market not open is refused: unknown, or its runner, or closed."""
    market = state.markets.get(cmd.market_id) if type(cmd.market_id) is str else None
    if market is None:
        raise Rejection(ErrorCode.INVALID_MARKET_ID, f"market {cmd.market_id!r:.40} does not exist")
    if type(cmd.selection_id) is not int or cmd.selection_id not in market.selection_ids:
        raise _invalid_runner(market, cmd.selection_id)
    raise _not_open(market.market_id, market.status)  # settled or voided: whatever became of the selection


def check_places(state: ExchangeState, commands: Sequence[PlaceOrder]) -> list[Rejection | None]:
    """What each of several place instructions would meet if executed one after another (nothing changes).

    Each is checked as :func:`place` would, counting the ones before it as
    placed and unmatched; a fill only lowers exposure, so an instruction that
    passes here passes when the batch is executed.  The tentative orders'
    effect on positions and reserves is taken back before returning.
    """
    results: list[Rejection | None] = []
    tentative: list[tuple[Position, Order]] = []
    opened: list[tuple[Account, Market]] = []
    try:
        for cmd in commands:
            try:
                account, market, sel, tick = verify_place(state, cmd)
            except Rejection as r:
                results.append(r)
                continue
            results.append(None)
            if market.market_id not in account.positions:
                opened.append((account, market))
            pos = account.open_position(market)
            order = Order(0, pos, sel, cmd.side is _BACK, tick, cmd.size, cmd.ts, 0, None)
            pos.add_order(order)
            tentative.append((pos, order))
    finally:
        for pos, order in reversed(tentative):
            pos.take_back(order)
        for account, market in opened:
            account.drop_position(market)
    return results


def cancel(state: ExchangeState, cmd: CancelOrder) -> list[Event]:
    """Cancel an order's unmatched remainder, or reduce it by ``size_reduction``."""
    try:
        order = own_live_order(state, cmd.account_id, cmd.bet_id, cmd.market_id)
        reduction = cmd.size_reduction
        if reduction is None:
            amount = order.remaining
        elif type(reduction) is not int or reduction <= 0:
            raise Rejection(
                ErrorCode.INVALID_BET_SIZE, f"size reduction {reduction!r} must be a positive number of minor units"
            )
        else:
            amount = min(reduction, order.remaining)
    except Rejection as r:
        return [_order_rejected(cmd.ts, OrderAction.CANCEL, cmd.account_id, r, cmd.bet_id)]
    ev = order_cancelled(cmd.ts, order, amount, CancelReason.BY_USER)
    state.apply_order_cancelled(ev)
    return [ev]


def replace(state: ExchangeState, cmd: ReplaceOrder) -> list[Event]:
    """Move an order's unmatched remainder to a new price: :func:`replace_orders` with one move, on its market."""
    return _move(state, cmd.ts, cmd.account_id, None, ((cmd.bet_id, cmd.new_price),), cmd.round)


def replace_orders(state: ExchangeState, cmd: ReplaceOrders) -> list[Event]:
    """Move several of an account's orders on one market to new prices (API-NG ``replaceOrders``)."""
    # a driver's slip, not a trader's request to refuse (the server builds the moves from what it checked)
    if not isinstance(cmd.moves, tuple | list) or not all(type(m) is Move for m in cmd.moves):
        raise ExchangeError(f"a replace's moves are Move records, not {cmd.moves!r:.60}")
    return _move(state, cmd.ts, cmd.account_id, cmd.market_id, tuple((m.bet_id, m.new_price) for m in cmd.moves),
                 cmd.round)


def _move(state: ExchangeState, ts: int, account_id: str, market_id: str | None,
          moves: Sequence[tuple[int, object]], round_: int | None) -> list[Event]:
    """Cancel the unmatched remainder of each order of ``moves`` (bet id, new price) and place it anew at its new
    price, as Betfair's replace: every cancel first, then the new bets all placed, or none.

    A move refused (not the caller's live bet on ``market_id``, if given, named twice, its market not open) is an
    ``OrderRejected`` and changes nothing. The others are cancelled (``REPLACED``) whatever comes next: "the
    cancellations will not be rolled back". Their new bets are then placed in the order given, each matched as it
    comes, or, if one cannot be (a price off the ladder, funds the account lacks), none is: one ``OrderRejected``
    each, the first cause and ``RELATED_ACTION_FAILED`` for the others. A new bet is the remainder whatever its
    size: the minimum stake is not checked again, as on Betfair, where it applies to what a trader stakes (a
    partly matched bet's remainder below it could otherwise only be cancelled, never moved)."""
    events: list[Event] = []
    moving: list[tuple[Order, object]] = []
    for bet_id, price in moves:
        try:
            order = own_live_order(state, account_id, bet_id, market_id)
            if any(o is order for o, _ in moving):
                raise Rejection(ErrorCode.DUPLICATE_BETIDS, f"bet {bet_id} is moved twice in one replace")
            check_market_active(order.position.market, round_)
        except Rejection as r:
            events.append(_order_rejected(ts, OrderAction.REPLACE, account_id, r, bet_id))
            continue
        moving.append((order, price))
    new_bets, refusals = _new_bets(moving)  # judged before the cancels change the positions
    for order, _ in moving:
        cancelled = order_cancelled(ts, order, order.remaining, CancelReason.REPLACED)
        events.append(cancelled)
        state.apply_order_cancelled(cancelled)
    if refusals:
        events += (_order_rejected(ts, OrderAction.REPLACE, account_id, refusal, order.bet_id)
                   for (order, _), refusal in zip(moving, refusals, strict=True))
        return events
    for (order, _), (tick, amount) in zip(moving, new_bets, strict=True):
        account, market = order.position.account, order.position.market
        placed = new_order_placed(
            ts, state.next_bet_id, order.account_id, market.market_id, order.selection_id,
            order.side, tick, amount, market.round, order.customer_ref, order.bet_id, order.strategy_ref,
        )  # fmt: skip
        events.append(placed)
        match(state, state.add_order(placed, account, market, order.sel), ts, events)
    return events


def _new_bets(moving: Sequence[tuple[Order, object]]) -> tuple[list[tuple[int, int]], list[Rejection]]:
    """The tick and size of each new bet of ``moving`` (each order and its new price, all on one market), and no
    refusals; or, if one of them cannot be placed once the old ones are cancelled, no bets and why each is not: the
    cause, and ``RELATED_ACTION_FAILED`` for the others.

    Funds are judged on the call as a whole, against the position before it: only a lay's row depends on its price,
    and it changes only the outcome of its own selection winning, so each selection's lays count together (one moved
    to a longer price may use what another moved to a shorter one frees), and a selection the call leaves worse
    must stay within what the account covers (:meth:`~exchange.core.accounts.Account.covers`). The cause named is
    the first lay moved to a longer price on such a selection."""
    ticks: list[int] = []
    for i, (_, price) in enumerate(moving):
        try:
            ticks.append(_tick_or_invalid_odds(price))
        except Rejection as r:
            return [], _all_refused(moving, i, r)
    shifts = [lay_shift(order, tick) for (order, _), tick in zip(moving, ticks, strict=True)]
    net: dict[int, int] = {}
    for (order, _), shift in zip(moving, shifts, strict=True):
        net[order.sel] = net.get(order.sel, 0) + shift
    for i, ((order, _), shift) in enumerate(zip(moving, shifts, strict=True)):
        if shift < 0:
            try:
                _check_new_price(order.position, order.sel, net[order.sel])
            except Rejection as r:
                return [], _all_refused(moving, i, r)
    return [(tick, order.remaining) for (order, _), tick in zip(moving, ticks, strict=True)], []


def _all_refused(moving: Sequence[tuple[Order, object]], failed: int, cause: Rejection) -> list[Rejection]:
    others = Rejection(ErrorCode.RELATED_ACTION_FAILED, f"not placed: the new bet of bet {moving[failed][0].bet_id} "
                       f"could not be ({cause.code}), and a replace's new bets are placed all or none")
    return [cause if i == failed else others for i in range(len(moving))]


def _check_new_price(pos: Position, sel: int, shift: int) -> None:
    """Refuse lays' new prices that move ``d[sel]`` by ``shift`` (below 0: more at risk if the selection wins)
    where the account cannot cover the outcome they make worse."""
    if shift < 0 and not pos.account.covers(pos, sel, shift, 0):
        raise _short_of_funds("the new price", pos.account, pos.exposure_with(sel, shift, 0) - pos.exposure())


def _short_of_funds(what: str, account: Account, rise: int) -> Rejection:
    """``INSUFFICIENT_FUNDS`` for an order (or a new price) the account cannot cover; ``rise``: what it adds to its
    market's exposure (none, below zero, where the order may leave the worst outcome as it is)."""
    available = account.available()
    if available < 0:
        return Rejection(
            ErrorCode.INSUFFICIENT_FUNDS,
            f"available to bet is {format_minor(available)}, below zero: an order is taken only if every outcome it "
            f"makes worse stays within the balance less the exposure of the account's other markets, and {what} "
            "does not",
        )
    return Rejection(
        ErrorCode.INSUFFICIENT_FUNDS,
        f"{what} needs {format_minor(rise)} more exposure but only {format_minor(available)} is available to bet",
    )


def own_live_order(state: ExchangeState, account_id: str, bet_id: object, market_id: str | None = None) -> Order:
    """The caller's own order with unmatched size (on ``market_id``, if given), else a :class:`Rejection` (its
    market is ACTIVE then: a window's close lapses every unmatched order)."""
    if type(account_id) is not str or account_id not in state.accounts:
        raise Rejection(ErrorCode.INVALID_ACCOUNT, f"account {account_id!r:.40} does not exist")
    if type(bet_id) is not int:
        raise Rejection(ErrorCode.INVALID_BET_ID, f"bet id {bet_id!r} is not one of your orders")
    order = state.orders.get(bet_id)
    bet = order if order is not None else state.cleared.get(bet_id)
    if bet is None or bet.account_id != account_id:
        # Someone else's bet is reported exactly like a bet that does not exist.
        raise Rejection(ErrorCode.INVALID_BET_ID, f"bet id {bet_id!r} is not one of your orders")
    if market_id is not None and bet.market_id != market_id:  # (before whether it is done: it is not one here)
        raise Rejection(ErrorCode.INVALID_BET_ID, f"bet {bet_id} is not one of yours on market {market_id}")
    if order is None:
        cleared = state.cleared[bet_id]
        raise Rejection(ErrorCode.BET_TAKEN_OR_LAPSED, _taken_message(
            bet_id, cleared.size_settled, cleared.size_lapsed, cleared.size_cancelled))  # fmt: skip
    if not order.remaining:
        raise Rejection(
            ErrorCode.BET_TAKEN_OR_LAPSED, _taken_message(bet_id, order.matched, order.lapsed, order.cancelled)
        )
    return order


def _invalid_runner(market: Market | ClosedMarket, selection_id: object) -> Rejection:
    return Rejection(
        ErrorCode.INVALID_RUNNER,
        f"selection {selection_id!r} is not in market {market.market_id}; "
        f"selections are {', '.join(map(str, market.selection_ids))}",
    )


def _selection_settled(selection_id: int, status: SelectionStatus) -> Rejection:
    if status is SelectionStatus.LOSER:
        return Rejection(
            ErrorCode.SELECTION_ALREADY_LOST, f"selection {selection_id} has already lost and takes no more bets"
        )
    return Rejection(
        ErrorCode.SELECTION_ALREADY_WON, f"selection {selection_id} has already won ({status}) and takes no more bets"
    )


def check_market_active(market: Market, round_: int | None) -> None:
    if market.status is not _ACTIVE:
        raise _not_open(market.market_id, market.status)
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


def _not_open(market_id: str, status: MarketStatus) -> Rejection:
    return Rejection(
        ErrorCode.MARKET_NOT_OPEN_FOR_BETTING,
        f"market {market_id} is {status}; orders are accepted only while it is open, in a betting window",
    )


def _tick_or_invalid_odds(price: object) -> int:
    """The tick of a price (``Decimal``, str, int or float, parsed exactly); off the ladder, a
    :class:`Rejection` with ``INVALID_ODDS`` (:func:`exchange.core.ladder.tick_of` answers ``None`` instead)."""
    if type(price) is Decimal and price.is_finite():
        tick = ladder.TICK_OF_PRICE.get(price)
        if tick is not None:
            return tick
    try:
        return ladder.parse_price(price)
    except ladder.InvalidPrice as exc:
        raise Rejection(ErrorCode.INVALID_ODDS, str(exc)) from None


def _size_message(size: object, min_stake: int) -> str:
    if type(size) is not int or size <= 0:
        return f"size {size!r} must be a positive whole number of minor units"
    return f"size {format_minor(size)} is below the minimum stake {format_minor(min_stake)}"


def _taken_message(bet_id: int, matched: int, lapsed: int, cancelled: int) -> str:
    return (
        f"bet {bet_id} has no unmatched size left (matched {format_minor(matched)}, "
        f"lapsed {format_minor(lapsed)}, cancelled {format_minor(cancelled)})"
    )


def _order_rejected(ts: int, action: OrderAction, account_id: str, r: Rejection, bet_id: int) -> OrderRejected:
    return new_order_rejected(ts, action, account_id, r.code, r.message, None, None, bet_id, None)
