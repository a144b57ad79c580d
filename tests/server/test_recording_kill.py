"""``serve --record DIR`` after a kill: every game the journal holds is in the recording.

Each ended game's rows are held in ``DIR/.pending/<index>/`` once the journal has the game on disk and until its
part is written; a recording started after a kill takes what is held there and writes it first. The in-process
tests copy the folder while the server runs (what a SIGKILL would leave behind) and start on the copy; one test
SIGKILLs a real server process with house bots trading.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
from pathlib import Path

import pyarrow as pa
import pytest
import requests

from exchange.clock import VirtualClock
from exchange.game.channels import parse_market_id
from exchange.server import keys
from exchange.server.record_folder import RecordFolder, check_folder
from exchange.server.recording import Recording
from exchange.server.service import VOID_REASON
from exchange.tables.outputs import TABLES, empty_tables, read_tables
from tests.backtest.backtest_support import market_books
from tests.server.helpers import serving, wait_until
from tests.server.serverproc import ServerProcess
from tests.server.test_recording import CHANNELS_RUN, GAME_MS, hidden_files, parts, play_games, trade
from tests.server.test_recording_streams import stream_files

PENDING = ".pending"


def held(record: Path) -> list[str]:
    """The games held in ``record`` (their ``game_index``, nine digits), whole or being written."""
    return sorted(p.name for p in (record / PENDING).iterdir())


def rows(record: Path, games: range) -> dict[str, list[dict[str, object]]]:
    """The rows of ``games`` in every table of ``record``, in a fixed order (part files are read in any order)."""
    tables = read_tables(record)
    return {name: sorted((row for row in table.to_pylist() if row["game_index"] in games), key=repr)
            for name, table in tables.items()}


def number(market_id: str) -> int:
    """The game number a market id names (``holdem.12``: 12)."""
    parsed = parse_market_id(market_id)
    assert parsed is not None, market_id
    return parsed[1]


def no_rows(market_id: str | None = None) -> dict[str, pa.Table]:
    """A game's six tables, for the tests of the folder alone: without a row, or with only its ``games`` row
    naming ``market_id``."""
    tables = {name: table.to_arrow() for name, table in empty_tables().items()}
    if market_id is not None:
        tables["games"] = pa.Table.from_pylist([{"market_id": market_id}], schema=TABLES["games"].schema)
    return tables


def restart(directory: Path, next_games: dict[str, int] | None = None) -> RecordFolder:
    """The folder as a recording started after a kill takes it and writes first (closed)."""
    folder = RecordFolder(directory, {} if next_games is None else next_games)
    try:
        folder.retry()
    finally:
        folder.close()
    return folder


async def test_a_start_after_a_kill_writes_the_games_held(tmp_path: Path, clock: VirtualClock,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    record, killed = tmp_path / "rec", tmp_path / "killed"
    async with serving(tmp_path / "ex.db", clock, channels=CHANNELS_RUN, record_dir=str(record), record_every=100,
                       record_every_ms=0, equities=None) as client:
        await trade(client, 0)
        play_games(clock, 2)  # two games of each channel
        await client.app[keys.RECORDING].written()
        assert held(record) == [f"{index:09d}" for index in range(4)]
        assert all(parts(record, name) == [] for name in TABLES)  # no part yet: a kill lost all four before
        assert stream_files(record) == {}  # held with their games' rows, written with their part
        shutil.copytree(record, killed)  # what a SIGKILL leaves
    assert held(record) == []  # the stop wrote them as a part: nothing is held any more
    clock = VirtualClock(start_ms=clock.now() + 10 * GAME_MS)
    with caplog.at_level(logging.WARNING, logger="exchange.server.record_folder"):
        async with serving(tmp_path / "ex.db", clock, channels=CHANNELS_RUN, accounts=(), record_dir=str(killed),
                           equities=None) as client:
            assert client.app[keys.RECORDING].next_index == 4
    assert "recording: games 0 to 3 ended before the last stop and were not written: written first" in caplog.text
    for name in TABLES:
        assert parts(killed, name) == ["part-000000000-000000003.parquet"], name
    assert held(killed) == [] and hidden_files(killed) == []
    written = rows(killed, range(4))
    assert written == rows(record, range(4))  # as the clean stop wrote them
    assert len(written["games"]) == 4 and written["settlements"] and written["equities"]
    assert stream_files(killed) == stream_files(record) and len(stream_files(killed)) == 6  # a hi/lo game has two
    assert {fill["market_id"] for fill in written["fills"]} == {"holdem.0", "omaha-hilo.0-low"}  # alice's and bob's


async def test_a_game_the_journal_did_not_hold_is_not_held(tmp_path: Path, clock: VirtualClock) -> None:
    """The journal's writer dies after game 0 is on disk: game 1 is never held, so no start writes it."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=100,
                       record_every_ms=0) as client:
        play_games(clock, 1)
        await client.app[keys.SERVICE].durable()
        await client.app[keys.RECORDING].written()
        writer = client.app[keys.JOURNAL].writer_pid
        os.kill(writer, signal.SIGKILL)
        os.waitpid(writer, 0)
        play_games(clock, 1)
        await client.app[keys.RECORDING].written()
        assert held(record) == ["000000000"]


def test_a_game_that_cannot_be_held_stops_the_holding_until_the_next_part(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Holding game 2 after game 1 was not held would leave a gap for a start to write: it is not held either."""
    folder = RecordFolder(tmp_path)
    try:
        folder.hold(0, no_rows())
        (tmp_path / PENDING / ".000000001.tmp").write_text("in the way")
        with caplog.at_level(logging.ERROR):
            folder.hold(1, no_rows())
        assert "recording: game 1 could not be held in" in caplog.text
        folder.hold(2, no_rows())
        assert held(tmp_path) == [".000000001.tmp", "000000000"]
        folder.write(no_rows(), 0, 2)
        assert held(tmp_path) == [".000000001.tmp"]  # games 0 to 2 are in a part: held no more
        folder.hold(3, no_rows())
        assert held(tmp_path) == [".000000001.tmp", "000000003"]
    finally:
        folder.close()
    again = restart(tmp_path)  # the part of game 3, the obstacle removed
    assert again.next_index == 4 and held(tmp_path) == []
    assert parts(tmp_path, "games") == ["part-000000000-000000002.parquet", "part-000000003-000000003.parquet"]


def test_a_start_writes_only_the_games_right_after_the_last_part(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What else ``.pending`` holds is removed: a game already in a part (its removal failed), a game being held
    when the server was killed, a game held after one that was not (writing it would leave a gap)."""
    folder = RecordFolder(tmp_path)
    pending = tmp_path / PENDING
    try:
        folder.write(no_rows(), 0, 1, (("holdem.1", "in a part\n"),))
        folder.hold(2, no_rows())
        folder.hold(3, no_rows())
        shutil.copytree(pending / "000000002", pending / "000000001")  # its removal failed
        shutil.copytree(pending / "000000003", pending / "000000005")  # game 4 was never held
        (pending / "000000001" / "streams").mkdir()
        (pending / "000000001" / "streams" / "holdem.1").write_text("in a part\n")
        (pending / "000000005" / "streams").mkdir()
        (pending / "000000005" / "streams" / "holdem.5").write_text("after a gap\n")
        (tmp_path / "streams" / "holdem.5").write_text("after a gap\n")  # written for a part that failed
        (pending / ".000000006.tmp").mkdir()
    finally:
        folder.close()
    with caplog.at_level(logging.WARNING):
        again = restart(tmp_path)
    assert "recording: game 5 was held but the game before it was not: removed" in caplog.text
    assert again.next_index == 4 and held(tmp_path) == []
    for name in TABLES:
        assert parts(tmp_path, name) == ["part-000000000-000000001.parquet", "part-000000002-000000003.parquet"]
    assert stream_files(tmp_path) == {"holdem.1": "in a part\n"}  # a game in a part keeps its file


def test_a_part_not_written_at_the_stop_is_written_at_the_next_start_if_held(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = RecordFolder(tmp_path)
    fills = tmp_path / TABLES["fills"].file_name
    try:
        folder.hold(0, no_rows())
        fills.rmdir()
        fills.write_text("in the way")  # a part cannot be written
        folder.write(no_rows(), 0, 0)
        folder.retry()
    finally:
        with caplog.at_level(logging.ERROR):
            folder.close()
    assert "games 0 to 0 are held and written at the next start" in caplog.text
    fills.unlink()
    again = restart(tmp_path)
    assert parts(tmp_path, "fills") == ["part-000000000-000000000.parquet"] and again.next_index == 1


def test_the_stream_files_of_games_lost_at_the_stop_are_removed(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """A part that cannot be written leaves the stream files it wrote first; at the stop, those of its games not
    held (lost from the recording) go, those of the games held stay (the next start writes them again)."""
    folder = RecordFolder(tmp_path)
    fills = tmp_path / TABLES["fills"].file_name
    try:
        folder.hold(0, no_rows(), (("holdem.0", "stream 0\n"),))
        (tmp_path / PENDING / ".000000001.tmp").write_text("in the way")  # game 1 cannot be held
        folder.hold(1, no_rows(), (("holdem.1", "stream 1\n"),))
        fills.rmdir()
        fills.write_text("in the way")  # the part cannot be written
        folder.write(no_rows(), 0, 1, (("holdem.0", "stream 0\n"), ("holdem.1", "stream 1\n")))
        assert stream_files(tmp_path) == {"holdem.0": "stream 0\n", "holdem.1": "stream 1\n"}
    finally:
        with caplog.at_level(logging.ERROR):
            folder.close()
    assert "games 0 to 0 are held and written at the next start" in caplog.text
    assert stream_files(tmp_path) == {"holdem.0": "stream 0\n"}


def test_the_command_lines_check_leaves_the_games_held(tmp_path: Path) -> None:
    """It runs before the database is read: what is held is for the recording to take, checked against it."""
    folder = RecordFolder(tmp_path)
    folder.hold(0, no_rows())
    folder.close()
    check_folder(tmp_path)
    assert held(tmp_path) == ["000000000"] and parts(tmp_path, "games") == []


def test_held_games_this_exchange_has_not_dealt_are_not_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Its journal lost them (a damaged tail set aside), or they are another exchange's: the recording must not say
    they settled, nor leave their stream files (a part that failed wrote game 2's, and a kill came before the game
    after it was held, whose stream file a part wrote too). The games held before them are written."""
    folder = RecordFolder(tmp_path)
    for index in range(3):
        folder.hold(index, no_rows(f"holdem.{index}"), ((f"holdem.{index}", f"stream {index}\n"),))
    (tmp_path / "streams" / "holdem.2").write_text("stream 2\n")  # written for a part whose commit failed
    (tmp_path / "streams" / "holdem.3").write_text("stream 3\n")  # a game never held
    folder.close()
    with caplog.at_level(logging.ERROR):
        again = restart(tmp_path, {"holdem": 2})
    assert ("recording: held games 2 to 2 removed (game 2: holdem.2, a game this exchange has not dealt yet (its "
            "holdem games are numbered below 2))") in caplog.text
    assert "recording: the stream file of holdem.3, a game this exchange has not dealt, removed" in caplog.text
    assert again.next_index == 2 and held(tmp_path) == []
    assert read_tables(tmp_path, ["games"])["games"].column("market_id").to_pylist() == ["holdem.0", "holdem.1"]
    assert stream_files(tmp_path) == {"holdem.0": "stream 0\n", "holdem.1": "stream 1\n"}


def test_stream_files_of_games_no_part_holds_are_removed_at_the_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Games 0 and 1 written (1 a hi/lo game of two markets), then game 2's stream file written for a part a kill
    kept from being committed, game 2 not held (its hold failed): the game is lost from the recording, so is its
    file. A file naming no market of the exchange's channels is not the recording's and stays."""
    folder = RecordFolder(tmp_path)
    games = no_rows("holdem.0")
    hilo = pa.Table.from_pylist([{"market_id": "omaha-hilo.0", "low_market_id": "omaha-hilo.0-low"}],
                                schema=TABLES["games"].schema)
    games["games"] = pa.concat_tables([games["games"], hilo])
    written = (("holdem.0", "stream 0\n"), ("omaha-hilo.0", "high 0\n"), ("omaha-hilo.0-low", "low 0\n"))
    folder.write(games, 0, 1, written)
    folder.close()
    (tmp_path / "streams" / "holdem.1").write_text("stream 1\n")  # the part's commit never came
    (tmp_path / "streams" / "notes.txt").write_text("mine\n")
    (tmp_path / "streams" / "stud7.4").write_text("another channel's\n")  # a channel this exchange does not run
    with caplog.at_level(logging.ERROR):
        again = restart(tmp_path, {"holdem": 2, "omaha-hilo": 1})
    assert ("recording: the stream file of holdem.1, a game lost from the recording (its part was not written), "
            "removed") in caplog.text
    assert again.next_index == 2
    assert stream_files(tmp_path) == {**dict(written), "notes.txt": "mine\n", "stud7.4": "another channel's\n"}


def test_a_held_game_that_cannot_be_read_is_removed_and_the_start_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = RecordFolder(tmp_path)
    for index in range(3):
        folder.hold(index, no_rows(f"holdem.{index}"))
    folder.close()
    (tmp_path / PENDING / "000000001" / "games.arrow").write_bytes(b"not arrow")
    with caplog.at_level(logging.ERROR):
        again = restart(tmp_path)
    assert "recording: held games 1 to 2 removed (game 1: unreadable" in caplog.text
    assert again.next_index == 1 and held(tmp_path) == []
    assert parts(tmp_path, "games") == ["part-000000000-000000000.parquet"]


async def test_a_fault_in_writing_leaves_the_games_held_for_the_next_start(
    tmp_path: Path, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault of the recording's in writing a part stops the recording (nothing after it is held or written); the
    games held before it are written by the next start."""
    record = tmp_path / "rec"

    def broken(self: Recording, games: object) -> None:
        raise RuntimeError("a bug in writing")

    with monkeypatch.context() as patched:
        patched.setattr(Recording, "_write", broken)
        async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
            play_games(clock, 2)
            recording = client.app[keys.RECORDING]
            await recording.written()
            assert recording.stopped == "RuntimeError: a bug in writing"
        assert held(record) == ["000000000"] and parts(record, "games") == []
    clock = VirtualClock(start_ms=clock.now() + 10 * GAME_MS)
    async with serving(tmp_path / "ex.db", clock, accounts=(), record_dir=str(record)) as client:
        await client.app[keys.RECORDING].written()
        assert parts(record, "games") == ["part-000000000-000000000.parquet"]  # at the start, not at the stop
    assert read_tables(record, ["games"])["games"].column("market_id").to_pylist() == ["holdem.0"]


def held_market_ids(record: Path) -> set[str]:
    """The games held whole in ``record``, by market id."""
    ids: set[str] = set()
    for game in (record / PENDING).iterdir():
        if not game.name.startswith("."):
            rows = pa.ipc.open_file(pa.BufferReader((game / "games.arrow").read_bytes())).read_all()
            ids.update(rows.column("market_id").to_pylist())
    return ids


def test_a_killed_server_loses_no_game_the_exchange_settled(tmp_path: Path) -> None:
    """A real server with the house trading, SIGKILLed with games held and no part written: the next start writes
    them; every game the exchange lists as ended is in the recording, numbered without gap."""
    record = tmp_path / "rec"
    server = ServerProcess(tmp_path / "ex.db", "--record", str(record), "--record-every", "100",
                           "--record-every-minutes", "0", window_s=1, playing_s=0.1, house=True)

    def early_window() -> tuple[str, int] | None:
        """The game and round whose betting window is open and not half gone (a game end is most of a window
        away); None if there is none, or the server is slow to say."""
        game = server.game_in_early_window(gone_below_pct=50)
        return None if game is None else (game["id"], game["round"])

    def everything_ended_is_held() -> bool:
        """Early in a betting window, with two games or more ended and all of them held, and still early in that
        window once they are read (a loaded machine can take half a window reading them): the kill then finds no
        game ended and not held yet."""
        window = early_window()
        if window is None:
            return False
        try:
            listed = requests.get(f"{server.url}/games/v1/channels/holdem/results", params={"limit": 100},
                                  timeout=5).json()["results"]
        except requests.RequestException:
            return False
        ended = {result["id"] for result in listed}
        return len(ended) >= 2 and held_market_ids(record) == ended and early_window() == window

    with server:
        wait_until(everything_ended_is_held, timeout_s=60, what="two games or more ended, all held")
        assert parts(record, "games") == []
        server.kill()
        server.start()
        assert "ended before the last stop and were not written: written first" in server.log()
        listed = requests.get(f"{server.url}/games/v1/channels/holdem/results", params={"limit": 100},
                              timeout=5).json()
    # (the game the kill cut short is listed too, voided by the start: it never ended in the recording's stream)
    ended = {game["id"] for game in listed["results"] if game["voidReason"] != VOID_REASON}
    games = read_tables(record, ["games"])["games"].to_pandas()
    assert sorted(games.game_index) == list(range(len(games)))
    recorded = set(games.market_id)
    assert ended <= recorded  # the games before the kill among them
    last_listed = max(number(game) for game in ended)
    assert all(number(game) > last_listed for game in recorded - ended)  # ended after the listing
    settlements = read_tables(record, ["settlements"])["settlements"].to_pandas()
    for market_id, rows in settlements.groupby("market_id"):
        assert rows.net_profit.sum() + rows.commission_received.sum() + rows.rounding_received.sum() == 0, market_id
    # every game recorded has its stream file, stamped with the date the game was played, with the house's trading
    assert set(stream_files(record)) == recorded
    for game in games.itertuples():
        published = [json.loads(line)["pt"] for line in stream_files(record)[game.market_id].splitlines()]
        assert published == sorted(published), game.market_id
        # the first message groups the events of the game's start (a loop turn: their stamps a millisecond apart)
        assert 0 <= published[0] - game.start_ms < 1000, game.market_id
        assert published[-1] - game.start_ms < 60_000, game.market_id  # a game of 1 s windows, not a clock since boot
    fills = read_tables(record, ["fills"])["fills"].to_pandas()
    for market_id, traded in fills[~fills.voided].groupby("market_id")["size"].sum().items():
        closed = market_books(record / "streams" / market_id)[-1]
        assert closed.status == "CLOSED" and round(closed.total_matched * 100) == traded, market_id
