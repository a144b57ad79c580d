"""Standard output that fails on its own terms: a command's output that cannot be written (``> /dev/full``, a
disk that filled) is told apart from the files the command itself writes, so it is reported on one line."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO, cast


class OutputFailed(Exception):
    """Standard output could not be written (not a reader gone: that is a ``BrokenPipeError``)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))


class _Checked:
    """``stream`` with its write errors raised as :class:`OutputFailed`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputFailed(error) from error

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputFailed(error) from error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def checked_stdout() -> Iterator[None]:
    """``sys.stdout`` checked for the block (and given back after)."""
    stream = sys.stdout
    sys.stdout = cast(TextIO, _Checked(stream))
    try:
        yield
    finally:
        sys.stdout = stream
