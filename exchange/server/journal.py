"""The journal: every accepted command and every game event, in order, in SQLite.

The server applies a command to the in-memory exchange, appends the records it
produced with :meth:`Journal.append`, and only answers after
``await journal.sync()`` says they are on disk (WAL, ``synchronous=FULL``).
Writes happen on one background thread; records appended while a commit is in
flight go together in the next one (*group commit*), so 64 clients cost one
fsync per batch rather than one each. Order is the order of ``append``; a
record is never acknowledged before every record appended earlier.

On start, :meth:`Journal.records` replays what was written; the server folds
it back into state (:mod:`exchange.server.recovery`).

>>> import asyncio
>>> async def demo():
...     journal = Journal.open(":memory:")
...     journal.start()
...     journal.append("place", {"betId": "1"}, ts_ms=5)
...     await journal.sync()
...     await journal.stop()
...     return [(r.seq, r.kind, r.body) for r in journal.records()]
>>> asyncio.run(demo())
[(1, 'place', {'betId': '1'})]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from exchange.server.store import connect

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    ts_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
"""


def _plain(body: Any) -> Any:
    """A record body as JSON values: a mapping as is, a core record through its ``to_dict()``."""
    return body if isinstance(body, Mapping) else body.to_dict()


class JournalFailed(RuntimeError):
    """A write to the journal failed; the server must stop accepting commands."""


@dataclass(frozen=True, slots=True)
class Record:
    seq: int
    ts_ms: int
    kind: str
    body: Mapping[str, Any]


class Journal:
    """An append-only log in the ``journal`` table, with group commit on one writer thread."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._conn.executescript(SCHEMA)
        (last,) = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
        self._next_seq = int(last) + 1
        self._durable_seq = int(last)
        self._pending: list[tuple[int, int, str, Any]] = []
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._failure: BaseException | None = None
        self.commits = 0

    @classmethod
    def open(cls, path: str) -> Journal:
        return cls(connect(path))

    @property
    def last_seq(self) -> int:
        """The sequence number of the last appended record (durable or not)."""
        return self._next_seq - 1

    @property
    def durable_seq(self) -> int:
        return self._durable_seq

    def records(self, after: int = 0) -> Iterator[Record]:
        """Every committed record with ``seq > after``, in order."""
        cursor = self._conn.execute("SELECT seq, ts_ms, kind, body FROM journal WHERE seq > ? ORDER BY seq", (after,))
        for seq, ts_ms, kind, body in cursor:
            yield Record(seq, ts_ms, kind, json.loads(body))

    def append(self, kind: str, body: Any, *, ts_ms: int) -> int:
        """Queue one record (not yet durable); returns its sequence number.

        ``body`` is a JSON mapping or a frozen record with ``to_dict()`` (serialised on the writer thread);
        it must not change afterwards.
        """
        if self._failure is not None:
            raise JournalFailed("the journal has failed; no command can be accepted") from self._failure
        seq = self._next_seq
        self._next_seq += 1
        self._pending.append((seq, ts_ms, kind, body))
        if self._wake is not None:
            self._wake.set()
        return seq

    async def sync(self) -> None:
        """Wait until every record appended so far is on disk."""
        target = self._next_seq - 1
        if self._failure is not None:
            raise JournalFailed("the journal has failed") from self._failure
        if target <= self._durable_seq:
            return
        if self._task is None:
            self.flush()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        await future

    def flush(self) -> None:
        """Write everything pending now, on the calling thread (for tools and shutdown)."""
        batch, self._pending = self._pending, []
        if batch:
            self._write(batch)
            self._durable_seq = batch[-1][0]

    def start(self) -> None:
        """Start the writer task on the running loop."""
        self._wake = asyncio.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="journal-writer")

    async def stop(self) -> None:
        """Write what is pending, stop the writer task and its thread."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._failure is None:
            self.flush()
        self._release(self._durable_seq)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    def close(self) -> None:
        self._conn.close()

    async def _run(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            try:
                await loop.run_in_executor(self._executor, self._write, batch)
            except Exception as exc:  # disk full, I/O error: fail fast, never acknowledge
                self._failure = exc
                for _, future in self._waiters:
                    if not future.done():
                        future.set_exception(JournalFailed(f"journal write failed: {exc}"))
                self._waiters.clear()
                return
            self._durable_seq = batch[-1][0]
            self._release(self._durable_seq)

    def _release(self, durable: int) -> None:
        waiting = []
        for target, future in self._waiters:
            if target <= durable:
                if not future.done():
                    future.set_result(None)
            else:
                waiting.append((target, future))
        self._waiters = waiting

    def _write(self, batch: list[tuple[int, int, str, Any]]) -> None:
        rows = [(seq, ts, kind, json.dumps(_plain(body), separators=(",", ":"))) for seq, ts, kind, body in batch]
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT INTO journal (seq, ts_ms, kind, body) VALUES (?, ?, ?, ?)", rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        self.commits += 1
