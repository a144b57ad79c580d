"""Events: the immutable record of everything the exchange did.

Every command returns a list of events; state is a fold over them
(:meth:`exchange.core.exchange.Exchange.apply`), so a journal of events rebuilds the
exchange exactly.  The journal, the WebSocket stream and the settlement tables
are projections of these records (``to_dict()`` gives JSON-ready dicts tagged
with ``"type"``; :func:`event_from_dict` reads them back).

Money is in integer minor units, prices are ladder ticks, times are the
integer milliseconds the command carried.

>>> e = MarketOpened(ts=1000, market_id="1.1", round=1)
>>> e.to_dict()
{'type': 'MarketOpened', 'ts': 1000, 'market_id': '1.1', 'round': 1}
>>> event_from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from exchange.core.errors import ErrorCode
from exchange.core.market import SelectionStatus
from exchange.core.orders import BetOutcome, LapseReason
from exchange.core.records import Record, fast_constructor
from exchange.core.side import Side

if TYPE_CHECKING:
    from exchange.core.orders import Order


class OrderAction(StrEnum):
    """Which order instruction a rejection answers."""

    PLACE = "PLACE"
    CANCEL = "CANCEL"
    REPLACE = "REPLACE"


class CancelReason(StrEnum):
    """Why unmatched size was cancelled.

    ``ACCOUNT_OVERDRAWN``: matches voided after a card exposure took back a
    hedge, and the account's available to bet fell below zero; its unmatched
    orders on that market are cancelled to release what they reserve
    (:class:`~exchange.core.commands.VoidMatchedSince`, decided by
    :func:`exchange.core.lifecycle.void_matched_since`).
    ``FILL_OR_KILL``: what a FILL_OR_KILL order did not match as it was placed
    (:mod:`exchange.core.fill_or_kill`).
    """

    BY_USER = "BY_USER"
    REPLACED = "REPLACED"
    MARKET_VOIDED = "MARKET_VOIDED"
    ACCOUNT_OVERDRAWN = "ACCOUNT_OVERDRAWN"
    FILL_OR_KILL = "FILL_OR_KILL"


@dataclass(frozen=True, slots=True)
class BetResult(Record):
    """A bet's settled outcome and profit (minor units, before commission)."""

    bet_id: int
    account_id: str
    selection_id: int
    outcome: BetOutcome
    profit: int


@dataclass(frozen=True, slots=True)
class AccountResult(Record):
    """An account's net P&L on a market and the commission charged on it.

    ``profit`` is the whole market's net (bets settled early included); the
    balance moves by ``profit - commission``.
    """

    account_id: str
    profit: int
    commission: int


class Event(Record):
    """Base of all events (for ``isinstance`` and typing)."""

    __slots__ = ()
    #: Whether applying the event changes state (rejections do not).
    CHANGES_STATE: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class AccountOpened(Event):
    TYPE_TAG: ClassVar[str] = "AccountOpened"
    ts: int
    account_id: str


@dataclass(frozen=True, slots=True)
class AccountCredited(Event):
    """Money into an account from outside the markets (a deposit)."""

    TYPE_TAG: ClassVar[str] = "AccountCredited"
    ts: int
    account_id: str
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class AccountDebited(Event):
    """Money out of an account to outside the markets (a withdrawal)."""

    TYPE_TAG: ClassVar[str] = "AccountDebited"
    ts: int
    account_id: str
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class MarketCreated(Event):
    TYPE_TAG: ClassVar[str] = "MarketCreated"
    ts: int
    market_id: str
    selection_ids: tuple[int, ...]
    min_stake: int
    commission_bps: int


@dataclass(frozen=True, slots=True)
class MarketOpened(Event):
    """A betting window opened: the market is ACTIVE for ``round``."""

    TYPE_TAG: ClassVar[str] = "MarketOpened"
    ts: int
    market_id: str
    round: int


@dataclass(frozen=True, slots=True)
class MarketSuspended(Event):
    """A betting window closed, or an operator suspended the market inside one (after its unmatched orders
    lapsed)."""

    TYPE_TAG: ClassVar[str] = "MarketSuspended"
    ts: int
    market_id: str
    round: int


@dataclass(frozen=True, slots=True)
class OrderPlaced(Event):
    """An order was accepted with a new ``bet_id``; any fills follow as :class:`Matched`.

    ``replaces`` is the old bet id when the order comes from a replace.
    """

    TYPE_TAG: ClassVar[str] = "OrderPlaced"
    ts: int
    bet_id: int
    account_id: str
    market_id: str
    selection_id: int
    side: Side
    tick: int
    size: int
    round: int
    customer_ref: str | None = None
    replaces: int | None = None
    strategy_ref: str | None = None


@dataclass(frozen=True, slots=True)
class OrderRejected(Event):
    """An order instruction was refused; nothing changed."""

    CHANGES_STATE: ClassVar[bool] = False
    TYPE_TAG: ClassVar[str] = "OrderRejected"
    ts: int
    action: OrderAction
    account_id: str
    error_code: ErrorCode
    message: str
    market_id: str | None = None
    selection_id: int | None = None
    bet_id: int | None = None
    customer_ref: str | None = None


@dataclass(frozen=True, slots=True)
class CommandRejected(Event):
    """An account command (open, deposit, withdraw) was refused; nothing changed."""

    CHANGES_STATE: ClassVar[bool] = False
    TYPE_TAG: ClassVar[str] = "CommandRejected"
    ts: int
    command: str
    account_id: str
    error_code: ErrorCode
    message: str


@dataclass(frozen=True, slots=True)
class Matched(Event):
    """A back and a lay matched ``size`` (backer's stake) at the resting order's ``tick``.

    ``taker_side`` is the side of the incoming order (the resting one is the
    other side).  Back and lay stakes matched are equal by construction.
    """

    TYPE_TAG: ClassVar[str] = "Matched"
    ts: int
    match_id: int
    market_id: str
    selection_id: int
    tick: int
    size: int
    back_bet_id: int
    lay_bet_id: int
    back_account_id: str
    lay_account_id: str
    taker_side: Side


@dataclass(frozen=True, slots=True)
class OrderCancelled(Event):
    """``size`` of an order's unmatched remainder was cancelled."""

    TYPE_TAG: ClassVar[str] = "OrderCancelled"
    ts: int
    bet_id: int
    account_id: str
    market_id: str
    selection_id: int
    size: int
    reason: CancelReason


@dataclass(frozen=True, slots=True)
class OrderLapsed(Event):
    """An order's unmatched remainder (``size``) lapsed."""

    TYPE_TAG: ClassVar[str] = "OrderLapsed"
    ts: int
    bet_id: int
    account_id: str
    market_id: str
    selection_id: int
    size: int
    reason: LapseReason


@dataclass(frozen=True, slots=True)
class MatchVoided(Event):
    """A match was voided: both bets lose ``size`` of matched stake to ``sizeVoided``."""

    TYPE_TAG: ClassVar[str] = "MatchVoided"
    ts: int
    match_id: int
    market_id: str
    selection_id: int
    tick: int
    size: int
    back_bet_id: int
    lay_bet_id: int
    back_account_id: str
    lay_account_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class SelectionSettled(Event):
    """A selection was settled early as ``status`` (LOSER); ``bets`` are its matched bets' results.

    Results are fixed now; the cash moves with the market's final posting.
    """

    TYPE_TAG: ClassVar[str] = "SelectionSettled"
    ts: int
    market_id: str
    selection_id: int
    status: SelectionStatus
    bets: tuple[BetResult, ...]


@dataclass(frozen=True, slots=True)
class MarketSettled(Event):
    """The market settled with ``winners`` (several = dead heat).

    ``bets``: results of the bets settled now (those settled early are in
    their :class:`SelectionSettled`).  ``accounts``: each account's net market
    P&L and commission; balances move by ``profit - commission``.  The house
    account receives the commissions plus ``rounding``: the residue of rounding
    each account's P&L to the unit (under half a unit per account, either
    sign; see :mod:`exchange.core.settlement`), so ``Σ profit + rounding == 0``.
    """

    TYPE_TAG: ClassVar[str] = "MarketSettled"
    ts: int
    market_id: str
    winners: tuple[int, ...]
    bets: tuple[BetResult, ...]
    accounts: tuple[AccountResult, ...]
    rounding: int
    house_account_id: str


@dataclass(frozen=True, slots=True)
class MarketVoided(Event):
    """The market was voided.  Bets settled early keep their results: ``accounts`` post them."""

    TYPE_TAG: ClassVar[str] = "MarketVoided"
    ts: int
    market_id: str
    accounts: tuple[AccountResult, ...]
    house_account_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class IdsSkipped(Event):
    """The next ``count`` bet ids and match ids are passed over, never given: the journal lost (or set aside)
    ``count`` records at a start that accepted the damage, each of which may have given one of either to a
    client, so none of them may name another bet or match now. Written by the journal, not decided from a
    command."""

    TYPE_TAG: ClassVar[str] = "IdsSkipped"
    ts: int
    count: int
    reason: str


#: Fast constructors for the events made on the hot path (see :func:`exchange.core.records.fast_constructor`).
new_order_placed = fast_constructor(OrderPlaced)
new_matched = fast_constructor(Matched)
new_order_cancelled = fast_constructor(OrderCancelled)
new_order_lapsed = fast_constructor(OrderLapsed)
new_order_rejected = fast_constructor(OrderRejected)


def order_cancelled(ts: int, order: Order, size: int, reason: CancelReason) -> OrderCancelled:
    """The event that cancels ``size`` of ``order``'s unmatched remainder (by its owner, a replace, a fill-or-kill's
    kill, a void, an overdrawn account)."""
    return new_order_cancelled(ts, order.bet_id, order.account_id, order.market_id, order.selection_id, size, reason)


#: Every event class by its journal tag (its name): what :func:`event_from_dict` reads back. A new event class
#: must be added here; ``tests/exchange/test_journal.py`` fails when one is missing.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE_TAG: cls
    for cls in (
        AccountOpened,
        AccountCredited,
        AccountDebited,
        MarketCreated,
        MarketOpened,
        MarketSuspended,
        OrderPlaced,
        OrderRejected,
        CommandRejected,
        Matched,
        OrderCancelled,
        OrderLapsed,
        MatchVoided,
        SelectionSettled,
        MarketSettled,
        MarketVoided,
        IdsSkipped,
    )
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from its ``to_dict()`` form."""
    return EVENT_TYPES[data["type"]].from_dict(data)
