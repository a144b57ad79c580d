"""The ``--out`` folder of ``exchange-poker play``: checked before a hand is played, written only by a run that
succeeded, and safe when several runs share it.

A run writes into a staging folder of its own inside ``--out`` (``.play-in-progress-*``, locked while the run
lives), then moves its hand histories and results in under a lock on ``--out``, replacing an earlier run's.
Two runs started into one ``--out`` at once each play in their own staging folder; the first to finish moves
its files in, and the later finisher refuses to replace them: the first run's user was told its hands were
written, and would find another run's in their place, whereas the refused run loses nothing its user cannot
have again, since the same options and seed deal the same hands. Staging folders left by a run that was killed
(no lock held on them) are removed by the next run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from exchange.tables import PLAY_HANDS, PLAY_RESULTS

STAGING = ".play-in-progress"
"""The name, before a random tail, of each run's staging folder inside ``--out``."""

Stamp = tuple[int, int, int] | None
"""What identifies the results file a run found in ``--out`` (device, inode, modification time), or ``None``."""


class OutError(Exception):
    """``--out`` cannot take this run's files: the message says what is in the way and what to do."""


def check_out(out: Path) -> None:
    """Refuse an ``--out`` whose entries are in the way of the files a run writes there, before it plays.

    Raises :class:`OutError` naming the entry."""
    from exchange.tables.outputs import holds_tables  # (pyarrow: not for --help)

    if out.exists() and not out.is_dir():
        raise OutError(f"--out {out} is a file; give a folder (it is made if it does not exist)")
    if holds_tables(out):
        raise OutError(f"--out {out} holds a backtest's output or a server's recording (games.parquet and the other "
                       "tables); give play a folder of its own")
    hands, results = out / PLAY_HANDS, out / PLAY_RESULTS
    if hands.exists() and not hands.is_dir():
        raise OutError(f"--out {out}: {hands} is a file; a run writes its hand histories into a folder of that name")
    if results.is_dir():
        raise OutError(f"--out {out}: {results} is a folder; a run writes its results table as a file of that name")
    if hands.is_dir():
        for path in sorted(hands.glob("*.phh")):
            if path.is_dir():
                raise OutError(f"--out {out}: {path} is a folder; a run replaces the hand histories there (files)")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[int]:
    """An exclusive lock on the folder ``path`` for the block (released by the system if the process dies)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def _abandoned(staging: Path) -> bool:
    """Whether no living run holds the staging folder's lock."""
    try:
        fd = os.open(staging, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # gone meanwhile, or not a folder: nobody's staging
        return not staging.is_dir()
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _stamp(out: Path) -> Stamp:
    try:
        found = (out / PLAY_RESULTS).stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino, found.st_mtime_ns


class Staging:
    """A run's own staging folder in ``out``; :meth:`publish` moves a finished run in.

    Use it as a context manager: the folder is made and locked on entry, and removed on exit (what was not
    published is dropped)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.path = out / STAGING
        self._fd: int | None = None
        self._found: Stamp = None
        self._made = [folder for folder in (out, *out.parents) if not folder.exists()]  # deepest first
        self._published = False

    def __enter__(self) -> Staging:
        self.out.mkdir(parents=True, exist_ok=True)
        with _locked(self.out):  # no run makes its folder between another's look at the folders and its sweep
            for old in self.out.glob(f"{STAGING}*"):
                if _abandoned(old):
                    shutil.rmtree(old, ignore_errors=True)
            self.path = Path(tempfile.mkdtemp(prefix=f"{STAGING}-", dir=self.out))
            self._fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._found = _stamp(self.out)
        (self.path / PLAY_HANDS).mkdir()
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if not self._published:  # the folders this run made for its files, if nothing else came into them
            for folder in self._made:
                if any(folder.iterdir()):
                    break
                folder.rmdir()

    def publish(self) -> None:
        """Move this run's hand histories and results into ``out``, replacing an earlier run's (every ``.phh``
        there goes, so none is read as this run's).

        Raises :class:`OutError` if another run moved its files in since this one started."""
        with _locked(self.out):
            if _stamp(self.out) != self._found:
                raise OutError(
                    f"--out {self.out}: another run wrote its hands and results there while this one played, and "
                    "they are left as they are; this run's were not written (the same options deal the same "
                    "hands: run it again with another --out)"
                )
            check_out(self.out)
            hands = self.out / PLAY_HANDS
            hands.mkdir(exist_ok=True)
            for path in hands.glob("*.phh"):
                path.unlink()
            for path in sorted((self.path / PLAY_HANDS).iterdir()):
                path.replace(hands / path.name)
            (self.path / PLAY_RESULTS).replace(self.out / PLAY_RESULTS)
            self._found = _stamp(self.out)
            self._published = True
