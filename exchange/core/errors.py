"""Error codes the exchange core reports, and the three exception types it uses.

User-caused problems (a price off the ladder, too little money, someone else's
bet id) never raise out of the core: :meth:`exchange.core.exchange.Exchange.execute`
returns them as an :class:`exchange.core.events.OrderRejected` (or
:class:`~exchange.core.events.CommandRejected`) event carrying an
:class:`ErrorCode` and a message that says what was wrong and what is allowed.
Inside, the order validators (:func:`exchange.core.trading.verify_place` and
its siblings) raise :class:`Rejection`, which the deciding functions of
:mod:`exchange.core.trading` catch and turn into the event; the account
commands of :mod:`exchange.core.lifecycle` build their ``CommandRejected``
directly.

Programming errors (a game driver settling a market that does not exist,
winners that are not selections of the market, an id or a list of the wrong type in a driver's command) raise
:class:`ExchangeError`: those are bugs, not requests to refuse.  A journal folded with records missing or out of
order fails at the first lookup of what is not there (the ``KeyError`` names it): the journal's own checks
(checksums, sequence numbers) are what refuse a damaged journal before it is folded.  A broken invariant of the
books or the money is a :class:`LedgerError`.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Stable error codes, named as Betfair API-NG names them where it has one.

    >>> ErrorCode.INVALID_ODDS
    <ErrorCode.INVALID_ODDS: 'INVALID_ODDS'>
    >>> str(ErrorCode.INSUFFICIENT_FUNDS)
    'INSUFFICIENT_FUNDS'
    """

    INVALID_ODDS = "INVALID_ODDS"
    INVALID_BET_SIZE = "INVALID_BET_SIZE"
    INVALID_RUNNER = "INVALID_RUNNER"
    BET_TAKEN_OR_LAPSED = "BET_TAKEN_OR_LAPSED"
    MARKET_NOT_OPEN_FOR_BETTING = "MARKET_NOT_OPEN_FOR_BETTING"
    INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
    INVALID_BET_ID = "INVALID_BET_ID"
    BET_REJECTED_ROUND_STALE = "BET_REJECTED_ROUND_STALE"
    SELECTION_ALREADY_LOST = "SELECTION_ALREADY_LOST"
    SELECTION_ALREADY_WON = "SELECTION_ALREADY_WON"
    INVALID_MARKET_ID = "INVALID_MARKET_ID"
    INVALID_ACCOUNT = "INVALID_ACCOUNT"
    DUPLICATE_ACCOUNT = "DUPLICATE_ACCOUNT"
    INVALID_PERSISTENCE_TYPE = "INVALID_PERSISTENCE_TYPE"
    INVALID_ORDER_TYPE = "INVALID_ORDER_TYPE"
    INVALID_AMOUNT = "INVALID_AMOUNT"
    INVALID_BID_TYPE = "INVALID_BID_TYPE"  # API-NG's name for a side that is neither BACK nor LAY
    INVALID_MIN_FILL_SIZE = "INVALID_MIN_FILL_SIZE"
    # Batched instructions: a bet named twice in one ReplaceOrders; a new bet of one not placed because another
    # of its new bets could not be (they are placed all or none).
    DUPLICATE_BETIDS = "DUPLICATE_BETIDS"
    RELATED_ACTION_FAILED = "RELATED_ACTION_FAILED"


class Rejection(Exception):
    """Raised by validators inside the core; caught and turned into a rejection event.

    >>> r = Rejection(ErrorCode.INVALID_BET_SIZE, "size 1.99 is below the minimum stake 2.00")
    >>> r.code, r.message
    (<ErrorCode.INVALID_BET_SIZE: 'INVALID_BET_SIZE'>, 'size 1.99 is below the minimum stake 2.00')
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ExchangeError(ValueError):
    """A programming error in a caller of the core (not a user's bad request)."""


class LedgerError(AssertionError):
    """An invariant of the books or of the money is broken: a bug, never a user's request.

    Raised explicitly (never by ``assert``, which ``python -O`` strips): by the
    money checks on the live path (a fill larger than what is unmatched, a
    rounding split outside its bounds) and by every ``_check()``.  Subclasses
    ``AssertionError`` so test helpers that expect a failed check see one.
    """


def require(condition: bool, message: str) -> None:
    """Raise :class:`LedgerError` with ``message`` unless ``condition`` holds (for ``_check()`` methods).

    >>> require(1 + 1 == 2, "arithmetic")
    >>> require(False, "books crossed")
    Traceback (most recent call last):
    ...
    exchange.core.errors.LedgerError: books crossed
    """
    if not condition:
        raise LedgerError(message)
