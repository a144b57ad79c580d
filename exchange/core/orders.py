"""Orders: the mutable record the book and accounts share, and its immutable views.

An :class:`Order` is the core's working state for one bet (API-NG's ``betId``):
sizes in integer minor units, the price as a ladder tick, and the running sums
needed for an exact ``averagePriceMatched``.  Outside the core it is only ever
seen through :class:`OrderView` (current orders) and :class:`ClearedOrder`.

Size accounting: ``size == matched + remaining + lapsed + cancelled + voided``
at all times.  Only :class:`~exchange.core.positions.Position` changes the
first, second and last; the exchange's transitions add to ``lapsed`` and
``cancelled`` beside its :meth:`~exchange.core.positions.Position.release`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING

from exchange.core import ladder
from exchange.core.errors import LedgerError
from exchange.core.records import Record, fast_constructor
from exchange.core.side import Side

if TYPE_CHECKING:
    from exchange.core.events import BetResult
    from exchange.core.positions import Position

#: An order's matched stake by the price it matched at: ``((tick, size), ...)``, each tick once, ascending,
#: voided matches left out (:func:`exchange.core.market.matched_by_tick` sums a market's fills into it).
MatchedByTick = tuple[tuple[int, int], ...]
#: One bet's matched stake as the order stream sums it: ``(side, customerStrategyRef, stake by tick)``.
MatchedRow = tuple[Side, str | None, MatchedByTick]


class OrderType(StrEnum):
    """API-NG order types; the exchange accepts only LIMIT."""

    LIMIT = "LIMIT"
    LIMIT_ON_CLOSE = "LIMIT_ON_CLOSE"
    MARKET_ON_CLOSE = "MARKET_ON_CLOSE"


class PersistenceType(StrEnum):
    """API-NG persistence types; the exchange accepts only LAPSE (unmatched lapses at window close)."""

    LAPSE = "LAPSE"
    PERSIST = "PERSIST"
    MARKET_ON_CLOSE = "MARKET_ON_CLOSE"


class OrderStatus(StrEnum):
    """``EXECUTABLE`` while some size is unmatched and live, else ``EXECUTION_COMPLETE``."""

    EXECUTABLE = "EXECUTABLE"
    EXECUTION_COMPLETE = "EXECUTION_COMPLETE"


class BetOutcome(StrEnum):
    """The result of a settled bet: which hand won, not the bet's sign. A dead-heat win is ``WON`` at reduced
    odds, which is a loss for a back at odds under the number tied (the lay is then ``LOST`` with a gain)."""

    WON = "WON"
    LOST = "LOST"


class LapseReason(StrEnum):
    """Why unmatched size lapsed: its betting window closed, or the market was suspended inside it (an operator's
    suspend, a card exposed before its time), or a selection or the market settled."""

    WINDOW_CLOSED = "WINDOW_CLOSED"
    MARKET_SUSPENDED = "MARKET_SUSPENDED"
    SELECTION_SETTLED = "SELECTION_SETTLED"
    MARKET_SETTLED = "MARKET_SETTLED"
    # the unmatched part of a FILL_OR_KILL order, in journals written before 2026-12-06 (it is cancelled now:
    # CancelReason.FILL_OR_KILL)
    FILL_OR_KILL = "FILL_OR_KILL"


class BetStatus(StrEnum):
    """How a cleared order ended, as API-NG's ``listClearedOrders`` names it."""

    SETTLED = "SETTLED"
    VOIDED = "VOIDED"
    LAPSED = "LAPSED"
    CANCELLED = "CANCELLED"


class Order:
    """One bet's working state while its market is open.  Changed only through its
    :class:`~exchange.core.positions.Position` (sizes) and the exchange's transitions.

    ``matched_x100`` is the sum of ``fill size × fill price in hundredths``, so
    ``averagePriceMatched = matched_x100 / (100 × matched)`` exactly.  What the
    order shares with its position (account, market, selection id) is read
    through it rather than stored again.  ``sel`` is the selection's index in
    its market; ``result`` the bet's settled :class:`~exchange.core.events.BetResult`
    once its selection or market is settled; ``matched_ts`` the last fill's, ``cancelled_ts`` the last
    cancellation's and ``lapsed_ts`` the lapse's, with its ``lapse_reason``.
    When its market closes the order is compacted into a :class:`ClearedOrder`.
    """

    __slots__ = (
        "bet_id",
        "cancelled",
        "cancelled_ts",
        "customer_ref",
        "is_back",
        "lapse_reason",
        "lapsed",
        "lapsed_ts",
        "matched",
        "matched_ts",
        "matched_x100",
        "placed_ts",
        "position",
        "remaining",
        "result",
        "round",
        "sel",
        "strategy_ref",
        "tick",
        "voided",
    )

    def __init__(
        self,
        bet_id: int,
        position: Position,
        sel: int,
        is_back: bool,
        tick: int,
        size: int,
        placed_ts: int,
        round: int,
        customer_ref: str | None,
        strategy_ref: str | None = None,
    ) -> None:
        self.bet_id = bet_id
        self.position = position
        self.sel = sel
        self.is_back = is_back
        self.tick = tick
        self.remaining = size
        self.matched = 0
        self.matched_x100 = 0
        self.lapsed = 0
        self.cancelled = 0
        self.voided = 0
        self.placed_ts = placed_ts
        self.matched_ts: int | None = None
        self.cancelled_ts: int | None = None
        self.lapsed_ts: int | None = None
        self.lapse_reason: LapseReason | None = None
        self.round = round
        self.customer_ref = customer_ref
        self.strategy_ref = strategy_ref
        self.result: BetResult | None = None

    @property
    def size(self) -> int:
        """The size placed: every part of it is matched, remaining, lapsed, cancelled or voided."""
        return self.matched + self.remaining + self.lapsed + self.cancelled + self.voided

    @property
    def settled_ts(self) -> int | None:
        """When the order was cleared: its selection's early settlement, else its market's settlement or void."""
        market = self.position.market
        early = market.selection_settled_ts[self.sel]
        return market.settled_ts if early is None else early

    @property
    def account_id(self) -> str:
        return self.position.account_id

    @property
    def market_id(self) -> str:
        return self.position.market.market_id

    @property
    def selection_id(self) -> int:
        return self.position.market.selection_ids[self.sel]

    @property
    def side(self) -> Side:
        return Side.BACK if self.is_back else Side.LAY

    @property
    def outcome(self) -> BetOutcome | None:
        result = self.result
        return None if result is None else result.outcome

    @property
    def profit(self) -> int | None:
        result = self.result
        return None if result is None else result.profit

    @property
    def status(self) -> OrderStatus:
        return OrderStatus.EXECUTABLE if self.remaining else OrderStatus.EXECUTION_COMPLETE

    @property
    def average_price_matched(self) -> Fraction | None:
        """The stake-weighted average matched price, exactly; ``None`` if nothing is matched."""
        if not self.matched:
            return None
        return Fraction(self.matched_x100, 100 * self.matched)

    def __repr__(self) -> str:
        return (
            f"Order(bet_id={self.bet_id}, account={self.account_id!r}, selection={self.selection_id}, "
            f"{self.side.value} {self.size}@{ladder.price_str(self.tick)}, matched={self.matched}, "
            f"remaining={self.remaining})"
        )

    def _check(self) -> None:
        """Raise :class:`~exchange.core.errors.LedgerError` if the order's sizes or prices are inconsistent."""
        parts = (self.matched, self.remaining, self.lapsed, self.cancelled, self.voided)
        problem = None
        if self.size <= 0 or min(parts) < 0:
            problem = f"sizes {parts} must be non-negative with a positive sum"
        elif not 0 <= self.tick < ladder.TICK_COUNT:
            problem = f"tick {self.tick} is off the ladder"
        elif self.matched == 0 and self.matched_x100 != 0:
            problem = f"matched_x100 {self.matched_x100} with nothing matched"
        elif self.matched and not 101 * self.matched <= self.matched_x100 <= 100000 * self.matched:
            problem = f"average matched price {self.matched_x100}/{self.matched} is off the ladder"
        elif self.matched:
            # Each fill is at a price at least as good as the order's limit.
            limit = ladder.PRICE_X100[self.tick] * self.matched
            if (self.matched_x100 < limit) if self.is_back else (self.matched_x100 > limit):
                problem = f"matched at a worse price than its limit ({self.matched_x100} vs {limit})"
        if problem is None and self.result is not None and (self.result.bet_id != self.bet_id or self.remaining):
            problem = f"settled result {self.result} does not fit"
        if problem is not None:
            raise LedgerError(f"bet {self.bet_id}: {problem}")

    def view(self) -> OrderView:
        """The order as its owner sees it (``listCurrentOrders``)."""
        return OrderView(
            bet_id=self.bet_id,
            market_id=self.market_id,
            selection_id=self.selection_id,
            side=self.side,
            tick=self.tick,
            price=ladder.price(self.tick),
            size=self.size,
            status=self.status,
            size_matched=self.matched,
            average_price_matched=self.average_price_matched,
            size_remaining=self.remaining,
            size_lapsed=self.lapsed,
            size_cancelled=self.cancelled,
            size_voided=self.voided,
            placed_ts=self.placed_ts,
            matched_ts=self.matched_ts,
            round=self.round,
            customer_ref=self.customer_ref,
            order_type=OrderType.LIMIT,
            persistence_type=PersistenceType.LAPSE,
            strategy_ref=self.strategy_ref,
            cancelled_ts=self.cancelled_ts,
            lapsed_ts=self.lapsed_ts,
            lapse_reason=self.lapse_reason,
        )

    def sizes(self) -> tuple[int, int, int, int, int, int]:
        """What changes as the order lives, and so its :meth:`view`: every change moves some of its size (a fill,
        a cancel or a lapse moves some of what is unmatched, a void some of what is matched), and sets the dates
        and averages the view shows with it."""
        return self.matched, self.matched_x100, self.remaining, self.lapsed, self.cancelled, self.voided

    def cleared(self, matched_by_tick: MatchedByTick) -> ClearedOrder:
        """The order as ``listClearedOrders`` reports it, once its market or selection is closed.

        ``matched_by_tick`` is its matched stake by fill price (from its market's fills, which the order
        does not hold); the record keeps it when there are several prices, as the fills go when the
        market closes (at one price, ``price_matched`` says it all).
        """
        settled_ts = self.settled_ts
        if settled_ts is None:
            raise LedgerError(f"bet {self.bet_id} is not cleared yet: its market and selection are open")
        if self.outcome is not None:
            status = BetStatus.SETTLED
        elif self.voided:
            status = BetStatus.VOIDED
        elif self.lapsed:
            status = BetStatus.LAPSED
        else:
            status = BetStatus.CANCELLED
        return _new_cleared_order(
            bet_id=self.bet_id,
            account_id=self.account_id,
            market_id=self.market_id,
            selection_id=self.selection_id,
            side=self.side,
            price_requested=ladder.price(self.tick),
            size=self.size,
            bet_status=status,
            bet_outcome=self.outcome,
            size_settled=self.matched if self.outcome is not None else 0,
            price_matched=self.average_price_matched,
            profit=self.profit if self.profit is not None else 0,
            size_cancelled=self.cancelled,
            size_lapsed=self.lapsed,
            size_voided=self.voided,
            placed_ts=self.placed_ts,
            last_matched_ts=self.matched_ts,
            settled_ts=settled_ts,
            customer_ref=self.customer_ref,
            round=self.round,
            strategy_ref=self.strategy_ref,
            several_prices=matched_by_tick if len(matched_by_tick) > 1 else (),
            cancelled_ts=self.cancelled_ts,
            lapsed_ts=self.lapsed_ts,
            lapse_reason=self.lapse_reason,
        )


@dataclass(frozen=True, slots=True)
class OrderView(Record):
    """An order as API-NG's ``CurrentOrderSummary`` reports it (sizes in minor units)."""

    bet_id: int
    market_id: str
    selection_id: int
    side: Side
    tick: int
    price: Decimal
    size: int
    status: OrderStatus
    size_matched: int
    average_price_matched: Fraction | None
    size_remaining: int
    size_lapsed: int
    size_cancelled: int
    size_voided: int
    placed_ts: int
    matched_ts: int | None
    round: int
    customer_ref: str | None
    order_type: OrderType
    persistence_type: PersistenceType
    strategy_ref: str | None = None  # API-NG's customerStrategyRef
    #: When some of it was last cancelled, and when its remainder lapsed and why (API-NG's cancelledDate,
    #: lapsedDate and lapseStatusReasonCode); ``None`` if none of it was.
    cancelled_ts: int | None = None
    lapsed_ts: int | None = None
    lapse_reason: LapseReason | None = None


@dataclass(frozen=True, slots=True)
class MatchView(Record):
    """One match of one bet, as API-NG's ``Match`` reports it unrolled: the price (``tick``) and the stake
    (minor units) of that fill, not the bet's average (``listMarketBook`` with ``NO_ROLLUP``)."""

    bet_id: int
    match_id: int
    selection_id: int
    side: Side
    tick: int
    size: int
    matched_ts: int


@dataclass(frozen=True, slots=True)
class ClearedOrder(Record):
    """An order as API-NG's ``ClearedOrderSummary`` reports it.

    ``profit`` is the bet's settled P&L in minor units before commission
    (commission is charged per account per market, see
    :class:`exchange.core.events.AccountResult`); 0 for unsettled statuses.
    ``several_prices`` is what ``price_matched`` averages when the bet matched at
    more than one price: the stake matched at each, voided matches left out;
    ``()`` when it matched at one price or none (:attr:`matched_by_tick` gives
    either; the order stream's ``mb``/``ml`` of a closed market, not part of
    API-NG's record).  Most bets match at one price, so most records hold
    nothing more than API-NG's.
    """

    bet_id: int
    account_id: str
    market_id: str
    selection_id: int
    side: Side
    price_requested: Decimal
    size: int
    bet_status: BetStatus
    bet_outcome: BetOutcome | None
    size_settled: int
    price_matched: Fraction | None
    profit: int
    size_cancelled: int
    size_lapsed: int
    size_voided: int
    placed_ts: int
    last_matched_ts: int | None
    settled_ts: int
    customer_ref: str | None
    round: int
    strategy_ref: str | None = None  # API-NG's customerStrategyRef
    several_prices: MatchedByTick = ()
    #: As :class:`OrderView`'s: when some of it was last cancelled, when its remainder lapsed and why.
    cancelled_ts: int | None = None
    lapsed_ts: int | None = None
    lapse_reason: LapseReason | None = None

    @property
    def size_matched(self) -> int:
        """The stake matched and not voided (``size_settled`` is 0 for a bet that was not settled)."""
        return self.size - self.size_cancelled - self.size_lapsed - self.size_voided

    @property
    def matched_by_tick(self) -> MatchedByTick:
        """The stake matched at each price, ascending: ``several_prices``, or all of it at ``price_matched``.

        >>> from exchange.core.commands import *
        >>> from exchange.core.exchange import Exchange
        >>> ex = Exchange()
        >>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 5000), OpenAccount(0, "bo"), Deposit(0, "bo", 5000),
        ...             CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
        ...             PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3.2"), 200),
        ...             PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 200),
        ...             PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 400), SettleMarket(3, "1.1", (1,))):
        ...     _ = ex.execute(cmd)
        >>> [(c.bet_id, c.price_matched, c.matched_by_tick, c.several_prices) for c in ex.cleared_orders("al")]
        [(3, Fraction(31, 10), ((149, 200), (153, 200)), ((149, 200), (153, 200)))]
        >>> [(c.bet_id, c.matched_by_tick, c.several_prices) for c in ex.cleared_orders("bo")]
        [(1, ((153, 200),), ()), (2, ((149, 200),), ())]
        """
        if self.several_prices or self.price_matched is None:
            return self.several_prices
        tick = ladder.tick_at_or_above(self.price_matched)
        if tick is None or ladder.PRICE_X100[tick] != self.price_matched * 100:
            raise LedgerError(f"bet {self.bet_id}: matched at one price, but {self.price_matched} is not on the ladder")
        return ((tick, self.size_matched),)

    def voided_part(self) -> ClearedOrder | None:
        """The stake voided of a bet settled on the rest, as a ``VOIDED`` record of its own; ``None`` for other bets.

        ``listClearedOrders`` lists such a bet twice, each "item" with its own ``sizeSettled`` as Betfair
        defines it ("settled as matched or voided under this item"): under ``SETTLED`` the stake that stood,
        with the bet's outcome and profit, and under ``VOIDED`` this record, the voided stake alone (its
        ``size``), nothing matched, cancelled or lapsed in it and no profit. So the rows of one bet add up
        to its size: the settled part, the cancelled and lapsed parts (on the settled row) and this.

        >>> from exchange.core.commands import *
        >>> from exchange.core.exchange import Exchange
        >>> ex = Exchange()
        >>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 5000), OpenAccount(0, "bo"), Deposit(0, "bo", 5000),
        ...             CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
        ...             PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 500),
        ...             PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 200),
        ...             PlaceOrder(5, "al", "1.1", 1, Side.BACK, Decimal("3"), 300),
        ...             VoidMatchedSince(6, "1.1", 4, "card exposed"), SettleMarket(9, "1.1", (1,))):
        ...     _ = ex.execute(cmd)
        >>> [(c.bet_id, str(c.bet_status), c.size_settled, c.size_voided, c.profit) for c in ex.cleared_orders("bo")]
        [(1, 'SETTLED', 200, 300, -400)]
        >>> part = ex.cleared_orders("bo")[0].voided_part()
        >>> part.bet_id, str(part.bet_status), part.size, part.size_voided, part.size_matched, part.profit
        (1, 'VOIDED', 300, 300, 0, 0)
        """
        if self.bet_status is not BetStatus.SETTLED or not self.size_voided:
            return None
        return replace(self, size=self.size_voided, bet_status=BetStatus.VOIDED, bet_outcome=None, size_settled=0,
                       price_matched=None, profit=0, size_cancelled=0, size_lapsed=0, several_prices=(),
                       cancelled_ts=None, lapsed_ts=None, lapse_reason=None)

    def view(self) -> OrderView:
        """The cleared bet as ``listCurrentOrders`` shows an order that is complete."""
        return OrderView(
            bet_id=self.bet_id,
            market_id=self.market_id,
            selection_id=self.selection_id,
            side=self.side,
            tick=ladder.parse_price(self.price_requested),
            price=self.price_requested,
            size=self.size,
            status=OrderStatus.EXECUTION_COMPLETE,
            size_matched=self.size_settled,
            average_price_matched=self.price_matched,
            size_remaining=0,
            size_lapsed=self.size_lapsed,
            size_cancelled=self.size_cancelled,
            size_voided=self.size_voided,
            placed_ts=self.placed_ts,
            matched_ts=self.last_matched_ts,
            round=self.round,
            customer_ref=self.customer_ref,
            order_type=OrderType.LIMIT,
            persistence_type=PersistenceType.LAPSE,
            strategy_ref=self.strategy_ref,
            cancelled_ts=self.cancelled_ts,
            lapsed_ts=self.lapsed_ts,
            lapse_reason=self.lapse_reason,
        )


#: Every closed market clears each of its orders (a restart's tail folds dozens of closes): built the fast way
#: (:func:`~exchange.core.records.fast_constructor`; a quarter of the class's time for its 25 fields).
_new_cleared_order = fast_constructor(ClearedOrder)
