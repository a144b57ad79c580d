""":class:`ChunkStopped`, in a module of its own: the command line catches it for every command, and importing it
from :mod:`exchange.backtest.workers` loaded the process pools' modules (``multiprocessing``, about 20 ms) into
every start of ``serve``, which uses none."""

from __future__ import annotations


class ChunkStopped(BaseException):
    """A worker's chunk stopped by the command (Ctrl-C or SIGTERM there): a ``BaseException``, as
    ``KeyboardInterrupt`` is, so that no ``except Exception`` in a strategy carries the chunk on."""
