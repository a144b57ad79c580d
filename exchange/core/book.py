"""The order book of one selection: price-time priority on ladder ticks.

Resting **lays** are *available to back* (best = highest tick); resting
**backs** are *available to lay* (best = lowest tick).  Each side is a list
of 350 slots, one per tick, each a FIFO queue (``collections.deque``) made when
an order first rests there, plus an ``int`` of unmatched size per tick and a
bitmask of non-empty ticks, so the best price is
``mask.bit_length() - 1`` (highest) or ``(mask & -mask).bit_length() - 1``
(lowest): O(1)-ish, no sorted container to maintain.

Cancellation is lazy: a cancelled or lapsed order keeps its place in its
queue with ``remaining == 0`` and is dropped when it reaches the front; the
per-tick size counts live orders only, and a queue whose size reaches zero is
cleared at once.  So placing, filling and cancelling are all O(1) amortised.

The matching loop itself lives in :mod:`exchange.core.trading` (it has to move money
and emit events per fill); this module owns the queue mechanics (:meth:`SelectionBook.crossing`
tells it which resting order an incoming one meets first) and the views.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from decimal import Decimal

from exchange.core import ladder
from exchange.core.errors import LedgerError, require
from exchange.core.orders import Order
from exchange.core.records import Record

_N = ladder.TICK_COUNT
#: ``_BIT[t] == 1 << t``, a level's bit in a side's mask, made once.
_BIT = tuple(1 << t for t in range(_N))
#: ``_AT_OR_BELOW[t]``: the bits of ticks ``0..t``.
_AT_OR_BELOW = tuple((2 << t) - 1 for t in range(_N))


@dataclass(frozen=True, slots=True)
class PriceSize(Record):
    """A price level: ladder tick and size in minor units (API-NG ``PriceSize``)."""

    tick: int
    size: int

    @property
    def price(self) -> Decimal:
        return ladder.price(self.tick)


class SelectionBook:
    """Resting orders and trade statistics for one selection.

    >>> from exchange.core.side import Side
    >>> book = SelectionBook(7)
    >>> book.best_to_back(), book.best_to_lay()
    (None, None)
    """

    __slots__ = (
        "back_mask",
        "back_size",
        "backs",
        "last_tick",
        "lay_mask",
        "lay_size",
        "lays",
        "selection_id",
        "total_matched",
        "volume",
    )

    def __init__(self, selection_id: int) -> None:
        self.selection_id = selection_id
        #: Resting back orders per tick (these are available to *lay*).
        self.backs: list[deque[Order] | None] = [None] * _N
        #: Resting lay orders per tick (these are available to *back*).
        self.lays: list[deque[Order] | None] = [None] * _N
        self.back_size = [0] * _N
        self.lay_size = [0] * _N
        self.back_mask = 0
        self.lay_mask = 0
        #: Matched back stake per tick (= matched lay stake at that tick).
        self.volume = [0] * _N
        self.last_tick: int | None = None
        self.total_matched = 0

    # -- queue mechanics -------------------------------------------------

    def add(self, order: Order) -> None:
        """Append an order's unmatched remainder at the back of its price queue. O(1)."""
        t = order.tick
        if order.is_back:
            q = self.backs[t]
            if q is None:
                q = self.backs[t] = deque()
            q.append(order)
            left = self.back_size[t]
            self.back_size[t] = left + order.remaining
            if not left:
                self.back_mask |= _BIT[t]
        else:
            q = self.lays[t]
            if q is None:
                q = self.lays[t] = deque()
            q.append(order)
            left = self.lay_size[t]
            self.lay_size[t] = left + order.remaining
            if not left:
                self.lay_mask |= _BIT[t]

    def reduce(self, order: Order, amount: int) -> None:
        """Take ``amount`` of ``order``'s unmatched size off its level (the caller updates the order).

        The order keeps its queue position (a partial cancel does not lose
        priority); a level that empties is cleared.  O(1).
        """
        t = order.tick
        if order.is_back:
            left = self.back_size[t] - amount
            if left < 0 or amount <= 0:
                raise _bad_reduce(order, amount, self.back_size[t])
            self.back_size[t] = left
            if not left:
                self._queue(self.backs, t).clear()
                self.back_mask &= ~_BIT[t]
        else:
            left = self.lay_size[t] - amount
            if left < 0 or amount <= 0:
                raise _bad_reduce(order, amount, self.lay_size[t])
            self.lay_size[t] = left
            if not left:
                self._queue(self.lays, t).clear()
                self.lay_mask &= ~_BIT[t]

    def trade(self, back: Order, lay: Order, size: int, tick: int) -> None:
        """A match of ``size`` at ``tick``: both orders' levels shrink, the traded volume grows."""
        self.reduce(back, size)
        self.reduce(lay, size)
        self.volume[tick] += size
        self.last_tick = tick
        self.total_matched += size

    def front(self, is_back: bool, tick: int) -> Order:
        """The first live order at ``tick`` on a side, dropping dead ones. O(1) amortised."""
        q = self._queue(self.backs if is_back else self.lays, tick)
        while not q[0].remaining:
            q.popleft()
        return q[0]

    def crossing(self, taker_is_back: bool, limit: int) -> Order | None:
        """The resting order an incoming order at tick ``limit`` would match first, or ``None``.

        A back meets the best (highest) lay at or above its tick, a lay the best
        (lowest) back at or below its own: price first, then time.
        """
        if taker_is_back:
            mask = self.lay_mask >> limit  # resting lays at or above the limit, the lowest bit at ``limit``
            return self.front(False, limit + mask.bit_length() - 1) if mask else None
        mask = self.back_mask & _AT_OR_BELOW[limit]
        return self.front(True, (mask & -mask).bit_length() - 1) if mask else None

    @staticmethod
    def _queue(queues: list[deque[Order] | None], tick: int) -> deque[Order]:
        q = queues[tick]
        if q is None:
            raise LedgerError(f"no queue at tick {tick} where the book's sizes say there are orders")
        return q

    def unrecord_trade(self, tick: int, size: int, last_tick: int | None) -> None:
        """Undo a trade (a voided match); the caller says what the last traded tick now is."""
        self.volume[tick] -= size
        self.total_matched -= size
        self.last_tick = last_tick

    def clear(self) -> None:
        """Drop every resting order (they are all dead: lapsed, cancelled or filled)."""
        if self.back_mask or self.lay_mask:
            raise LedgerError(f"selection {self.selection_id}: cannot clear a book with live orders")
        self.backs = [None] * _N
        self.lays = [None] * _N

    # -- views -------------------------------------------------------------

    def best_to_back(self) -> int | None:
        """Best tick available to back (highest resting lay), or ``None``."""
        m = self.lay_mask
        return m.bit_length() - 1 if m else None

    def best_to_lay(self) -> int | None:
        """Best tick available to lay (lowest resting back), or ``None``."""
        m = self.back_mask
        return (m & -m).bit_length() - 1 if m else None

    def available_to_back(self, depth: int | None = None) -> tuple[PriceSize, ...]:
        """Levels available to back, best (highest) first; all levels if ``depth`` is None."""
        out: list[PriceSize] = []
        m = self.lay_mask
        size = self.lay_size
        while m and (depth is None or len(out) < depth):
            t = m.bit_length() - 1
            out.append(PriceSize(t, size[t]))
            m &= ~(1 << t)
        return tuple(out)

    def available_to_lay(self, depth: int | None = None) -> tuple[PriceSize, ...]:
        """Levels available to lay, best (lowest) first; all levels if ``depth`` is None."""
        out: list[PriceSize] = []
        m = self.back_mask
        size = self.back_size
        while m and (depth is None or len(out) < depth):
            low = m & -m
            t = low.bit_length() - 1
            out.append(PriceSize(t, size[t]))
            m ^= low
        return tuple(out)

    def traded_volume(self) -> tuple[PriceSize, ...]:
        """Matched volume per tick (backer's stake), lowest price first."""
        return tuple(PriceSize(t, v) for t, v in enumerate(self.volume) if v)

    def live_orders(self) -> list[Order]:
        """Every live order: backs then lays, by tick ascending, in queue order."""
        out: list[Order] = []
        for queues, mask in ((self.backs, self.back_mask), (self.lays, self.lay_mask)):
            while mask:
                low = mask & -mask
                q = self._queue(queues, low.bit_length() - 1)
                out.extend(o for o in q if o.remaining)
                mask ^= low
        return out

    def orders_at(self, is_back: bool, tick: int) -> list[Order]:
        """Live orders at a level in queue order (for tests and debugging)."""
        q = self.backs[tick] if is_back else self.lays[tick]
        return [o for o in q if o.remaining] if q is not None else []

    def _check(self) -> None:
        """Raise :class:`LedgerError` unless masks match sizes, sizes match live orders, queues are in time
        order and the book is not crossed."""
        name = f"book of selection {self.selection_id}"
        for is_back, queues, sizes, mask in (
            (True, self.backs, self.back_size, self.back_mask),
            (False, self.lays, self.lay_size, self.lay_mask),
        ):
            side = "backs" if is_back else "lays"
            require(0 <= mask < 1 << _N, f"{name}, {side}: mask {mask:#x} has bits off the ladder")
            # A level with no queue, no size and no bit holds nothing and is consistent; visit the others.
            used = {t for t in range(_N) if queues[t] is not None or sizes[t] or mask >> t & 1}
            for t in sorted(used):
                self._check_level(f"{name}, {side} at tick {t}", is_back, t, queues[t], sizes[t], mask >> t & 1)
        best_back, best_lay = self.best_to_back(), self.best_to_lay()
        require(best_back is None or best_lay is None or best_back < best_lay, f"{name}: crossed")
        require(min(self.volume) >= 0 and sum(self.volume) == self.total_matched, f"{name}: traded volume")

    def _check_level(self, where: str, is_back: bool, tick: int, q: deque[Order] | None, size: int, bit: int) -> None:
        live = [o for o in q if o.remaining] if q is not None else []
        require(size >= 0 and sum(o.remaining for o in live) == size, f"{where}: size {size}")
        require(bool(size) == bool(bit), f"{where}: mask bit disagrees with size")
        ids = [o.bet_id for o in live]
        require(ids == sorted(set(ids)), f"{where}: queue out of time order {ids}")
        for o in live:
            require(o.is_back == is_back and o.tick == tick and o.selection_id == self.selection_id,
                    f"{where}: bet {o.bet_id} is a {'back' if o.is_back else 'lay'} at tick {o.tick} on selection "
                    f"{o.selection_id}")


def _bad_reduce(order: Order, amount: int, level: int) -> LedgerError:
    return LedgerError(f"cannot take {amount} off a level of {level} (bet {order.bet_id}, tick {order.tick})")
