"""``customerRef``: a call repeated with the same ref within a minute is refused, not carried out twice.

Betfair documents ``customerRef`` (of placeOrders, cancelOrders and replaceOrders) as "a unique string (up to
32 chars) that is used to de-dupe mistaken re-submissions", within a window of 60 seconds, and refuses the
repeat with ``DUPLICATE_TRANSACTION``. A client that retries a call it has no answer to (flumine retries a
placement with the same ref after a connection error) relies on it: without it, a first call that did reach the
exchange places its bets twice, or a cancel that reduces a bet by 2.00 reduces it by 4.00.

A ref is remembered per account and operation (a placement's ref does not refuse a cancel that happens to carry
the same) from the moment a call carrying it is carried out; a call refused before anything was done (a malformed
or invalid instruction, a placement against a stale ``marketVersion``) leaves nothing to repeat, so its ref
stays free; a replace against a stale one cancelled its bet, so its ref is taken. Refs older
than the window are forgotten as new ones come, so the memory held is at most a minute's calls.

>>> refs = RecentRefs(window_ms=60_000)
>>> refs.remember("alice", "r1", 1_000)
>>> refs.used_at("alice", "r1", 30_000), refs.used_at("bob", "r1", 30_000), refs.used_at("alice", "r1", 61_000)
(1000, None, None)
>>> refs.used_at("alice", "r1", 30_000, operation="cancelOrders") is None
True
"""

from __future__ import annotations

from collections import deque

WINDOW_MS = 60_000  # Betfair's de-duplication window


Key = tuple[str, str, str]  # account, operation, customerRef


class RecentRefs:
    """The ``(account, operation, customerRef)`` calls carried out within the last ``window_ms``, with when."""

    def __init__(self, window_ms: int = WINDOW_MS) -> None:
        self.window_ms = window_ms
        self._when: dict[Key, int] = {}
        self._order: deque[tuple[int, Key]] = deque()  # oldest first

    def used_at(self, account: str, ref: str, now_ms: int, *, operation: str = "placeOrders") -> int | None:
        """When ``account`` last had an ``operation`` call with ``ref`` carried out, if within the window before
        ``now_ms``."""
        self._forget(now_ms)
        return self._when.get((account, operation, ref))

    def repeated(self, account: str, ref: str, now_ms: int, *, operation: str = "placeOrders") -> str | None:
        """Why an ``operation`` call of ``account`` with ``ref`` at ``now_ms`` is a repeat to refuse, or None."""
        used_at = self.used_at(account, ref, now_ms, operation=operation)
        if used_at is None:
            return None
        return (f"customerRef {ref!r} is that of a {operation} call carried out {now_ms - used_at} ms ago: a repeat "
                f"is refused for {self.window_ms // 1000} s after it; give each call its own customerRef")

    def remember(self, account: str, ref: str, now_ms: int, *, operation: str = "placeOrders") -> None:
        """An ``operation`` call of ``account`` with ``ref`` was carried out at ``now_ms``."""
        key = (account, operation, ref)
        self._when[key] = now_ms
        self._order.append((now_ms, key))

    def _forget(self, now_ms: int) -> None:
        while self._order and self._order[0][0] <= now_ms - self.window_ms:
            at, key = self._order.popleft()
            if self._when.get(key) == at:
                del self._when[key]
