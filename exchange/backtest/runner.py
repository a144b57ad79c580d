"""Running a backtest: sessions split into chunks, chunks run anywhere, results merged in game order.

Every session is an independent world (:mod:`exchange.backtest.world`): its own
virtual clock, exchange, channel, house market maker and noise trader, and one
strategy instance and account that play its ``games_per_session`` games in a row
(by default one: every game its own world). Game *i* is dealt from a deck
seeded by ``(seed, i)`` (:func:`exchange.game.deal.seeded_decks`), with market
id ``<channel>.<i>``; session *s* holds games ``s·G`` to ``s·G + G − 1`` and its
other draws are seeded by ``(seed, s)``. So a session's result is a pure
function of the configuration and its number, and any split of the sessions
into chunks, over any number of processes or cluster workers, gives the same
tables, row for row; the merge orders them by session, hence by game index.

>>> plan_chunks(10, workers=1, chunk_size=None)
[(0, 3), (3, 3), (6, 3), (9, 1)]
>>> plan_chunks(5, workers=1, chunk_size=2)
[(0, 2), (2, 2), (4, 1)]
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pyarrow as pa

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.loading import StrategySpec
from exchange.backtest.provenance import FILE_NAME as RECORD_FILE
from exchange.backtest.provenance import write_run_record
from exchange.backtest.strategy import check_latency_ms
from exchange.backtest.summary import Summary, summarise
from exchange.backtest.workers import Executor, report_progress, run_ordered
from exchange.backtest.world import GameSetup, HouseSpec, SessionOutcome, play_session
from exchange.betfair.stream import write_stream
from exchange.game.channels import dealt_as_holdem, get_channel
from exchange.game.table import EquityFn
from exchange.tables import folder_lock
from exchange.tables.outputs import (
    TABLES,
    FileTables,
    Table,
    TableWriter,
    empty_tables,
    holds_play_output,
    merge,
    read_table,
)

#: 2026-01-01T00:00:00Z: where the first game's clock starts (epoch milliseconds).
EPOCH_MS = 1_767_225_600_000
#: The strategy account's starting balance in each world or session: 10,000.00.
DEFAULT_BALANCE = 1_000_000
#: The largest starting balance (minor units: 10,000,000,000,000.00): the tables hold money in 64-bit columns,
#: and a balance this size leaves room for every sum a session makes of it.
MAX_BALANCE = 10**15


@dataclass(frozen=True, slots=True)
class BacktestConfig:
    """Everything a backtest's result depends on (and nothing it must not: no worker count, no paths).

    ``games`` in all, in sessions of ``games_per_session`` (which must divide it); ``balance`` is
    the strategy account's starting balance (minor units) in every session.
    """

    strategy: StrategySpec
    games: int
    seed: int
    channel: str = "holdem"
    latency_ms: int | None = None
    record_streams: bool = True
    account: str = STRATEGY_ACCOUNT
    balance: int = DEFAULT_BALANCE
    start_ms: int = EPOCH_MS
    house: HouseSpec = field(default_factory=HouseSpec)
    #: The exact-equity function (default: the engine's); a test may pass a module-level stand-in.
    equities: EquityFn | None = None
    games_per_session: int = 1
    #: The share of games dealt with a dealer's irregularity, drawn from ``(seed, game index)``.
    irregularity_rate: float = 0.0
    #: Whether the summary has each session's bankroll figures; ``None``: when sessions are of more than one game
    #: (``--sessions K --games-per-session 1`` asks for them all the same).
    session_figures: bool | None = None

    def __post_init__(self) -> None:
        for name in ("games", "games_per_session", "seed"):  # a seed is hashed as text: 1.0 would not deal as 1
            value = getattr(self, name)
            if type(value) is not int:
                raise ValueError(f"{name} must be a whole number, not {value!r}")
        latency = self.latency_ms
        if latency is not None:
            check_latency_ms(latency)
        if type(self.balance) is not int or not 0 < self.balance <= MAX_BALANCE:  # money is whole minor units
            raise ValueError(f"balance must be a whole number of minor units above 0 and at most {MAX_BALANCE}, "
                             f"not {self.balance!r}")
        if self.games < 1:
            raise ValueError(f"a backtest needs at least one game, not {self.games}")
        if latency is not None:
            check_latency(latency, self.channel)
        rate = self.irregularity_rate
        if type(rate) not in (int, float) or not 0.0 <= rate <= 1.0:
            raise ValueError(f"the irregularity rate is a share of games, 0 to 1, not {rate!r}")
        if self.irregularity_rate and not get_channel(self.channel).layout.holdem_streets:
            raise ValueError(f"--irregularity-rate: the dealer's irregularities are Hold'em's; channel {self.channel} "
                             f"is not dealt as hole cards then flop, turn and river ({', '.join(dealt_as_holdem())} "
                             "are)")
        if self.games_per_session < 1:
            raise ValueError(f"a session needs at least one game, not {self.games_per_session}")
        if self.games % self.games_per_session:
            raise ValueError(f"{self.games} games do not split into sessions of {self.games_per_session}")

    @property
    def sessions(self) -> int:
        return self.games // self.games_per_session

    @property
    def in_sessions(self) -> bool:
        """Whether the run is reported as sessions (their bankrolls in the summary)."""
        return self.games_per_session > 1 if self.session_figures is None else self.session_figures

    def setup(self) -> GameSetup:
        return GameSetup(
            channel=self.channel,
            seed=self.seed,
            account=self.account,
            balance=self.balance,
            start_ms=self.start_ms,
            latency_ms=self.latency_ms,
            record_streams=self.record_streams,
            house=self.house,
            equities=self.equities,
            games_per_session=self.games_per_session,
            irregularity_rate=self.irregularity_rate,
        )


@dataclass(frozen=True, slots=True)
class Chunk:
    """Sessions ``first`` … ``first + count - 1`` of a backtest: one work item."""

    config: BacktestConfig
    first: int
    count: int


@dataclass(slots=True)
class ChunkResult:
    """A chunk's table rows, its markets' stream recordings (zlib-compressed text) and its sessions, in order."""

    first: int
    count: int
    tables: dict[str, Table]
    streams: list[tuple[str, bytes]] = field(default_factory=list)
    sessions: list[SessionOutcome] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(s.games for s in self.sessions)


@dataclass(frozen=True, slots=True)
class BacktestResult:
    """The tables (read from the files when first asked for, if they were written), the summary, what was
    written, and how each session went."""

    tables: Mapping[str, pa.Table]
    summary: Summary
    paths: tuple[Path, ...]
    sessions: tuple[SessionOutcome, ...] = ()


def plan_chunks(
    sessions: int, workers: int, chunk_size: int | None, games_per_session: int = 1
) -> list[tuple[int, int]]:
    """``(first, count)`` work items of sessions: about four per worker, at most 50 games each (but one session
    at least), unless ``chunk_size`` says otherwise.

    >>> chunks = plan_chunks(30, workers=1, chunk_size=None, games_per_session=25)
    >>> len(chunks), chunks[0], chunks[-1]
    (15, (0, 2), (28, 2))
    """
    if chunk_size is None:
        chunk_size = max(1, -(-sessions // (4 * workers)))
        chunk_size = min(chunk_size, max(1, 50 // games_per_session))
    return [(first, min(chunk_size, sessions - first)) for first in range(0, sessions, chunk_size)]


def run_chunk(chunk: Chunk) -> ChunkResult:
    """Play the chunk's sessions one after another, each in a fresh world. Top-level: picklable for any executor."""
    setup = chunk.config.setup()
    spec = chunk.config.strategy
    result = ChunkResult(chunk.first, chunk.count, empty_tables())
    for session in range(chunk.first, chunk.first + chunk.count):
        outcome, recordings = play_session(setup, session, spec.build(), result.tables)  # each game says it ended
        report_progress(setup.games_per_session - outcome.games)  # those a session that ended early passed over
        result.sessions.append(outcome)
        result.streams += [(market_id, zlib.compress(text.encode("utf-8"), 6)) for market_id, text in recordings]
    return result


def run_backtest(
    config: BacktestConfig,
    executor: Executor,
    out: Path | None,
    *,
    progress: bool = False,
    chunk_size: int | None = None,
) -> BacktestResult:
    """Run every session through ``executor``, merge in game order, write the tables (and streams) to ``out``.

    ``chunk_size`` is in sessions (games, for one-game sessions).
    """
    plan = plan_chunks(config.sessions, executor.workers, chunk_size, config.games_per_session)
    chunks = [Chunk(config, first, count) for first, count in plan]
    with _writing_into(out, config.record_streams) as staging:  # nothing reaches ``out`` before the run succeeds
        return _run_into(config, executor, chunks, staging, out, progress)


def _run_into(config: BacktestConfig, executor: Executor, chunks: list[Chunk], staging: Path | None,
              out: Path | None, progress: bool) -> BacktestResult:
    """The chunks played, their results written to ``staging`` as they come and moved into ``out`` at the end."""
    done = _Done(_progress_bar(config.games) if progress else None, config.games_per_session)
    streams_dir = None if staging is None else staging / "streams"
    writer = None if staging is None else OrderedWriter(staging)

    def on_result(index: int, result: ChunkResult) -> None:
        if streams_dir is not None:
            for market_id, packed in result.streams:
                write_stream(streams_dir, market_id, zlib.decompress(packed).decode("utf-8"))
            result.streams.clear()
        if writer is not None:
            writer.add(index, result)
        done.chunk_done(result)

    try:
        results = run_ordered(executor, run_chunk, chunks, on_result, done.said)
        sessions = tuple(s for r in sorted(results, key=lambda r: r.first) for s in r.sessions)
        record = None if staging is None else write_run_record(staging, config, {s.latency_ms for s in sessions})
        written = () if writer is None else writer.close()
    except BaseException as failure:
        if writer is not None and staging is not None:
            _discard(writer, staging, failure)
        kept = () if out is None else (f"{out} is as it was (a backtest writes there once every game is played)",)
        _note_if_stopped(failure, f"{done.games:,} of {config.games:,} games were done", *kept)
        raise
    finally:
        done.close()
    figures = (config.account, config.balance if config.in_sessions else None, get_channel(config.channel).min_stake,
               [s.ended_by for s in sessions if s.games < config.games_per_session])  # the last game's is no cut
    if out is None or staging is None or record is None:
        tables = merge_results(results)
        return BacktestResult(tables, summarise(tables, *figures), (), sessions)
    with _said_if_stopped(f"every game was played, and its files were being moved into {out}: remove them before "
                          "another run into it"):
        paths = _publish(staging, record, written, out, config.record_streams)
    with _said_if_stopped(f"every game was played and {out} holds the run's files; its summary was not printed"):
        summary = summarise(read_for_summary(out, config.account), *figures)
    return BacktestResult(FileTables(out), summary, paths, sessions)


@contextlib.contextmanager
def _said_if_stopped(note: str) -> Iterator[None]:
    """A Ctrl-C or SIGTERM inside is noted with ``note`` (:func:`_note_if_stopped`)."""
    try:
        yield
    except BaseException as stop:
        _note_if_stopped(stop, note)
        raise


def _note_if_stopped(failure: BaseException, *notes: str) -> None:
    """If ``failure`` is a stop (Ctrl-C, SIGTERM: no error), note where the run was, as the command's line says."""
    if not isinstance(failure, Exception):
        for note in notes:
            failure.add_note(note)


#: Where a backtest writes inside ``--out`` until it has succeeded.
STAGING = ".backtest-in-progress"


class OutputBlocked(OSError):
    """A name a backtest writes in its output folder is held by the wrong kind of thing (a folder where a table
    goes, a file where the recordings go): refused before any game is played."""


def check_latency(latency_ms: int, channel: str, whose: str = "") -> None:
    """Refuse a latency no order could beat: as long as ``channel``'s betting windows or longer, every order would
    arrive after its window closed. ``whose``: words after the figure (the strategy's own, say)."""
    window = get_channel(channel).betting_window_ms
    if latency_ms >= window:
        raise ValueError(f"a latency of {latency_ms} ms{whose} is not shorter than {channel}'s betting windows "
                         f"({window} ms): no order could arrive while one is open")


def check_out(out: Path, record_streams: bool) -> None:
    """Raise :class:`OutputBlocked` if the run could not put its files into ``out`` once its games are played, or
    would replace files that are not an earlier backtest's (a folder without its :data:`RECORD_FILE`)."""
    for spec in TABLES.values():
        if (out / spec.file_name).is_dir():
            raise OutputBlocked(f"{out / spec.file_name} is a folder, not the {spec.name} table a backtest writes")
    if (out / RECORD_FILE).is_dir():
        raise OutputBlocked(f"{out / RECORD_FILE} is a folder, not the record of its run a backtest writes")
    if holds_play_output(out):
        raise OutputBlocked(f"{out} holds the hands 'exchange-poker play' wrote (results.parquet, hands/); give the "
                            "backtest a folder of its own")
    streams = out / "streams"
    if record_streams and streams.exists() and not streams.is_dir():
        raise OutputBlocked(f"{streams} is a file, not the folder of the stream recordings a backtest writes")
    if not (out / RECORD_FILE).is_file():
        taken = [spec.file_name for spec in TABLES.values() if os.path.lexists(out / spec.file_name)]
        if _recordings(streams):
            taken.append("streams/")
        if taken:
            raise OutputBlocked(f"{out} holds {', '.join(taken)} but no {RECORD_FILE}, so not an earlier "
                                "backtest's output, which is all a backtest replaces (a backtest of a version "
                                "before 2026-12-04, or one stopped as it moved its files in, has none: remove its "
                                "files); choose another folder, or move them away")


@contextlib.contextmanager
def _writing_into(out: Path | None, record_streams: bool) -> Iterator[Path | None]:
    """The run's staging folder in ``out`` (None without ``out``), the folder locked for the run's life
    (:mod:`exchange.tables.folder_lock`): a second backtest into the same folder is refused while one runs, rather
    than clearing the first one's staging folder and mixing their files."""
    if out is None:
        yield None
        return
    made = folders_made(out)
    lock = folder_lock.hold(out)
    if lock is None:
        raise OutputBlocked(f"another backtest is writing into {out} now: wait for it to end, or choose another "
                            "folder")
    try:
        check_out(out, record_streams)
        staging = out / STAGING
        shutil.rmtree(staging, ignore_errors=True)  # a run killed before it could clean up (none holds the lock)
        staging.mkdir()
        yield staging
    except BaseException:
        folder_lock.release(lock)
        take_away(made)  # a run that fails leaves the folder as it was: not there, if it was not
        raise
    folder_lock.release(lock)


def folders_made(out: Path) -> list[Path]:
    """Make ``out``; returns the folders made (``out`` and the parents it lacked), deepest first, for
    :func:`take_away`."""
    made = [folder for folder in (out, *out.parents) if not folder.exists()]
    out.mkdir(parents=True, exist_ok=True)
    return made


def take_away(made: list[Path]) -> None:
    """Remove the folders a failed run made, deepest first, as long as they are empty (nothing else's is lost)."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return


def _discard(writer: OrderedWriter, staging: Path, failure: BaseException) -> None:
    """Throw a failed run's files away. What goes wrong doing it is a note on ``failure``, which stays the error
    raised: the reason the run failed is never hidden by the cleaning up after it."""
    try:
        writer.abandon()
    except Exception as exc:
        failure.add_note(f"and closing its unfinished tables in {staging} failed: {exc}")
    shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, record: Path, tables: tuple[Path, ...], out: Path, record_streams: bool
             ) -> tuple[Path, ...]:
    """Move a finished run's record, tables and recordings from ``staging`` into ``out``, replacing an earlier
    run's (its recordings all go, so none is read as this run's); remove ``staging``. Returns the paths written.

    The earlier run's record goes first and this run's comes last: a folder holding one is a backtest's whose
    files are all its own, which the next run may replace (:func:`check_out`); one stopped half way through this
    holds none, and is refused until its files are removed, rather than read as a mix of two runs."""
    (out / record.name).unlink(missing_ok=True)
    streams = out / "streams"
    clear_recordings(streams, keep_folder=record_streams)
    if record_streams:
        streams.mkdir(exist_ok=True)
        staged = staging / "streams"
        for path in sorted(staged.iterdir()) if staged.is_dir() else ():
            path.replace(streams / path.name)
    paths = [*(path.replace(out / path.name) for path in tables), record.replace(out / record.name)]
    shutil.rmtree(staging)
    return (*paths, streams) if record_streams else tuple(paths)


class OrderedWriter:
    """Writes chunk results to the folder's tables in session order as they arrive, each as soon as every chunk
    before it is in; a written chunk's rows are let go, so the parent holds at most the chunks that came early."""

    def __init__(self, out: Path) -> None:
        self._writers = {name: TableWriter(spec, out) for name, spec in TABLES.items()}
        self._early: dict[int, ChunkResult] = {}
        self._next = 0

    def add(self, index: int, result: ChunkResult) -> None:
        """Chunk ``index``'s result (chunks are numbered in session order)."""
        self._early[index] = result
        while self._next in self._early:
            ready = self._early.pop(self._next)
            for name, writer in self._writers.items():
                writer.write(ready.tables[name].to_arrow())
            ready.tables = {name: Table(spec) for name, spec in TABLES.items()}
            self._next += 1

    def abandon(self) -> None:
        """Close the files without finishing them (the run failed: they are thrown away); every one of them is
        closed before the first error in closing one is raised."""
        errors = []
        for writer in self._writers.values():
            try:
                writer.abandon()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def close(self) -> tuple[Path, ...]:
        if self._early:
            raise RuntimeError(f"chunk results do not tile the sessions: chunk {self._next} never came")
        return tuple(writer.close() for writer in self._writers.values())


def read_for_summary(out: Path, account: str) -> dict[str, pa.Table]:
    """What :func:`~exchange.backtest.summary.summarise` reads of a written folder: the games, and ``account``'s
    orders and settlement rows only."""
    mine = [("account", "=", account)]
    orders = ["account", "status", "action", "size_matched", "error_code"]
    settled = ["account", "session", "game_index", "gross_profit", "commission", "net_profit", "balance_after"]
    return {"games": read_table(out, "games", ["game_index", "dead_heat", "low_market_id", "low_dead_heat", "status"]),
            "orders": read_table(out, "orders", orders, filters=mine),
            "settlements": read_table(out, "settlements", settled, filters=mine)}


def clear_recordings(directory: Path, *, keep_folder: bool) -> None:
    """Remove the recordings an earlier backtest into the same folder left in ``directory`` (``out/streams``),
    so none is read as this run's; the folder too unless ``keep_folder`` (and only if nothing else is in it)."""
    for path in _recordings(directory):
        path.unlink()
    if not keep_folder and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()


def _recordings(directory: Path) -> list[Path]:
    """The stream recordings in ``directory`` (a backtest's ``streams/``): its files, but hidden ones."""
    if not directory.is_dir():
        return []
    return [path for path in directory.iterdir() if path.is_file() and not path.name.startswith(".")]


def merge_results(results: Sequence[ChunkResult]) -> dict[str, pa.Table]:
    """One table of each kind from chunk results, in game order (whatever order they arrived in)."""
    ordered = sorted(results, key=lambda r: r.first)
    expected = 0
    for result in ordered:
        if result.first != expected:
            raise RuntimeError(
                f"chunk results do not tile the sessions: expected session {expected}, got {result.first}"
            )
        expected += result.count
    return {name: merge([r.tables[name] for r in ordered]) for name in TABLES}


class _Done:
    """How many of a run's games are done (played, or passed over by a session that ended early), on its progress
    bar if it has one: those of the chunks whose results are in and, ahead of them, those the workers said they had
    done in chunks still under way (an executor that does not carry what they say, a Dask cluster's, counts a chunk
    at a time)."""

    def __init__(self, bar: _Bar | None, games_per_session: int) -> None:
        self.bar = bar
        self.games_per_session = games_per_session
        self.games = 0
        self.in_chunks_done = 0
        self.said_done = 0

    def chunk_done(self, result: ChunkResult) -> None:
        self.in_chunks_done += result.count * self.games_per_session
        self._count()

    def said(self, games: int) -> None:
        self.said_done += games
        self._count()

    def _count(self) -> None:
        now = max(self.in_chunks_done, self.said_done)
        if now > self.games:
            if self.bar is not None:
                self.bar.update(now - self.games)
            self.games = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _progress_bar(total: int) -> _Bar:
    from tqdm import tqdm

    return tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True, mininterval=0.5)


class _Bar(Protocol):
    def update(self, n: int = 1) -> object: ...

    def close(self) -> None: ...
