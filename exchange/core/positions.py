"""Positions: one account's stake in one market, and the only code that does its arithmetic.

Exposure is the worst loss over every outcome still possible: the outright
outcomes "live selection i wins alone" and the VOID outcome (the market is
voided: bets already settled early keep their results, every other matched bet
is refunded), counting matched bets and the unmatched remainder of open
orders.  Unmatched orders count *conservatively*, as Betfair does: an
unmatched order adds only its downside (a back's stake on the outcomes where
its selection loses, a lay's liability on the outcome where it wins) and none
of its upside, so an unmatched hedge frees nothing until it is matched.  With
that rule a fill can only lower exposure, so checking funds when an order is
placed is enough: no fill takes available to bet below zero.

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
O(N) for N selections (any N), with O(1) updates per fill.  Selections settled
early drop out of the minimum; their bets' results are already the ``ltot`` part.

The VOID outcome's P&L is ``settled``, the sum of the results of the
position's bets settled early (minor units).  The exposure is the larger of
the outright figure and ``-settled``: without it an account whose early-settled
loss is covered by its other bets would show that loss as available, and a
later void would book it against nothing.  It counts the bets settled so far,
not those a hand settled later would add: settling a hand early can raise it and
leave available to bet below zero (an account that backed every hand, and
withdrew what that left free), and a void after that leaves the balance below
zero.  While available is below zero an order is taken only if the outcomes it
makes worse stay covered (:meth:`~exchange.core.accounts.Account.covers`).

The table above is applied only by the four operations of :class:`Position`
(:meth:`~Position.add_order`, :meth:`~Position.release`, :meth:`~Position.fill`,
:meth:`~Position.void_fill`), which also keep the order's own sizes and the
account's ``reserved`` in step: placing, matching, cancelling, lapsing and
voiding, live or replayed from the journal, all go through them.

``Account.reserved`` is the sum over its orders on open markets of each
order's largest possible loss on its live size (matched and unmatched), a
back's stake and a lay's liability at its own price, each rounded up to a
whole minor unit (:func:`order_reserve`).  Every outcome's loss, and so every
market's exposure, is at most that sum, so an order for which ``balance -
reserved`` covers its own largest loss is affordable without computing
exposure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from exchange.core.errors import LedgerError
from exchange.core.ladder import PRICE_X100

if TYPE_CHECKING:
    from exchange.core.accounts import Account
    from exchange.core.market import Market
    from exchange.core.orders import Order


def order_reserve(is_back: bool, tick: int, live: int) -> int:
    """An order's largest possible loss on ``live`` of its size, in whole minor units (rounded up).

    A back's stake; a lay's liability at its own price (``live × (price - 1)``).

    >>> order_reserve(True, 0, 1000), order_reserve(False, 0, 1000), order_reserve(False, 1, 3)
    (1000, 10, 1)
    """
    if is_back:
        return live
    return -((live * (100 - PRICE_X100[tick])) // 100)


def unmatched_effect(is_back: bool, tick: int, size: int) -> tuple[int, int]:
    """``(Δd[j], Δltot)`` of ``size`` unmatched at ``tick`` (the table's unmatched rows).

    >>> unmatched_effect(True, 0, 500), unmatched_effect(False, 99, 500)
    ((50000, -50000), (-50000, 0))
    """
    if is_back:
        return 100 * size, -100 * size
    return -size * (PRICE_X100[tick] - 100), 0


def lay_shift(order: Order, tick: int) -> int:
    """How ``d[sel]`` moves when the order's unmatched remainder moves to ``tick``: 0 for a back (its row does not
    depend on its price), below 0 for a lay moved to a longer price."""
    if order.is_back:
        return 0
    return unmatched_effect(False, tick, order.remaining)[0] - unmatched_effect(False, order.tick, order.remaining)[0]


def matched_effect(is_back: bool, tick: int, size: int) -> tuple[int, int]:
    """``(Δd[j], Δltot)`` of ``size`` matched at ``tick`` (the table's matched rows)."""
    if is_back:
        return size * PRICE_X100[tick], -100 * size
    return -size * PRICE_X100[tick], 100 * size


def exposure_of(worst_x100: int, settled: int) -> int:
    """Exposure in minor units from the worst outright P&L (hundredths) and the VOID outcome's P&L.

    >>> exposure_of(-250, 0), exposure_of(300, -5), exposure_of(-1, 0)
    (3, 5, 1)
    """
    outright = -(worst_x100 // 100) if worst_x100 < 0 else 0
    return max(outright, -settled)


class Position:
    """One account's stake in one market: its orders and the exposure vectors of the module's table."""

    __slots__ = ("account", "account_id", "d", "ltot", "market", "orders", "settled")

    def __init__(self, account: Account, market: Market) -> None:
        self.account = account
        self.account_id = account.account_id
        self.market = market
        #: the table's vector and scalar, in hundredths of a penny: if selection i wins alone, P&L >= ltot + d[i]
        self.d: list[int] = [0] * len(market.selection_ids)
        self.ltot = 0
        #: the sum of the results of this position's bets settled early, in pennies: its P&L if the market is voided
        self.settled = 0
        self.orders: list[Order] = []

    # -- the four state changes ------------------------------------------------------
    #
    # Each applies the module's table to one change of an order: ``unmatched_effect`` and
    # ``matched_effect`` state it, and :meth:`recompute` (used by ``_check``) rebuilds the
    # vectors from them, so an operation that drifted from the table fails every check.
    # The hot three (a placement, a cancel, a fill) write the rows out rather than call those
    # functions: the calls and their tuples cost 12 % of an operation (4,400 instructions of
    # 37,600, ``scripts/count_instructions.py``).

    def add_order(self, order: Order) -> None:
        """A new order: its whole size unmatched, its largest loss reserved."""
        self.orders.append(order)
        size = order.remaining
        if order.is_back:  # unmatched back S: d[j] + 100·S, ltot - 100·S
            self.d[order.sel] += 100 * size
            self.ltot -= 100 * size
            self.account.reserved += size
        else:  # unmatched lay S@P: d[j] - S·(P - 100); its reserve that liability rounded up (order_reserve)
            liability = size * (PRICE_X100[order.tick] - 100)
            self.d[order.sel] -= liability
            self.account.reserved += -(-liability // 100)

    def take_back(self, order: Order) -> None:
        """Undo :meth:`add_order` of an order that never matched (a tentative one: :func:`check_places`)."""
        self.release(order, order.remaining)
        self.orders.remove(order)

    def release(self, order: Order, amount: int) -> None:
        """``amount`` of the order's unmatched size leaves it (cancelled or lapsed; the caller says which)."""
        if not 0 < amount <= order.remaining:
            raise LedgerError(f"cannot release {amount} of bet {order.bet_id}: {order.remaining} unmatched")
        self._unreserve(order, amount)
        order.remaining -= amount
        if order.is_back:  # the unmatched back row comes off
            self.d[order.sel] -= 100 * amount
            self.ltot += 100 * amount
        else:  # the unmatched lay row comes off
            self.d[order.sel] += amount * (PRICE_X100[order.tick] - 100)

    def fill(self, order: Order, size: int, tick: int, ts: int) -> None:
        """``size`` of the order's unmatched size is matched at ``tick`` (its reserve is unchanged).

        The unmatched row comes off and the matched row goes on (``matched_effect`` minus
        ``unmatched_effect``): a back moves ``d[j]`` by ``size·P - 100·size`` and ``ltot`` by
        ``-100·size + 100·size = 0``; a lay at limit ``L`` moves ``d[j]`` by
        ``-size·P + size·(L - 100) = size·(L - P - 100)`` and ``ltot`` by ``100·size - 0``.
        """
        if not 0 < size <= order.remaining:
            raise LedgerError(f"cannot match {size} of bet {order.bet_id}: {order.remaining} unmatched")
        p = PRICE_X100[tick]
        order.remaining -= size
        order.matched += size
        order.matched_x100 += size * p
        order.matched_ts = ts
        if order.is_back:
            self.d[order.sel] += size * (p - 100)
        else:
            self.d[order.sel] += size * (PRICE_X100[order.tick] - p - 100)
            self.ltot += 100 * size

    def void_fill(self, order: Order, size: int, tick: int) -> None:
        """A match of ``size`` at ``tick`` is voided: the stake is refunded, not returned to the book."""
        if not 0 < size <= order.matched:
            raise LedgerError(f"cannot void {size} matched of bet {order.bet_id}: {order.matched} matched")
        self._unreserve(order, size)
        order.matched -= size
        order.matched_x100 -= size * PRICE_X100[tick]
        order.voided += size
        md, ml = matched_effect(order.is_back, tick, size)
        self.d[order.sel] -= md
        self.ltot -= ml

    def _unreserve(self, order: Order, amount: int) -> None:
        live = order.remaining + order.matched
        self.account.reserved -= order_reserve(order.is_back, order.tick, live) - order_reserve(
            order.is_back, order.tick, live - amount
        )

    # -- reading -------------------------------------------------------------------

    def outright_x100(self, sel: int | None = None, dd: int = 0, dl: int = 0) -> int:
        """The worst outright P&L over live selections, in hundredths, if ``d[sel]`` grew by ``dd`` and
        ``ltot`` by ``dl`` (by default: as it stands)."""
        d = self.d
        worst = min(d[i] + dd if i == sel else d[i] for i in self.market.live)
        return self.ltot + dl + worst

    def worst_x100(self) -> int:
        """The worst P&L over live selections and the VOID outcome, in hundredths of a minor unit."""
        return min(self.outright_x100(), 100 * self.settled)

    def exposure(self) -> int:
        """The worst loss over outcomes still possible (VOID included), in minor units (never negative). O(N)."""
        return exposure_of(self.outright_x100(), self.settled)

    def exposure_with(self, sel: int, dd: int, dl: int) -> int:
        """:meth:`exposure` if ``d[sel]`` grew by ``dd`` and ``ltot`` by ``dl``: one more unmatched order, or a lay's
        new price (neither changes the VOID outcome)."""
        return exposure_of(self.outright_x100(sel, dd, dl), self.settled)

    def worsened_loss(self, sel: int, dd: int, dl: int) -> int:
        """The largest loss, in minor units, among the outright outcomes that ``d[sel]`` growing by ``dd`` and
        ``ltot`` by ``dl`` would make worse, after the change (0 where none of them is a loss).

        A back worsens every outcome but its own selection winning, a lay only that one; neither changes the VOID
        outcome.
        """
        worst = 0
        for i in self.market.live:
            delta = dl + dd if i == sel else dl
            if delta < 0:
                worst = min(worst, self.ltot + self.d[i] + delta)
        return -(worst // 100)

    def reserve(self) -> int:
        """The sum of :func:`order_reserve` over the position's orders (their live size: matched + unmatched)."""
        return sum(order_reserve(o.is_back, o.tick, o.remaining + o.matched) for o in self.orders)

    def if_win(self) -> dict[int, int]:
        """Matched P&L if each selection wins alone, in hundredths of a minor unit (``listMarketProfitAndLoss``)."""
        d = [0] * len(self.d)
        ltot = 0
        for o in self.orders:
            sign = 1 if o.is_back else -1
            d[o.sel] += sign * o.matched_x100
            ltot -= sign * 100 * o.matched
        return {sid: ltot + d[i] for i, sid in enumerate(self.market.selection_ids)}

    def recompute(self) -> tuple[list[int], int]:
        """``(d, ltot)`` rebuilt from the orders by the module's table, for :meth:`_check`."""
        d = [0] * len(self.d)
        ltot = 0
        for o in self.orders:
            sign = 1 if o.is_back else -1
            ud, ul = unmatched_effect(o.is_back, o.tick, o.remaining)
            d[o.sel] += sign * o.matched_x100 + ud
            ltot += -sign * 100 * o.matched + ul
        return d, ltot

    def _check(self) -> None:
        """Raise :class:`LedgerError` if the vectors or the early-settled sum disagree with the orders."""
        where = f"position of {self.account_id!r} on {self.market.market_id}"
        d, ltot = self.recompute()
        if d != self.d or ltot != self.ltot:
            raise LedgerError(f"{where}: d/ltot {self.d}/{self.ltot}, orders give {d}/{ltot}")
        settled = sum(o.profit or 0 for o in self.orders if o.result is not None)
        if settled != self.settled:
            raise LedgerError(f"{where}: settled {self.settled}, early results sum to {settled}")
        for o in self.orders:
            if o.position is not self:
                raise LedgerError(f"{where}: bet {o.bet_id} belongs to another position")
