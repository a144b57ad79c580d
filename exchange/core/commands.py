"""Commands: what drivers ask the exchange to do.

Each command is a frozen record carrying its own timestamp ``ts`` (integer
milliseconds; the core reads no clock).  Order and account commands come from
traders (through the HTTP layer, a backtest or a bot) and are refused with a
rejection event when invalid; market lifecycle commands come from the game
driver, and misuse of them (an unknown market, settling twice) is a bug that
raises :class:`exchange.core.errors.ExchangeError`.

Sizes and amounts are integer minor units; prices are exact ``Decimal`` (use
:func:`exchange.core.ladder.price` for a tick, or parse client input with
:func:`exchange.core.money.to_minor` / ``Decimal``).

>>> from decimal import Decimal
>>> cmd = PlaceOrder(ts=5, account_id="alice", market_id="1.1", selection_id=1,
...                  side=Side.BACK, price=Decimal("2.5"), size=1000)
>>> command_from_dict(cmd.to_dict()) == cmd
True
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from exchange.core.events import LapseReason
from exchange.core.orders import OrderType, PersistenceType
from exchange.core.records import Record
from exchange.core.side import Side


class Command(Record):
    """Base of all commands."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class OpenAccount(Command):
    TYPE_TAG: ClassVar[str] = "OpenAccount"
    ts: int
    account_id: str


@dataclass(frozen=True, slots=True)
class Deposit(Command):
    """Add ``amount`` (minor units, > 0) to an account's balance."""

    TYPE_TAG: ClassVar[str] = "Deposit"
    ts: int
    account_id: str
    amount: int
    reason: str = "deposit"


@dataclass(frozen=True, slots=True)
class Withdraw(Command):
    """Take ``amount`` (minor units, > 0, at most the available to bet) out of an account."""

    TYPE_TAG: ClassVar[str] = "Withdraw"
    ts: int
    account_id: str
    amount: int
    reason: str = "withdrawal"


@dataclass(frozen=True, slots=True)
class CreateMarket(Command):
    """Create a SUSPENDED market (round 0) with these selections; ``None`` takes the exchange defaults."""

    TYPE_TAG: ClassVar[str] = "CreateMarket"
    ts: int
    market_id: str
    selection_ids: tuple[int, ...]
    min_stake: int | None = None
    commission_bps: int | None = None


@dataclass(frozen=True, slots=True)
class OpenMarket(Command):
    """Open the next betting window: round += 1, status ACTIVE."""

    TYPE_TAG: ClassVar[str] = "OpenMarket"
    ts: int
    market_id: str


@dataclass(frozen=True, slots=True)
class SuspendMarket(Command):
    """Close the betting window, or suspend the market inside it: every unmatched order lapses (``lapse_reason``),
    status SUSPENDED."""

    TYPE_TAG: ClassVar[str] = "SuspendMarket"
    ts: int
    market_id: str
    lapse_reason: LapseReason = LapseReason.WINDOW_CLOSED


@dataclass(frozen=True, slots=True)
class ResumeMarket(Command):
    """Reopen a suspended market in the round it is in: ACTIVE, nothing lapsed or turned (an operator's resume).

    The core does not keep why a market was suspended: its driver allows a resume only inside the betting window
    an operator suspended (the game's ``operator_resume``), never after a window's close."""

    TYPE_TAG: ClassVar[str] = "ResumeMarket"
    ts: int
    market_id: str


@dataclass(frozen=True, slots=True)
class PlaceOrder(Command):
    """API-NG ``placeOrders`` with one LIMIT instruction.

    ``round``: the betting round the client saw; an earlier one is refused
    with ``BET_REJECTED_ROUND_STALE`` (``None`` skips the check).
    ``strategy_ref``: API-NG's ``customerStrategyRef``, kept on the order.
    ``fill_or_kill``: API-NG's ``timeInForce: FILL_OR_KILL`` with its ``minFillSize`` (the size when none is
    given): the order matches at once if at least this much can, else not at all; what does not match is
    cancelled (``OrderCancelled``, reason ``FILL_OR_KILL``: :mod:`exchange.core.fill_or_kill`). ``None``: an
    ordinary order that rests.
    """

    TYPE_TAG: ClassVar[str] = "PlaceOrder"
    ts: int
    account_id: str
    market_id: str
    selection_id: int
    side: Side
    price: Decimal
    size: int
    round: int | None = None
    customer_ref: str | None = None
    order_type: OrderType = OrderType.LIMIT
    persistence_type: PersistenceType = PersistenceType.LAPSE
    strategy_ref: str | None = None
    fill_or_kill: int | None = None


@dataclass(frozen=True, slots=True)
class CancelOrder(Command):
    """API-NG ``cancelOrders`` with one instruction: cancel all, or ``size_reduction`` of, the unmatched part.

    ``market_id``: the market the cancel was sent through, if any (API-NG's ``marketId``): a bet not on it is
    refused ``INVALID_BET_ID`` (as :class:`ReplaceOrders` refuses one).
    """

    TYPE_TAG: ClassVar[str] = "CancelOrder"
    ts: int
    account_id: str
    bet_id: int
    size_reduction: int | None = None
    market_id: str | None = None


@dataclass(frozen=True, slots=True)
class ReplaceOrder(Command):
    """Move one bet's unmatched part to ``new_price``: :class:`ReplaceOrders` with one move.

    Refused (not the caller's live bet, the market not open): nothing changes. Otherwise, as Betfair's, the cancel
    is done first and stands if the new bet cannot be placed (a price off the ladder, funds the account lacks): an
    ``OrderCancelled`` then an ``OrderRejected`` (:func:`exchange.core.trading.replace`).
    """

    TYPE_TAG: ClassVar[str] = "ReplaceOrder"
    ts: int
    account_id: str
    bet_id: int
    new_price: Decimal
    round: int | None = None


@dataclass(frozen=True, slots=True)
class Move(Record):
    """One bet of a :class:`ReplaceOrders` and the price its unmatched part moves to."""

    bet_id: int
    new_price: Decimal


@dataclass(frozen=True, slots=True)
class ReplaceOrders(Command):
    """API-NG ``replaceOrders``: several of an account's bets on one market moved at once, as Betfair does it.

    Every bet that can be moved (the caller's, live, on ``market_id``, its market open) is cancelled first; then the
    new bets are placed all or none. If one cannot be placed (a price off the ladder, funds the account lacks) none
    is, and the cancels stand (:func:`exchange.core.trading.replace_orders`).
    """

    TYPE_TAG: ClassVar[str] = "ReplaceOrders"
    ts: int
    account_id: str
    market_id: str
    moves: tuple[Move, ...]
    round: int | None = None


@dataclass(frozen=True, slots=True)
class SettleSelection(Command):
    """Settle a selection early as a LOSER (it can no longer win or tie).

    If that leaves a single selection in play, the market settles with it as the winner.
    """

    TYPE_TAG: ClassVar[str] = "SettleSelection"
    ts: int
    market_id: str
    selection_id: int


@dataclass(frozen=True, slots=True)
class SettleMarket(Command):
    """Settle the market at the result: ``winners`` tie for the win (dead heat when more than one)."""

    TYPE_TAG: ClassVar[str] = "SettleMarket"
    ts: int
    market_id: str
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class VoidMarket(Command):
    """Void the market: cancel unmatched, void matched bets not yet settled, keep what was settled."""

    TYPE_TAG: ClassVar[str] = "VoidMarket"
    ts: int
    market_id: str
    reason: str = "void"


@dataclass(frozen=True, slots=True)
class VoidMatchedSince(Command):
    """Void every match at or after ``since_ts`` on selections not yet settled (a card exposed early).

    ``first_match_id``, when given, narrows that to the matches numbered from it on (the exchange numbers matches
    in the order it makes them): with a clock that never steps back, it says which of the matches in the
    millisecond ``since_ts`` came after the card. A driver that knows the moment exactly passes the exchange's
    ``next_match_id`` as it was then.

    Voiding is mandatory, even when a voided match was a hedge whose return
    raises an account's exposure past its balance.  Then, after the voids,
    each account party to a voided match whose available to bet is below zero
    has its unmatched orders on this market cancelled (``ACCOUNT_OVERDRAWN``),
    in bet-id order; if it is still below zero it stays so: withdrawals are
    refused, and an order is taken only if every outcome it makes worse stays
    within the balance less the exposure of its other markets
    (:meth:`~exchange.core.accounts.Account.covers`), until settlement or a
    deposit makes room; what it loses at settlement is debited in full
    (its balance may go below zero: money is conserved, nobody else pays).
    """

    TYPE_TAG: ClassVar[str] = "VoidMatchedSince"
    ts: int
    market_id: str
    since_ts: int
    reason: str = "card exposed"
    first_match_id: int | None = None


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.TYPE_TAG: cls
    for cls in (
        OpenAccount,
        Deposit,
        Withdraw,
        CreateMarket,
        OpenMarket,
        SuspendMarket,
        ResumeMarket,
        PlaceOrder,
        CancelOrder,
        ReplaceOrder,
        ReplaceOrders,
        SettleSelection,
        SettleMarket,
        VoidMarket,
        VoidMatchedSince,
    )
}


def command_from_dict(data: dict[str, Any]) -> Command:
    """Rebuild a command from its ``to_dict()`` form."""
    return COMMAND_TYPES[data["type"]].from_dict(data)
