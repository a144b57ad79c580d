"""What a recording (``serve --record``) is told by default, and how it refuses a folder: apart from the
recording itself, which writes Parquet through pyarrow, so that a server that records nothing does not load
pyarrow (nor numpy, which pyarrow loads) before it answers."""

from __future__ import annotations

#: Games written together in one part file of each table, at most.
DEFAULT_EVERY = 100
#: And a part is written at the first game end this long after the last one (ms): how late readers see a game.
DEFAULT_EVERY_MS = 10 * 60_000


class RecordingRefused(ValueError):
    """``DIR`` cannot take a recording; the message says why."""
