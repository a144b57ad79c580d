"""FILL_OR_KILL: an order that matches at once, at least its minimum fill, or not at all.

API-NG's ``timeInForce: FILL_OR_KILL`` with ``minFillSize`` (the order's size
when none is given): if the opposite side of the book can match at least the
minimum at the order's price or better, the order matches as far as it can,
like any order; otherwise it matches nothing. Either way nothing of it rests:
the unmatched part is cancelled at once (:class:`~exchange.core.events.OrderCancelled`,
reason ``FILL_OR_KILL``), so the bet is ``EXECUTION_COMPLETE`` with that size
cancelled, and a bet killed whole clears ``CANCELLED``, as Betfair reports a
killed order (journals written before 2026-12-06 hold it as a lapse, reason
``FILL_OR_KILL``, and still replay as they were).

>>> from exchange.core.book import SelectionBook
>>> book = SelectionBook(1)
>>> available(book, is_back=True, tick=10)
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from exchange.core.book import SelectionBook
from exchange.core.events import CancelReason, OrderCancelled, order_cancelled
from exchange.core.orders import Order

if TYPE_CHECKING:
    from exchange.core.state import ExchangeState


def available(book: SelectionBook, *, is_back: bool, tick: int) -> int:
    """The size an order on ``is_back``'s side at ``tick`` could match now: the opposite side at that price or better.

    A back meets resting lays at or above its tick, a lay resting backs at or below its own.
    """
    if is_back:
        return sum(level.size for level in book.available_to_back() if level.tick >= tick)
    return sum(level.size for level in book.available_to_lay() if level.tick <= tick)


def can_fill(order: Order, min_fill: int) -> bool:
    """Whether ``order`` (just queued, nothing matched yet) can match at least ``min_fill`` at once."""
    book = order.position.market.books[order.sel]
    return available(book, is_back=order.is_back, tick=order.tick) >= min_fill


def kill(state: ExchangeState, order: Order, ts: int) -> OrderCancelled:
    """Cancel what is left of a FILL_OR_KILL order once it has matched what it could."""
    event = order_cancelled(ts, order, order.remaining, CancelReason.FILL_OR_KILL)
    state.apply_order_cancelled(event)
    return event
