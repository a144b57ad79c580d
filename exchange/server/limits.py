"""What one account may cost the server: per-call and per-batch data limits, request rates, reads in flight.

The server runs every client on one event loop, so a request that builds a
large answer in one go stops every other client, the game clock and the
stream while it does. The limits here keep any one request, and any one
account, to a small share of the loop, and refuse the rest the way API-NG
does:

* **Per call**: a list is at most :attr:`Limits.max_rows_per_call` records
  (Betfair's 1000 for ``listClearedOrders`` and ``listCurrentOrders``, with
  ``fromRecord`` / ``recordCount`` paging and ``moreAvailable``), and an answer
  at most :attr:`Limits.max_bytes_per_call` bytes; ``listMarketBook`` is
  weighted as Betfair weights it (``sum(weight) × markets ≤ 200``, see
  :func:`market_book_weight`). Past a limit: ``TOO_MUCH_DATA``.
* **Per batch**: a JSON-RPC batch (up to 50 calls) shares one :class:`Budget`
  of :attr:`Limits.max_rows_per_batch` records and
  :attr:`Limits.max_bytes_per_batch` bytes; the call that would pass it and
  every call after it are refused with ``TOO_MUCH_DATA`` (the ones before keep
  their answers), so a client pages across requests instead. A call that
  changed state (``placeOrders``, ``cancelOrders``, ``replaceOrders``,
  ``updateOrders``) always gets its answer, whatever its size.
* **Per account**: at most :attr:`Limits.calls_per_second` calls a second (a
  token bucket holding one second's worth; every call of a batch counts) and
  at most :attr:`Limits.reads_in_flight` list calls at once (Betfair refuses a
  fourth queued request); past either: ``TOO_MANY_REQUESTS``. An account that
  has read more than :attr:`Limits.read_rows_per_second` records in the last
  second is paced, not refused: its next list call waits until it is back
  under the rate (its answer comes later; others go on).
* **Per server**: list calls build their answers one at a time, in chunks of
  :attr:`Limits.rows_per_slice` records with a yield to the loop between
  chunks, so an order or a window close waits for one chunk at most.

>>> from exchange.clock import VirtualClock
>>> clock = VirtualClock()
>>> gate = AccountGate(Limits(calls_per_second=2), clock=clock)
>>> [gate.admit("alice") is None for _ in range(3)]
[True, True, False]
>>> clock.advance(1000)
>>> gate.admit("alice") is None  # a second later the bucket has refilled
True
>>> market_book_weight({"EX_BEST_OFFERS", "EX_TRADED"}, depth=3)
20
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Collection, Iterable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from exchange.clock import Clock, sleep
from exchange.server.errors import ApiError, ApingCode

T = TypeVar("T")

#: Betfair's maximum weight of one listMarketBook request.
MAX_BOOK_WEIGHT = 200
_WEIGHTS = {"SP_AVAILABLE": 3, "SP_TRADED": 7, "EX_BEST_OFFERS": 5, "EX_ALL_OFFERS": 17, "EX_TRADED": 17}
_COMBINED = {frozenset({"EX_BEST_OFFERS", "EX_TRADED"}): 20, frozenset({"EX_ALL_OFFERS", "EX_TRADED"}): 32}


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's cost limits; 0 turns a rate or in-flight limit off."""

    max_rows_per_call: int = 1000
    max_rows_per_batch: int = 2000
    max_bytes_per_call: int = 1 << 20
    max_bytes_per_batch: int = 2 << 20
    calls_per_second: int = 1000
    reads_in_flight: int = 3
    read_rows_per_second: int = 10_000
    rows_per_slice: int = 25

    def __post_init__(self) -> None:
        for name in ("max_rows_per_call", "max_rows_per_batch", "max_bytes_per_call", "max_bytes_per_batch",
                     "rows_per_slice"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")
        if self.calls_per_second < 0 or self.reads_in_flight < 0 or self.read_rows_per_second < 0:
            raise ValueError("calls_per_second, reads_in_flight and read_rows_per_second must not be negative "
                             "(0: no limit)")


def market_book_weight(price_data: Collection[str], depth: int | None) -> int:
    """The weight of one market in a listMarketBook call, as Betfair's Market Data Request Limits give it.

    No price data weighs 2; the two documented combinations have their own
    weights, other sets the sum; ``exBestOffersOverrides.bestPricesDepth``
    scales the weight by ``depth / 3`` (rounded up).

    >>> market_book_weight(set(), None), market_book_weight({"EX_ALL_OFFERS", "EX_TRADED"}, None)
    (2, 32)
    >>> market_book_weight({"EX_BEST_OFFERS"}, depth=10)
    17
    """
    wanted = frozenset(price_data) & frozenset(_WEIGHTS)
    if not wanted:
        return 2
    weight = _COMBINED.get(wanted) or sum(_WEIGHTS[p] for p in wanted)
    if depth is not None and depth > 3 and "EX_BEST_OFFERS" in wanted and "EX_ALL_OFFERS" not in wanted:
        weight = -(-weight * depth // 3)
    return weight


#: A market's weight in a listMarketCatalogue call per MarketProjection (the others weigh nothing), and in a
#: listMarketProfitAndLoss call, as Betfair's Market Data Request Limits give them.
CATALOGUE_WEIGHTS = {"MARKET_DESCRIPTION": 1, "RUNNER_METADATA": 1}
PROFIT_AND_LOSS_WEIGHT = 4


def check_weight(method: str, weight: int, markets: int, what: str) -> None:
    """Refuse with ``TOO_MUCH_DATA`` a call of ``markets`` markets weighing ``weight`` each past the 200 points a call.

    >>> check_weight("listMarketProfitAndLoss", 4, 50, "")
    >>> check_weight("listMarketProfitAndLoss", 4, 51, "")
    Traceback (most recent call last):
    ...
    exchange.server.errors.ApiError: TOO_MUCH_DATA: listMarketProfitAndLoss weighs 4 a market; 51 markets weigh ...
    """
    if weight > MAX_BOOK_WEIGHT:  # not one market can be asked for so
        raise too_much(f"{method} weighs {weight} a market{what}, over the limit of {MAX_BOOK_WEIGHT} a call for "
                       "a single market: ask for less of each")
    if weight * markets > MAX_BOOK_WEIGHT:
        raise too_much(f"{method} weighs {weight} a market{what}; {markets} markets weigh {weight * markets}, over "
                       f"the limit of {MAX_BOOK_WEIGHT} (at most {MAX_BOOK_WEIGHT // weight} markets a call)")


def too_much(details: str) -> ApiError:
    return ApiError(ApingCode.TOO_MUCH_DATA, details)


class Budget:
    """What one HTTP request (one call or a whole batch) may still return, and whose it is.

    ``gate`` and ``account`` are the server's :class:`AccountGate` and the
    caller's account (none outside a request: tools and tests get no lane).
    """

    def __init__(self, limits: Limits, gate: AccountGate | None = None, account: str = "") -> None:
        self.limits = limits
        self.gate = gate
        self.account = account
        self.rows = 0
        self.bytes = 0

    def reading(self) -> AbstractAsyncContextManager[None]:
        """Hold the list lane for this request's account (see :meth:`AccountGate.reading`)."""
        return self.gate.reading(self.account) if self.gate is not None else nullcontext()

    def charge_rows(self, rows: int, what: str) -> None:
        """Count ``rows`` records about to be built; ``TOO_MUCH_DATA`` (nothing charged) if past a limit."""
        limits = self.limits
        if rows > limits.max_rows_per_call:
            raise too_much(f"{what}: {rows} records; at most {limits.max_rows_per_call} a call "
                           "(page with fromRecord and recordCount)")
        if self.rows + rows > limits.max_rows_per_batch:
            raise too_much(f"{what}: this batch has returned {self.rows} records and this call would add {rows}; "
                           f"at most {limits.max_rows_per_batch} a request (page across requests)")
        self.rows += rows
        if self.gate is not None:
            self.gate.spend_rows(self.account, rows)

    def charge_bytes(self, size: int, *, changed_state: bool = False) -> str | None:
        """Count an answer of ``size`` bytes; a reason to refuse it instead, or None. The answer of a call that
        changed state (orders placed, cancelled) is never refused, whatever its size: it says what was done (a
        client told the call was refused would send it again). It is counted; the calls after it pay for it."""
        limits = self.limits
        if changed_state:
            self.bytes += size
            return None
        if size > limits.max_bytes_per_call:
            return f"the answer would be {size} bytes; at most {limits.max_bytes_per_call} a call (ask for less)"
        if self.bytes + size > limits.max_bytes_per_batch:
            return (f"this batch has returned {self.bytes} bytes and this answer is {size}; "
                    f"at most {limits.max_bytes_per_batch} a request (page across requests)")
        self.bytes += size
        return None


_BUDGET: ContextVar[Budget | None] = ContextVar("request_budget", default=None)


def current_budget() -> Budget:
    """The budget of the request being handled (a fresh default one outside a request: tools, tests)."""
    budget = _BUDGET.get()
    if budget is None:
        budget = Budget(Limits())
        _BUDGET.set(budget)
    return budget


def use_budget(budget: Budget) -> None:
    """Make ``budget`` the current request's (each aiohttp request runs in a task with its own context)."""
    _BUDGET.set(budget)


class AccountGate:
    """Per account: a token bucket of calls and a count of list calls in flight; plus one lane for all lists.

    The lane (an :class:`asyncio.Lock`) makes list calls build their answers
    one at a time, so however many are in flight the loop runs at most one
    slice of list-building between two other steps (an order, a timer).
    """

    def __init__(self, limits: Limits, *, clock: Clock) -> None:
        self.limits = limits
        self._clock = clock  # for durations (exchange.clock.for_durations): the rates are a machine's, not a game's
        self._buckets: dict[str, tuple[float, float]] = {}  # account -> (tokens, at ms)
        self._reading: dict[str, int] = {}
        self._read_debt: dict[str, tuple[float, float]] = {}  # account -> (records owed, at ms)
        self._lane: asyncio.Lock | None = None

    def admit(self, account: str) -> ApiError | None:
        """Take one call's token for ``account``; the ``TOO_MANY_REQUESTS`` error if none is left."""
        rate = self.limits.calls_per_second
        if not rate:
            return None
        now = self._clock.now()
        tokens, at = self._buckets.get(account, (float(rate), now))
        tokens = min(float(rate), tokens + (now - at) * rate / 1000)
        if tokens < 1:
            self._buckets[account] = (tokens, now)
            return ApiError(ApingCode.TOO_MANY_REQUESTS,
                            f"account {account!r} is over {rate} calls a second; slow down and retry")
        self._buckets[account] = (tokens - 1, now)
        return None

    @asynccontextmanager
    async def reading(self, account: str) -> AsyncIterator[None]:
        """Hold the list lane while a list call builds its answer; refuse a read past the account's in-flight cap."""
        cap = self.limits.reads_in_flight
        count = self._reading.get(account, 0)
        if cap and count >= cap:
            raise ApiError(ApingCode.TOO_MANY_REQUESTS,
                           f"account {account!r} has {count} list calls in progress; at most {cap} at once")
        self._reading[account] = count + 1
        if self._lane is None:
            self._lane = asyncio.Lock()
        try:
            await self.paced(account)
            async with self._lane:
                yield
        finally:
            left = self._reading[account] - 1
            if left:
                self._reading[account] = left
            else:
                del self._reading[account]

    async def paced(self, account: str) -> None:
        """Wait while ``account`` has read more than its rate allows (paced, not refused: its records of the last
        second are over the rate); at once if it has not."""
        wait_ms = self._owed_ms(account)
        if wait_ms > 0:
            await sleep(self._clock, math.ceil(wait_ms))

    def spend_rows(self, account: str, rows: int) -> None:
        """Count ``rows`` records read by ``account`` against its read rate."""
        if self.limits.read_rows_per_second:
            self._read_debt[account] = (self._debt(account) + rows, self._clock.now())

    def _debt(self, account: str) -> float:
        """Records owed beyond one second's worth (0 or more), repaid at the read rate."""
        rate = self.limits.read_rows_per_second
        now = self._clock.now()
        owed, at = self._read_debt.get(account, (0.0, now))
        return max(0.0, owed - (now - at) * rate / 1000)

    def _owed_ms(self, account: str) -> float:
        rate = self.limits.read_rows_per_second
        if not rate:
            return 0.0
        return (self._debt(account) - rate) * 1000 / rate


def slices(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last may be shorter).

    >>> list(slices(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


async def pause() -> None:
    """Let the loop run everything else that is ready (one turn) before carrying on."""
    await asyncio.sleep(0)
