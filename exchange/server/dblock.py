"""One server per database: an exclusive lock on ``X.lock`` beside the database ``X``, held for the server's life.

Two servers on one database would both fold the journal into their own
exchange, and the second would void the first one's live game as if it had
crashed. So a server takes ``flock(LOCK_EX)`` on the lock file before it
opens anything, and a second one is refused at once with the first one's
process id. The kernel drops the lock when the holder's file is closed,
whatever ends the process (SIGKILL included), so a crash never leaves a stale
lock; the file itself stays, and is harmless. The ``accounts`` command takes
no lock: adding an account beside a running server is allowed.

>>> import os, tempfile
>>> db = os.path.join(tempfile.mkdtemp(), "ex.db")
>>> first = DatabaseLock.acquire(db)
>>> DatabaseLock.acquire(db)
Traceback (most recent call last):
...
exchange.server.dblock.DatabaseInUse: cannot use the database ...: another server (process ...) is running on it; \
stop that server or give another --db (lock file ...ex.db.lock)
>>> first.release()
>>> DatabaseLock.acquire(db).release()
"""

from __future__ import annotations

import contextlib
import fcntl
import os

from exchange.server.database import DatabaseUnusable


class DatabaseInUse(DatabaseUnusable):
    """Another process holds the database's lock: it is some other server's."""

    def __init__(self, path: str, lock_path: str, holder: int | None) -> None:
        who = "another server" if holder is None else f"another server (process {holder})"
        super().__init__(path, f"{who} is running on it; stop that server or give another --db "
                               f"(lock file {lock_path})")
        self.holder = holder


def lock_path_for(db_path: str) -> str | None:
    """The lock file beside ``db_path``; None for databases that no other process can open (in memory, URIs)."""
    if db_path == ":memory:" or db_path.startswith("file:") or not db_path:
        return None
    return f"{db_path}.lock"


class DatabaseLock:
    """A held lock; :meth:`release` (or the process ending) lets another server start on the database."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    @classmethod
    def acquire(cls, db_path: str) -> DatabaseLock:
        """Take the lock at once or raise :class:`DatabaseInUse` (never waits); other OS errors are DatabaseUnusable."""
        lock_path = lock_path_for(db_path)
        if lock_path is None:
            return cls(None)
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise DatabaseUnusable(db_path, f"cannot open its lock file {lock_path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            raise DatabaseInUse(db_path, lock_path, holder) from None
        except OSError as exc:
            os.close(fd)
            raise DatabaseUnusable(db_path, f"cannot lock {lock_path}: {exc.strerror}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Give the lock up (closing the file drops it); a second call does nothing."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)


def _read_pid(fd: int) -> int | None:
    """The holder's process id as it wrote it, if it has (it writes it just after locking)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
