"""Audit of an exchange's state: a digest for replay comparisons, and the full invariant check.

Both walk the whole state, so they are for tests, replays, snapshots and
debugging, not for the hot path.  :func:`check` raises
:class:`~exchange.core.errors.LedgerError` (never a bare ``assert``, which
``python -O`` strips).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import TYPE_CHECKING

from exchange.core import ladder
from exchange.core.errors import LedgerError, require
from exchange.core.gc_pause import collections_paused
from exchange.core.market import Market, MarketStatus, SelectionStatus
from exchange.core.orders import ClearedOrder

if TYPE_CHECKING:
    from exchange.core.state import ExchangeState


def state_digest(ex: ExchangeState) -> str:
    """A SHA-256 of the whole state: balances, positions, markets, books' live queues, matches, orders, counters.

    Two exchanges with equal digests are in the same state; replaying a
    journal must reproduce the digest exactly. Each account's cleared orders on
    a closed market enter by their own digest
    (:meth:`~exchange.core.cleared.ClearedOrders.digest`), worked out once.
    """
    with collections_paused():  # building packed cleared orders for their repr makes ~500,000 objects, no garbage
        return _digest(ex)


def _digest(ex: ExchangeState) -> str:
    parts: list[object] = [ex.config, ex.next_bet_id, ex.next_match_id, ex.money_in, list(ex.closed)]
    for account in sorted(ex.accounts.values(), key=lambda a: a.account_id):
        parts.append(
            (
                account.account_id,
                account.balance,
                account.reserved,
                [(m, p.d, p.ltot, p.settled, [o.bet_id for o in p.orders]) for m, p in account.positions.items()],
                [(market_id, cleared.digest()) for market_id, cleared in sorted(account.cleared.items())],
                sorted(account.results.items()),
            )
        )
    for market in ex.markets.values():
        if not isinstance(market, Market):
            parts.append(market)
            continue
        parts.append(
            (
                market.market_id, market.selection_ids, market.status, market.round,
                market.selection_status, market.live, market.min_stake, market.commission_bps,
                market.selection_settled_ts, sorted(market.voided_matches), market.fills, list(market.positions),
                market.settled_ts,
            )
        )  # fmt: skip
        for book in market.books:
            levels = [
                (is_back, t, [o.bet_id for o in book.orders_at(is_back, t)])
                for is_back in (True, False)
                for t in range(ladder.TICK_COUNT)
                if (book.back_size if is_back else book.lay_size)[t]
            ]
            parts.append((levels, book.volume, book.last_tick, book.total_matched, book.back_mask, book.lay_mask))
    for order in ex.orders.values():
        parts.append(
            (
                order.bet_id, order.account_id, order.market_id, order.selection_id, order.side,
                order.tick, order.size, order.remaining, order.matched, order.matched_x100, order.lapsed,
                order.cancelled, order.voided, order.placed_ts, order.matched_ts, order.round,
                order.customer_ref, order.result, order.cancelled_ts, order.lapsed_ts, order.lapse_reason,
                order.strategy_ref,
            )
        )  # fmt: skip
    parts.append(sorted(ex.cleared))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def check(ex: ExchangeState) -> None:
    """Raise :class:`~exchange.core.errors.LedgerError` unless every invariant of the exchange holds.

    Money: the balances add up to what was paid in.  Each structure's own
    ``_check()``.  Matches: each pairs a back and a lay of one selection, and
    every order's matched size and price sum equal its unvoided matches.
    Orders: only live markets and selections hold unmatched size; each order
    sits in its account's position.  Per selection: back stakes matched = lay
    stakes matched = traded volume.  Closed markets: their cleared orders are
    filed under their accounts and nothing else of them is held; each one's
    stake by price adds up to its matched size at its average price.  O(state).
    """
    total = sum(a.balance for a in ex.accounts.values())
    require(total == ex.money_in, f"money created or destroyed: balances {total}, paid in {ex.money_in}")
    for market_id, market in ex.open_markets.items():
        require(ex.markets.get(market_id) is market, f"open market {market_id} is not kept in markets")
        for pos in market.positions.values():
            for o in pos.orders:
                require(ex.orders.get(o.bet_id) is o, f"bet {o.bet_id} is in a position but not in the orders")
    for market in ex.open_markets.values():
        market._check()
        _check_matches(ex, market)
    for account in ex.accounts.values():
        account._check()
    require(all(bet_id < ex.next_bet_id for bet_id in ex.orders), "a bet id at or above next_bet_id")
    for order in ex.orders.values():
        order._check()
        market = order.position.market
        require(ex.markets.get(market.market_id) is market, f"bet {order.bet_id} on a market not held as open")
        if order.remaining:
            in_play = market.selection_status[order.sel] is SelectionStatus.IN_PLAY
            require(
                market.status is MarketStatus.ACTIVE and in_play,
                f"bet {order.bet_id} has unmatched size on a market or selection not taking bets",
            )
        require(ex.accounts[order.account_id].positions.get(order.market_id) is order.position, f"bet {order.bet_id}")
    records = [c for a in ex.accounts.values() for cleared in a.cleared.values() for c in cleared]
    filed = {c.bet_id for c in records}
    require(filed == set(ex.cleared) and all(ex.cleared.get(c.bet_id) is c for c in records),
            "cleared orders by bet id disagree with the accounts' records")
    require(not filed & set(ex.orders), "a bet is both open and cleared")
    for account in ex.accounts.values():
        for cleared in account.cleared.values():
            for record in cleared:
                _check_cleared(record)
    closed = [m for m in ex.markets if m not in ex.open_markets]
    require(sorted(closed) == sorted(ex.closed), f"closed markets {sorted(closed)} but the record says {ex.closed}")


def _check_cleared(c: ClearedOrder) -> None:
    """A cleared order's matched stake by price: kept only when there are several prices, ticks on the ladder,
    each once, ascending, sizes positive, adding up to the size it matched at the average price it reports."""
    several = c.several_prices
    ticks = [tick for tick, _ in several]
    sizes = [size for _, size in several]
    on_ladder = all(0 <= t < ladder.TICK_COUNT for t in ticks)
    require(len(several) != 1 and ticks == sorted(set(ticks)) and on_ladder and min(sizes, default=1) > 0,
            f"bet {c.bet_id}: several prices {several} is not two or more ascending ticks with positive sizes")
    by_tick = c.matched_by_tick
    matched = c.size_matched
    x100 = sum(ladder.PRICE_X100[tick] * size for tick, size in by_tick)
    average = Fraction(x100, 100 * matched) if matched else None
    require(sum(size for _, size in by_tick) == matched and average == c.price_matched,
            f"bet {c.bet_id}: matched by tick {by_tick} is not {matched} at {c.price_matched}")


def _check_matches(ex: ExchangeState, market: Market) -> None:
    matched: dict[int, list[int]] = {}
    for match_id, *_ in market.fills:  # every match, voided ones too
        require(match_id < ex.next_match_id, f"match {match_id} at or above next_match_id")
    for match_id, _, sel, tick, size, back_id, lay_id in market.standing_fills():
        for bet_id in (back_id, lay_id):
            acc = matched.setdefault(bet_id, [0, 0])
            acc[0] += size
            acc[1] += size * ladder.PRICE_X100[tick]
        back, lay = ex.orders.get(back_id), ex.orders.get(lay_id)
        if back is None or lay is None:
            raise LedgerError(f"match {match_id} names a bet not in the orders")
        require(back.is_back and not lay.is_back, f"match {match_id} does not pair a back with a lay")
        require(back.sel == lay.sel == sel, f"match {match_id} pairs bets on different selections")
    backs = [0] * len(market.books)
    lays = [0] * len(market.books)
    for pos in market.positions.values():
        for o in pos.orders:
            require([o.matched, o.matched_x100] == matched.get(o.bet_id, [0, 0]), f"bet {o.bet_id}: matched sums")
            (backs if o.is_back else lays)[o.sel] += o.matched
    totals = [book.total_matched for book in market.books]
    require(backs == lays == totals, f"market {market.market_id}: matched backs {backs}, lays {lays}, books {totals}")
