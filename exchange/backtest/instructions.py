"""What a strategy asked, kept until its instruction has reached the exchange: to tell what a refusal refused.

The exchange's :class:`~exchange.core.events.OrderRejected` says why an instruction
was refused, not all of what it asked: a refused placement names its market,
selection and ``customer_ref`` but not its side, price or size; a refused cancel or
replace names only the bet id it was given (no market at all for a bet id the
account never had). The strategy's :class:`~exchange.backtest.strategy.MarketHandle`
knows each instruction it sends, and when it will arrive (its decision time plus the
latency), so it notes it here as :class:`Sent`; a refusal is paired with the
instruction of its account, kind, arrival time and ``customer_ref`` (a placement)
or bet id (a cancel or replace) — the first such one sent, once. An instruction the
exchange carried out (its bet placed, cancelled or replaced) is let go as it is: a
second alike, sent at the same instant and refused, is paired with itself.

Instructions arrive in the order they were sent, at exactly their arrival time on
the backtest's virtual clock, so whatever was due before a refusal has arrived:
it is let go, and the log holds only the instructions still on their way (and
those arriving at the instant of the latest refusal). On a live clock an
instruction that arrives late is not paired (its refusal has the exchange's
fields only).

>>> from exchange.core.errors import ErrorCode
>>> from exchange.core.events import CancelReason, OrderAction, OrderCancelled, OrderPlaced, OrderRejected
>>> log = InstructionLog()
>>> log.sent(Sent(OrderAction.CANCEL, "me", "holdem.3-low", 1_100, bet_id=7, size=300), now_ms=1_000)
>>> refused = OrderRejected(1_100, OrderAction.CANCEL, "me", ErrorCode.INVALID_BET_ID, "no bet 7", bet_id=7)
>>> log.asked(refused).market_id, log.asked(refused).size
('holdem.3-low', 300)
>>> log.asked(OrderRejected(1_200, OrderAction.CANCEL, "me", ErrorCode.INVALID_BET_ID, "no bet 8", bet_id=8))
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from decimal import Decimal

from exchange.core.events import CancelReason, OrderAction, OrderCancelled, OrderPlaced, OrderRejected
from exchange.core.side import Side


@dataclass(frozen=True, slots=True)
class Sent:
    """One instruction as the strategy asked it, through the handle of ``market_id``, arriving at ``arrives_ms``.

    A placement: ``selection_id``, ``side``, ``price``, ``size``, ``round``, ``customer_ref``; a cancel: ``bet_id``
    and ``size``, the reduction asked (``None``: the whole remainder); a replace: ``bet_id``, the new ``price``
    and ``round``. ``price`` is as given (it may be off the ladder: that is one reason to refuse it).
    """

    action: OrderAction
    account_id: str
    market_id: str
    arrives_ms: int
    selection_id: int | None = None
    side: Side | None = None
    price: Decimal | None = None
    size: int | None = None
    round: int | None = None
    bet_id: int | None = None
    customer_ref: str | None = None

    def answers(self, rejection: OrderRejected) -> bool:
        """Whether ``rejection`` can be this instruction's refusal."""
        if (rejection.action, rejection.account_id, rejection.ts) != (self.action, self.account_id, self.arrives_ms):
            return False
        if self.action is OrderAction.PLACE:
            return rejection.customer_ref == self.customer_ref
        return rejection.bet_id == self.bet_id

    def carried_out_by(self, event: OrderPlaced | OrderCancelled) -> bool:
        """Whether ``event`` is the exchange carrying this instruction out (its placement, cancel or replace)."""
        if (event.account_id, event.ts) != (self.account_id, self.arrives_ms):
            return False
        if isinstance(event, OrderPlaced):  # (a replace's new bet has ``replaces``: the replace carried out)
            return (self.action is OrderAction.PLACE and event.replaces is None
                    and event.customer_ref == self.customer_ref)
        action = _CANCELLED_BY.get(event.reason)
        return action is self.action and event.bet_id == self.bet_id


#: The instruction an ``OrderCancelled`` of each reason carries out.
_CANCELLED_BY = {CancelReason.BY_USER: OrderAction.CANCEL, CancelReason.REPLACED: OrderAction.REPLACE}


class InstructionLog:
    """One strategy's instructions on their way to the exchange (all its markets'), each paired with its refusal.

    :meth:`asked` may be called for one refusal several times (the backtest's tables and the strategy's hook
    both ask): it gives the same instruction each time.
    """

    __slots__ = ("_paired", "_waiting")

    def __init__(self) -> None:
        self._waiting: deque[Sent] = deque()
        self._paired: list[tuple[OrderRejected, Sent]] = []

    def __len__(self) -> int:
        return len(self._waiting)

    def sent(self, instruction: Sent, now_ms: int) -> None:
        """Note an instruction sent at ``now_ms``."""
        self._let_go(now_ms)
        self._waiting.append(instruction)

    def asked(self, rejection: OrderRejected) -> Sent | None:
        """The instruction ``rejection`` refused (``None`` if none of those noted can be it)."""
        self._let_go(rejection.ts)
        for refused, paired in self._paired:
            if refused is rejection:
                return paired
        found = next((s for s in self._waiting if s.answers(rejection)), None)
        if found is not None:
            self._waiting.remove(found)
            self._paired.append((rejection, found))
        return found

    def carried_out(self, event: OrderPlaced | OrderCancelled) -> None:
        """The exchange carried out one of the account's instructions (``event``): it is no refusal's."""
        self._let_go(event.ts)
        found = next((s for s in self._waiting if s.carried_out_by(event)), None)
        if found is not None:
            self._waiting.remove(found)

    def _let_go(self, now_ms: int) -> None:
        """Forget what arrived before ``now_ms``: it was accepted, or its refusal has been paired already."""
        waiting = self._waiting
        while waiting and waiting[0].arrives_ms < now_ms:
            waiting.popleft()
        self._paired = [(r, s) for r, s in self._paired if s.arrives_ms >= now_ms]
