"""The durable mark: a small file beside the database saying the last journal record ever acknowledged.

SQLite keeps committed records in the ``-wal`` file until a checkpoint moves
them into the database file, and on open it reads the WAL only up to its
first bad frame: a WAL that is missing, has a bad header or a damaged frame
loses every record from there on, silently, and the database still opens.
Only something outside the WAL can tell that records are missing. So the
journal writer, after each commit and before it acknowledges it, writes the
batch's last sequence number into ``DB-durable`` (:func:`mark_path`), and at
start-up the server compares it with the journal's last record
(:func:`exchange.server.journal_check.check`).

The mark is one fixed-width line rewritten in place with a single
``pwrite`` (a few bytes in one sector: all or nothing), not fsynced: a
process crash keeps it (the page cache survives), and a machine crash can
only leave it *behind* the records, never ahead, so it never reports a loss
that did not happen.

>>> import os, tempfile
>>> db = os.path.join(tempfile.mkdtemp(), "ex.db")
>>> read_mark(db) is None
True
>>> mark = DurableMark.open(db)
>>> mark.write(41); mark.write(1234); mark.close()
>>> read_mark(db)
1234
"""

from __future__ import annotations

import os

SUFFIX = "-durable"
_WIDTH = 40  # "durable seq " + up to 20 digits, padded, and a newline


class MarkUnreadable(ValueError):
    """The mark file exists but does not hold a mark."""


def mark_path(db_path: str) -> str:
    return f"{db_path}{SUFFIX}"


def _line(seq: int) -> bytes:
    return f"durable seq {seq}".ljust(_WIDTH - 1).encode() + b"\n"


def read_mark(db_path: str) -> int | None:
    """The last acknowledged sequence number the mark records; None when there is no mark file."""
    path = mark_path(db_path)
    try:
        with open(path, "rb") as file:
            text = file.read(_WIDTH * 2).decode("ascii", "replace")
    except FileNotFoundError:
        return None
    words = text.split()
    if len(words) != 3 or words[:2] != ["durable", "seq"] or not words[2].isdigit():
        raise MarkUnreadable(f"{path} does not hold a durable mark ({text[:_WIDTH].strip()!r})")
    return int(words[2])


class DurableMark:
    """The mark file, open for rewriting (by the writer process, or by a journal writing on its own thread)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def open(cls, db_path: str) -> DurableMark:
        return cls(os.open(mark_path(db_path), os.O_WRONLY | os.O_CREAT, 0o644))

    def write(self, seq: int) -> None:
        """Record that every journal record up to ``seq`` is committed."""
        os.pwrite(self._fd, _line(seq), 0)

    def sync(self) -> None:
        """fsync the mark (after a reset at start-up, which is rare and must not be lost)."""
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)
