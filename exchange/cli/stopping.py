"""SIGTERM (``kill``, ``timeout``) stops a long command as Ctrl-C does.

Left to its default, SIGTERM ends the process at once: the command removes nothing it was writing (``play``
left its staging folder in ``--out``, ``backtest`` its ``.backtest-in-progress``). Within
:func:`terminated_as_interrupted` the signal raises :class:`Terminated` instead, a ``BaseException`` as
``KeyboardInterrupt`` is, so no ``except Exception`` around a bot's or a strategy's code takes it, and every
``finally`` and cleanup on the way out runs; :func:`exchange.cli.main` reports it on one line with status 143.
Only the first stop signal raises, SIGTERM or Ctrl-C's SIGINT: later ones, while that cleanup runs, are ignored
(each worker of a backtest may pass one on, and a second Ctrl-C broke off the removal of the unfinished output).
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


def _stop(signum: int, frame: FrameType | None) -> None:
    # Once: a second signal (another worker's, a second kill or Ctrl-C) would break off the cleanup the first set
    # going.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


@contextlib.contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the block, SIGINT ``KeyboardInterrupt``, the first of them only (both
    are given back their handlers after). A SIGINT the command was started ignoring (a background job of a script)
    stays ignored."""
    stopping = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        stopping.append(signal.SIGINT)
    previous = {signum: signal.signal(signum, _stop) for signum in stopping}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
