"""Clocks: the one thing that differs between the server and a backtest.

Game code never reads the time or sleeps by itself; it asks a :class:`Clock`
for ``now()`` (integer milliseconds) and schedules callbacks with
``call_at``. :class:`VirtualClock` runs those callbacks in time order without
waiting, so a whole game takes milliseconds; :class:`WallClock` hands them to
the asyncio loop. Same game code on both.

>>> clock = VirtualClock(start_ms=1_000)
>>> seen = []
>>> _ = clock.call_later(500, lambda: seen.append(("b", clock.now())))
>>> _ = clock.call_at(1_200, lambda: seen.append(("a", clock.now())))
>>> clock.run()
>>> seen
[('a', 1200), ('b', 1500)]
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

Callback = Callable[[], object]


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """What game code may ask of time."""

    def now(self) -> int:
        """Milliseconds since the Unix epoch (or since the clock's start, for a virtual clock)."""
        ...

    def call_at(self, when_ms: int, callback: Callback) -> Timer:
        """Run ``callback`` at ``when_ms`` (at once if that is past)."""
        ...

    def call_later(self, delay_ms: int, callback: Callback) -> Timer:
        """Run ``callback`` ``delay_ms`` from now."""
        ...


@dataclass(order=True)
class _Entry:
    when: int
    seq: int
    callback: Callback = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """Simulated time: callbacks run in (time, scheduling order) without real waiting.

    Deterministic: two callbacks at the same time run in the order they were scheduled.
    Time moves only when the owner calls :meth:`step`, :meth:`run` or :meth:`advance`,
    and the callbacks run inside that call; so it also drives the in-process server
    under asyncio in tests (``create_app(config, clock=VirtualClock(...))``): a callback
    may use the running loop, and the test awaits whatever that starts.
    """

    def __init__(self, start_ms: int = 0) -> None:
        self._now = start_ms
        self._queue: list[_Entry] = []
        self._seq = itertools.count()

    def now(self) -> int:
        return self._now

    def call_at(self, when_ms: int, callback: Callback) -> _Entry:
        entry = _Entry(max(when_ms, self._now), next(self._seq), callback)
        heapq.heappush(self._queue, entry)
        return entry

    def call_later(self, delay_ms: int, callback: Callback) -> _Entry:
        return self.call_at(self._now + delay_ms, callback)

    @property
    def pending(self) -> int:
        return sum(1 for entry in self._queue if not entry.cancelled)

    def next_due(self) -> int | None:
        """When the next callback is due; None if nothing is scheduled."""
        return min((entry.when for entry in self._queue if not entry.cancelled), default=None)

    def step(self) -> bool:
        """Run the next due callback, advancing time to it. False when nothing is scheduled."""
        while self._queue:
            entry = heapq.heappop(self._queue)
            if entry.cancelled:
                continue
            self._now = entry.when
            entry.callback()
            return True
        return False

    def run(self, until_ms: int | None = None) -> None:
        """Run callbacks in order until none is left, or until the next one is after ``until_ms``."""
        while self._queue:
            head = self._queue[0]
            if head.cancelled:
                heapq.heappop(self._queue)
                continue
            if until_ms is not None and head.when > until_ms:
                break
            self.step()
        if until_ms is not None and until_ms > self._now:
            self._now = until_ms

    def advance(self, delay_ms: int) -> None:
        """Run everything due within the next ``delay_ms`` and move time forward by it.

        A callback due exactly at the new time runs; one a millisecond later does not:

        >>> clock = VirtualClock(start_ms=0)
        >>> seen = []
        >>> for when in (100, 101):
        ...     _ = clock.call_at(when, lambda: seen.append(clock.now()))
        >>> clock.advance(100)
        >>> seen, clock.now(), clock.pending
        ([100], 100, 1)
        """
        self.run(until_ms=self._now + delay_ms)


class WallClock:
    """Real time on the running asyncio loop (used by the server)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop or asyncio.get_running_loop()

    def now(self) -> int:
        return time.time_ns() // 1_000_000

    def call_at(self, when_ms: int, callback: Callback) -> asyncio.TimerHandle:
        return self.call_later(when_ms - self.now(), callback)

    def call_later(self, delay_ms: int, callback: Callback) -> asyncio.TimerHandle:
        return self.loop.call_later(max(delay_ms, 0) / 1000, callback)


class MonotonicClock(WallClock):
    """The running loop's monotonic time in ms, for durations: timeouts, session expiries, rate windows.

    A step of the wall clock (NTP, an operator setting the date) moves :class:`WallClock`'s ``now()``: a step of
    a day forward expired every session at once, a step back kept a stalled connection open past its timeout.
    This clock's ``now()`` is no date; only differences of it mean anything.
    """

    def now(self) -> int:
        return int(self.loop.time() * 1000)


def for_durations(clock: Clock) -> Clock:
    """The clock to time durations by: a :class:`MonotonicClock` for a :class:`WallClock` (on the same loop), any
    other clock (a test's virtual clock) itself."""
    return MonotonicClock(clock._loop) if type(clock) is WallClock else clock


async def sleep(clock: Clock, delay_ms: int) -> None:
    """Return ``delay_ms`` later by ``clock`` (a virtual clock: once its owner has moved it that far). Given up
    (cancelled), it leaves no callback behind."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def due() -> None:
        if not done.done():  # (not if the sleep was given up meanwhile)
            done.set_result(None)

    timer = clock.call_later(delay_ms, due)
    try:
        await done
    finally:
        timer.cancel()
