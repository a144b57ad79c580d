"""Where chunks of games run: in this process, a local process pool, or a Dask cluster — one interface.

An :class:`Executor` maps a picklable function over a list of work items and
yields ``(index, result)`` pairs *as they complete*; :func:`run_ordered` puts
them back in input order. An item says how far it has got with
:func:`report_progress` (a backtest's chunk, each game it is done with), which
reaches the caller's ``on_progress`` while the item still runs, so a progress
bar moves within a long chunk (not on a Dask cluster). Nothing about a result may
depend on where or in which order it ran: the caller merges by index, so a
backtest gives byte-identical output on one process, on K processes and on a
cluster.

>>> with InlineExecutor() as pool:
...     run_ordered(pool, abs, [-3, 2, -1])
[3, 2, 1]
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing.sharedctypes import Synchronized
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar, cast

from exchange.backtest.stopped import ChunkStopped

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``fn(item)`` for every item somewhere, and reports each result with its item's index."""

    @property
    def workers(self) -> int:
        """How many items can run at once (for sizing chunks)."""
        ...

    def imap(self, fn: Callable[[T], R], items: Sequence[T],
             on_progress: Callable[[int], None] | None = None) -> Iterator[tuple[int, R]]:
        """``(index, fn(items[index]))`` for every item, in completion order. An item's exception propagates.

        ``on_progress`` is called here with what the items say of their progress as they run
        (:func:`report_progress`), where the executor can carry it.
        """
        ...

    def close(self) -> None:
        """Release the workers (idempotent)."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class _Closing:
    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release."""


class InlineExecutor(_Closing):
    """Runs every item here, one after another: the reference the others must agree with."""

    @property
    def workers(self) -> int:
        return 1

    def imap(self, fn: Callable[[T], R], items: Sequence[T],
             on_progress: Callable[[int], None] | None = None) -> Iterator[tuple[int, R]]:
        global _progress
        for index, item in enumerate(items):
            _progress = on_progress
            try:
                result = fn(item)
            finally:
                _progress = None
            yield index, result


#: Where :func:`report_progress` goes in this process: the command's own callback (an item run here), a counter
#: shared with the command (a pool's worker), or nowhere.
_progress: Callable[[int], None] | None = None


def report_progress(units: int) -> None:
    """Say, from inside an item, that ``units`` more of its work are done (a backtest's chunk: games), so a
    progress bar moves within a long item; an executor that cannot carry it (a Dask cluster's) drops it."""
    if _progress is not None:
        _progress(units)


#: In a worker: whether it runs a chunk now (a stop raises there), and whether the command has stopped it.
_worker = {"in_chunk": False, "stopped": False}


def _start_worker(progress: Synchronized[int]) -> None:
    """A pool's worker starts: it reports its items' progress to the shared counter ``progress``
    (:func:`report_progress`) and leaves stopping to the command."""
    global _progress
    _progress = functools.partial(_add, progress)
    _leave_stopping_to_the_command()


def _add(counter: Synchronized[int], units: int) -> None:
    with counter.get_lock():
        counter.get_obj().value += units


def _read(counter: Synchronized[int]) -> int:
    """The counter's value, read without its lock: a worker killed holding the lock (out of memory, say) must not
    hold the command too, which then hears the pool is broken (the value is one aligned word)."""
    return counter.get_obj().value


def _leave_stopping_to_the_command() -> None:
    """A worker ignores SIGINT and stops its chunk on SIGTERM (:func:`_stop`): Ctrl-C reaches every process of the
    terminal's group, and the command stops its workers itself (each worker's own ``KeyboardInterrupt`` printed a
    traceback of its own)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop)


def _stop(signum: int, frame: object) -> None:
    """SIGTERM in a worker: the chunk under way raises :class:`ChunkStopped`, and every later one before it starts,
    so the pool shuts down in moments; outside a chunk (as it writes a result) the worker is only marked stopped.

    No worker dies of it: one killed between the two writes of a result over 16 KiB left the pool's reader waiting
    for the rest for ever, and one that died made the pool stop reading, leaving another to write its result to no
    one. What a stopped chunk leaves half-built (numba's objects, say) fails its clean-up later: that is not
    reported (``sys.unraisablehook``), the command having said it was stopped."""
    _worker["stopped"] = True
    sys.unraisablehook = _say_nothing
    if _worker["in_chunk"]:
        raise ChunkStopped("the command stopped its workers")


def _say_nothing(unraisable: object) -> None:
    """A stopped worker's unraisable errors: nothing to report."""


def _run_chunk(fn: Callable[[T], R], item: T) -> R:
    """``fn(item)`` in a worker, stopped by SIGTERM while it runs (:func:`_stop`); an error comes back as a
    :class:`WorkerError` carrying it, which :meth:`ProcessExecutor.imap` unpacks."""
    _worker["in_chunk"] = True
    try:
        if _worker["stopped"]:
            raise ChunkStopped("the command stopped its workers")
        try:
            return fn(item)
        except Exception as exc:
            carrier = WorkerError.carrying(exc)
    finally:
        _worker["in_chunk"] = False
    # raised outside the handler, so the error is not its context: Dask's pickling of errors (tblib's, which a
    # process that imported distributed has) sends an error's context and cause along, and this one may not cross
    raise carrier


class WorkerError(Exception):
    """An error raised in a worker process, on its way back to the parent, and in the parent the error itself if it
    can be rebuilt there (:meth:`unpacked`), else this in its stead: ``name``, its class's; ``text``, what it said;
    ``trace``, its traceback; and its notes (a strategy's hook among them:
    :func:`exchange.backtest.strategy_errors.raising_hook`).

    An error that pickles but cannot be rebuilt (a class whose constructor wants arguments of its own), or does not
    pickle at all (a class defined in a function, one holding an object that does not pickle, such as a market
    handle), broke the process pool when sent as it was: the run ended on "a worker process ended abruptly", or on
    the pickling error, the strategy's unsaid. Carried as bytes, it is rebuilt where it is read, or said by name.
    """

    def __init__(self, name: str, text: str, trace: str, pickled: bytes | None) -> None:
        super().__init__(name, text, trace, pickled)
        self.name, self.text, self.trace, self.pickled = name, text, trace, pickled

    def __str__(self) -> str:
        return f"{self.name}: {self.text}"

    @classmethod
    def carrying(cls, exc: BaseException) -> WorkerError:
        """``exc`` packed to cross to the parent: pickled if it pickles, and in any case by name, text, traceback and
        notes."""
        try:
            pickled: bytes | None = pickle.dumps(exc)
        except Exception:
            pickled = None
        carrier = cls(type(exc).__name__, str(exc), "".join(traceback.format_exception(exc)), pickled)
        for note in getattr(exc, "__notes__", ()):
            carrier.add_note(note)
        return carrier

    def unpacked(self) -> BaseException:
        """The error as it was raised if it can be rebuilt here, else this; either with the worker's traceback as
        its cause.

        >>> class Needs(Exception):
        ...     def __init__(self, market_id, reason):
        ...         super().__init__(f"{market_id}: {reason}")
        >>> error = Needs("holdem.3", "no edge")
        >>> error.add_note("raised in the strategy's on_window_open")
        >>> stand_in = WorkerError.carrying(error).unpacked()
        >>> str(stand_in), stand_in.__notes__, WorkerError.carrying(ValueError("fine")).unpacked()
        ('Needs: holdem.3: no edge', ["raised in the strategy's on_window_open"], ValueError('fine'))
        """
        error: BaseException = self  # where it cannot be rebuilt here: said by name
        if self.pickled is not None:
            with contextlib.suppress(Exception):
                error = pickle.loads(self.pickled)
        kept = getattr(error, "__notes__", ())
        for note in getattr(self, "__notes__", ()):
            if note not in kept:  # an error whose pickling leaves its attributes behind (json's) lost its notes
                error.add_note(note)
        error.__cause__ = WorkerTraceback(self.trace)
        return error


class WorkerTraceback(Exception):
    """The traceback of an error raised in a worker process, as text: the cause of the error the parent raises."""

    def __str__(self) -> str:
        return f"raised in a worker process:\n{self.args[0]}"


#: How often a pool's command looks at its workers' progress while it waits for a result, in seconds.
PROGRESS_EVERY_S = 0.5


def _start_method() -> str:
    """``fork`` where the platform has it (workers inherit imported and JIT-compiled code), else ``spawn``."""
    override = os.environ.get("EXCHANGE_POKER_START_METHOD")
    if override:
        return override
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class ProcessExecutor(_Closing):
    """A pool of ``workers`` local processes; at most ``2 × workers`` items in flight at once."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self._workers = workers
        self._context = multiprocessing.get_context(_start_method())
        self._pool: ProcessPoolExecutor | None = None
        self._progress: Synchronized[int] = self._context.Value("q", 0)  # the units of progress its workers reported
        self._stale = False  # items of an abandoned imap may still be running, and adding to the counter
        #: this process's children from before the pool: the pool's workers are the others
        self._children_before: set[multiprocessing.process.BaseProcess] = set()

    @property
    def workers(self) -> int:
        return self._workers

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        """An interruption (Ctrl-C, or SIGTERM as a command takes it) stops the workers' chunks under way (SIGTERM
        to each: see :func:`_stop`); closing would otherwise wait for them, which could take minutes.
        An error closes as usual, and so does a command's exit saying why (``SystemExit``): the chunks under way
        finish."""
        if kind is not None and not issubclass(kind, Exception | SystemExit):
            for worker in set(multiprocessing.active_children()) - self._children_before:
                worker.terminate()
        self.close()

    def imap(self, fn: Callable[[T], R], items: Sequence[T],
             on_progress: Callable[[int], None] | None = None) -> Iterator[tuple[int, R]]:
        """As :meth:`Executor.imap`, one at a time; the workers' progress is looked at every
        :data:`PROGRESS_EVERY_S` seconds."""
        if self._stale:  # their progress is not this imap's: a fresh pool and counter, once they are done
            self.close()
            self._progress, self._stale = self._context.Value("q", 0), False
        if self._pool is None:
            self._children_before = set(multiprocessing.active_children())
            self._pool = ProcessPoolExecutor(max_workers=self._workers, mp_context=self._context,
                                             initializer=_start_worker, initargs=(self._progress,))
        pool, progress = self._pool, self._progress
        told = _read(progress)
        pending: dict[Future[R], int] = {}
        queue = iter(enumerate(items))
        try:
            for index, item in queue:
                pending[pool.submit(_run_chunk, fn, item)] = index
                if len(pending) >= 2 * self._workers:
                    break
            while pending:
                every = None if on_progress is None else PROGRESS_EVERY_S
                done, _ = wait(pending, timeout=every, return_when=FIRST_COMPLETED)
                if on_progress is not None and (now := _read(progress)) != told:
                    on_progress(now - told)
                    told = now
                for future in sorted(done, key=pending.__getitem__):
                    if future.exception() is not None:
                        failure = _first_failure(pending, future)
                        raise failure.unpacked() if isinstance(failure, WorkerError) else failure
                    index = pending.pop(future)
                    yield index, future.result()
                    for next_index, item in queue:
                        pending[pool.submit(_run_chunk, fn, item)] = next_index
                        break
        finally:
            running = [future for future in pending if not future.cancel()]
            self._stale = any(not future.done() for future in running)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _first_failure(pending: dict[Future[R], int], failed: Future[R]) -> BaseException:
    """The error of the first item, in input order, that fails: the items before ``failed`` still running are waited
    for (one of them may fail too), those after it cancelled. Which error a run reports then does not depend on
    which worker was quicker.

    Those after it that cannot be cancelled (running, or already handed to a worker) are waited for too, so that
    no worker is writing a result when the pool shuts down: a worker that exits there can make the pool take the
    others for broken and kill them, and one killed between the two writes of a large result (over 16 KiB: a
    strategy's error with its traceback is) leaves the pool's reader waiting for the rest for ever."""
    index = pending[failed]
    running = [future for future, i in pending.items() if i > index and not future.cancel()]
    earlier = sorted((f for f, i in pending.items() if i < index), key=pending.__getitem__)
    wait([*earlier, *running])
    first = next((f for f in earlier if f.exception() is not None), failed)
    error = first.exception()
    assert error is not None  # failed has one, or a future before it
    return error


class DaskExecutor(_Closing):
    """Items as tasks on a Dask distributed cluster (``pip install '.[cluster]'``).

    ``target`` is a scheduler address (``tcp://host:8786``), a ``LocalCluster``
    or an existing ``distributed.Client``. A client this executor opened is
    closed by :meth:`close`; one passed in is left open. The function and items
    are pickled with cloudpickle, so every worker needs this package installed
    (a strategy given as a file travels as source text, see :mod:`exchange.backtest.runner`).
    """

    def __init__(self, target: str | Any) -> None:
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise RuntimeError("the Dask scheduler needs the cluster extra: pip install '.[cluster]'") from exc
        if isinstance(target, Client):
            self._client, self._owned = target, False
        else:
            self._client, self._owned = Client(target), True

    @property
    def workers(self) -> int:
        info = self._client.scheduler_info()
        threads = sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values())
        return max(1, threads)

    def imap(self, fn: Callable[[T], R], items: Sequence[T],
             on_progress: Callable[[int], None] | None = None) -> Iterator[tuple[int, R]]:
        """As :meth:`Executor.imap`, but the items' progress is not carried: ``on_progress`` is never called."""
        from distributed import as_completed
        from distributed import wait as wait_all

        futures = self._client.map(fn, list(items), pure=False)
        index_of = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in as_completed(futures):
                index = index_of[future.key]
                if future.status == "error":  # the first item's error, in input order, as ProcessExecutor's
                    self._client.cancel(futures[index + 1:])
                    wait_all(futures[:index])
                    raise next(f.exception() for f in [*futures[:index], future] if f.status == "error")
                yield index, future.result()
        finally:
            for future in futures:
                future.release()

    def close(self) -> None:
        if self._owned:
            self._client.close()
            self._owned = False


def make_executor(workers: int = 1, scheduler: str | None = None) -> Executor:
    """The executor a command line asks for: Dask if ``scheduler`` is given, else ``workers`` local processes."""
    if scheduler is not None:
        return DaskExecutor(scheduler)
    if workers == 1:
        return InlineExecutor()
    return ProcessExecutor(workers)


def run_ordered(
    executor: Executor,
    fn: Callable[[T], R],
    items: Sequence[T],
    on_result: Callable[[int, R], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[R]:
    """Every ``fn(item)`` through ``executor``, returned in input order; ``on_result`` sees each as it completes,
    ``on_progress`` what the items report of their progress as they run (:func:`report_progress`)."""
    results: list[R | None] = [None] * len(items)
    seen = [False] * len(items)
    for index, result in executor.imap(fn, items, on_progress):
        if seen[index]:
            raise RuntimeError(f"item {index} was reported twice")
        seen[index] = True
        results[index] = result
        if on_result is not None:
            on_result(index, result)
    missing = [i for i, ok in enumerate(seen) if not ok]
    if missing:
        raise RuntimeError(f"no result for items {missing[:10]}")
    return cast("list[R]", results)
