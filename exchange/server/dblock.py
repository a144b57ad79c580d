"""One server per database: an exclusive lock on ``X.lock`` beside the database ``X``, held for the server's life.

Two servers on one database would both fold the journal into their own
exchange, and the second would void the first one's live game as if it had
crashed. So a server takes ``flock(LOCK_EX)`` on the lock file before it
opens anything, and a second one is refused at once with the first one's
process id. The kernel drops the lock when the holder's file is closed,
whatever ends the process (SIGKILL included), so a crash never leaves a stale
lock; the file itself stays, and is harmless. A clean stop empties it, so a
start that finds a process id in it knows that a server before it did not stop
cleanly (:attr:`DatabaseLock.unreleased`); the id stays there until a start has
recovered from that stop. The ``accounts`` command takes no lock: adding an
account beside a running server is allowed.

**The journal writer holds it too.** The writer process inherits the lock's
descriptor (:attr:`DatabaseLock.fd`), so the lock is free only once the server
*and* its writer have ended. A server that was killed leaves a writer that may
still commit the batch it was handed (it exits at the end of its input); had
the next server opened the journal meanwhile, it would number its own records
from before that batch, and fail-stop on the first. So a start that finds the
lock held, by a server that is no longer running, waits for what it left
(:data:`ORPHAN_WAIT_S`), then kills the writer the lock file names
(:meth:`DatabaseLock.note_child`; only a process that has the lock file open),
and takes the lock once it is free.

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
import logging
import os
import signal
import time
from pathlib import Path

from exchange.server.database import DatabaseUnusable, refuse_uri

log = logging.getLogger(__name__)

#: How long a start waits for the processes a killed server left holding the lock (its journal writer finishing
#: its last batch: a commit) before it kills them; then as long again for the kernel to end them.
ORPHAN_WAIT_S = 10.0
_POLL_S = 0.02


class DatabaseInUse(DatabaseUnusable):
    """Another process holds the database's lock: it is some other server's."""

    def __init__(self, path: str, lock_path: str, holder: int | None, left: tuple[int, ...] | None = None) -> None:
        who = "another server" if holder is None else f"another server (process {holder})"
        if left is None:
            problem = f"{who} is running on it; stop that server or give another --db (lock file {lock_path})"
        else:
            problem = (f"the server (process {holder}) that ran on it has ended, but a process it started (its "
                       f"journal writer{' ' + ', '.join(map(str, left)) if left else ''}) still holds its lock "
                       f"file {lock_path}; end that process (fuser {lock_path} names it), then start again")
        super().__init__(path, problem)
        self.holder = holder


def lock_path_for(db_path: str) -> str | None:
    """The lock file beside the file ``db_path`` names, whatever way it is written (a symbolic link, a relative
    path, ``..``): one lock a database. None for a database no other process can open (in memory).

    A SQLite URI (``file:...``) is refused (:func:`~exchange.server.database.refuse_uri`): SQLite opens the file it
    names, the lock would be beside a file named after the URI, and a second server naming the database otherwise
    would start.
    """
    if db_path == ":memory:" or not db_path:
        return None
    refuse_uri(db_path)
    return f"{os.path.realpath(db_path)}.lock"


class DatabaseLock:
    """A held lock; :meth:`release` (or the process ending) lets another server start on the database."""

    def __init__(self, fd: int | None, unreleased: int | None = None) -> None:
        self._fd = fd
        #: The process id of the server before this one if it never released the lock: it did not stop cleanly
        #: (killed, crashed, stopped by a journal failure, or its machine stopped). None after a clean stop, or
        #: on a new database.
        self.unreleased = unreleased

    @classmethod
    def acquire(cls, db_path: str, *, orphan_wait_s: float = ORPHAN_WAIT_S) -> DatabaseLock:
        """Take the lock or raise :class:`DatabaseInUse`: at once if a running server holds it; if the server that
        held it has ended, once the processes it left have (waited for ``orphan_wait_s``, then killed: see the
        module). Other OS errors are DatabaseUnusable."""
        lock_path = lock_path_for(db_path)
        if lock_path is None:
            return cls(None)
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise DatabaseUnusable(db_path, f"cannot open its lock file {lock_path}: {exc.strerror}") from None
        try:
            if not _try_lock(fd):
                _wait_for_orphans(fd, db_path, lock_path, orphan_wait_s)
        except DatabaseUnusable:
            os.close(fd)
            raise
        except OSError as exc:
            os.close(fd)
            raise DatabaseUnusable(db_path, f"cannot lock {lock_path}: {exc.strerror}") from None
        unreleased = _read_pids(fd)[0]  # a clean stop empties the file (release): a process named did not
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd, unreleased)

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def fd(self) -> int | None:
        """The lock's descriptor (None when no lock is needed): a child that must end before another server may
        start (the journal writer) is given it, and the lock is held until it ends too."""
        return self._fd

    def note_child(self, pid: int) -> None:
        """Name ``pid`` in the lock file as a process of this server's that holds the lock (the journal writer):
        the next start kills it if it outlives this server by more than :data:`ORPHAN_WAIT_S`."""
        if self._fd is not None:
            os.pwrite(self._fd, f"{os.getpid()} {pid}\n".encode(), 0)

    def recovered(self) -> None:
        """What the server before left undone is dealt with (the markets it left open voided): this server's stop
        may empty the lock file."""
        self.unreleased = None

    def release(self) -> None:
        """Give the lock up (closing the file drops it); a second call does nothing. Until :meth:`recovered`, the
        process id of the server before that did not stop cleanly is left in the file, so a start that stops
        before recovering (refused on a damaged journal, say) does not hide from the next one what it found."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                if self.unreleased is not None:
                    os.pwrite(fd, f"{self.unreleased}\n".encode(), 0)
            os.close(fd)


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _wait_for_orphans(fd: int, db_path: str, lock_path: str, wait_s: float) -> None:
    """The lock is held: return once it is taken, if its server has ended and what it left ends (waited for, then
    killed); else raise :class:`DatabaseInUse`."""
    holder, *children = _read_pids(fd)
    if holder is None or _running(holder):
        raise DatabaseInUse(db_path, lock_path, holder)
    log.warning("the server (process %d) that ran on %s has ended but its lock is still held, by a process it "
                "left (its journal writer finishing its last batch?): waiting up to %g s for it to end",
                holder, db_path, wait_s)
    if _locked_within(fd, wait_s):
        return
    left = tuple(pid for pid in children if pid is not None and _holds_open(pid, lock_path))
    for pid in left:
        log.warning("killing process %d, left by the server (process %d) that ran on %s", pid, holder, db_path)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if not (left and _locked_within(fd, ORPHAN_WAIT_S)):
        raise DatabaseInUse(db_path, lock_path, holder, left)


def _locked_within(fd: int, wait_s: float) -> bool:
    """Try the lock until it is taken (True) or ``wait_s`` has passed (False); at least once."""
    deadline = time.monotonic() + wait_s
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not exited (a zombie has: its files, and so the lock, are closed)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: it exists
        return True
    with contextlib.suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _holds_open(pid: int, path: str) -> bool:
    """Whether process ``pid`` has ``path`` open (so it is the process the lock file named, not another that was
    given its number since); False where that cannot be seen."""
    target = os.path.realpath(path)
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(fd) == target:
                return True
    return False


def _read_pids(fd: int) -> list[int | None]:
    """The holder's process id as it wrote it (it writes it just after locking), then those of the processes it
    named (:meth:`DatabaseLock.note_child`); ``[None]`` if it wrote nothing readable."""
    try:
        words = os.pread(fd, 64, 0).decode("ascii", "replace").split()
    except OSError:
        return [None]
    pids: list[int | None] = [int(word) for word in words if word.isdigit()]
    return pids if pids and len(pids) == len(words) else [None]
