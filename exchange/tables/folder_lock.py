"""One writer at a time in a folder of tables: a backtest's ``--out``, a server's ``--record``.

The lock is ``flock`` on an open descriptor (the folder itself, or a lock file in it), held until the descriptor is
closed; the kernel drops it when the process ends, however it ends. A lock goes only once every copy of its
descriptor is closed, and a process forked while it is held (a process pool's worker, made as a run begins) holds
a copy: such a process closes its copies as it starts, so that the lock goes with its holder, not with the pool.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

_HELD: set[int] = set()  # the descriptors holding this process's locks


def _release_in_child() -> None:
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_release_in_child)


def hold(path: Path, *, create: bool = False) -> int | None:
    """Lock ``path`` (a folder, or with ``create`` a lock file, made if need be): the descriptor holding the lock
    (give it to :func:`release`), or None if another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT if create else os.O_RDONLY, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    _HELD.add(fd)
    return fd


def release(fd: int) -> None:
    """Give up the lock :func:`hold` took."""
    _HELD.discard(fd)
    os.close(fd)
