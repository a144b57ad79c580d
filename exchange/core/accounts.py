"""Accounts, and each account's position (exposure) on each market.

Exposure is the worst loss over every outcome still possible: the outright
outcomes "live selection i wins alone" and the VOID outcome (the market is
voided: bets already settled early keep their results, every other matched bet
is refunded), counting matched bets and the unmatched remainder of open
orders.  Unmatched orders count *conservatively*, as Betfair does: an
unmatched order adds only its downside (a back's stake on the outcomes where
its selection loses, a lay's liability on the outcome where it wins) and none
of its upside, so an unmatched hedge frees nothing until it is matched.  With
that rule a fill can only lower exposure, so checking funds when an order is
placed is enough for ``available >= 0`` to hold afterwards.

A :class:`Position` keeps, in hundredths of a minor unit (exact: prices have
two decimals), a vector ``d`` and a scalar ``ltot`` such that the account's
market P&L if selection ``i`` wins alone is at least ``ltot + d[i]``:

==================  ===========================  ============
contribution        ``d[j]``                     ``ltot``
==================  ===========================  ============
matched back m@P    ``+ m·P``                    ``- 100·m``
matched lay m@P     ``- m·P``                    ``+ 100·m``
unmatched back S    ``+ 100·S``                  ``- 100·S``
unmatched lay S@P   ``- S·(P - 100)``            ``0``
==================  ===========================  ============

(``P`` is the price in hundredths, ``j`` the order's selection.)  Exposure is
then ``max(0, ceil(-(ltot + min over live i of d[i]) / 100))`` minor units,
O(N) for N selections, with O(1) updates per fill.  Selections settled early
drop out of the minimum; their bets' results are already the ``ltot`` part.

The VOID outcome's P&L is ``settled``, the sum of the results of the
position's bets settled early (minor units; updated when a selection settles
early, never by a new order or fill, since unsettled bets are refunded on a
void).  So the exposure is the larger of the outright figure above and
``-settled`` when that is positive: without it an account whose early-settled
loss is covered by its other bets would show that loss as available, and a
later ``VoidMarket`` would book it against nothing.

Checking funds exactly costs more than the rest of a placement, so the
account also keeps ``reserved``: the sum over its orders on open markets of
each order's largest possible loss on its live size (matched and unmatched,
early-settled bets included, since their cash moves at the market's end), a
back's stake and a lay's liability at its own price, each rounded up to a
whole minor unit.  Every outcome's loss, and so the exposure of every market,
is at most that sum.  An order for which ``balance - reserved`` covers its own
largest loss is therefore affordable without computing exposure; only when it
is not does the exchange compute the exact figures (:func:`order_reserve`).

Cash moves only when a market settles or is voided: early settlement of a
losing selection fixes its bets' results (and shrinks exposure), and the
account's net market P&L is posted in one amount at the end.  That keeps
``available >= 0`` true at every step (a loss settled early cannot overdraw an
account whose remaining outcomes all pay it back).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from exchange.core.records import Record

if TYPE_CHECKING:
    from exchange.core.events import AccountResult
    from exchange.core.market import Market
    from exchange.core.orders import Order

from exchange.core.ladder import PRICE_X100


@dataclass(frozen=True, slots=True)
class AccountFunds(Record):
    """What ``getAccountFunds`` reports, in minor units."""

    account_id: str
    balance: int
    exposure: int
    available: int


def order_reserve(is_back: bool, tick: int, live: int) -> int:
    """An order's largest possible loss on ``live`` of its size, in whole minor units (rounded up).

    A back's stake; a lay's liability at its own price (``live × (price - 1)``).

    >>> order_reserve(True, 0, 1000), order_reserve(False, 0, 1000), order_reserve(False, 1, 3)
    (1000, 10, 1)
    """
    if is_back:
        return live
    return -((live * (100 - PRICE_X100[tick])) // 100)


class Position:
    """One account's stake in one market: its orders and incremental exposure vectors."""

    __slots__ = ("account_id", "d", "ltot", "market", "orders", "settled")

    def __init__(self, account_id: str, market: Market) -> None:
        self.account_id = account_id
        self.market = market
        self.d: list[int] = [0] * len(market.selection_ids)
        self.ltot = 0
        #: the sum of the results of this position's bets settled early: its P&L if the market is voided
        self.settled = 0
        self.orders: list[Order] = []

    def worst_x100(self) -> int:
        """The worst P&L over live selections and the VOID outcome, in hundredths of a minor unit."""
        d = self.d
        live = self.market.live
        x = self.ltot + (min(d) if len(live) == len(d) else min([d[i] for i in live]))
        v = 100 * self.settled
        return v if v < x else x

    def exposure(self) -> int:
        """The worst loss over outcomes still possible (VOID included), in minor units (never negative). O(N)."""
        d = self.d
        live = self.market.live
        x = self.ltot + (min(d) if len(live) == len(d) else min([d[i] for i in live]))
        e = -(x // 100) if x < 0 else 0
        v = -self.settled  # the loss if the market is voided
        return v if v > e else e

    def exposure_if(self, sel: int, dd: int, dl: int) -> int:
        """:meth:`exposure` if ``d[sel]`` grew by ``dd`` and ``ltot`` by ``dl``."""
        d = self.d
        worst = None
        for i in self.market.live:
            v = d[i] + dd if i == sel else d[i]
            if worst is None or v < worst:
                worst = v
        assert worst is not None
        x = self.ltot + dl + worst
        e = -(x // 100) if x < 0 else 0
        v = -self.settled  # an order changes nothing in the VOID outcome
        return v if v > e else e

    def recompute(self) -> tuple[list[int], int]:
        """``(d, ltot)`` rebuilt from the orders, for :meth:`_check`."""
        d = [0] * len(self.d)
        ltot = 0
        for o in self.orders:
            p = PRICE_X100[o.tick]
            if o.is_back:
                d[o.sel] += o.matched_x100 + 100 * o.remaining
                ltot -= 100 * (o.matched + o.remaining)
            else:
                d[o.sel] -= o.matched_x100 + o.remaining * (p - 100)
                ltot += 100 * o.matched
        return d, ltot

    def reserve(self) -> int:
        """The sum of :func:`order_reserve` over the position's orders (their live size: matched + unmatched)."""
        return sum(order_reserve(o.is_back, o.tick, o.remaining + o.matched) for o in self.orders)

    def if_win(self) -> dict[int, int]:
        """Matched P&L if each selection wins alone, in hundredths of a minor unit (``listMarketProfitAndLoss``)."""
        d = [0] * len(self.d)
        ltot = 0
        for o in self.orders:
            if o.is_back:
                d[o.sel] += o.matched_x100
                ltot -= 100 * o.matched
            else:
                d[o.sel] -= o.matched_x100
                ltot += 100 * o.matched
        return {sid: ltot + d[i] for i, sid in enumerate(self.market.selection_ids)}

    def _check(self) -> None:
        d, ltot = self.recompute()
        assert d == self.d and ltot == self.ltot, (self.account_id, self.market.market_id, d, self.d, ltot, self.ltot)
        settled = sum(o.profit or 0 for o in self.orders if o.outcome is not None)
        assert settled == self.settled, (self.account_id, self.market.market_id, settled, self.settled)
        if self.market.all_live:
            assert settled == 0, (self.account_id, self.market.market_id, settled)
        for o in self.orders:
            assert o.position is self and o.account_id == self.account_id


class Account:
    """An account: a balance in minor units and its open positions (one per unsettled market)."""

    __slots__ = ("account_id", "balance", "closed", "positions", "reserved", "results")

    def __init__(self, account_id: str) -> None:
        self.account_id = account_id
        self.balance = 0
        #: the sum of the open positions' :meth:`Position.reserve`: a bound on the total exposure
        self.reserved = 0
        #: market id -> position, for markets not yet settled or voided
        self.positions: dict[str, Position] = {}
        #: market id -> position, for settled or voided markets (its orders are cleared orders)
        self.closed: dict[str, Position] = {}
        #: market id -> the account's net P&L and commission there
        self.results: dict[str, AccountResult] = {}

    def exposure(self) -> int:
        """Total exposure over open markets (minor units)."""
        return sum(p.exposure() for p in self.positions.values())

    def available(self) -> int:
        """Available to bet: balance minus total exposure (minor units)."""
        return self.balance - self.exposure()

    def funds(self) -> AccountFunds:
        exposure = self.exposure()
        return AccountFunds(self.account_id, self.balance, exposure, self.balance - exposure)

    def _check(self) -> None:
        assert self.reserved == sum(p.reserve() for p in self.positions.values()), (self.account_id, self.reserved)
        assert self.reserved >= self.exposure(), (self.account_id, self.reserved)
        for market_id, pos in self.positions.items():
            assert pos.market.market_id == market_id and pos.account_id == self.account_id
            assert pos.market.is_open, market_id
            pos._check()
