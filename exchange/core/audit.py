"""Audit of an exchange's state: a digest for replay comparisons, and the full invariant check.

Both walk the whole state, so they are for tests, replays and debugging, not
for the hot path.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from exchange.core import ladder
from exchange.core.market import MarketStatus, SelectionStatus

if TYPE_CHECKING:
    from exchange.core.exchange import Exchange

_PX = ladder.PRICE_X100
_ACTIVE = MarketStatus.ACTIVE
_IN_PLAY = SelectionStatus.IN_PLAY


def state_digest(ex: Exchange) -> str:
    """A SHA-256 of the whole state: balances, positions, markets, books' live queues, matches, orders, counters.

    Two exchanges with equal digests are in the same state; replaying a
    journal must reproduce the digest exactly.
    """
    parts: list[object] = [ex.config, ex.next_bet_id, ex.next_match_id, ex.money_in]
    for account in sorted(ex.accounts.values(), key=lambda a: a.account_id):
        parts.append(
            (
                account.account_id,
                account.balance,
                account.reserved,
                [(m, p.d, p.ltot, [o.bet_id for o in p.orders]) for m, p in account.positions.items()],
                sorted(account.closed),
                sorted(account.results.items()),
            )
        )
    for market in ex.markets.values():
        parts.append(
            (
                market.market_id, market.selection_ids, market.status, market.round,
                market.selection_status, market.live, market.min_stake, market.commission_bps,
                market.settled_ts, sorted(market.voided_matches), list(market.matches()), list(market.positions),
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
                order.customer_ref, order.outcome, order.profit, order.settled_ts,
            )
        )  # fmt: skip
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def check(ex: Exchange) -> None:
    """Assert every invariant of the exchange, from each structure's ``_check()`` up.

    Money: the balances add up to what was paid in.  Matches: each pairs a back
    and a lay of one selection, and every order's matched size and price sum
    equal its (unvoided) matches.  Orders: size identity, only live markets and
    selections hold unmatched size, each order sits in its account's position.
    Per selection: back stakes matched = lay stakes matched = traded volume.
    O(size of the state).
    """
    assert sum(a.balance for a in ex.accounts.values()) == ex.money_in, "money created or destroyed"
    for market in ex.markets.values():
        market._check()
    for account in ex.accounts.values():
        account._check()
    assert all(bet_id < ex.next_bet_id for bet_id in ex.orders)
    assert all(m < ex.next_match_id for market in ex.markets.values() for m, _ in market.matches())
    matched: dict[int, list[int]] = {}
    for market in ex.markets.values():
        for match_id, (_, sel, tick, size, back_id, lay_id) in market.matches():
            if match_id in market.voided_matches:
                continue
            for bet_id in (back_id, lay_id):
                acc = matched.setdefault(bet_id, [0, 0])
                acc[0] += size
                acc[1] += size * _PX[tick]
            back, lay = ex.orders[back_id], ex.orders[lay_id]
            assert back.is_back and not lay.is_back, match_id
            assert back.market_id == lay.market_id == market.market_id and back.sel == lay.sel == sel, match_id
    for order in ex.orders.values():
        order._check()
        market = ex.markets[order.market_id]
        assert [order.matched, order.matched_x100] == matched.get(order.bet_id, [0, 0]), order
        if order.remaining:
            assert market.status is _ACTIVE and market.selection_status[order.sel] is _IN_PLAY, order
        position = ex.accounts[order.account_id].positions.get(order.market_id) or ex.accounts[
            order.account_id
        ].closed.get(order.market_id)
        assert position is order.position, order
    for market in ex.markets.values():
        backs = [0] * len(market.books)
        lays = [0] * len(market.books)
        for pos in market.positions.values():
            for o in pos.orders:
                (backs if o.is_back else lays)[o.sel] += o.matched
        totals = [book.total_matched for book in market.books]
        assert backs == lays == totals, (market.market_id, backs, lays, totals)
