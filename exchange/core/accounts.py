"""Accounts: a balance, the positions on open markets, and what is kept of closed ones.

Cash moves only when a market settles or is voided: early settlement of a
losing selection fixes its bets' results, and the account's net market P&L is
posted in one amount at the end.  The exposure arithmetic is
:mod:`exchange.core.positions`'; this module adds it up over markets and
decides whether one more order is affordable (:meth:`Account.can_afford`).

Available to bet can fall below zero without an order: a voided hedge
(``VoidMatchedSince``), or a hand settled early whose loss the account's bets on
the other hands covered (the VOID outcome, where that cover would be refunded,
becomes its worst).  Below zero, an order is still taken if every outcome it
makes worse stays within the balance less the exposure of the account's other
markets (:meth:`Account.covers`): a hedge, or a bet small enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from exchange.core.errors import require
from exchange.core.positions import Position, order_reserve, unmatched_effect
from exchange.core.records import Record

if TYPE_CHECKING:
    from exchange.core.cleared import ClearedOrders
    from exchange.core.events import AccountResult
    from exchange.core.market import Market


@dataclass(frozen=True, slots=True)
class AccountFunds(Record):
    """What ``getAccountFunds`` reports, in minor units."""

    account_id: str
    balance: int
    exposure: int
    available: int


class Account:
    """An account: a balance in minor units, its open positions, and its records of closed markets."""

    __slots__ = ("account_id", "balance", "cleared", "positions", "reserved", "results")

    def __init__(self, account_id: str) -> None:
        self.account_id = account_id
        self.balance = 0
        #: the sum of the open positions' :meth:`Position.reserve`: a bound on the total exposure
        self.reserved = 0
        #: market id -> position, for markets not yet settled or voided
        self.positions: dict[str, Position] = {}
        #: market id -> the account's cleared orders there (settled or voided markets), by bet id
        self.cleared: dict[str, ClearedOrders] = {}
        #: market id -> the account's net P&L and commission there
        self.results: dict[str, AccountResult] = {}

    def open_position(self, market: Market) -> Position:
        """The account's position on ``market``, made (and registered with the market) on first use."""
        pos = self.positions.get(market.market_id)
        if pos is None:
            pos = self.positions[market.market_id] = market.positions[self.account_id] = Position(self, market)
        return pos

    def drop_position(self, market: Market) -> None:
        """Undo :meth:`open_position` of a position nothing happened on (a tentative one: ``check_places``)."""
        del self.positions[market.market_id]
        del market.positions[self.account_id]

    def exposure(self) -> int:
        """Total exposure over open markets (minor units)."""
        return sum(p.exposure() for p in self.positions.values())

    def available(self) -> int:
        """Available to bet: balance minus total exposure (minor units)."""
        return self.balance - self.exposure()

    def funds(self) -> AccountFunds:
        exposure = self.exposure()
        return AccountFunds(self.account_id, self.balance, exposure, self.balance - exposure)

    def exposure_change(self, market: Market, sel: int, is_back: bool, tick: int, size: int) -> tuple[int, int]:
        """The account's exposure on ``market`` now and with one more unmatched order (minor units)."""
        pos = self.positions.get(market.market_id)
        if pos is None:  # nothing on the market yet: the order's own largest loss (another hand is always in play)
            return 0, order_reserve(is_back, tick, size)
        return pos.exposure(), pos.exposure_with(sel, *unmatched_effect(is_back, tick, size))

    def can_afford(self, market: Market, sel: int, is_back: bool, tick: int, size: int) -> bool:
        """Whether the account can pay the loss of every outcome that one more unmatched order makes worse.

        First the bound: if what the account has not reserved covers the
        order's own largest loss, it is affordable whatever its exposure.
        Otherwise the exact figures (:meth:`covers`).
        """
        reserve = order_reserve(is_back, tick, size)
        if self.balance - self.reserved >= reserve:
            return True
        pos = self.positions.get(market.market_id)
        if pos is None:  # nothing on the market yet: its exposure would be the order's own largest loss
            return reserve <= self.available()
        return self.covers(pos, sel, *unmatched_effect(is_back, tick, size))

    def covers(self, pos: Position, sel: int, dd: int, dl: int) -> bool:
        """Whether the account can pay the loss of every outcome of ``pos``'s market that an order moving ``d[sel]``
        by ``dd`` and ``ltot`` by ``dl`` makes worse: its balance less the exposure of its other markets.

        While available to bet is at zero or above this is "the rise of the market's exposure fits in what is
        available".  Below zero it is not "the market's exposure does not rise": an order that left the worst
        outcome where it was but made another worse than the balance covers would leave the balance below zero if
        that other outcome came.
        """
        return pos.worsened_loss(sel, dd, dl) <= self.balance - (self.exposure() - pos.exposure())

    def _check(self) -> None:
        """Raise :class:`~exchange.core.errors.LedgerError` unless reserve and positions are consistent."""
        name = f"account {self.account_id!r}"
        reserve = sum(p.reserve() for p in self.positions.values())
        require(self.reserved == reserve, f"{name}: reserved {self.reserved}, its orders reserve {reserve}")
        require(self.reserved >= self.exposure(), f"{name}: reserved {self.reserved} below its exposure")
        for market_id, pos in self.positions.items():
            require(pos.market.market_id == market_id and pos.account is self, f"{name}: position on {market_id}")
            require(pos.market.is_open, f"{name}: a position on closed market {market_id}")
            pos._check()
        for market_id, cleared in self.cleared.items():
            require(
                all(c.account_id == self.account_id and c.market_id == market_id for c in cleared),
                f"{name}: cleared orders of {market_id} filed under the wrong account or market",
            )
            require(cleared.bet_ids == tuple(c.bet_id for c in cleared),
                    f"{name}: the bet ids of its cleared orders on {market_id} are not their records'")
