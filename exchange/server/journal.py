"""The journal: every state-changing core event, in order, in SQLite, beside each game's result, how forgotten
markets ended and the operators' actions (records of kinds ``event``, ``result``, ``ended`` and ``operator``).

The server applies a command to the in-memory exchange, appends the events it
produced with :meth:`Journal.append`, and only answers after
``await journal.sync()`` says they are on disk (WAL, ``synchronous=FULL``).
Writes happen in a writer process (:mod:`exchange.server.journal_writer`);
records appended while a commit is in flight go together in the next one
(*group commit*), so 64 clients cost one fsync per batch rather than one each
(``commits`` and ``written`` count them). The loop serialises each record to
JSON when it hands its batch over, so the writer needs nothing but SQLite and
takes no time from this interpreter. Order is the order of ``append``; a record
is never acknowledged before every record appended earlier. A journal on
``:memory:`` (tests, tools) has no writer process: it writes each batch on the
loop.

**Fail-stop.** A record that cannot be made durable fails the journal: the
writer answered an error, its pipe broke or closed (it died), or it held a
batch unacknowledged for ``commit_timeout_ms`` from its hand-over (stalled:
stopped, or stuck in I/O). The time a record waits before the writer has it
(the loop busy, a recovery, the writer's own start, the batch before it) is
not the writer's, so it is not counted: a busy but healthy server is not
failed for it. The journal then kills the writer (and any snapshot taker),
fails every waiter with :class:`JournalFailed`, refuses every later append,
and tells its failure listeners once (:meth:`Journal.on_failure`): the
server stops taking commands and exits. So, the loop's own delays aside, no
wait on the journal lasts longer than two timeouts (the batch in flight's
and its own), and nothing a client was told depends on a record that is not
on disk. Before use, :meth:`Journal.check` looks for acknowledged
records that are missing or damaged (:mod:`exchange.server.journal_check`).

On start, the server rebuilds its state from the newest valid snapshot and
the records after it (:mod:`exchange.server.recovery`). Given a
:class:`~exchange.server.snapshots.SnapshotPolicy`, the journal has a new
snapshot taken every so many committed records or minutes, by a process of
its own (:class:`~exchange.server.snapshots.SnapshotTaker`) that reads only
committed records, so the loop's only cost is starting it.

>>> import asyncio
>>> async def demo():
...     journal = Journal.open(":memory:")
...     journal.start()
...     journal.append("event", {"type": "AccountCredited"}, ts_ms=5)
...     await journal.sync()
...     await journal.stop()
...     return [(r.seq, r.kind, r.body) for r in journal.records()]
>>> asyncio.run(demo())
[(1, 'event', {'type': 'AccountCredited'})]
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from exchange.clock import Clock, Timer, WallClock
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.server import journal_kinds, journal_read, jsoncodec, snapshots
from exchange.server.database import open_with, transaction
from exchange.server.ended_markets import EndedMarkets
from exchange.server.exchange_id import exchange_id
from exchange.server.journal_check import (
    REWINDS_SCHEMA,
    JournalCheck,
    JournalDamaged,
    check,
    ids_given_from,
    reset_mark,
    rewinds,
    write_ids_skipped,
)
from exchange.server.journal_mark import DurableMark
from exchange.server.journal_read import Record
from exchange.server.journal_writer import MAX_ROWS_PER_STATEMENT, SCHEMA, WriterProcess, insert_rows
from exchange.server.kept_results import KeptResults
from exchange.server.notes import MarketNotes
from exchange.server.snapshots import Damaged, Loaded, Saved, SnapshotPolicy, SnapshotTaker

__all__ = ["MAX_ROWS_PER_STATEMENT", "SCHEMA", "Journal", "JournalDamaged", "JournalFailed", "Record"]

log = logging.getLogger(__name__)
STOP_TIMEOUT_S = 30.0  # how long stop() waits for the writer to finish before killing it
DEFAULT_COMMIT_TIMEOUT_MS = 5_000  # the longest a record may wait for its commit before the journal fails


class JournalFailed(RuntimeError):
    """A write to the journal failed; the server must stop accepting commands."""


Row = tuple[int, int, str, Any]  # seq, ts_ms, kind, body (a mapping or a core record)


class Journal:
    """An append-only log in the ``journal`` table, with group commit through one writer process.

    The event loop hands the writer one batch at a time (``_submit``); the
    writer commits it and answers ``ok <seq>`` on its pipe, which the loop
    reads (``_on_acks``) to release that batch's waiters and hand over whatever
    was appended meanwhile as the next batch. So at most one commit is in
    flight, and it carries everything that arrived while the last one was.
    """

    def __init__(self, conn: sqlite3.Connection, *, read_only: bool = False) -> None:
        self._conn = conn
        #: The database file ('' for an in-memory database, which no other process can open).
        self.path = _database_file(conn)
        if not read_only:
            self._conn.executescript(SCHEMA + snapshots.SCHEMA + journal_read.OTHER_KINDS_INDEX)
            snapshots.upgrade(conn)  # a snapshots table from before the recent results were kept in it
            if not journal_read.has_checksums(conn):
                conn.execute("ALTER TABLE journal ADD COLUMN crc INTEGER")  # a journal from before checksums
        #: Whether its snapshots can be read (read-only, an older version's are not upgraded: the whole journal is
        #: folded)
        self._snapshots_readable = snapshots.readable(conn)
        last = journal_read.last_seq(conn)
        self._next_seq = last + 1
        self._durable_seq = last
        self.checked: JournalCheck | None = None
        self._mark: DurableMark | None = None  # for writes on this thread (flush), opened when first needed
        self._commit_timeout_s = DEFAULT_COMMIT_TIMEOUT_MS / 1000
        self._stall_timer: asyncio.TimerHandle | None = None
        self._failure_listeners: list[Callable[[str], None]] = []
        self._pending: list[Row] = []
        self._pending_waiters: list[asyncio.Future[None]] = []  # released when _pending is on disk
        self._writing_waiters: list[asyncio.Future[None]] = []  # released when the batch being written is
        self._writing_last = 0  # the last seq of the batch being written (0: none)
        self._writing_count = 0  # and how many records it holds
        self._submit_soon = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer: WriterProcess | None = None
        self._failure: BaseException | None = None
        self.commits = 0
        self.written = 0
        self._policy: SnapshotPolicy | None = None
        self._snapshot_seq = snapshots.newest_seq(conn) if self._snapshots_readable else 0  # the newest's (0: none)
        self._snapshot_mark = self._snapshot_seq  # the durable seq when the last snapshot was begun
        self._taker: SnapshotTaker | None = None
        self._clock: Clock | None = None  # times the every_ms snapshots while running
        self._snapshot_timer: Timer | None = None
        self._exchange_config: ExchangeConfig | None = None  # what snapshots are folded with
        self._keep_results: int | None = None  # and the recent results kept a channel
        self.snapshots_taken: list[int] = []  # the seq of each snapshot taken while running

    @classmethod
    def open(cls, path: str) -> Journal:
        """The journal in the file at ``path``; :class:`~exchange.server.database.DatabaseUnusable` if unusable."""
        return open_with(path, cls)

    def exchange_id(self) -> str:
        """The exchange's own id, kept in its database (:mod:`exchange.server.exchange_id`)."""
        return exchange_id(self._conn)

    @property
    def last_seq(self) -> int:
        """The sequence number of the last appended record (durable or not)."""
        return self._next_seq - 1

    @property
    def durable_seq(self) -> int:
        return self._durable_seq

    @property
    def failure(self) -> BaseException | None:
        """Why the journal failed (None while it works)."""
        return self._failure

    def on_failure(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(reason)`` once, on the loop, when the journal fails (at once if it already has)."""
        if self._failure is not None:
            listener(str(self._failure))
        else:
            self._failure_listeners.append(listener)

    def check(self, *, accept_damaged: bool = False, check_pages: bool = False) -> JournalCheck:
        """Look for lost or damaged acknowledged records (:func:`exchange.server.journal_check.check`).

        Lost records accepted: the next record skips the bet ids and match ids they may have given
        (:func:`~exchange.server.journal_check.write_ids_skipped`). A snapshot beyond the journal's last record (the
        records it folded were lost, and the loss accepted) is deleted: the journal numbers its next records from
        its end, and once they passed the snapshot's number a start would load it, with the lost records' effects,
        and skip the new ones below it.
        """
        self.checked = check(self._conn, self.path, accept_damaged=accept_damaged, check_pages=check_pages)
        mark, last = self.checked.mark, self.checked.last_seq
        if self.checked.accepted and (mark is None or mark > last):  # records after the last may have been lost
            with transaction(self._conn):
                self._note_rewind(last + 1)
                lost = 0 if mark is None else mark - last  # (unknown without a mark: nothing to count)
                if write_ids_skipped(self._conn, last + 1, lost, f"{lost} acknowledged records lost"):
                    self._next_seq, self._durable_seq = last + 2, last + 1
            if mark is None:
                log.warning("journal: how many records were lost is not known (no durable mark), so bet ids and "
                            "match ids given to clients before may be given again")
        if self.path and self.checked.mark_to_reset():  # after the rewind: a crash between notes it again
            reset_mark(self.path, self._durable_seq)
        if self._drop_snapshots_from(self.checked.last_seq + 1):
            log.warning("journal: the snapshots beyond its last record (%d) were deleted", self.checked.last_seq)
        return self.checked

    def _drop_snapshots_from(self, first_seq: int) -> int:
        """Delete the snapshots taken at or after record ``first_seq`` (they hold records no longer in the journal);
        the newest left is the one the next snapshot counts from. How many went."""
        dropped = self._conn.execute("DELETE FROM snapshots WHERE seq >= ?", (first_seq,)).rowcount
        if dropped:
            self._snapshot_seq = self._snapshot_mark = snapshots.newest_seq(self._conn)
        return dropped

    def set_aside(self, first_seq: int, problem: str) -> int:
        """Move the records from ``first_seq`` on into ``journal_damaged`` (damage accepted at start); how many.
        Record ``first_seq`` is then the one that skips the bet ids and match ids they may have given.

        Only at start-up, nothing on its way to the database (the writer may be running: it writes what it is
        handed): the journal then carries on after the last record kept, numbering from ``first_seq`` again. The
        snapshots taken at or after ``first_seq`` hold what those records did, so they go too: a later start that
        could use one (the start setting records aside may have passed it over, taken with other settings) would
        load those records' effects and skip the new records numbered below it.
        """
        if self._pending or self._writing_last:
            raise RuntimeError(f"none set aside while others are on their way to the database (to {self.last_seq})")
        if self.path:  # first: a crash before the commit leaves the mark behind the records (safe), never ahead
            reset_mark(self.path, first_seq - 1)  # (which the next start would report as acknowledged records lost)
        self._conn.execute("CREATE TABLE IF NOT EXISTS journal_damaged AS SELECT * FROM journal WHERE 0")
        with transaction(self._conn):
            given = ids_given_from(self._conn, first_seq)
            self._conn.execute("INSERT INTO journal_damaged SELECT * FROM journal WHERE seq >= ?", (first_seq,))
            moved = int(self._conn.execute("DELETE FROM journal WHERE seq >= ?", (first_seq,)).rowcount)
            self._drop_snapshots_from(first_seq)
            self._note_rewind(first_seq)
            skipped = write_ids_skipped(self._conn, first_seq, given, f"{moved} records set aside")
        self._next_seq = first_seq + skipped
        self._durable_seq = self._next_seq - 1
        log.warning("journal: %d records from seq %d set aside in journal_damaged (%s)", moved, first_seq, problem)
        return moved

    def rewinds(self) -> list[int]:
        """Where the journal numbered its records from an earlier number again, ascending (none: never)."""
        return rewinds(self._conn)

    def _note_rewind(self, first_seq: int) -> None:
        """Record that the journal numbers its next records from ``first_seq`` again (:data:`REWINDS_SCHEMA`)."""
        self._conn.execute(REWINDS_SCHEMA)
        self._conn.execute("INSERT INTO journal_rewinds (first_seq) VALUES (?)", (first_seq,))

    @property
    def writer_pid(self) -> int | None:
        """The writer process's id while it runs (None for ``:memory:`` or when stopped)."""
        return self._writer.pid if self._writer is not None else None

    @property
    def snapshot_seq(self) -> int:
        """The newest snapshot's sequence number (0: none)."""
        return self._snapshot_seq

    @property
    def snapshot_taker_pid(self) -> int | None:
        return self._taker.pid if self._taker is not None else None

    def load_snapshot(
        self, config: ExchangeConfig | None = None, keep_results: int | None = None,
    ) -> tuple[Loaded | None, list[Damaged]]:
        """The newest valid snapshot and the damaged newer ones (:func:`~exchange.server.snapshots.newest_valid`)."""
        if not self._snapshots_readable:
            return None, []
        return snapshots.newest_valid(self._conn, self.last_seq, config, keep_results)

    def save_snapshot(self, seq: int, exchange: Exchange, notes: MarketNotes, results: KeptResults,
                      ended: EndedMarkets, *, rewinds: list[int] | None = None) -> Saved:
        """Write a snapshot of the state after record ``seq`` on this thread (the taker process, tests, tools);
        with ``rewinds`` (:meth:`rewinds` before the fold), only if the journal has not been rewound since."""
        saved = snapshots.save(self._conn, seq, exchange, notes, results, ended, rewinds=rewinds)
        self._snapshot_seq = max(self._snapshot_seq, seq)
        return saved

    def records(self, after: int = 0) -> Iterator[Record]:
        """Every committed record with ``seq > after``, in order, each checked (:func:`journal_read.records_after`)."""
        return journal_read.records_after(self._conn, self.path, after)

    def records_of_kind(self, kind: str) -> Iterator[Record]:
        """Every committed record of ``kind`` (not an event), in order (:func:`journal_read.records_of_kind`)."""
        return journal_read.records_of_kind(self._conn, self.path, kind)

    def append(self, kind: str, body: Any, *, ts_ms: int) -> int:
        """Queue one record (not yet durable); returns its sequence number.

        ``body`` is a JSON mapping or a frozen record with ``to_dict()`` (serialised when its batch is
        handed over); it must not change afterwards.
        """
        if self._failure is not None:
            raise JournalFailed("the journal has failed; no command can be accepted") from self._failure
        if kind not in journal_kinds.KINDS:  # the next start would take it for a newer version's
            raise ValueError(f"a journal record's kind is one of {', '.join(journal_kinds.KINDS)}, not {kind!r}")
        seq = self._next_seq
        self._next_seq = seq + 1
        self._pending.append((seq, ts_ms, kind, body))
        if not self._writing_last and not self._submit_soon and self._loop is not None:
            # After the callbacks already due: what they append goes in the same batch.
            self._submit_soon = True
            self._loop.call_soon(self._submit)
        return seq

    def sync(self, through: int | None = None) -> asyncio.Future[None]:
        """An awaitable that completes when every record up to ``through`` (default: all appended so far) is on disk.

        An answer computed when the journal's last record was ``through`` waits
        for that record only, not for what other requests appended while it
        waited (which would cost it one more group commit under load). A plain
        function returning a future (not a coroutine): one object fewer per order.
        """
        if self._failure is not None:
            raise JournalFailed("the journal has failed") from self._failure
        loop = self._loop or asyncio.get_running_loop()
        future = loop.create_future()
        last = self._next_seq - 1 if through is None else through
        if last <= self._durable_seq:
            future.set_result(None)
        elif self._loop is None:  # not started: write now
            self.flush()
            future.set_result(None)
        elif self._writing_last and last <= self._writing_last:
            self._writing_waiters.append(future)  # records become durable in order: the batch in flight has it
        else:
            self._pending_waiters.append(future)
        return future

    def flush(self) -> None:
        """Write everything pending now, on the calling thread (for tools, ``:memory:`` and shutdown)."""
        batch, self._pending = self._pending, []
        if batch:
            self._write(batch)
            self._durable_seq = batch[-1][0]
            if self.path:
                if self._mark is None:
                    self._mark = DurableMark.open(self.path)
                self._mark.write(self._durable_seq)
        waiters, self._pending_waiters = self._pending_waiters, []
        _release(waiters)

    def start(self, policy: SnapshotPolicy | None = None, *, clock: Clock | None = None,
              commit_timeout_ms: int = DEFAULT_COMMIT_TIMEOUT_MS,
              exchange_config: ExchangeConfig | None = None, keep_results: int | None = None,
              lock_fd: int | None = None) -> None:
        """Start the writer process (none for ``:memory:``); its answers are read on the running loop.

        With a ``policy`` (and a file), snapshots are taken as it says, its ``every_ms`` on ``clock``
        (the server's; by default the loop's wall clock), folding the journal with ``exchange_config`` and
        keeping ``keep_results`` recent results a channel (the server's: a snapshot taken with another config,
        or keeping fewer results, would be passed over at the next start). A batch the writer has not
        committed within ``commit_timeout_ms`` of its hand-over fails the journal (real time, the loop's:
        the writer is a real process, whatever clock the games run on). ``lock_fd``: the database lock's
        descriptor, held by the writer for its life (:meth:`WriterProcess.launch`).
        """
        if commit_timeout_ms <= 0:
            raise ValueError(f"the commit timeout must be positive, not {commit_timeout_ms} ms")
        self._commit_timeout_s = commit_timeout_ms / 1000
        self._exchange_config = exchange_config
        self._keep_results = keep_results
        self._loop = asyncio.get_running_loop()
        self._clock = clock or WallClock(self._loop)
        path = self.path
        if path:
            # ready when first needed, or when the server asks (writer_ready)
            self._writer = WriterProcess.launch(path, lock_fd)
            self._policy = policy
            if policy is not None and policy.every_ms:
                self._snapshot_timer = self._clock.call_later(policy.every_ms, self._on_snapshot_timer)
        if self._pending:
            self._submit()

    def writer_ready(self) -> None:
        """Wait until the writer process has opened the database (it was started by :meth:`start`, which does
        not wait, so the server can recover meanwhile); ``sqlite3.OperationalError`` if it could not. The first
        batch written waits for it too, if nothing asked before. Only from then on is its pipe watched: a writer
        that dies before fails the journal at the first batch, not at once."""
        if self._writer is not None and not self._writer.ready:
            assert self._loop is not None  # start() sets both
            self._writer.wait_ready()
            self._loop.add_reader(self._writer.ack_fd, self._on_acks)

    async def stop(self) -> None:
        """Write what is pending, then end the writer process (it exits when its input closes)."""
        if self._loop is not None:
            if self._snapshot_timer is not None:
                self._snapshot_timer.cancel()
                self._snapshot_timer = None
            self._policy = None
            if self._taker is not None:  # a snapshot half written is rolled back; the journal is what counts
                self._loop.remove_reader(self._taker.fd)
                taker, self._taker = self._taker, None
                await asyncio.to_thread(taker.kill)
            with contextlib.suppress(JournalFailed):
                await self.sync()
            writer, self._writer = self._writer, None
            if writer is not None:
                if writer.ready:  # (watched only once ready; a refused one's descriptor may be another's now)
                    self._loop.remove_reader(writer.ack_fd)
                writer.close()
                code = await asyncio.to_thread(writer.wait, STOP_TIMEOUT_S)
                if code != 0:
                    log.warning("the journal writer exited with %s", code)
            self._loop = None
        if self._failure is None:
            self.flush()

    def close(self) -> None:
        if self._mark is not None:
            self._mark.close()
            self._mark = None
        self._conn.close()

    # --- the group commit -----------------------------------------------------------------------

    def _submit(self) -> None:
        """On the loop: hand everything pending to the writer, unless a batch is already there."""
        self._submit_soon = False
        if self._writing_last or not self._pending or self._failure is not None:
            return
        batch, self._pending = self._pending, []
        self._writing_waiters, self._pending_waiters = self._pending_waiters, []
        last = batch[-1][0]
        self._writing_last, self._writing_count = last, len(batch)
        if self._writer is None:  # in memory: write here
            try:
                self._write(batch)
            except Exception as exc:
                self._committed(last, exc)
                return
            self._committed(last, None)
            return
        loop = self._loop
        assert loop is not None  # start() sets it with the writer
        try:
            self.writer_ready()
            rows = [(seq, ts, kind, jsoncodec.dumps_record(body)) for seq, ts, kind, body in batch]
            # From the hand-over on, the writer is late if it does not answer in time; before (the writer starting,
            # the loop busy recovering or serving) it was not the writer's to answer.
            self._stall_timer = loop.call_later(self._commit_timeout_s, self._on_stall)
            if not self._writer.send(rows):  # the pipe is full: the rest as the writer reads, the loop never waits
                loop.add_writer(self._writer.input_fd, self._on_writable)
        except BrokenPipeError:  # the writer is gone: said as when its end of the pipe is read closed
            self._committed(last, OSError("the journal writer process exited"))
        except Exception as exc:  # a record that would not serialise, or a writer that could not open the database
            self._committed(last, exc)

    def _on_writable(self) -> None:
        """On the loop, when the writer's input pipe has room: write more of the batch being handed over."""
        assert self._writer is not None and self._loop is not None
        try:
            done = self._writer.write_more()
        except OSError as exc:  # the writer gone (a broken pipe), or any other error: the batch cannot be handed over
            self._loop.remove_writer(self._writer.input_fd)
            gone = isinstance(exc, BrokenPipeError)
            self._committed(self._writing_last, OSError("the journal writer process exited") if gone else exc)
            return
        if done:
            self._loop.remove_writer(self._writer.input_fd)

    def _on_acks(self) -> None:
        """On the loop, when the writer's pipe is readable: each ``ok <seq>`` releases its batch."""
        assert self._writer is not None and self._loop is not None
        lines = self._writer.read_lines()
        if lines is None:
            self._loop.remove_reader(self._writer.ack_fd)
            self._committed(self._writing_last, OSError("the journal writer process exited"))
            return
        for line in lines:
            verdict, _, detail = line.partition(" ")
            if verdict == "ok":
                self.commits += 1
                self.written += self._writing_count
                self._committed(int(detail), None)
            else:
                self._committed(self._writing_last, sqlite3.OperationalError(detail))

    def _on_stall(self) -> None:
        """On the loop, when the batch in flight is past its deadline: fail, unless its answer is waiting unread."""
        self._stall_timer = None
        late = self._writing_last
        if self._writer is not None:
            self._on_acks()  # the loop itself may have been late: read what the writer has said
        if late and self._writing_last == late and self._failure is None:  # (a next batch has its own timer)
            self._committed(late, TimeoutError(
                f"the journal writer has not committed records for {self._commit_timeout_s:g} s (stalled: "
                "stopped, or stuck in I/O)"))

    def _committed(self, last_seq: int, error: Exception | None) -> None:
        """On the loop: the batch up to ``last_seq`` is on disk (or failed); release it, send the next."""
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        self._writing_last = 0
        waiters, self._writing_waiters = self._writing_waiters, []
        if error is not None:
            self._fail(error, waiters)
            return
        self._durable_seq = last_seq
        _release(waiters)
        if self._pending:
            self._submit()
        policy = self._policy
        if policy is not None and policy.every_records and last_seq - self._snapshot_mark >= policy.every_records:
            self._take_snapshot()

    # --- snapshots ------------------------------------------------------------------------------

    def _on_snapshot_timer(self) -> None:
        assert self._clock is not None and self._policy is not None
        self._snapshot_timer = self._clock.call_later(self._policy.every_ms, self._on_snapshot_timer)
        if self._durable_seq > self._snapshot_seq:
            self._take_snapshot()

    def _take_snapshot(self) -> None:
        """Start a snapshot taker, unless one is at work (it will be followed by another if still due)."""
        if self._taker is not None or self._loop is None or self._failure is not None:
            return
        self._snapshot_mark = self._durable_seq  # if it fails, the next try is a full interval later
        try:
            self._taker = SnapshotTaker.start(self.path, self._exchange_config, self._keep_results)
        except OSError as exc:  # no snapshot this time; the journal itself is unharmed
            log.error("could not start the snapshot taker: %s", exc)
            return
        self._loop.add_reader(self._taker.fd, self._on_snapshot_done)

    def _on_snapshot_done(self) -> None:
        """On the loop, when the taker's output is readable: once it has closed it, log its report and reap it."""
        assert self._taker is not None and self._loop is not None
        report = self._taker.read()
        if report is None:
            return
        self._loop.remove_reader(self._taker.fd)
        taker, self._taker = self._taker, None
        code = taker.finish()
        *damaged, verdict = report.splitlines() or [""]
        for line in damaged:  # a snapshot it could not use (damaged, or another version's), said as logged
            log.warning("snapshot taker: %s", line)
        word, _, rest = verdict.partition(" ")
        if word == "saved" and code == 0:
            seq, size, build_ms = rest.split()
            self._snapshot_seq = max(self._snapshot_seq, int(seq))
            self.snapshots_taken.append(int(seq))
            log.info("snapshot taken at seq %s: %s bytes in %s ms (pid %d)", seq, size, build_ms, taker.pid)
        elif word == "none" and code == 0:
            self._snapshot_seq = max(self._snapshot_seq, int(rest))
        else:
            log.error("the snapshot taker failed (exit %s): %s", code, verdict or "no report")

    def _fail(self, exc: Exception, writing: list[asyncio.Future[None]]) -> None:
        first = self._failure is None
        if first:
            log.error("journal write failed: %s", exc)
        self._failure = exc
        failure = JournalFailed(f"journal write failed: {exc}")
        for future in (*writing, *self._pending_waiters):
            if not future.done():
                future.set_exception(failure)
        self._pending_waiters = []
        if first:
            self._stop_children()
            listeners, self._failure_listeners = self._failure_listeners, []
            for listener in listeners:
                listener(f"journal write failed: {exc}")

    def _stop_children(self) -> None:
        """Kill the writer (a stalled one must never commit after this) and any snapshot taker; reaped by stop()."""
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        if self._loop is not None and self._writer is not None:
            if self._writer.ready:
                self._loop.remove_reader(self._writer.ack_fd)
                self._loop.remove_writer(self._writer.input_fd)
            self._writer.kill()
        if self._loop is not None and self._taker is not None:
            self._loop.remove_reader(self._taker.fd)
            taker, self._taker = self._taker, None
            taker.kill()

    def _write(self, batch: list[Row]) -> None:
        """Serialise and commit on this thread (``:memory:``, tools, shutdown)."""
        insert_rows(self._conn, [(seq, ts, kind, jsoncodec.dumps_record(body)) for seq, ts, kind, body in batch])
        self.commits += 1
        self.written += len(batch)


def _release(waiters: list[asyncio.Future[None]]) -> None:
    for future in waiters:
        if not future.done():
            future.set_result(None)


def _database_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's main database ('' in memory)."""
    for _, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return str(file or "")
    return ""
