"""The account statement's index: every account's money movements, read once from the journal and kept in a
SQLite file of their own beside the database (``exchange.db-statement``), so a ``getAccountStatement`` page
costs an index lookup, in proportion to the page (and ``fromRecord``), however long the journal is.

The journal stays the authority: the index is derived from it and can be deleted at any time (the next call
rebuilds it); one found damaged (not a database, or malformed) is deleted and rebuilt at once, with a warning. It
holds each item (``account, seq, part``: a journal record and, for a market result, part 0 the result and part 1
the commission) with its date (its event's: an opening balance is dated when the account was added, though the core
opens it at its first login), amount and the account's running balance after it, each account's balance so far, and
its *mark*: the last journal record it has read, with that record's CRC; and each market's start (its
``MarketCreated``), which a market's items give as their ``startDate``. A call first brings the index up to the
journal's last committed record (each record is read once, ever: only the records committed since the last call),
in one transaction with the new mark, so a crash leaves the index at an old mark, never between. Each record read
is checked against its checksum (a start checks only those after the newest snapshot): a damaged one stops the
catch-up there, the records before it indexed, and every call is refused until it is whole again. If the record at
the mark is no longer the one the index read (the journal was replaced, or damaged records were set aside at a
start and their sequence numbers reused), or its tables are of an older layout (:data:`VERSION`), the index is
rebuilt from the start. Reads see committed records only, through a read-only connection, as before.

An item's ``refId`` is its record's number (and ``-c`` for a commission), unique over the account's history:
when records were lost or set aside and their numbers used again, the journal noted the rewind, and the records
numbered after it carry ``.N``, the rewinds at or below their number (:func:`ref_id`).

Items are listed newest first: by date, then journal order (which is the same order while the clock runs
forward). Two covering indexes (all items; deposits and withdrawals apart from market items) give every
page with its ``itemDateRange`` as one index range walked from its newest end.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from bisect import bisect_right
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import InvariantError
from exchange.server import jsoncodec
from exchange.server.database import connect_read_only, transaction
from exchange.server.journal_check import JournalDamaged, rewinds, verify_record

log = logging.getLogger(__name__)

_TYPES = ("AccountCredited", "AccountDebited", "MarketSettled", "MarketVoided", "MarketCreated")
_MATCHING = "(" + " OR ".join(f"body LIKE '{{\"type\":\"{t}\"%'" for t in _TYPES) + ")"
#: Journal records read per query while catching up (the index is written in one transaction all the same).
BATCH = 5_000
#: Each item kind's class: deposits and withdrawals (``D``) or market items (``X``), indexed apart.
CLASSES = {"DEPOSIT": "D", "WITHDRAWAL": "D", "RESULT": "X", "COMMISSION": "X"}

#: The layout of the index's tables (SQLite's ``user_version``): an index of another is built again from the start.
#: 2: each market's start (``markets``), for the items' ``startDate``.
VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS markets (market_id TEXT PRIMARY KEY, start_ts INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS mark (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, crc INTEGER);
CREATE TABLE IF NOT EXISTS balances (account TEXT PRIMARY KEY, balance INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items (
    account TEXT NOT NULL, seq INTEGER NOT NULL, part INTEGER NOT NULL, ts INTEGER NOT NULL,
    amount INTEGER NOT NULL, balance INTEGER NOT NULL, kind TEXT NOT NULL, class TEXT NOT NULL, market_id TEXT,
    PRIMARY KEY (account, seq, part)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_by_date ON items (account, ts, seq, part);
CREATE INDEX IF NOT EXISTS items_by_class ON items (account, class, ts, seq, part);
"""


@dataclass(frozen=True, slots=True)
class Item:
    """One statement line: a deposit, withdrawal, market result or commission (money in minor units)."""

    ref_id: str
    ts: int
    amount: int
    balance: int
    kind: str  # DEPOSIT, WITHDRAWAL, RESULT or COMMISSION
    market_id: str | None = None
    market_start: int | None = None  # when the market opened (its ``MarketCreated``), for a market's item


Movement = tuple[str, int, int, str, str | None]  # account, part, amount, kind, market id


def movements(event: Mapping[str, Any]) -> list[Movement]:
    """The statement movements a journal event makes, for every account it names.

    >>> movements({"type": "MarketSettled", "market_id": "holdem.3", "accounts": [
    ...     {"account_id": "alice", "profit": 400, "commission": 10}, {"account_id": "bob", "profit": 0,
    ...     "commission": 0}]})
    [('alice', 0, 400, 'RESULT', 'holdem.3'), ('alice', 1, -10, 'COMMISSION', 'holdem.3')]
    """
    kind = event["type"]
    if kind in ("AccountCredited", "AccountDebited"):
        credit = kind == "AccountCredited"
        return [(event["account_id"], 0, event["amount"] if credit else -event["amount"],
                 "DEPOSIT" if credit else "WITHDRAWAL", None)]
    out: list[Movement] = []
    for result in event.get("accounts", ()):
        if result["profit"]:
            out.append((result["account_id"], 0, result["profit"], "RESULT", event["market_id"]))
        if result["commission"]:
            out.append((result["account_id"], 1, -result["commission"], "COMMISSION", event["market_id"]))
    return out


def ref_id(seq: int, part: int, rewinds: Sequence[int]) -> str:
    """The ``refId`` of part ``part`` of journal record ``seq``: its number, then ``.N`` if the journal was rewound
    ``N`` times at or below it (``rewinds``: each rewind's first number again, ascending), then ``-c`` for a
    commission. Unique over the database's history: a record lost or set aside and the one numbered ``seq``
    after it differ by a rewind.

    >>> ref_id(7, 0, []), ref_id(7, 1, []), ref_id(7, 0, [8]), ref_id(9, 1, [8]), ref_id(9, 0, [5, 8, 12])
    ('7', '7-c', '7', '9.1-c', '9.2')
    """
    rewound = bisect_right(rewinds, seq)
    return (f"{seq}.{rewound}" if rewound else str(seq)) + ("-c" if part else "")


def page_query(account: str, classes: Collection[str], start: int | None, end: int | None
               ) -> tuple[str, list[str | int]]:
    """The SQL of a page of ``account``'s items of ``classes`` (one or both) within the dates, newest first, and
    its arguments (``LIMIT`` and ``OFFSET`` to add): one walk of ``items_by_date`` or ``items_by_class``."""
    where: list[str] = ["account = ?"]
    args: list[str | int] = [account]
    if len(classes) == 1:
        where.append("class = ?")
        args.extend(classes)
    if start is not None:
        where.append("ts >= ?")
        args.append(start)
    if end is not None:
        where.append("ts <= ?")
        args.append(end)
    return ("SELECT seq, part, ts, amount, balance, kind, items.market_id, start_ts FROM items LEFT JOIN markets "
            "ON markets.market_id = items.market_id WHERE " + " AND ".join(where)
            + " ORDER BY ts DESC, seq DESC, part DESC LIMIT ? OFFSET ?"), args


class StatementIndex:
    """Statement items by account, brought up to the journal at ``journal_path`` before each read."""

    def __init__(self, journal_path: str, index_path: str | None = None) -> None:
        self.journal_path = journal_path
        self.index_path = index_path if index_path is not None else f"{journal_path}-statement"
        self._lock = threading.Lock()  # one catch-up and read at a time (calls run on worker threads)
        self._conn: sqlite3.Connection | None = None
        self._rewinds: list[int] = []  # the journal's rewinds (first_seq, ascending), read at each catch-up

    def page(self, account: str, kinds: Collection[str], start: int | None, end: int | None, first: int,
             count: int) -> tuple[list[Item], bool]:
        """Items ``first`` .. ``first + count`` of ``account``'s, newest first, of ``kinds`` dated within
        ``[start, end]`` (either may be None), and whether more follow. Catches up with the journal first."""
        classes = sorted({CLASSES[k] for k in kinds})
        if not classes:
            return [], False
        sql, args = page_query(account, classes, start, end)
        with self._lock:
            try:
                rows = self._read(sql, (*args, count + 1, first))
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) or not self._damaged():
                    raise  # busy, a full disk, or the journal's own damage: not the index's to mend
                log.warning("the statement index %s is damaged (%s): deleting it and building it again from the "
                            "journal", self.index_path, exc)
                self._discard()
                rows = self._read(sql, (*args, count + 1, first))
            rewinds = self._rewinds
        items = [Item(ref_id(seq, part, rewinds), ts, amount, balance, kind, market, start)
                 for seq, part, ts, amount, balance, kind, market, start in rows[:count]]
        return items, len(rows) > count

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _read(self, sql: str, args: Sequence[str | int]) -> list[Any]:
        conn = self._connection()
        self._catch_up(conn)
        return conn.execute(sql, args).fetchall()

    def _read_only_journal(self) -> sqlite3.Connection:
        """A connection that reads the journal's committed records and can write nothing."""
        return connect_read_only(self.journal_path)

    def _damaged(self) -> bool:
        """Whether the index file is not a sound SQLite database (SQLite's quick check, on a connection of its own)."""
        try:
            with contextlib.closing(sqlite3.connect(self.index_path)) as conn:
                return bool(conn.execute("PRAGMA quick_check").fetchall() != [("ok",)])
        except sqlite3.OperationalError:
            return False  # cannot be read now (locked, no room): no verdict
        except sqlite3.DatabaseError:
            return True

    def _discard(self) -> None:
        """Close and delete the index (with SQLite's files beside it): the next read builds it from the start."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.index_path + suffix)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self.index_path, check_same_thread=False, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")  # derived data: a lost tail is read again from the journal
                conn.executescript(SCHEMA)
                if conn.execute("PRAGMA user_version").fetchone()[0] != VERSION:  # from before its tables were these
                    conn.execute("DELETE FROM mark")  # the next catch-up builds it from the start
                    conn.execute(f"PRAGMA user_version = {VERSION}")
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        """Index the journal's records after the mark, through its last committed one, in one transaction."""
        journal = self._read_only_journal()
        try:
            journal.execute("BEGIN")  # one read snapshot of the journal for the whole catch-up
            self._rewinds = rewinds(journal)
            mark = conn.execute("SELECT seq, crc FROM mark").fetchone()
            seq, crc = mark if mark is not None else (0, None)
            if seq and journal.execute("SELECT crc FROM journal WHERE seq = ?", (seq,)).fetchone() != (crc,):
                seq = 0  # the journal is not the one indexed: start again
            last = journal.execute("SELECT seq, crc FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
            if (last is not None and seq == last[0]) or (last is None and mark is None):
                return  # up to date, or nothing to index
            damage: JournalDamaged | None = None
            with transaction(conn):
                if not seq:
                    for table in ("items", "balances", "markets"):
                        conn.execute(f"DELETE FROM {table}")
                if last is not None:
                    try:
                        self._index(conn, self._records(journal, seq, last[0]))
                    except JournalDamaged as exc:  # indexed up to it: a call reads again from the damaged record
                        damage = exc
                        last = journal.execute("SELECT seq, crc FROM journal WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                                               (exc.first_bad,)).fetchone()
                if last is not None:
                    conn.execute("INSERT OR REPLACE INTO mark (id, seq, crc) VALUES (0, ?, ?)", last)
                else:
                    conn.execute("DELETE FROM mark")
            if damage is not None:
                raise damage
        finally:
            journal.close()

    def _records(self, journal: sqlite3.Connection, after: int, through: int) -> Iterator[tuple[int, str]]:
        """The records that move money, after ``after`` through ``through``, each checked against its checksum: a
        damaged one raises :class:`~exchange.server.journal_check.JournalDamaged` (the start checks only the records
        after the newest snapshot, and a statement must not show money a damaged record says)."""
        while True:
            rows = journal.execute(f"SELECT seq, body, crc FROM journal WHERE seq > ? AND seq <= ? AND kind = "
                                   f"'event' AND {_MATCHING} ORDER BY seq LIMIT ?", (after, through, BATCH)
                                   ).fetchall()
            for seq, body, crc in rows:
                problem = verify_record(seq, body, crc, expected=seq)
                if problem is not None:
                    raise JournalDamaged(self.journal_path, problem, first_bad=seq)
                yield seq, body
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    @staticmethod
    def _index(conn: sqlite3.Connection, records: Iterator[tuple[int, str]]) -> None:
        balances: dict[str, int] = {}
        rows = []
        starts = []
        try:
            for seq, body in records:
                event = jsoncodec.loads(body)
                if event["type"] == "MarketCreated":
                    starts.append((event["market_id"], event["ts"]))
                for account, part, amount, kind, market in movements(event):
                    if account not in balances:
                        known = conn.execute("SELECT balance FROM balances WHERE account = ?", (account,)).fetchone()
                        balances[account] = known[0] if known is not None else 0
                    balances[account] += amount
                    rows.append((account, seq, part, event["ts"], amount, balances[account], kind, CLASSES[kind],
                                 market))
        finally:  # what came before a damaged record is indexed all the same (the caller rolls back other errors)
            conn.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            conn.executemany("INSERT OR REPLACE INTO markets VALUES (?, ?)", starts)
            conn.executemany("INSERT OR REPLACE INTO balances VALUES (?, ?)", balances.items())

    def _check(self) -> None:
        """The index against a fold of the whole journal: the same items, balances and mark (tests call it)."""
        with self._lock:
            conn = self._connection()
            self._catch_up(conn)
            indexed = conn.execute("SELECT account, seq, part, ts, amount, balance, kind FROM items "
                                   "ORDER BY account, seq, part").fetchall()
            stored = dict(conn.execute("SELECT account, balance FROM balances").fetchall())
            starts = dict(conn.execute("SELECT market_id, start_ts FROM markets").fetchall())
        journal = self._read_only_journal()
        try:
            rows = journal.execute(f"SELECT seq, body FROM journal WHERE kind = 'event' AND {_MATCHING} "
                                   "ORDER BY seq").fetchall()
        finally:
            journal.close()
        folded: list[tuple[str, int, int, int, int, int, str]] = []
        balance: dict[str, int] = {}
        created: dict[str, int] = {}
        for seq, body in rows:
            event = jsoncodec.loads(body)
            if event["type"] == "MarketCreated":
                created[event["market_id"]] = event["ts"]
            for account, part, amount, kind, _ in movements(event):
                balance[account] = balance.get(account, 0) + amount
                folded.append((account, seq, part, event["ts"], amount, balance[account], kind))
        if sorted(folded) != indexed or stored != balance or starts != created:
            raise InvariantError("the statement index differs from a fold of the journal")
