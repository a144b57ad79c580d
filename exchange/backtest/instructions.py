"""What a strategy asked, kept until its instruction has reached the exchange: to tell what a refusal refused.

The exchange's :class:`~exchange.core.events.OrderRejected` says why an instruction
was refused, not all of what it asked: a refused placement names its market,
selection and ``customer_ref`` but not its side, price or size; a refused cancel or
replace names only the bet id it was given (no market at all for a bet id the
account never had). The strategy's :class:`~exchange.backtest.strategy.MarketHandle`
knows each instruction it sends: it notes it here as :class:`Sent` and sends it
with the :class:`~exchange.agents.trader.Arrival` the log gives it back, which the
trader tells when the command is handed to the exchange and when the exchange is
done with it.

So a refusal is paired with its instruction by identity, not by time: the
exchange takes one command at a time, and a refusal of the account made while
an instruction is arriving is that instruction's (checked: the same action and
``customer_ref``, or bet id). Whenever the instruction arrives — on the
backtest's virtual clock exactly ``latency_ms`` after it was sent, on a live
clock perhaps late — and however many alike are on their way. What is asked
about a refusal while it is being made (the backtest's tables) is answered then;
a pair someone will ask about later (the strategy's agents, choosing the market
whose handle hears a refusal that names none) is held, if the log's owner says
so, until :meth:`InstructionLog.let_go`; every other is forgotten as its
instruction's arrival ends. The log holds nothing else.

>>> from exchange.core.errors import ErrorCode
>>> from exchange.core.events import OrderAction, OrderRejected
>>> log = InstructionLog()
>>> arrival = log.sent(Sent(OrderAction.CANCEL, "me", "holdem.3-low", bet_id=7, size=300))
>>> refused = OrderRejected(1_104, OrderAction.CANCEL, "me", ErrorCode.INVALID_BET_ID, "no bet 7", bet_id=7)
>>> arrival.arriving()
>>> log.asked(refused).market_id, log.asked(refused).size
('holdem.3-low', 300)
>>> arrival.arrived([refused])
>>> log.asked(refused), len(log)
(None, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from exchange.agents.trader import Arrival
from exchange.core.events import OrderAction, OrderRejected
from exchange.core.side import Side


@dataclass(frozen=True, slots=True)
class Sent:
    """One instruction as the strategy asked it, through the handle of ``market_id``.

    A placement: ``selection_id``, ``side``, ``price``, ``size``, ``round``, ``customer_ref``; a cancel: ``bet_id``
    and ``size``, the reduction asked (``None``: the whole remainder); a replace: ``bet_id``, the new ``price``
    and ``round``. ``price`` is as given (it may be off the ladder: that is one reason to refuse it).
    """

    action: OrderAction
    account_id: str
    market_id: str
    selection_id: int | None = None
    side: Side | None = None
    price: Decimal | None = None
    size: int | None = None
    round: int | None = None
    bet_id: int | None = None
    customer_ref: str | None = None

    def answers(self, rejection: OrderRejected) -> bool:
        """Whether ``rejection`` can be this instruction's refusal (whenever it was made)."""
        if (rejection.action, rejection.account_id) != (self.action, self.account_id):
            return False
        if self.action is OrderAction.PLACE:
            return rejection.customer_ref == self.customer_ref
        return rejection.bet_id == self.bet_id


Keep = Callable[[OrderRejected, Sent], bool]
"""Whether the pair of a refusal and its instruction is to be held for a later :meth:`InstructionLog.asked`."""


class InstructionLog:
    """One strategy's instructions (all its markets'), each paired with its refusal as it arrives.

    :meth:`asked` may be called for one refusal several times (the backtest's tables and the strategy's hook
    both ask): it gives the same instruction each time. ``keep`` says which pairs to hold once their
    instruction's arrival is over (none by default); ``len(log)`` is how many are held.
    """

    __slots__ = ("_arriving", "_held", "_keep")

    def __init__(self, keep: Keep | None = None) -> None:
        self._keep = keep
        self._arriving: _Arrival | None = None
        self._held: dict[int, tuple[OrderRejected, Sent]] = {}  # by id() of the refusal, which the entry holds

    def __len__(self) -> int:
        return len(self._held)

    def sent(self, instruction: Sent) -> Arrival:
        """Note an instruction being sent; give its command the returned arrival (the trader tells it)."""
        return _Arrival(self, instruction)

    def asked(self, rejection: OrderRejected) -> Sent | None:
        """The instruction ``rejection`` refused (``None`` if the log cannot tell: not this strategy's, or asked
        about after its pair was let go)."""
        held = self._held.get(id(rejection))
        if held is not None and held[0] is rejection:
            return held[1]
        arriving = self._arriving
        if arriving is None:
            return None
        if arriving.refusal is None and arriving.instruction.answers(rejection):
            arriving.refusal = rejection
        return arriving.instruction if arriving.refusal is rejection else None

    def let_go(self, rejection: OrderRejected) -> None:
        """No one will ask about ``rejection`` again: forget its pair."""
        held = self._held.get(id(rejection))
        if held is not None and held[0] is rejection:
            del self._held[id(rejection)]

    def _arrived(self, arrival: _Arrival, events: Sequence[object]) -> None:
        self._arriving = None
        refusal = arrival.refusal
        if refusal is None:  # no one asked while it was made: find it among what the command made
            refusal = next((e for e in events if isinstance(e, OrderRejected) and arrival.instruction.answers(e)),
                           None)  # fmt: skip
        if refusal is not None and self._keep is not None and self._keep(refusal, arrival.instruction):
            self._held[id(refusal)] = (refusal, arrival.instruction)


class _Arrival:
    """One instruction's :class:`~exchange.agents.trader.Arrival`: the log pairs what is refused meanwhile."""

    __slots__ = ("instruction", "log", "refusal")

    def __init__(self, log: InstructionLog, instruction: Sent) -> None:
        self.log = log
        self.instruction = instruction
        self.refusal: OrderRejected | None = None

    def arriving(self) -> None:
        self.log._arriving = self

    def arrived(self, events: Sequence[object]) -> None:
        self.log._arrived(self, events)
