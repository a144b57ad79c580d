"""The journal: every accepted command and every game event, in order, in SQLite.

The server applies a command to the in-memory exchange, appends the records it
produced with :meth:`Journal.append`, and only answers after
``await journal.sync()`` says they are on disk (WAL, ``synchronous=FULL``).
Writes happen on one background thread; records appended while a commit is in
flight go together in the next one (*group commit*), so 64 clients cost one
fsync per batch rather than one each (``commits`` and ``written`` count them).
A batch is one ``INSERT`` statement, its own transaction, so the writer thread
gives up the GIL once for the whole batch and its fsync. Order is the order of
``append``; a record is never acknowledged before every record appended
earlier.

On start, :meth:`Journal.records` replays what was written; the server folds
it back into state (:meth:`exchange.server.service.ExchangeService.recover`).

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
import functools
import sqlite3
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from exchange.server import jsoncodec
from exchange.server.database import open_with

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    ts_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
"""


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
        self._pending_waiters: list[asyncio.Future[None]] = []  # released when _pending is on disk
        self._writing_waiters: list[asyncio.Future[None]] = []  # released when the batch being written is
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._stopping = False
        self._failure: BaseException | None = None
        self.commits = 0
        self.written = 0

    @classmethod
    def open(cls, path: str) -> Journal:
        """The journal in the file at ``path``; :class:`~exchange.server.database.DatabaseUnusable` if unusable."""
        return open_with(path, cls)

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
            yield Record(seq, ts_ms, kind, jsoncodec.loads(body))

    def append(self, kind: str, body: Any, *, ts_ms: int) -> int:
        """Queue one record (not yet durable); returns its sequence number.

        ``body`` is a JSON mapping or a frozen record with ``to_dict()`` (serialised by the writer);
        it must not change afterwards.
        """
        if self._failure is not None:
            raise JournalFailed("the journal has failed; no command can be accepted") from self._failure
        seq = self._next_seq
        self._next_seq = seq + 1
        self._pending.append((seq, ts_ms, kind, body))
        if self._wake is not None:
            self._wake.set()
        return seq

    async def sync(self) -> None:
        """Wait until every record appended so far is on disk."""
        if self._failure is not None:
            raise JournalFailed("the journal has failed") from self._failure
        if self._next_seq - 1 <= self._durable_seq:
            return
        if self._task is None:
            self.flush()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # Records become durable in order: the last one appended is pending, or else in the batch being written.
        (self._pending_waiters if self._pending else self._writing_waiters).append(future)
        await future

    def flush(self) -> None:
        """Write everything pending now, on the calling thread (for tools and shutdown)."""
        batch, self._pending = self._pending, []
        if batch:
            self._insert(self._rows(batch))
            self._durable_seq = batch[-1][0]
        waiters, self._pending_waiters = self._pending_waiters, []
        _release(waiters)

    def start(self) -> None:
        """Start the writer task on the running loop."""
        self._wake = asyncio.Event()
        self._stopping = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="journal-writer")

    async def stop(self) -> None:
        """Write what is pending, stop the writer task and its thread."""
        if self._task is not None:
            assert self._wake is not None
            self._stopping = True
            self._wake.set()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._failure is None:
            self.flush()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    def close(self) -> None:
        self._conn.close()

    async def _run(self) -> None:
        """The group commit: whatever was appended while the last batch was written goes in the next one."""
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            if not self._pending:
                if self._stopping:
                    return
                await self._wake.wait()
                self._wake.clear()
                continue
            batch, self._pending = self._pending, []
            waiters, self._pending_waiters = self._pending_waiters, []
            self._writing_waiters = waiters
            try:
                await loop.run_in_executor(self._executor, self._write, batch)
            except Exception as exc:  # disk full, I/O error: fail fast, never acknowledge
                self._fail(exc, waiters)
                return
            self._durable_seq = batch[-1][0]
            self._writing_waiters = []
            _release(waiters)

    def _fail(self, exc: Exception, writing: list[asyncio.Future[None]]) -> None:
        self._failure = exc
        failure = JournalFailed(f"journal write failed: {exc}")
        for future in (*writing, *self._pending_waiters):
            if not future.done():
                future.set_exception(failure)
        self._writing_waiters, self._pending_waiters = [], []

    @staticmethod
    def _rows(batch: list[tuple[int, int, str, Any]]) -> list[tuple[int, int, str, str]]:
        return [(seq, ts, kind, jsoncodec.dumps_record(body)) for seq, ts, kind, body in batch]

    def _write(self, batch: list[tuple[int, int, str, Any]]) -> None:
        """On the writer thread: serialise (the event loop has better things to do) and commit."""
        self._insert(self._rows(batch))

    def _insert(self, rows: list[tuple[int, int, str, str]]) -> None:
        """One INSERT statement per chunk of rows, in one transaction.

        A statement, not ``executemany``: each row of ``executemany`` is its own ``sqlite3_step``, and each
        step gives up the GIL and must win it back from the busy event loop (up to a switch interval, 5 ms,
        each time), so a batch of 60 rows took tens of milliseconds to commit under load.
        """
        conn = self._conn
        if len(rows) <= MAX_ROWS_PER_STATEMENT:  # the usual case: one statement, its own transaction
            conn.execute(_insert_sql(len(rows)), [value for row in rows for value in row])
        else:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for start in range(0, len(rows), MAX_ROWS_PER_STATEMENT):
                    chunk = rows[start:start + MAX_ROWS_PER_STATEMENT]
                    conn.execute(_insert_sql(len(chunk)), [value for row in chunk for value in row])
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self.commits += 1
        self.written += len(rows)


MAX_ROWS_PER_STATEMENT = 256  # 1024 bound values, well under SQLite's limit (32766)


@functools.lru_cache(maxsize=MAX_ROWS_PER_STATEMENT)
def _insert_sql(rows: int) -> str:
    return "INSERT INTO journal (seq, ts_ms, kind, body) VALUES " + ",".join(("(?,?,?,?)",) * rows)


def _release(waiters: list[asyncio.Future[None]]) -> None:
    for future in waiters:
        if not future.done():
            future.set_result(None)
