"""The ``snapshots`` table: the exchange's whole state at a journal sequence number, checksummed, a few kept.

A snapshot row holds the state after every journal record up to ``seq``:
the exchange (:func:`exchange.core.snapshot.dump`), the server's market
notes (:class:`~exchange.server.notes.MarketNotes`), the channels' recent
results (:class:`~exchange.server.kept_results.KeptResults`) and how the markets
the exchange forgot ended (:class:`~exchange.server.ended_markets.EndedMarkets`),
a SHA-256 of those bytes (the exchange's, the notes', the results', the ended
markets') and the exchange's ``state_digest()``. When a snapshot is taken, its bytes are loaded back and must
give the same digest and results, or it is not written (a bug in the dump is
caught there, off the server's path). At a restart a row is *valid* when the
checksum matches (the bytes are the ones checked when taken) and every part
loads; :func:`newest_valid` returns the newest such row and says what was wrong
with every newer one (a row from before results were kept, NULL there, is
passed over: its exchange is in an older format too; one from before ended
markets were kept, NULL there, remembers none). Recomputing the digest
at every restart would cost about 0.4 s for a thousand kept markets and prove
nothing the checksum does not.

Snapshots are taken from committed records only, by a process of their own
(:class:`SnapshotTaker`, which runs :mod:`exchange.server.recovery`): it
restores the newest valid snapshot, folds the journal records after it, and
writes the result as a new row. The server's event loop only starts that
process, so a dump of a large state (about a second for 50,000 orders in
1,000 markets) never stalls a request. The journal records themselves are
never deleted (they are the audit trail); only snapshots beyond the newest
:data:`KEEP` are.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass

from exchange.core import snapshot as core_snapshot
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.server import jsoncodec
from exchange.server.database import child_environment, transaction
from exchange.server.ended_markets import EndedMarkets
from exchange.server.journal_check import rewinds as rewinds_of
from exchange.server.kept_results import KeptResults
from exchange.server.notes import MarketNotes

SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    seq INTEGER PRIMARY KEY,
    created_ms INTEGER NOT NULL,
    exchange BLOB NOT NULL,
    notes BLOB NOT NULL,
    sha256 TEXT NOT NULL,
    state_digest TEXT NOT NULL,
    results BLOB,
    ended BLOB
);
"""

KEEP = 3  # snapshots kept: the newest, and two to fall back on if it is damaged
DEFAULT_EVERY_RECORDS = 50_000
DEFAULT_EVERY_MS = 10 * 60_000


@dataclass(frozen=True, slots=True)
class SnapshotPolicy:
    """When the journal takes a snapshot: after ``every_records`` committed records or ``every_ms`` (0: never).

    >>> SnapshotPolicy(every_records=0, every_ms=60_000).every_records
    0
    """

    every_records: int = DEFAULT_EVERY_RECORDS
    every_ms: int = DEFAULT_EVERY_MS

    def __post_init__(self) -> None:
        if self.every_records < 0 or self.every_ms < 0:
            raise ValueError(f"snapshot intervals must not be negative (0 turns one off), not "
                             f"{self.every_records} records / {self.every_ms} ms")


@dataclass(frozen=True, slots=True)
class Damaged:
    """A snapshot that could not be used, and why."""

    seq: int
    problem: str

    def __str__(self) -> str:
        return f"snapshot at seq {self.seq}: {self.problem}"


@dataclass(frozen=True, slots=True)
class Saved:
    """What :func:`save` wrote: the sequence number covered, the size in bytes and the time taken to build it."""

    seq: int
    size: int
    digest: str
    build_ms: float


@dataclass(frozen=True, slots=True)
class Loaded:
    seq: int
    exchange: Exchange
    notes: MarketNotes
    results: KeptResults
    ended: EndedMarkets


#: The columns of the ``snapshots`` table added after it was first made.
ADDED_COLUMNS = ("results", "ended")


def upgrade(conn: sqlite3.Connection) -> None:
    """Add the :data:`ADDED_COLUMNS` to a ``snapshots`` table made before them (its rows keep NULL there)."""
    columns = _columns(conn)
    for column in ADDED_COLUMNS:
        if column not in columns:
            conn.execute(f"ALTER TABLE snapshots ADD COLUMN {column} BLOB")


def readable(conn: sqlite3.Connection) -> bool:
    """Whether the database of ``conn`` has a ``snapshots`` table with every column this version reads (an older
    version's lacks some until :func:`upgrade` adds them)."""
    return set(ADDED_COLUMNS) <= _columns(conn)


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(snapshots)")}


def save(conn: sqlite3.Connection, seq: int, exchange: Exchange, notes: MarketNotes, results: KeptResults,
         ended: EndedMarkets, *, rewinds: list[int] | None = None) -> Saved:
    """Write the state after record ``seq`` as a snapshot, then keep only the newest :data:`KEEP`; one transaction.

    ``rewinds``: the journal's rewinds when the records were folded (the taker's). If it has been rewound since, a
    server started meanwhile set records aside (damage accepted) or found some lost, perhaps some of those folded,
    and numbers its own from there: the snapshot would hold the records gone under numbers that now name others,
    so it is not written (:class:`~exchange.core.snapshot.SnapshotError`). A taker left running by a killed
    server can be that late.
    """
    started = time.perf_counter()
    digest = exchange.state_digest()  # first: the dump carries the cleared orders' digests worked out for it
    state = core_snapshot.dump(exchange)
    notes_bytes = notes.to_json()
    results_bytes = results.to_json()
    ended_bytes = ended.to_snapshot()
    reloaded = core_snapshot.load(state).state_digest()
    if reloaded != digest:
        raise core_snapshot.SnapshotError(f"the dump of record {seq} reloads to digest {reloaded[:12]}..., "
                                          f"not the state's {digest[:12]}...: not written")
    if KeptResults.from_json(results_bytes) != results:
        raise core_snapshot.SnapshotError(f"the recent results at record {seq} do not reload as they are: not written")
    if EndedMarkets.from_snapshot(ended_bytes) != ended:
        raise core_snapshot.SnapshotError(f"the ended markets at record {seq} do not reload as they are: not written")
    checksum = _checksum(state, notes_bytes, results_bytes, ended_bytes)
    build_ms = (time.perf_counter() - started) * 1000
    with transaction(conn):
        if rewinds is not None and rewinds_of(conn) != rewinds:
            raise core_snapshot.SnapshotError(f"the journal was rewound (at {rewinds_of(conn)[len(rewinds):]}) "
                                              f"after records up to {seq} were folded: not written")
        conn.execute(
            "INSERT OR REPLACE INTO snapshots (seq, created_ms, exchange, notes, sha256, state_digest, results, ended) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, time.time_ns() // 1_000_000, state, notes_bytes, checksum, digest, results_bytes, ended_bytes),
        )
        conn.execute("DELETE FROM snapshots WHERE seq NOT IN (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT ?)",
                     (KEEP,))
    return Saved(seq, len(state) + len(notes_bytes) + len(results_bytes) + len(ended_bytes), digest, build_ms)


def newest_seq(conn: sqlite3.Connection) -> int:
    """The sequence number of the newest snapshot (valid or not); 0 if there is none."""
    (seq,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM snapshots").fetchone()
    return int(seq)


def newest_valid(
    conn: sqlite3.Connection, last_seq: int, config: ExchangeConfig | None = None, keep_results: int | None = None,
) -> tuple[Loaded | None, list[Damaged]]:
    """The newest valid snapshot at or before journal record ``last_seq`` (made with exchange ``config`` if given).

    With ``keep_results``, its recent results are cut to that many a channel, and a snapshot that kept fewer is
    passed over (a full replay may list more). Returns it (None: there is none, replay everything) and every
    newer snapshot that was not usable, with why.
    """
    damaged: list[Damaged] = []
    seqs = [int(seq) for (seq,) in conn.execute("SELECT seq FROM snapshots ORDER BY seq DESC")]
    for seq in seqs:  # one at a time: each row may be tens of megabytes
        if seq > last_seq:
            damaged.append(Damaged(seq, f"it is beyond the journal's last record ({last_seq})"))
            continue
        state, notes_bytes, results_bytes, ended_bytes, checksum = conn.execute(
            "SELECT exchange, notes, results, ended, sha256 FROM snapshots WHERE seq = ?", (seq,)).fetchone()
        try:
            exchange, notes, results, ended = _verified(state, notes_bytes, results_bytes, ended_bytes, checksum)
        except core_snapshot.SnapshotError as exc:
            damaged.append(Damaged(seq, str(exc)))
            continue
        if config is not None and exchange.config != config:
            damaged.append(Damaged(seq, f"it was taken with another exchange config ({exchange.config})"))
            continue
        if keep_results is not None and results.keep < keep_results:
            damaged.append(Damaged(seq, f"it kept {results.keep} results a channel, fewer than {keep_results}"))
            continue
        kept = results if keep_results is None else results.kept_to(keep_results)
        return Loaded(seq, exchange, notes, kept, ended), damaged
    return None, damaged


def _verified(
    state: bytes, notes_bytes: bytes, results_bytes: bytes | None, ended_bytes: bytes | None, checksum: str,
) -> tuple[Exchange, MarketNotes, KeptResults, EndedMarkets]:
    """The snapshot's exchange, notes, results and ended markets (none for a snapshot from before they were kept);
    :class:`~exchange.core.snapshot.SnapshotError` saying why not."""
    if results_bytes is None:
        raise core_snapshot.SnapshotError("it was taken before recent results were kept")
    actual = _checksum(state, notes_bytes, results_bytes, ended_bytes or b"")
    if actual != checksum:
        raise core_snapshot.SnapshotError(f"checksum mismatch: stored sha256 {checksum[:12]}..., "
                                          f"bytes hash to {actual[:12]}...")
    exchange = core_snapshot.load(state)
    try:
        notes = MarketNotes.from_json(notes_bytes)
        results = KeptResults.from_json(results_bytes)
        ended = EndedMarkets.from_snapshot(ended_bytes) if ended_bytes is not None else EndedMarkets(0)
    except ValueError as exc:
        raise core_snapshot.SnapshotError(str(exc)) from None
    return exchange, notes, results, ended


def _checksum(state: bytes, *parts: bytes) -> str:
    """The SHA-256 of the parts in order (a snapshot from before ended markets were kept has no ``ended`` part:
    an empty one hashes the same)."""
    digest = hashlib.sha256(state)
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


# --- the process that takes them -----------------------------------------------------------------

#: The taker's flag: it ends as soon as its stdin is closed (:func:`exchange.server.recovery.main`).
END_WITH_SERVER = "--end-with-server"


class SnapshotTaker:
    """A running ``python -m exchange.server.recovery DB [CONFIG] [--keep-results N] --end-with-server`` that writes
    one snapshot and reports on one line; it ends with the server (its stdin is a pipe from the server, closed when
    the server reaps it or dies).

    ``CONFIG`` is the server's exchange config as JSON (:meth:`ExchangeConfig.to_dict`) and ``N`` its results kept
    a channel: the taker folds the journal with the same settings (``keep_closed_markets`` above all), so the
    server can load what it writes.

    Its line is ``saved <seq> <bytes> <build ms>``, ``none <seq>`` (nothing newer to save) or
    ``error <message>``, after a line ``passed over the snapshot at seq <seq>: <why>`` for each newer snapshot it
    could not use; then it exits. The server watches :attr:`fd`, calls :meth:`read` each time it is
    readable, and :meth:`finish` once that has given the line.
    """

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None and proc.stdin is not None
        self._proc = proc
        self.fd = proc.stdout.fileno()
        self._output = b""

    @classmethod
    def start(cls, path: str, config: ExchangeConfig | None = None, keep_results: int | None = None) -> SnapshotTaker:
        """Start a taker on the database at ``path``, folding with ``config`` and keeping ``keep_results`` a channel
        (None: the newest snapshot's)."""
        env = child_environment()
        extra = [] if config is None else [jsoncodec.dumps(config.to_dict()).decode()]
        if keep_results is not None:
            extra += ["--keep-results", str(keep_results)]
        # stdin: a pipe the server never writes to, so that the taker ends with the server (END_WITH_SERVER)
        proc = subprocess.Popen([sys.executable, "-m", "exchange.server.recovery", path, *extra, END_WITH_SERVER],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0)
        taker = cls(proc)
        os.set_blocking(taker.fd, False)
        return taker

    @property
    def pid(self) -> int:
        return self._proc.pid

    def read(self) -> str | None:
        """What it said, once it has closed its output (it is then exiting); None while it is still working."""
        try:
            while chunk := os.read(self.fd, 65536):
                self._output += chunk
        except BlockingIOError:
            return None
        return self._output.decode(errors="replace").strip()

    def finish(self, timeout: float = 30) -> int:
        """Reap it (killed if it has not exited within ``timeout``); its exit code."""
        try:
            code = self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            code = self._proc.wait()
        assert self._proc.stdout is not None and self._proc.stdin is not None
        self._proc.stdout.close()
        self._proc.stdin.close()
        return code

    def kill(self) -> int:
        """Stop it now (a snapshot half written is rolled back by SQLite) and reap it."""
        if self._proc.poll() is None:
            self._proc.kill()
        return self.finish()
