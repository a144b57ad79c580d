"""SIGTERM (``kill``, ``timeout``) stops a long command as Ctrl-C does.

Left to its default, SIGTERM ends the process at once: the command removes nothing it was writing (``play``
left its staging folder in ``--out``, ``backtest`` its ``.backtest-in-progress``). Within
:func:`terminated_as_interrupted` the signal raises :class:`Terminated` instead, a ``BaseException`` as
``KeyboardInterrupt`` is, so no ``except Exception`` around a bot's or a strategy's code takes it, and every
``finally`` and cleanup on the way out runs; :func:`exchange.cli.main` reports it on one line with status 143.
Only the first SIGTERM raises: later ones, while that cleanup runs, are ignored.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

#: The status of a command stopped by SIGTERM, as the shell gives one the signal ended.
TERMINATED = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived while a command ran."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    # Once: a second SIGTERM (another worker's, a second kill) would break off the cleanup the first set going.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated


@contextlib.contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the block (and is given back its handler after)."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
