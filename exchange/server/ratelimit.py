"""Login attempts, limited per account and per address: a guessed password costs the guesser time, not the server.

Each login runs scrypt (tens of milliseconds of CPU, on purpose), so an
unlimited login route is both a password oracle and a way to burn the
server's CPU. :class:`AttemptLimiter` allows at most ``limit`` attempts per
key in any ``window_ms`` (a sliding log of attempt times: exact, and at most
``limit`` integers a key); :class:`LoginLimits` holds one for account names
and one for client addresses, and an attempt must pass both. A refused
attempt is not counted, so a client that keeps trying is let in again as soon
as its oldest counted attempt leaves the window. Betfair answers such a
login ``{"status": "FAIL", "error": "TEMPORARY_BAN_TOO_MANY_REQUESTS"}``.
Keys whose attempts have all left the window are dropped by :meth:`purge`
(the server runs it on a timer), so the tables hold only the last window.

>>> from exchange.clock import VirtualClock
>>> clock = VirtualClock(start_ms=0)
>>> limiter = AttemptLimiter(clock, limit=2, window_ms=60_000)
>>> limiter.attempt("alice"), limiter.attempt("alice"), limiter.attempt("alice"), limiter.attempt("bob")
(0, 0, 60000, 0)
>>> clock.advance(60_000)
>>> limiter.attempt("alice"), limiter.purge(), len(limiter)
(0, 1, 1)
"""

from __future__ import annotations

from collections import deque

from exchange.clock import Clock

DEFAULT_WINDOW_MS = 60_000
DEFAULT_PER_ACCOUNT = 10
DEFAULT_PER_ADDRESS = 60


class AttemptLimiter:
    """At most ``limit`` attempts per key in any ``window_ms``; O(1) amortised per attempt."""

    def __init__(self, clock: Clock, *, limit: int, window_ms: int) -> None:
        if limit <= 0 or window_ms <= 0:
            raise ValueError(f"an attempt limit needs a positive limit and window, not {limit} in {window_ms} ms")
        self._clock = clock
        self.limit = limit
        self.window_ms = window_ms
        self._times: dict[str, deque[int]] = {}

    def wait_ms(self, key: str) -> int:
        """0 if ``key`` may make an attempt now, else how long until it may (nothing is counted)."""
        times = self._times.get(key)
        if times is None:
            return 0
        now = self._clock.now()
        while times and times[0] <= now - self.window_ms:
            times.popleft()
        return 0 if len(times) < self.limit else times[0] + self.window_ms - now

    def count(self, key: str) -> None:
        """Count an attempt by ``key`` now (after :meth:`wait_ms` said 0)."""
        self._times.setdefault(key, deque()).append(self._clock.now())

    def attempt(self, key: str) -> int:
        """Count an attempt by ``key`` if allowed and return 0; else return the wait in ms and count nothing."""
        wait = self.wait_ms(key)
        if not wait:
            self.count(key)
        return wait

    def purge(self) -> int:
        """Forget the keys with no attempt in the window; returns how many."""
        horizon = self._clock.now() - self.window_ms
        stale = [key for key, times in self._times.items() if not times or times[-1] <= horizon]
        for key in stale:
            del self._times[key]
        return len(stale)

    def __len__(self) -> int:
        return len(self._times)

    def _check(self) -> None:
        """Raise :class:`AssertionError` unless each key's attempt times are in order and within the limit."""
        for key, times in self._times.items():
            if any(a > b for a, b in zip(times, list(times)[1:], strict=False)):
                raise AssertionError(f"attempts of {key!r} out of time order: {list(times)}")
            if len(times) > self.limit:
                raise AssertionError(f"{len(times)} attempts kept for {key!r}, over the limit {self.limit}")


class LoginLimits:
    """The two limits a login passes: per account name and per client address."""

    def __init__(self, clock: Clock, *, per_account: int = DEFAULT_PER_ACCOUNT,
                 per_address: int = DEFAULT_PER_ADDRESS, window_ms: int = DEFAULT_WINDOW_MS) -> None:
        self.accounts = AttemptLimiter(clock, limit=per_account, window_ms=window_ms)
        self.addresses = AttemptLimiter(clock, limit=per_address, window_ms=window_ms)

    def attempt(self, account: str, address: str) -> int:
        """Count a login attempt and return 0, or return the wait in ms if either limit is reached."""
        wait = max(self.accounts.wait_ms(account), self.addresses.wait_ms(address))
        if not wait:
            self.accounts.count(account)
            self.addresses.count(address)
        return wait

    def purge(self) -> int:
        return self.accounts.purge() + self.addresses.purge()
