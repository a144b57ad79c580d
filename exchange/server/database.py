"""The server's SQLite file: opened in WAL mode with full fsync, or refused with a sentence saying why.

The accounts (:mod:`exchange.server.store`) and the journal
(:mod:`exchange.server.journal`) share one file. When it cannot be used — a
directory, a missing folder, a file that is not a database, no permission, or
``-wal`` / ``-shm`` files left beside a database that was deleted while a
server still had it open, a full disk — SQLite only says ``disk I/O error`` or ``unable to
open database file``; :func:`open_with` turns that into
:class:`DatabaseUnusable`, whose message names the file and the likely cause,
for the command line to print on one line.

>>> open_with("/nonexistent-folder/exchange.db", lambda conn: conn)
Traceback (most recent call last):
...
exchange.server.database.DatabaseUnusable: cannot use the database /nonexistent-folder/exchange.db: \
the folder /nonexistent-folder does not exist (SQLite: unable to open database file)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote, urlsplit
from urllib.request import pathname2url

T = TypeVar("T")


class DatabaseUnusable(Exception):
    """The database file cannot be opened or written; the message names it and says why."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"cannot use the database {path}: {problem}")
        self.path = path
        self.problem = problem


def child_environment() -> dict[str, str]:
    """The environment of a process the server starts (the journal writer, the snapshot taker): the server's own,
    with this package's root first on ``PYTHONPATH``, so that the child imports the package from where the server
    did."""
    root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}


def connect(path: str) -> sqlite3.Connection:
    """A connection in WAL mode with full fsync on commit (no checks: see :func:`open_with`)."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    except BaseException:
        conn.close()
        raise
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction on ``conn`` (a connection of :func:`connect`): all of the block committed, or none."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def connect_read_only(path: str, *, immutable: bool = False) -> sqlite3.Connection:
    """A connection that reads what is committed and can write nothing, beside a running server or without one
    (the path quoted in the URI: a ``?``, ``#`` or ``%`` in a file's name would cut it short). Opened where no
    server has the database open, SQLite leaves its ``-wal`` (empty) and ``-shm`` files beside it, as any reader
    of a database in WAL mode does; the next server takes them as they are. ``immutable``: the file is read as it is,
    without locks or a ``-shm`` (only for one nothing can be writing: see ``exchange-poker journal``)."""
    flags = "mode=ro&immutable=1" if immutable else "mode=ro"
    return sqlite3.connect(f"file:{pathname2url(os.path.abspath(path))}?{flags}", uri=True)


def open_read_only(path: str) -> sqlite3.Connection:
    """The database at ``path``, to read what is committed and write nothing (a command that only reads it:
    ``exchange-poker journal``, ``accounts list``); :class:`DatabaseUnusable` if it cannot be read.

    In a folder this process may not write (an archived copy, a backup mounted read-only), SQLite cannot make the
    ``-shm`` file it reads a write-ahead log through. With no ``-wal`` beside the database nothing is in such a
    log, and no server can be running there (it would have made one): the file is read as it is (SQLite's
    ``immutable``). With a ``-wal`` and no ``-shm``, its records cannot be read in place: refused, saying so."""
    refuse_uri(path)
    folder_fixed = not os.access(os.path.dirname(os.path.abspath(path)) or ".", os.W_OK)
    wal = os.path.exists(f"{path}-wal")
    if folder_fixed and wal and not os.path.exists(f"{path}-shm"):
        raise DatabaseUnusable(path, f"its write-ahead log {path}-wal can only be read through a -shm file beside "
                                     "it, which this folder does not let be made; copy the database with its -wal to "
                                     "a folder you can write, and read the copy")
    try:
        return connect_read_only(path, immutable=folder_fixed and not wal)
    except sqlite3.Error as exc:
        raise DatabaseUnusable(path, diagnose(path, exc)) from None


def tables_of(conn: sqlite3.Connection) -> frozenset[str]:
    """The names of the tables in the database of ``conn`` (SQLite's own left out)."""
    return frozenset(name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))


def nothing_at(path: str) -> bool:
    """Nothing at all at ``path`` (no database, no ``-wal`` or ``-shm``) in a folder that exists: a mistyped name,
    for a command that reads a database to say so (opening it would make an empty one, or fail saying only "unable
    to open database file"); anything else is judged when it is opened."""
    return Path(path).parent.is_dir() and not any(Path(f"{path}{suffix}").exists() for suffix in ("", "-wal", "-shm"))


def refuse_uri(path: str) -> None:
    """Refuse a SQLite URI (``file:...``) for the database: SQLite would open the file it names, but the lock that
    keeps a second server off a database is beside a file's path (:mod:`exchange.server.dblock`)."""
    if path.startswith("file:"):
        named = unquote(urlsplit(path).path) or "exchange.db"
        raise DatabaseUnusable(path, f"a SQLite URI is not taken; give the database file's path, such as {named}")


def open_with(path: str, build: Callable[[sqlite3.Connection], T]) -> T:
    """``build(connection)`` on a fresh connection to ``path``; any SQLite error becomes :class:`DatabaseUnusable`,
    and so does a URI (:func:`refuse_uri`)."""
    refuse_uri(path)
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        raise DatabaseUnusable(path, diagnose(path, exc)) from None
    try:
        check_ours(path, conn)
        return build(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise DatabaseUnusable(path, diagnose(path, exc)) from None
    except BaseException:
        conn.close()
        raise


#: One of these tables is in every database the exchange has written to (``accounts add`` or ``serve``).
OWN_TABLES = frozenset({"accounts", "journal"})
NAMED_TABLES = 5  # of another program's database, the tables a refusal names


def check_ours(path: str, conn: sqlite3.Connection) -> None:
    """Refuse another program's database: the exchange would add its tables to it without a word."""
    tables = sorted(tables_of(conn))
    if tables and not OWN_TABLES & set(tables):
        named = ", ".join(tables[:NAMED_TABLES]) + (f" and {len(tables) - NAMED_TABLES} more"
                                                     if len(tables) > NAMED_TABLES else "")
        raise DatabaseUnusable(path, f"it is another program's SQLite database (its tables: {named}), not the "
                                     "exchange's; give the exchange's database, or a new file name")


def refusal(path: str, exc: DatabaseUnusable | sqlite3.Error) -> str:
    """What a command says when the database fails it (at open, or in a later query): the reason, on one line."""
    if isinstance(exc, sqlite3.Error):
        exc = DatabaseUnusable(path, diagnose(path, exc))
    return str(exc)


#: Free space under which a write's failure is put down to a full disk (SQLite may only say "disk I/O error").
FULL_DISK_BYTES = 1 << 20


def _free_bytes(folder: Path) -> int:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return FULL_DISK_BYTES  # not known: no verdict from it


def diagnose(path: str, exc: sqlite3.Error) -> str:
    """What is probably wrong with ``path``, from the file system and SQLite's terse message."""
    said = f"(SQLite: {exc})"
    if path == ":memory:":
        return said[1:-1]
    file = Path(path)
    if file.is_dir():
        return f"it is a directory; give a file name such as {file / 'exchange.db'} {said}"
    if not file.parent.is_dir():
        return f"the folder {file.parent} does not exist {said}"
    if "not a database" in str(exc):
        return f"it is not an SQLite database (another file of that name?) {said}"
    if "disk is full" in str(exc) or _free_bytes(file.parent) < FULL_DISK_BYTES:
        return f"the disk it is on is full ({_free_bytes(file.parent):,} bytes free); make room, then try again {said}"
    if "malformed" in str(exc):
        return (f"the file is damaged; restore it (with its -wal and -durable files) from a backup, or save what "
                f"is left with 'sqlite3 {path} .recover' into a new database {said}")
    sidecars = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")]
    odd = [p.name for p in sidecars if p.exists() and not p.is_file()]
    if odd:
        return f"{' and '.join(odd)} beside it should be SQLite's own files but are not; remove them {said}"
    leftovers = [p.name for p in sidecars if p.exists()]
    if leftovers and isinstance(exc, sqlite3.OperationalError) and "readonly" not in str(exc):
        verb = "belongs" if len(leftovers) == 1 else "belong"
        return (f"{' and '.join(leftovers)} beside it {verb} to a database that was deleted or is open in another "
                f"process (a server still running on it?); stop that process, or remove them if none is {said}")
    if not os.access(file.parent, os.W_OK) or (file.exists() and not os.access(file, os.R_OK | os.W_OK)):
        return f"no permission to read and write it and its folder {said}"
    if "readonly" in str(exc):
        return f"it cannot be written (check its permissions and those of its -wal and -shm files) {said}"
    return said[1:-1]
