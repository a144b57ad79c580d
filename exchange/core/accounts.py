"""Accounts: a balance, the positions on open markets, and what is kept of closed ones.

Cash moves only when a market settles or is voided: early settlement of a
losing selection fixes its bets' results (and shrinks exposure), and the
account's net market P&L is posted in one amount at the end.  That keeps
``available >= 0`` true at every step (a loss settled early cannot overdraw an
account whose remaining outcomes all pay it back).  The exposure arithmetic
is :mod:`exchange.core.positions`'; this module adds it up over markets and
decides whether one more order is affordable (:meth:`Account.can_afford`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from exchange.core.errors import require
from exchange.core.positions import Position, exposure_of, order_reserve, unmatched_effect
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
        if pos is not None:
            return pos.exposure(), pos.exposure_with(sel, is_back, tick, size)
        dd, dl = unmatched_effect(is_back, tick, size)
        worst = min(dd if i == sel else 0 for i in market.live) + dl
        return 0, exposure_of(worst, 0)

    def can_afford(self, market: Market, sel: int, is_back: bool, tick: int, size: int) -> bool:
        """Whether one more unmatched order keeps available to bet from going negative.

        First the bound: if what the account has not reserved covers the
        order's own largest loss, it is affordable whatever its exposure.
        Otherwise the exact figures: an order that does not raise the
        account's exposure is always allowed; one that does must fit in the
        balance less the exposure of every market.
        """
        if self.balance - self.reserved >= order_reserve(is_back, tick, size):
            return True
        return self.affords(*self.exposure_change(market, sel, is_back, tick, size))

    def affords(self, current: int, after: int) -> bool:
        """Whether one market's exposure may move from ``current`` to ``after`` (minor units): a fall always, a
        rise if available to bet covers it."""
        return after <= current or self.available() - (after - current) >= 0

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
