"""Reading the journal's committed records back, each checked against its checksum as it is read.

In order from a record on (:func:`records_after`: recovery's fold, tools), or by kind (:func:`records_of_kind`:
the few records that are not the core's events, such as an operator's, found through :data:`OTHER_KINDS_INDEX`
without reading the journal through), or those whose text holds given values (:func:`records_holding`: the audit
trail's search, :mod:`exchange.server.audit_trail`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from exchange.server import jsoncodec
from exchange.server.journal_check import JournalDamaged, verify_record

#: The records that are not the core's events (operator actions, game results, ...), a few beside them. A partial
#: index, so an event's insert costs nothing more; made once when a journal from before it is first opened.
OTHER_KINDS_INDEX = "CREATE INDEX IF NOT EXISTS journal_other_kinds ON journal (kind, seq) WHERE kind <> 'event';"

#: Records read in one query. A read transaction left open (a reader whose output is not being read: ``| less``)
#: keeps the server's checkpoints from starting its write-ahead log again, which then grows for as long.
PAGE = 1000

_COLUMNS = "SELECT seq, ts_ms, kind, body, crc FROM journal"
#: The same of a journal from before checksums that no server has opened since (a server adds the column; a reader
#: that may not write reads none).
_COLUMNS_WITHOUT_CRC = "SELECT seq, ts_ms, kind, body, NULL FROM journal"


def has_checksums(conn: sqlite3.Connection) -> bool:
    """Whether the journal of ``conn`` has its ``crc`` column (a server adds it to a journal from before them)."""
    return any(row[1] == "crc" for row in conn.execute("PRAGMA table_info(journal)"))


def _select(conn: sqlite3.Connection) -> str:
    """The query's head for the journal of ``conn``: its checksums, if it has them."""
    return _COLUMNS if has_checksums(conn) else _COLUMNS_WITHOUT_CRC


@dataclass(frozen=True, slots=True)
class Record:
    seq: int
    ts_ms: int
    kind: str
    body: Mapping[str, Any]
    #: Its body was checked against a checksum (False: a record of before checksums, read as it is).
    checksummed: bool = True


@dataclass(frozen=True, slots=True)
class SetAside:
    """A record a start set aside as damaged (``journal_damaged``), as it was read: its body's text, and what is wrong
    with it (None: nothing; it came after a damaged or missing record, and went with it)."""

    seq: int
    ts_ms: int
    kind: str
    text: str
    problem: str | None


def set_aside(conn: sqlite3.Connection) -> Iterator[SetAside]:
    """The records starts set aside with the damage accepted, in the order they were set aside (each start's from its
    first damaged record on; numbers may repeat, the journal numbering its next records from there again),
    :data:`PAGE` at a time. A record whose body does not match its checksum says so; one whose body is not JSON
    is the reader's to find."""
    columns = [row[1] for row in conn.execute("PRAGMA table_info(journal_damaged)")]
    if not columns:
        return
    crc = "crc" if "crc" in columns else "NULL"
    after = 0
    while True:
        rows = conn.execute(f"SELECT rowid, seq, ts_ms, kind, body, {crc} FROM journal_damaged WHERE rowid > ? "
                            f"ORDER BY rowid LIMIT {PAGE}", (after,)).fetchall()
        for _, seq, ts_ms, kind, body, checksum in rows:
            yield SetAside(seq, ts_ms, kind, body, verify_record(seq, body, checksum, expected=seq))
        if len(rows) < PAGE:
            return
        after = rows[-1][0]


def last_seq(conn: sqlite3.Connection) -> int:
    """The number of the journal's last committed record (0: none)."""
    (last,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
    return int(last)


def first_missing(conn: sqlite3.Connection, after: int, through: int | None = None) -> int | None:
    """The first record number missing from the journal after ``after`` (to ``through``, if given), or None: what
    a reader that does not read every record checks their numbering with (SQLite counts them without reading
    their bodies)."""
    count, low, high = conn.execute("SELECT COUNT(*), MIN(seq), MAX(seq) FROM journal WHERE seq > ? AND seq <= ?",
                                    (after, _last(through))).fetchone()
    if not count or (low == after + 1 and high - low + 1 == count):
        return None
    if low != after + 1:
        return after + 1
    (missing,) = conn.execute("SELECT seq + 1 FROM journal AS j WHERE seq > ? AND seq < ? AND NOT EXISTS "
                              "(SELECT 1 FROM journal WHERE seq = j.seq + 1) ORDER BY seq LIMIT 1",
                              (after, high)).fetchone()
    return int(missing)


def records_after(conn: sqlite3.Connection, path: str, after: int, through: int | None = None) -> Iterator[Record]:
    """Every committed record with ``seq > after`` (and ``<= through``, if given), in order, numbered on from
    ``after`` with no gap: :class:`JournalDamaged` (naming the database at ``path``) at the first that is not, or
    whose body does not match its checksum, with ``first_bad`` set to the number due."""
    rows = _pages(conn, [], [], after, through)
    return _checked(rows, path, numbered_from=after + 1)


def records_of_kind(conn: sqlite3.Connection, path: str, kind: str) -> Iterator[Record]:
    """Every committed record of ``kind``, in order, each checked against its checksum; not ``"event"`` (the core's
    events are read in order, :func:`records_after`)."""
    if kind == "event":
        raise ValueError("the core's events are read in order with records_after(), not by kind")
    # (the second term is the index's own condition: SQLite uses a partial index only where the query states it)
    return _checked(_pages(conn, ["kind = ?", "kind <> 'event'"], [kind], 0, None), path, numbered_from=None)


def records_holding(conn: sqlite3.Connection, path: str, after: int, through: int | None, kinds: Collection[str],
                    texts: Sequence[Collection[str]], *, since_ms: int | None = None, until_ms: int | None = None,
                    newest_first: bool = False) -> Iterator[Record]:
    """The committed records with ``seq > after`` (and ``<= through``, if given), of one of ``kinds`` (any, if
    empty), whose body's JSON text holds, for each set in ``texts``, one of its texts, and whose time is at or after
    ``since_ms`` and before ``until_ms`` (if given); in order (or from the last back, ``newest_first``), each checked
    against its checksum (their numbering is not: the records found are not consecutive). A text may stand in a body
    for another reason (a number inside a larger one): the caller judges the records found."""
    clauses: list[str] = []
    params: list[object] = []
    for bound, clause in ((since_ms, "ts_ms >= ?"), (until_ms, "ts_ms < ?")):
        if bound is not None:  # SQLite skips the records outside the span without their being read here
            clauses.append(clause)
            params.append(bound)
    if kinds:
        clauses.append(f"kind IN ({', '.join('?' * len(kinds))})")
        params += kinds
        if "event" not in kinds:  # stated, so that SQLite reads the other kinds through their partial index
            clauses.append("kind <> 'event'")
    for group in texts:
        clauses.append(f"({' OR '.join(['instr(body, ?) > 0'] * len(group))})")
        params += group
    return _checked(_pages(conn, clauses, params, after, through, newest_first=newest_first), path,
                    numbered_from=None)


def _last(through: int | None) -> int:
    """The last record number to read: ``through``, or the largest SQLite holds (none given)."""
    return (1 << 63) - 1 if through is None else through


def _pages(conn: sqlite3.Connection, where: list[str], params: list[object], after: int, through: int | None, *,
           newest_first: bool = False) -> Iterator[tuple[Any, ...]]:
    """The journal's rows numbered after ``after`` (to ``through``, if given) that ``where`` selects, in order (or
    newest first), :data:`PAGE` at a time: each page's query is finished before its rows are handed on, so no
    read transaction stays open while a caller is slow. Each page is one range of numbers (one bound moved past
    the page before), which SQLite reads from its place in the table, not from the range's start."""
    head = _select(conn)
    low, high = after, _last(through)
    clause = " AND ".join(["seq > ?", "seq <= ?", *where])
    order = "DESC" if newest_first else "ASC"
    while True:
        rows = conn.execute(f"{head} WHERE {clause} ORDER BY seq {order} LIMIT {PAGE}", [low, high, *params]).fetchall()
        yield from rows
        if len(rows) < PAGE:
            return
        if newest_first:
            high = rows[-1][0] - 1
        else:
            low = rows[-1][0]


def _checked(rows: Iterable[tuple[Any, ...]], path: str, numbered_from: int | None) -> Iterator[Record]:
    expected = numbered_from
    for seq, ts_ms, kind, body, crc in rows:
        due = seq if expected is None else expected
        problem = verify_record(seq, body, crc, expected=due)
        if problem is not None:
            raise JournalDamaged(path or ":memory:", problem, first_bad=due)
        if expected is not None:
            expected = seq + 1
        try:
            parsed = jsoncodec.loads(body)
        except (ValueError, RecursionError) as exc:  # no checksum to catch it (a journal from before them)
            raise JournalDamaged(path or ":memory:", f"record {seq}: its body is not JSON ({exc})",
                                 first_bad=seq) from None
        yield Record(seq, ts_ms, kind, parsed, crc is not None)
