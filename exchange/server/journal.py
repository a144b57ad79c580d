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
import queue
import sqlite3
import threading
from collections.abc import Iterator, Mapping
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


Row = tuple[int, int, str, Any]  # seq, ts_ms, kind, body (a mapping or a core record)


class Journal:
    """An append-only log in the ``journal`` table, with group commit on one writer thread.

    The event loop hands the writer thread one batch at a time (``_submit``);
    the thread serialises and commits it and calls back on the loop
    (``_committed``), which releases that batch's waiters and hands over
    whatever was appended meanwhile as the next batch. So at most one commit is
    in flight, and it carries everything that arrived while the last one was.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._conn.executescript(SCHEMA)
        (last,) = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
        self._next_seq = int(last) + 1
        self._durable_seq = int(last)
        self._pending: list[Row] = []
        self._pending_waiters: list[asyncio.Future[None]] = []  # released when _pending is on disk
        self._writing_waiters: list[asyncio.Future[None]] = []  # released when the batch being written is
        self._writing = False
        self._submit_soon = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._batches: queue.SimpleQueue[list[Row] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
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
        if not self._writing and not self._submit_soon and self._loop is not None:
            # After the callbacks already due: what they append goes in the same batch.
            self._submit_soon = True
            self._loop.call_soon(self._submit)
        return seq

    async def sync(self) -> None:
        """Wait until every record appended so far is on disk."""
        if self._failure is not None:
            raise JournalFailed("the journal has failed") from self._failure
        if self._next_seq - 1 <= self._durable_seq:
            return
        if self._loop is None:  # no writer thread: write now
            self.flush()
            return
        future = self._loop.create_future()
        # Records become durable in order: the last one appended is pending, or else in the batch being written.
        (self._pending_waiters if self._pending else self._writing_waiters).append(future)
        await future

    def flush(self) -> None:
        """Write everything pending now, on the calling thread (for tools and shutdown)."""
        batch, self._pending = self._pending, []
        if batch:
            self._write(batch)
            self._durable_seq = batch[-1][0]
        waiters, self._pending_waiters = self._pending_waiters, []
        _release(waiters)

    def start(self) -> None:
        """Start the writer thread, calling back on the running loop."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._writer, name="journal-writer", daemon=True)
        self._thread.start()
        if self._pending:
            self._submit()

    async def stop(self) -> None:
        """Write what is pending, then stop the writer thread."""
        if self._thread is not None:
            with contextlib.suppress(JournalFailed):
                await self.sync()
            self._batches.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None
            self._loop = None
        if self._failure is None:
            self.flush()

    def close(self) -> None:
        self._conn.close()

    # --- the group commit -----------------------------------------------------------------------

    def _submit(self) -> None:
        """On the loop: hand everything pending to the writer thread, unless a batch is already there."""
        self._submit_soon = False
        if self._writing or not self._pending or self._failure is not None:
            return
        batch, self._pending = self._pending, []
        self._writing_waiters, self._pending_waiters = self._pending_waiters, []
        self._writing = True
        self._batches.put(batch)

    def _writer(self) -> None:
        """The writer thread: commit each batch, then call back on the loop."""
        assert self._loop is not None
        loop = self._loop
        while (batch := self._batches.get()) is not None:
            error: Exception | None = None
            try:
                self._write(batch)
            except Exception as exc:  # disk full, I/O error: fail fast, never acknowledge
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(self._committed, batch[-1][0], error)

    def _committed(self, last_seq: int, error: Exception | None) -> None:
        """On the loop: the batch up to ``last_seq`` is on disk (or failed); release it, send the next."""
        self._writing = False
        waiters, self._writing_waiters = self._writing_waiters, []
        if error is not None:
            self._fail(error, waiters)
            return
        self._durable_seq = last_seq
        _release(waiters)
        if self._pending:
            self._submit()

    def _fail(self, exc: Exception, writing: list[asyncio.Future[None]]) -> None:
        self._failure = exc
        failure = JournalFailed(f"journal write failed: {exc}")
        for future in (*writing, *self._pending_waiters):
            if not future.done():
                future.set_exception(failure)
        self._pending_waiters = []

    def _write(self, batch: list[Row]) -> None:
        """Serialise (on the writer thread: the event loop has better things to do) and commit."""
        self._insert([(seq, ts, kind, jsoncodec.dumps_record(body)) for seq, ts, kind, body in batch])

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
