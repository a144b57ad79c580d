"""The journal's start-up check: is every acknowledged record there, and is each one intact?

Three things can betray a damaged journal, and SQLite reports none of them
on open:

* **lost records**: a ``-wal`` file that is missing, has a bad header or a
  damaged frame makes SQLite stop reading it there; the records after that
  point vanish. The durable mark (:mod:`exchange.server.journal_mark`) says
  how far the journal had been acknowledged: a journal that ends before it
  has lost records;
* **damaged pages**: ``PRAGMA quick_check`` walks every b-tree page. It reads
  the whole database, which only grows (records are never deleted), so it runs
  only when asked (``serve --check-pages``): a restart must not take longer
  every day. The records a restart does read are checked one by one (below);
* **damaged records**: each row carries the CRC-32 of its body and rows are
  numbered 1, 2, 3, …; the fold at recovery checks both
  (:func:`verify_record`), so a record that changed or went missing in the
  middle stops the start.

Damage refuses the start (:class:`JournalDamaged`, a
:class:`~exchange.server.database.DatabaseUnusable` whose message says
what was found and what to do), unless the operator starts with
``--accept-damaged-journal``: then the loss is logged, the mark is reset to
what is there and the server carries on from it, the journal's next record
passing over the bet ids and match ids the records lost may have given
(:meth:`Journal.check`, :meth:`Journal.set_aside`).

>>> JournalCheck(last_seq=10, mark=10, quick_check="ok").summary()
'journal checked: 10 records, all acknowledged records present, pages ok'
>>> verify_record(5, '{"a":1}', 123, expected=5)
'record 5: its body does not match its checksum (crc 123, body crc 1444654255)'
"""

from __future__ import annotations

import logging
import re
import sqlite3
from dataclasses import dataclass

from exchange.core.events import IdsSkipped
from exchange.server import jsoncodec
from exchange.server.database import DatabaseUnusable
from exchange.server.journal_mark import DurableMark, MarkUnreadable, mark_path, read_mark
from exchange.server.journal_writer import body_crc, insert_rows

log = logging.getLogger(__name__)

ACCEPT_OPTION = "--accept-damaged-journal"
SHOWN_PAGES = 10  # of the damaged pages SQLite's page check names, the first ones in a message


class JournalDamaged(DatabaseUnusable):
    """The journal has lost or damaged acknowledged records; the server must not start on it as it is."""

    def __init__(self, path: str, detail: str, first_bad: int | None = None, *, snapshot: int | None = None) -> None:
        """``snapshot``: the newest sound snapshot, after ``first_bad``: a start rebuilds the exchange from it, so
        neither reads the damaged record nor can set it aside, and only a backup repairs it."""
        remedy = (f"restore the database (with its -wal and -durable files) from a backup, or start the server with "
                  f"'exchange-poker serve {ACCEPT_OPTION}' to carry on without what is lost") if snapshot is None else (
            f"it lies before the newest sound snapshot (record {snapshot}), from which a start rebuilds the "
            f"exchange, so a start neither reads it nor sets it aside ('{ACCEPT_OPTION}' changes nothing), but what "
            "reads the records before it ('exchange-poker journal', the account statement) stops there: restore the "
            "database (with its -wal and -durable files) from a backup to repair it")
        super().__init__(path, f"the journal is damaged: {detail}; {remedy}")
        self.detail = detail
        self.first_bad = first_bad  # the first damaged record, when one record is (not a loss at the end)


class JournalFromNewerVersion(DatabaseUnusable):
    """A sound record (its checksum holds) of a kind, or an event of a type, this code does not know: written by a
    newer version, not damaged. Never set aside, as ``--accept-damaged-journal`` sets damage aside: the records from
    it on hold orders and settlements the newer version acknowledged."""

    def __init__(self, path: str, seq: int, what: str) -> None:
        super().__init__(path, f"record {seq} of the journal holds {what}, which this version of exchange-poker does "
                               "not know: a newer version wrote it. Start that version (or a newer one) on this "
                               "database: going back is not possible once it holds such records, which are sound "
                               f"('{ACCEPT_OPTION}' does not set them aside)")
        self.seq = seq


@dataclass(frozen=True, slots=True)
class JournalCheck:
    """What the start-up check found: the journal's last record, the mark, SQLite's page check, any loss accepted."""

    last_seq: int
    mark: int | None
    quick_check: str
    accepted: tuple[str, ...] = ()

    def mark_to_reset(self) -> bool:
        """Whether the mark must be made to say :attr:`last_seq` (a first start, or damage accepted)."""
        return bool(self.accepted) or self.mark is None

    def summary(self, *, set_aside: bool = False) -> str:
        """One clause for the recovery log line; ``set_aside``: the recovery then set damaged records aside (so
        they, acknowledged or not, are no longer the journal's).

        >>> JournalCheck(last_seq=10, mark=10, quick_check="ok").summary(set_aside=True)
        'journal checked: 10 records, all acknowledged records present until damaged ones were set aside, pages ok'
        """
        if self.mark is None:
            found = "no durable mark to compare with (a journal from before marks, or a new database)"
        elif self.mark <= self.last_seq:
            found = "all acknowledged records present" + (" until damaged ones were set aside" if set_aside else "")
        else:
            found = f"acknowledged up to seq {self.mark}"
        out = f"journal checked: {self.last_seq} records, {found}, pages {self.quick_check}"
        if self.accepted:
            out += "; DAMAGE ACCEPTED: " + "; ".join(self.accepted)
        return out


def check(
    conn: sqlite3.Connection, path: str, *, accept_damaged: bool = False, check_pages: bool = False
) -> JournalCheck:
    """Check the journal in ``conn`` (the database at ``path``) before it is used; see the module docstring.

    ``check_pages``: also walk every page with SQLite's ``quick_check`` (time grows with the database).

    Raises :class:`JournalDamaged` on damage unless ``accept_damaged``. The caller then resets the mark to the
    journal's last record (:meth:`JournalCheck.mark_to_reset`), so the next start does not stop on the same loss,
    after it has noted what must survive a crash (the journal's rewind): the mark reset is what makes the next
    start see a whole journal.
    """
    last = _last_seq(conn)
    problems = []
    pages = "not checked"
    if check_pages:
        found = page_problems(conn)
        pages = "DAMAGED" if found else "ok"
        if found:
            problems.append(f"SQLite's quick_check found damaged pages ({found})")
    mark: int | None
    if path in ("", ":memory:"):
        mark = None
    else:
        try:
            mark = read_mark(path)
        except MarkUnreadable as exc:
            mark = None
            problems.append(f"{exc}, so lost records cannot be ruled out")
        except OSError as exc:  # a directory, or no permission, in the mark's place
            raise _mark_unusable(path, exc) from None
    if mark is None and last and not problems and path not in ("", ":memory:"):
        log.warning("the journal holds %d records but has no durable mark (%s is missing: the database copied "
                    "without its -durable and -wal files?), so whether records acknowledged to clients are missing "
                    "cannot be checked; starting from the %d there are", last, mark_path(path), last)
    if mark is not None and mark > last:
        problems.append(tail_lost(mark, last))
    if problems and not accept_damaged:
        raise JournalDamaged(path, "; ".join(problems))
    if problems:
        log.warning("starting on a damaged journal (%s): %s", ACCEPT_OPTION, "; ".join(problems))
    return JournalCheck(last, mark, pages, tuple(problems))


def tail_lost(mark: int, last: int) -> str:
    """What is wrong with a journal that ends at ``last`` when records up to ``mark`` were acknowledged."""
    return (f"records up to seq {mark} were acknowledged to clients (the durable mark), but the journal ends at seq "
            f"{last}: {mark - last} acknowledged records are missing (the -wal file was lost, or damaged from that "
            "point)")


def lost_at_the_end(conn: sqlite3.Connection, path: str) -> str | None:
    """What :func:`check` would say of the journal's end (:func:`tail_lost`), for a reader that changes nothing:
    None when nothing acknowledged is missing there, or the mark is not there or unreadable to say so. The mark is
    read before the journal's last record: the writer marks a commit only after it, so a server committing
    meanwhile cannot make a loss appear."""
    try:
        mark = read_mark(path)
    except (MarkUnreadable, OSError):  # said by the server's start, which refuses it
        return None
    last = _last_seq(conn)
    return tail_lost(mark, last) if mark is not None and mark > last else None


def _last_seq(conn: sqlite3.Connection) -> int:
    """The number of the journal's last committed record (as :func:`exchange.server.journal_read.last_seq`, which
    imports this module)."""
    (last,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
    return int(last)


def page_problems(conn: sqlite3.Connection) -> str:
    """What SQLite's page check finds wrong, in a clause ('' if nothing): the pages it names and its first problem.

    ``PRAGMA quick_check`` answers "ok", or a line a problem (at most 100 of them) under a heading per database.
    """
    lines = [line for (row,) in conn.execute("PRAGMA quick_check") for line in str(row).splitlines()]
    found = [line for line in lines if line != "ok" and not line.startswith("*** ")]
    if not found:
        return ""
    pages = sorted({int(number) for line in found for number in re.findall(r"\bpage (\d+)", line)})
    named = ", ".join(map(str, pages[:SHOWN_PAGES])) + (f" and {len(pages) - SHOWN_PAGES} more"
                                                         if len(pages) > SHOWN_PAGES else "")
    where = f"pages {named}; " if pages else ""
    counted = "1 problem" if len(found) == 1 else f"{len(found)} problems" + (" or more" if len(found) >= 100 else "")
    return f"{where}{counted}, the first: {found[0]}"


#: Each time records were lost or set aside (damage accepted at a start) and the journal numbered its next records
#: from ``first_seq`` again, a row: so a record's number with the rewinds at or below it names it over the
#: database's whole history (the statement's ``refId``, :mod:`exchange.server.statement_index`), and a snapshot
#: folded before a rewind is known not to be written after it (:func:`exchange.server.snapshots.save`).
REWINDS_SCHEMA = "CREATE TABLE IF NOT EXISTS journal_rewinds (first_seq INTEGER NOT NULL)"


def rewinds(conn: sqlite3.Connection) -> list[int]:
    """The journal's rewinds (:data:`REWINDS_SCHEMA`), ascending; none if it never was (read-only: no table made).

    >>> conn = sqlite3.connect(":memory:")
    >>> rewinds(conn)
    []
    >>> _ = conn.executescript(REWINDS_SCHEMA + "; INSERT INTO journal_rewinds VALUES (13)")
    >>> rewinds(conn)
    [13]
    """
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_rewinds'").fetchone():
        return [seq for (seq,) in conn.execute("SELECT first_seq FROM journal_rewinds ORDER BY first_seq")]
    return []


def write_ids_skipped(conn: sqlite3.Connection, seq: int, count: int, why: str) -> bool:
    """Write record ``seq``, the journal's next, :class:`IdsSkipped` passing over ``count`` ids (none if 0), for
    ``why`` (the records gone); whether it was written.

    Each record lost may have given a client one bet id or match id, which the fold would give again to the next
    bet or match (a client still holding it would name another now); skipping as many rules that out (an earlier
    skip among records set aside counts its own ids: :func:`ids_given_from`). In the caller's transaction, the one
    that notes the loss, so no start sees one without the other. (Records lost whole, a ``-wal`` gone, are counted
    one id each: an earlier skip among them, unreadable, is not counted.)
    """
    if not count:
        return False
    (ts,) = conn.execute("SELECT COALESCE(MAX(ts_ms), 0) FROM journal WHERE seq < ?", (seq,)).fetchone()
    event = IdsSkipped(int(ts), count, why)
    insert_rows(conn, [(seq, int(ts), "event", jsoncodec.dumps_record(event))])
    return True


def ids_given_from(conn: sqlite3.Connection, first_seq: int) -> int:
    """How many bet ids and match ids the records from ``first_seq`` on may have given: one a record, and the
    ids it passed over for an :class:`IdsSkipped` (a damaged one, unread, one)."""
    (records,) = conn.execute("SELECT COUNT(*) FROM journal WHERE seq >= ?", (first_seq,)).fetchone()
    total = int(records)
    for (body,) in conn.execute("SELECT body FROM journal WHERE seq >= ? AND kind = 'event' AND body LIKE ?",
                                (first_seq, '%"IdsSkipped"%')):
        try:
            count = jsoncodec.loads(body)["count"]
        except (ValueError, KeyError, TypeError):
            continue
        if type(count) is int and count > 1:
            total += count - 1
    return total


def reset_mark(path: str, seq: int) -> None:
    """Make the mark say ``seq`` (a first start, or damage accepted), durably."""
    try:
        mark = DurableMark.open(path)
    except OSError as exc:
        raise _mark_unusable(path, exc) from None
    try:
        mark.write(seq)
        mark.sync()
    finally:
        mark.close()


def _mark_unusable(path: str, exc: OSError) -> DatabaseUnusable:
    return DatabaseUnusable(path, f"its durable mark {mark_path(path)} cannot be used ({exc.strerror or exc}); it "
                                  "must be a file the server can write, or absent")


def verify_record(seq: int, body: str, crc: int | None, *, expected: int) -> str | None:
    """What is wrong with the record read as ``seq`` when ``expected`` was due, or None if nothing."""
    if seq != expected:
        return f"record {expected} is missing (the next one is {seq})"
    if crc is not None and body_crc(body) != crc:
        return f"record {seq}: its body does not match its checksum (crc {crc}, body crc {body_crc(body)})"
    return None
