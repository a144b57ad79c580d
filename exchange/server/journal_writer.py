"""The journal's writer process: batches of rows in on a pipe, one SQLite commit each, acknowledgements out.

The server's event loop and a writer *thread* shared one interpreter lock:
the thread took it to bind each batch to its ``INSERT`` and again after every
``sqlite3_step`` and fsync, and each hand-over cost the busy loop a wait for
the lock. A process has its own interpreter, so SQLite's work and the fsync
happen beside the loop, not between its requests.

The protocol is two pipes (the child's stdin and stdout), one batch in flight:

* server → writer: a frame per batch, a 4-byte little-endian length and a
  pickle of ``[(seq, ts_ms, kind, body_json), ...]``, in journal order;
* writer → server: a line per batch, ``ok <last seq>`` once the batch is
  committed (WAL, ``synchronous=FULL``) and the durable mark says so
  (:mod:`exchange.server.journal_mark`), or ``error <message>`` if it could
  not be, and ``ready`` first, once the database is open.

Each row is stored with the CRC-32 of its body (``crc``), which recovery
checks (:func:`exchange.server.journal_check.verify_record`).

The writer ends when its input ends: when the server closes the pipe on
stop, or when the kernel closes it because the server died (SIGKILL
included), so it never outlives the server by more than the batch it is
writing, and no acknowledged record depends on it afterwards. The server
decides when the journal stops, so the writer ignores SIGINT and SIGTERM
(:data:`IGNORED_SIGNALS`), from its very start: it runs in a session of its
own, so a Ctrl-C at the terminal (sent to the server's process group) never
reaches it, and it is launched with those signals blocked (the server blocks
them in its own thread around the spawn, :func:`signals_blocked`; the child
inherits that mask through ``exec``), so one that a service manager sends
every process at once while the writer's interpreter starts stays pending
until :func:`main` ignores it (which discards it) and unblocks them.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "j.db")
>>> conn = connect(path); _ = conn.executescript(SCHEMA)
>>> writer = WriterProcess.launch(path); writer.wait_ready()
>>> writer.send([(1, 5, "place", '{"betId":"1"}')])  # all written (a larger batch: write_more when writable)
True
>>> writer.read_line_blocking()
'ok 1'
>>> writer.close(); writer.wait(10)
0
>>> conn.execute("SELECT seq, kind, body FROM journal").fetchall()
[(1, 'place', '{"betId":"1"}')]
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator

from exchange.server.database import child_environment, connect, transaction
from exchange.server.journal_mark import DurableMark

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    ts_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    crc INTEGER
);
"""

MAX_ROWS_PER_STATEMENT = 256  # 1280 bound values, well under SQLite's limit (32766)
_LENGTH = struct.Struct("<I")
IGNORED_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})  # the writer's: blocked from its spawn till ignored
#: How long :meth:`WriterProcess.wait_ready` waits for the writer to open the database (its interpreter starts in a
#: tenth of a second; a loaded machine, or a database another process holds locked, takes longer, never this long).
READY_TIMEOUT_S = 60.0

Row = tuple[int, int, str, str]  # seq, ts_ms, kind, body as JSON text


def insert_rows(conn: sqlite3.Connection, rows: list[Row]) -> None:
    """The rows in one transaction: one multi-row INSERT per chunk of :data:`MAX_ROWS_PER_STATEMENT`.

    A statement, not ``executemany``: each row of ``executemany`` is its own ``sqlite3_step``, which in a
    thread of the server gave up the interpreter lock and had to win it back from the busy event loop.
    """
    if len(rows) <= MAX_ROWS_PER_STATEMENT:  # the usual case: one statement, its own transaction
        conn.execute(_insert_sql(len(rows)), _values(rows))
        return
    with transaction(conn):
        for start in range(0, len(rows), MAX_ROWS_PER_STATEMENT):
            chunk = rows[start:start + MAX_ROWS_PER_STATEMENT]
            conn.execute(_insert_sql(len(chunk)), _values(chunk))


def body_crc(body: str) -> int:
    """The checksum stored beside a record's body: CRC-32 of its UTF-8 bytes."""
    return zlib.crc32(body.encode())


def _values(rows: list[Row]) -> list[object]:
    return [value for seq, ts, kind, body in rows for value in (seq, ts, kind, body, body_crc(body))]


@functools.lru_cache(maxsize=MAX_ROWS_PER_STATEMENT)
def _insert_sql(rows: int) -> str:
    return "INSERT INTO journal (seq, ts_ms, kind, body, crc) VALUES " + ",".join(("(?,?,?,?,?)",) * rows)


# --- the server's side ---------------------------------------------------------------------------


@contextlib.contextmanager
def signals_blocked(signals: frozenset[signal.Signals]) -> Iterator[None]:
    """``signals`` blocked in the calling thread for the block, then its mask as it was: a process spawned inside
    starts with them blocked, and a signal sent meanwhile is not lost, only held back (pending) until the end.

    The thread's own, not the process's: another thread may take such a signal meanwhile (Python runs its
    handler in the main thread either way).
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class WriterProcess:
    """The server's handle on a running writer: send a batch, read the acknowledgement lines, close."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self._proc = proc
        self.input_fd = proc.stdin.fileno()  # the batches; non-blocking once ready (see send)
        self._outgoing = memoryview(b"")  # what is left to write of the batch being handed over
        self.ack_fd = proc.stdout.fileno()  # the server's loop watches it (add_reader) for acknowledgement lines
        self._buffer = b""
        self.ready = False  # it has said it opened the database (wait_ready)
        self._refused: str | None = None  # or why it could not (its pipes are closed then)

    @classmethod
    def launch(cls, path: str, lock_fd: int | None = None) -> WriterProcess:
        """Start a writer on the database file at ``path``, not waiting for it: the server recovers meanwhile
        (the writer's interpreter start is a tenth of a second), then calls :meth:`wait_ready`. ``lock_fd``: the
        database lock's descriptor, which the writer holds open for its life, so that no other server takes the
        lock while it may still commit (:mod:`exchange.server.dblock`)."""
        env = child_environment()
        with signals_blocked(IGNORED_SIGNALS):  # the child starts with them blocked (see the module)
            proc = subprocess.Popen([sys.executable, "-m", "exchange.server.journal_writer", path],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0,
                                    pass_fds=() if lock_fd is None else (lock_fd,),
                                    start_new_session=True)  # out of the server's process group
        return cls(proc)

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """Wait until the writer has opened the database, at most ``timeout_s`` (default :data:`READY_TIMEOUT_S`);
        ``sqlite3.OperationalError`` with its message if it could not, or saying it did not answer in time (it is
        killed then). Either way its pipes are closed: a later call raises the same, reading nothing."""
        if self.ready:
            return
        if self._refused is None:
            timeout_s = READY_TIMEOUT_S if timeout_s is None else timeout_s
            try:
                first = self.read_line_blocking(timeout_s)
            except TimeoutError:
                first = (f"error the journal writer (process {self.pid}) did not say it was ready within "
                         f"{timeout_s:g} s; it was killed")
                self.kill()
            if first == "ready":
                os.set_blocking(self.ack_fd, False)
                os.set_blocking(self.input_fd, False)
                self.ready = True
                return
            self._refused = first.removeprefix("error ") or "the journal writer did not start"
            self.close()
            self.wait(10)
        raise sqlite3.OperationalError(self._refused)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def send(self, rows: list[Row]) -> bool:
        """Start handing over one batch: True if it is all written, else the caller calls :meth:`write_more` when
        :attr:`input_fd` is writable again (``BrokenPipeError`` if the writer is gone).

        Never blocks: a batch larger than the pipe's buffer goes in as the writer reads it, and a writer that has
        stopped reading (stopped, stuck) must not stop the caller's loop, whose timer is what fails it.
        """
        payload = pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)
        self._outgoing = memoryview(_LENGTH.pack(len(payload)) + payload)
        return self.write_more()

    def write_more(self) -> bool:
        """Write what the pipe takes of the batch being handed over; True once all of it is written."""
        try:
            while self._outgoing:
                self._outgoing = self._outgoing[os.write(self.input_fd, self._outgoing):]
        except BlockingIOError:
            return False
        return True

    def read_lines(self) -> list[str] | None:
        """The complete lines waiting on the pipe (non-blocking); None once the writer has closed it."""
        try:
            chunk = os.read(self.ack_fd, 65536)
        except BlockingIOError:
            return []
        if not chunk:
            return None
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        return [line.decode() for line in lines]

    def read_line_blocking(self, timeout_s: float | None = None) -> str:
        """One line, waiting for it (start-up, and tools) at most ``timeout_s`` (None: for ever), else
        ``TimeoutError``; '' if the writer closed the pipe first."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.ack_fd], [], [], left)[0]:
                raise TimeoutError(f"the journal writer said nothing within {timeout_s:g} s")
            chunk = os.read(self.ack_fd, 65536)
            if not chunk:
                return ""
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def close(self) -> None:
        """End the writer's input: it commits what it has read and exits."""
        assert self._proc.stdin is not None
        if not self._proc.stdin.closed:
            self._proc.stdin.close()

    def kill(self) -> None:
        """End the writer now (SIGKILL works on a stopped process too): it must never commit after a failure."""
        if self._proc.poll() is None:
            self._proc.kill()

    def wait(self, timeout: float) -> int:
        """Wait for the writer to exit (after :meth:`close`); killed if it takes longer than ``timeout``."""
        try:
            code = self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            code = self._proc.wait()
        assert self._proc.stdout is not None
        self._proc.stdout.close()
        return code


# --- the writer's side ---------------------------------------------------------------------------


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``; None at the end of input (nothing or a partial frame: the server is gone)."""
    parts = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            return None
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _reply(line: str) -> None:
    os.write(1, line.encode() + b"\n")


def main(argv: list[str] | None = None) -> int:
    """The writer: open the database, then commit each batch read from stdin and answer on stdout."""
    for signum in IGNORED_SIGNALS:  # one sent while the interpreter started is pending: ignoring it discards it
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, IGNORED_SIGNALS)
    (path,) = sys.argv[1:] if argv is None else argv
    try:
        conn = connect(path)
        mark = DurableMark.open(path)
    except (sqlite3.Error, OSError) as exc:
        _reply(f"error {exc}")
        return 1
    _reply("ready")
    while (header := _read_exactly(0, _LENGTH.size)) is not None:
        payload = _read_exactly(0, _LENGTH.unpack(header)[0])
        if payload is None:
            break
        rows: list[Row] = pickle.loads(payload)
        try:
            insert_rows(conn, rows)
            mark.write(rows[-1][0])  # before the acknowledgement: the mark is never behind what was acknowledged
        except Exception as exc:  # disk full, I/O error: say so, never acknowledge
            _reply(f"error {type(exc).__name__}: {exc}".replace("\n", " "))
        else:
            _reply(f"ok {rows[-1][0]}")
    mark.close()
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
