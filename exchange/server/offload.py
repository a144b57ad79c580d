"""Equities off the event loop: the live server's :class:`~exchange.game.equities.EquityRunner`.

The engine's counting kernels are numba functions compiled with
``nogil=True``, so a thread computes them while the loop serves requests
(the Python around them, parsing cards and folding counts, is a fraction of a
millisecond). The result comes back with ``call_soon_threadsafe`` and the game
applies it on the loop. One worker: reveals are a few a minute per channel,
and the cores are better left to the loop and the journal writer.

>>> import asyncio
>>> from exchange.game.prospects import Prospects
>>> async def demo() -> int:
...     runner = ThreadedEquities()
...     done = asyncio.get_running_loop().create_future()
...     runner(lambda: Prospects.uniform(4), done.set_result, done.set_exception)
...     result = await done
...     runner.close()
...     return len(result.hands)
>>> asyncio.run(demo())
4
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from exchange.game.equities import GameProspects, Job, warm_up

log = logging.getLogger(__name__)
T = TypeVar("T")


class ThreadedEquities:
    """Runs equity jobs on one worker thread and delivers their results on the calling loop."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="equities")

    def __call__(self, job: Job, deliver: Callable[[GameProspects], None],
                 fail: Callable[[BaseException], None]) -> None:
        loop = asyncio.get_running_loop()
        future = self._pool.submit(job)
        def done(finished: Future[GameProspects]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (shutdown): nobody to tell
                loop.call_soon_threadsafe(_hand_over, finished, deliver, fail)

        future.add_done_callback(done)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the worker thread and wait for it (the warm-up at start)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _hand_over(done: Future[GameProspects], deliver: Callable[[GameProspects], None],
               fail: Callable[[BaseException], None]) -> None:
    if done.cancelled():
        return
    error = done.exception()
    if error is not None:
        log.error("equity computation failed: %r", error)
        fail(error)
        return
    deliver(done.result())


async def warm_engine(runner: ThreadedEquities, variants: Sequence[str]) -> float:
    """Warm the engine for ``variants`` on the worker thread, logging a line before and after; the seconds taken."""
    first = await runner.run(_first_run)  # it imports numba: off the loop, as the warm-up
    log.info("warming the poker engine for %s%s", ", ".join(dict.fromkeys(variants)), first)
    began = time.perf_counter()
    await runner.run(lambda: warm_up(variants))
    elapsed = time.perf_counter() - began
    log.info("poker engine ready in %.1f s", elapsed)
    return elapsed


def _first_run() -> str:
    """What a first run of the engine does before it is warm, in words for the log ("": nothing, it is cached)."""
    from engine.evaluator import kernels_cached, tables_cached

    if not tables_cached():
        return " (first run: building its tables and compiling its kernels; this takes a while)"
    return "" if kernels_cached() else " (first run: compiling its kernels; this takes a while)"
