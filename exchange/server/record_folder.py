"""A recording's folder: six tables of part files and the markets' stream files, held by one server
(:mod:`exchange.server.recording`).

Each table is a folder ``DIR/<table>.parquet`` of part files ``part-<first>-<last>.parquet`` (the first and
last ``game_index`` in them), which pandas and pyarrow read as one table; each market of a recorded game has its
Betfair stream file ``DIR/streams/<marketId>``, as in a backtest's folder. What a reader finds there is always
whole and consistent:

* **a part of every table or of none**: the six files of a part are written under names readers skip
  (``.part-...parquet.tmp``) and flushed to the disk; the first rename commits the part. A write or that first
  rename failing removes the six hidden files and keeps the rows for the next part (:meth:`RecordFolder.write`:
  no gap in ``game_index``); renames left undone (a crash, a later rename failing) are finished at the next
  start, and hidden files of an uncommitted part are removed;
* **a game's stream files before its rows**: the stream files of a part's games are written (each under a hidden
  name, flushed to the disk, renamed) before the part is committed, so every game in the tables has its markets'
  recordings (but one held by a version that recorded none). A game whose part could not be written may have them
  already: they are written again, the same, with its part, and removed if its rows are given up (lost at the stop,
  or held and not written by a start, below); a start also removes the stream files of the exchange's markets that
  no part holds and no held game writes (a kill between them and their part, of a game not held or one the
  journal then lost), so every stream file has its game in the tables too. A part's stream files are written
  under hidden names first (``.<marketId>.tmp``), which readers listing the folder skip as they skip dot-files;
* **the games the journal holds, even after a kill**: each game's rows are held in ``DIR/.pending/<index>/`` (one
  Arrow file per table and its stream files, flushed to the disk, the folder renamed into place) once the journal
  has its records and until its part is written; a recording started after a kill takes the games held there and
  writes them as its first part (:meth:`RecordFolder.hold`);
* **one server per folder**: the server holds ``flock`` on ``DIR/.recording.lock`` for the recording's life (the
  kernel drops it when the process ends, however it ends);
* **one exchange per folder**: a folder holding a game this exchange has not dealt yet (``holdem.57`` when its
  Hold'em games have reached ``holdem.3``) is another exchange's recording, or one of a database restored from
  before it: recording there would repeat market ids, so it is refused; so is a folder whose ``.exchange-id``
  names another exchange (:mod:`exchange.server.exchange_id`; a folder naming none is this exchange's from then
  on), whose games would mix with this exchange's even where no market id repeats;
* **the next index**: after the last one any of the six tables holds.

The writes run on the recording's writer thread; nothing here touches the event loop.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from exchange.betfair.stream import write_stream
from exchange.game.channels import parse_market_id
from exchange.server.recording_options import RecordingRefused
from exchange.tables import INT64_MAX, folder_lock
from exchange.tables.outputs import TABLES, holds_play_output, read_table

log = logging.getLogger(__name__)

Tables = dict[str, pa.Table]
#: A game's (or a part's) stream files: ``(market id, text)`` of each market.
Streams = tuple[tuple[str, str], ...]
T = TypeVar("T")

#: The lock file a recording holds in its folder.
LOCK_NAME = ".recording.lock"
#: The file naming the exchange a folder records.
EXCHANGE_NAME = ".exchange-id"
_PART = re.compile(r"part-(\d+)-(\d+)\.parquet")
_HIDDEN = re.compile(r"\.(part-\d+-\d+\.parquet)\.tmp")  # a part being written (readers skip a leading dot)
_PROBE = ".recording-probe"  # written and removed in each table's folder: can a part be written there?
_PENDING = ".pending"  # DIR/.pending/<index>/<table>.arrow: a game's rows, held until its part is written
_HELD = re.compile(r"\d{9,}")  # a game held whole (one being written is under a hidden name)
#: The folder of the markets' stream files, in ``DIR`` and in a held game's folder.
STREAMS = "streams"


def next_game_index(directory: Path) -> int:
    """The ``game_index`` after the last one recorded in ``directory`` (0 for a new folder), over all six tables.

    Refuses a folder it cannot record into: one holding a backtest's tables (one of them a file), or a path that
    is not a folder.
    """
    return _refused_unless(directory, _next_game_index)


def _next_game_index(directory: Path) -> int:
    if os.path.lexists(directory) and not directory.is_dir():
        raise RecordingRefused(f"{directory} is not a folder")
    if holds_play_output(directory):
        raise RecordingRefused(f"{directory} holds the hands 'exchange-poker play' wrote (results.parquet, hands/); "
                               "record into another folder")
    last = -1
    for folder in _folders(directory):
        if folder.is_file():
            raise RecordingRefused(f"{directory} holds a backtest's tables ({folder.name} is a file); record into "
                                   "another folder")
        if os.path.lexists(folder) and not folder.is_dir():
            raise RecordingRefused(f"{folder} is in the way of a table's folder (a link to nothing?)")
        if folder.is_dir():
            last = max([last, *(int(match[2]) for p in folder.iterdir() if (match := _PART.fullmatch(p.name)))])
    streams = directory / STREAMS
    if os.path.lexists(streams) and not streams.is_dir():
        raise RecordingRefused(f"{streams} is in the way of the stream files' folder (a file, or a link to nothing?)")
    if last >= INT64_MAX:
        raise RecordingRefused(f"{directory} holds a part numbering games past {INT64_MAX}, more than a table holds")
    return last + 1


def check_folder(directory: Path) -> None:
    """Raise :class:`RecordingRefused` if ``directory`` cannot take a recording now: the folder is taken as a
    recording takes it (made, locked, each table's folder written to) and given back. What the check made is
    removed again while it holds the folder's lock (the server may yet be refused, and a folder left behind would
    look like a recording); a refused check removes nothing, as another server may have made the folder meanwhile.
    """
    made = next((f for f in reversed((directory, *directory.parents)) if not os.path.lexists(f)), None)
    there = set(os.listdir(directory)) if made is None and directory.is_dir() else set()
    folder = RecordFolder(directory)
    try:
        for path in [made] if made is not None else [directory / name for name in os.listdir(directory)]:
            if path.name in there:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    finally:
        folder.close()


@dataclass(frozen=True, slots=True)
class _Unwritten:
    """The rows of games ``first`` to ``last`` that could not be written yet."""

    first: int
    last: int
    tables: Tables
    streams: Streams


class RecordFolder:
    """``directory`` taken for a recording: its folders made, its lock held, a part a crash interrupted finished,
    the games a kill left held taken.

    :attr:`next_index` is the first ``game_index`` to record; :meth:`hold`, :meth:`write` and :meth:`retry` run on
    one writer thread; :meth:`close` gives the folder up. ``next_games``: the number each channel of the exchange
    deals next (refused: a folder holding a game of one of them numbered from there on); ``exchange_id``: the
    exchange's own (refused: a folder recording another one). With them the games a kill left held are taken, to
    be written first (:meth:`retry`); without them (the command line's check, before the database is read)
    nothing is checked or taken.
    """

    def __init__(self, directory: Path, next_games: Mapping[str, int] | None = None,
                 exchange_id: str | None = None) -> None:
        next_game_index(directory)  # refuses a folder that cannot take a recording, before anything is made
        self.directory = directory
        self._unwritten: _Unwritten | None = None
        self._hold_failed = False  # a game could not be held: none is held until the next part (no gap held)
        self._lock = _refused_unless(directory, _take)
        try:
            _refused_unless(directory, _finish_interrupted_parts)
            self.next_index = next_game_index(directory)
            if next_games is not None:
                _refused_unless(directory, lambda d: _check_dealt(d, next_games))
                if exchange_id is not None:
                    _refused_unless(directory, lambda d: _check_exchange(d, exchange_id))
                _refused_unless(directory, lambda _: self._take_held(next_games))
        except BaseException:
            folder_lock.release(self._lock)
            raise

    def hold(self, index: int, tables: Tables, streams: Streams = ()) -> None:
        """Keep game ``index``'s rows and stream files on the disk until its part is written, for a start after a
        kill to write them. A game that cannot be held (logged) is kept in memory only, as are the games after it
        until the next part is written: what is held is always the games right after the last part."""
        if self._hold_failed:
            return
        pending = self.directory / _PENDING
        hidden = pending / f".{index:09d}.tmp"
        try:
            hidden.mkdir()
            for name, table in tables.items():
                with pa.ipc.new_file(str(hidden / f"{name}.arrow"), table.schema) as writer:
                    writer.write_table(table)
                _sync(hidden / f"{name}.arrow")
            if streams:
                (hidden / STREAMS).mkdir()
                for market_id, text in streams:
                    _sync(write_stream(hidden / STREAMS, market_id, text))
                _sync(hidden / STREAMS)
            _sync(hidden)
            os.replace(hidden, pending / f"{index:09d}")
            _sync(pending)
        except Exception as exc:  # a full disk, or a fault: only the copy is lost, the recording goes on
            shutil.rmtree(hidden, ignore_errors=True)
            self._hold_failed = True
            log.error("recording: game %d could not be held in %s (%s: %s); until the next part is written, a kill "
                      "loses the games since the last one", index, pending, type(exc).__name__, exc,
                      exc_info=not isinstance(exc, OSError))

    def write(self, tables: Tables, first: int, last: int, streams: Streams = ()) -> None:
        """The part of games ``first`` to ``last`` (and their stream files first), with the rows of a part that could
        not be written before; if it cannot be written (a full disk, a folder in the way) its rows are kept for the
        next part, said in the log."""
        if self._unwritten is not None:
            earlier, self._unwritten = self._unwritten, None
            first = earlier.first
            tables = {name: pa.concat_tables([earlier.tables[name], table]) for name, table in tables.items()}
            streams = earlier.streams + streams
        try:
            self._write_streams(streams)
            self._commit(tables, f"part-{first:09d}-{last:09d}.parquet")
        except OSError as exc:
            self._unwritten = _Unwritten(first, last, tables, streams)
            log.error("recording: games %d to %d could not be written to %s (%s); they are tried again with the "
                      "next part", first, last, self.directory, exc)
            return
        self._release(first, last)

    def _release(self, first: int, last: int) -> None:
        """Games ``first`` to ``last`` are in a part: no longer held (one left behind is removed at the next
        start), and a game can be held again."""
        for index in range(first, last + 1):
            shutil.rmtree(self.directory / _PENDING / f"{index:09d}", ignore_errors=True)
        self._hold_failed = False

    def _take_held(self, next_games: Mapping[str, int]) -> None:
        """The games a kill left held right after the last part, kept as rows not written yet (:meth:`retry` writes
        them; they stay held until then); what else is in ``.pending`` is removed: games in a part already, one
        being held at the kill, games after one never held (a gap), and games this exchange has not dealt (its
        journal lost them, or they are another's: the recording must not say they settled)."""
        pending = self.directory / _PENDING
        held = set()
        for entry in pending.iterdir():
            if _HELD.fullmatch(entry.name) and int(entry.name) >= self.next_index:
                held.add(int(entry.name))
            else:
                _remove(entry)
        run = list(itertools.takewhile(held.__contains__, itertools.count(self.next_index)))
        for stray in sorted(held.difference(run)):
            log.error("recording: game %d was held but the game before it was not: removed", stray)
            self._drop_held(pending / f"{stray:09d}")
        games: list[Tables] = []
        streams: Streams = ()
        for index in run:
            try:
                tables = {name: _read_held(pending / f"{index:09d}", name) for name in TABLES}
                undealt = _first_undealt(tables["games"].column("market_id").to_pylist(), next_games)
                held_streams = _read_held_streams(pending / f"{index:09d}")
            except (OSError, UnicodeDecodeError, pa.ArrowException) as exc:
                undealt = f"unreadable ({exc})"
            if undealt is not None:
                log.error("recording: held games %d to %d removed (game %d: %s)", index, run[-1], index, undealt)
                for later in run[len(games):]:
                    self._drop_held(pending / f"{later:09d}")
                break
            games.append(tables)
            streams += held_streams
        self._drop_unrecorded_streams(next_games, {market_id for market_id, _ in streams})
        if games:
            self._unwritten = _Unwritten(self.next_index, self.next_index + len(games) - 1,
                                         {name: pa.concat_tables([game[name] for game in games]) for name in TABLES},
                                         streams)
            log.warning("recording: games %d to %d ended before the last stop and were not written: written first",
                        self._unwritten.first, self._unwritten.last)
            self.next_index += len(games)

    def _drop_held(self, game: Path) -> None:
        """Remove a held game that is not to be written, and the stream files a part that failed wrote of it."""
        self._unlink_streams(path.name for path in _held_stream_files(game))
        _remove(game)

    def _drop_unrecorded_streams(self, next_games: Mapping[str, int], held: set[str]) -> None:
        """Remove the stream files of this exchange's markets that no part holds and no held game taken writes:
        written for a part a kill kept from being committed, of a game that was not held (lost from the recording)
        or that its journal then lost (one this exchange has not dealt). A file naming no market of this exchange's
        channels is not the recording's, and stays."""
        recorded = held | _recorded_markets(self.directory)
        for path in sorted((self.directory / STREAMS).iterdir()):
            parsed = parse_market_id(path.name)
            if path.name.startswith(".") or parsed is None or parsed[0] not in next_games or path.name in recorded:
                continue
            why = ("a game this exchange has not dealt" if _first_undealt([path.name], next_games) is not None
                   else "a game lost from the recording (its part was not written)")
            log.error("recording: the stream file of %s, %s, removed", path.name, why)
            self._unlink_streams([path.name])

    def _unlink_streams(self, market_ids: Iterable[str]) -> None:
        for market_id in market_ids:
            with contextlib.suppress(FileNotFoundError):
                (self.directory / STREAMS / market_id).unlink()

    def retry(self) -> None:
        """Write the rows not written yet: those of a part that could not be written (tried once more as the
        recording stops), or the games a kill left held (written first as it starts)."""
        if self._unwritten is not None:
            earlier, self._unwritten = self._unwritten, None
            self.write(earlier.tables, earlier.first, earlier.last, earlier.streams)

    def close(self) -> None:
        """Give the folder up; of the rows still unwritten, those held are written at the next start and the rest
        lost from the recording, said in the log (with the stream files a failed part wrote of them)."""
        if self._unwritten is not None:
            first, last = self._unwritten.first, self._unwritten.last
            held = [i for i in range(first, last + 1) if (self.directory / _PENDING / f"{i:09d}").is_dir()]
            kept = {path.name for i in held for path in _held_stream_files(self.directory / _PENDING / f"{i:09d}")}
            self._unlink_streams(market_id for market_id, _ in self._unwritten.streams if market_id not in kept)
            log.error("recording: games %d to %d could not be written to %s; %s (the journal keeps their orders "
                      "and settlements)", first, last, self.directory,
                      f"games {held[0]} to {held[-1]} are held and written at the next start" if held
                      else "they are lost from the recording")
        folder_lock.release(self._lock)

    def _write_streams(self, streams: Streams) -> None:
        """Each market's stream file, under a hidden name and on the disk, then renamed into ``DIR/streams``."""
        folder = self.directory / STREAMS
        for market_id, text in streams:
            hidden = folder / f".{market_id}.tmp"
            try:
                _sync(write_stream(folder, hidden.name, text))
                os.replace(hidden, folder / market_id)
            except BaseException:
                with contextlib.suppress(OSError):
                    hidden.unlink()
                raise
        if streams:
            _sync(folder)

    def _commit(self, tables: Tables, name: str) -> None:
        """Every table's file of the part under its hidden name, on the disk, then renamed: the first rename
        commits the part (a failure before it leaves nothing; one after it, renames the next start finishes)."""
        renames = [(self.directory / TABLES[table].file_name / f".{name}.tmp",
                    self.directory / TABLES[table].file_name / name) for table in tables]
        try:
            for (hidden, _), table in zip(renames, tables.values(), strict=True):
                pq.write_table(table, hidden, compression="zstd")
                _sync(hidden)
            os.replace(*renames[0])
        except BaseException:  # nothing committed: nothing left behind
            for hidden, _ in renames:
                with contextlib.suppress(OSError):
                    hidden.unlink()
            raise
        try:
            for hidden, final in renames[1:]:
                os.replace(hidden, final)
            for _, final in renames:
                _sync(final.parent)
        except OSError as exc:
            log.error("recording: part %s is written but not in every table yet (%s); the next start finishes it",
                      name, exc)


def _folders(directory: Path) -> list[Path]:
    return [directory / spec.file_name for spec in TABLES.values()]


def _read_held(game: Path, table: str) -> pa.Table:
    return pa.ipc.open_file(pa.BufferReader((game / f"{table}.arrow").read_bytes())).read_all()


def _held_stream_files(game: Path) -> list[Path]:
    """A held game's stream files (none for a game held before the recording wrote them)."""
    folder = game / STREAMS
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _read_held_streams(game: Path) -> Streams:
    return tuple((path.name, path.read_text(encoding="utf-8")) for path in _held_stream_files(game))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _refused_unless(directory: Path, step: Callable[[Path], T]) -> T:
    """``step(directory)``, its OSError (or a part file pyarrow cannot read) said as :class:`RecordingRefused`."""
    try:
        return step(directory)
    except OSError as exc:
        raise RecordingRefused(f"cannot record into {directory}: {exc.strerror or exc}") from None
    except pa.ArrowException as exc:
        raise RecordingRefused(f"cannot record into {directory}: {exc}") from None


def _take(directory: Path) -> int:
    """Make the tables' folders and ``.pending``, take the folder's lock and see that a file can be written in
    each of them: the lock's descriptor."""
    folders = [*_folders(directory), directory / STREAMS, directory / _PENDING]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    lock = _lock(directory)
    try:
        for folder in folders:
            (folder / _PROBE).write_bytes(b"")
            (folder / _PROBE).unlink()
    except BaseException:
        folder_lock.release(lock)
        raise
    return lock


def _check_dealt(directory: Path, next_games: Mapping[str, int]) -> None:
    """Refuse a folder holding a game that the exchange has not dealt yet (see the module)."""
    undealt = _first_undealt(list(_recorded_markets(directory)), next_games)
    if undealt is not None:
        raise RecordingRefused(f"{directory} holds {undealt}: it is another exchange's recording, or this database "
                               "is older than it; record into another folder")


def _recorded_markets(directory: Path) -> set[str]:
    """The market ids of the games the parts in ``directory`` hold (a hi/lo game's two)."""
    if next((directory / TABLES["games"].file_name).glob("part-*.parquet"), None) is None:
        return set()
    games = read_table(directory, "games", ["market_id", "low_market_id"])
    return {market_id for column in games.columns for market_id in column.to_pylist() if market_id is not None}


def _first_undealt(market_ids: list[str], next_games: Mapping[str, int]) -> str | None:
    """What the first game of ``market_ids`` (by channel) that the exchange has not dealt yet is, if any."""
    last: dict[str, int] = {}
    for market_id in market_ids:
        parsed = parse_market_id(market_id)
        if parsed is not None:
            last[parsed[0]] = max(last.get(parsed[0], -1), parsed[1])
    for channel, number in sorted(last.items()):
        if channel in next_games and number >= next_games[channel]:
            dealt = next_games[channel]
            so_far = f"its {channel} games are numbered below {dealt}" if dealt else f"it has dealt no {channel} game"
            return f"{channel}.{number}, a game this exchange has not dealt yet ({so_far})"
    return None


def named_exchange(directory: Path) -> str | None:
    """The exchange whose recording ``directory`` is, None if it names none (``OSError`` where its name cannot be
    read)."""
    try:
        return (directory / EXCHANGE_NAME).read_text().strip()
    except FileNotFoundError:
        return None


def _check_exchange(directory: Path, exchange_id: str) -> None:
    """Refuse a folder recording another exchange; one naming none (new, or recorded before folders named their
    exchange) is named this exchange's."""
    theirs = named_exchange(directory)
    if theirs is not None:
        if theirs != exchange_id:
            raise RecordingRefused(f"{directory} is another exchange's recording (its {EXCHANGE_NAME} names "
                                   f"{theirs}, this database's exchange is {exchange_id}); record into another "
                                   "folder")
        return
    hidden = directory / f".{EXCHANGE_NAME}.tmp"
    hidden.write_text(f"{exchange_id}\n")
    _sync(hidden)
    os.replace(hidden, directory / EXCHANGE_NAME)
    _sync(directory)


def _lock(directory: Path) -> int:
    """The descriptor holding the folder's lock (:func:`exchange.tables.folder_lock.release` gives it up, as does the
    process's end)."""
    fd = folder_lock.hold(directory / LOCK_NAME, create=True)
    if fd is None:
        raise RecordingRefused(f"another server is recording into {directory} (it holds {LOCK_NAME} there); give "
                               "each server its own folder")
    return fd


def _finish_interrupted_parts(directory: Path) -> None:
    """A part that some tables have and the others have only under its hidden name (renames left undone) is
    finished; the hidden files of a part no table has (a crash while writing) are removed."""
    folders = _folders(directory)
    committed = {p.name for folder in folders for p in folder.iterdir() if _PART.fullmatch(p.name)}
    for folder in folders:
        for hidden in folder.iterdir():
            match = _HIDDEN.fullmatch(hidden.name)
            if match is None:
                continue
            if match[1] in committed:
                log.warning("recording: %s was written but not renamed when the recording stopped: renamed now",
                            hidden)
                os.replace(hidden, folder / match[1])
            else:
                hidden.unlink()
    for hidden in (directory / STREAMS).glob(".*.tmp"):  # a stream file being written: written again with its part
        hidden.unlink()


def _sync(path: Path) -> None:
    """``path`` (a file, or a folder's names) on the disk, not only in the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
