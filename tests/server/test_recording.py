"""``serve --record DIR``: the live server writes the backtest's Parquet tables of every game that ends.

Games of two channels (Hold'em and Omaha Hi/Lo) are played on the in-process server's virtual clock, with
alice and bob trading each other; the tables read back must agree with what the exchange itself says (each
account's result, commission and balance, every match), conserve each market's money, number the games
without gap or repeat across part files and restarts, and be read by the settlements notebook.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.game.channels import CHANNELS
from exchange.game.events import Stamped
from exchange.server import keys, record_folder
from exchange.server.record_folder import EXCHANGE_NAME, LOCK_NAME, RecordingRefused, check_folder, next_game_index
from exchange.server.service import ExchangeService
from exchange.tables.collector import Collector
from exchange.tables.outputs import TABLES, read_tables
from tests.backtest.backtest_support import run_notebook
from tests.cli_helpers import run_cli
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, free_port, login, place, place_one, rpc, serving
from tests.server.serverproc import ServerProcess

GAME_MS = CHANNELS["holdem"].windows * (WINDOW_MS + PLAYING_MS)
assert CHANNELS["omaha-hilo"].windows == CHANNELS["holdem"].windows  # the two channels' games end together
CHANNELS_RUN = ("holdem", "omaha-hilo")


def play_games(clock: VirtualClock, games: int) -> None:
    """``games`` whole games of each channel (each next one starts a playing window after the last ended)."""
    clock.advance(games * (GAME_MS + PLAYING_MS))


async def trade(client: TestClient, game: int) -> None:
    """Alice backs hand 1 of the Hold'em game and hand 2 of the hi/lo Low market; bob lays both: two matches."""
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    for market_id, selection in ((f"holdem.{game}", 1), (f"omaha-hilo.{game}-low", 2)):
        await place_one(client, alice, market_id, selection, "BACK", 3.0, 10.0)
        await place_one(client, bob, market_id, selection, "LAY", 3.0, 10.0, matched=10.0)


def parts(directory: Path, table: str) -> list[str]:
    """The part files of ``table`` that readers see (not those under a hidden name)."""
    return sorted(p.name for p in (directory / TABLES[table].file_name).iterdir() if not p.name.startswith("."))


def refused_serve(capsys: pytest.CaptureFixture[str], *argv: str, bound_s: float = 30) -> tuple[int, str, str]:
    """``serve ARGV`` in this process, expected to be refused at its start; a server that starts anyway is stopped
    (SIGTERM, exit 0) after ``bound_s``, so a wrong implementation fails the test instead of hanging it."""
    stop = threading.Timer(bound_s, os.kill, (os.getpid(), signal.SIGTERM))
    stop.start()
    try:
        return run_cli(capsys, "serve", "--port", str(free_port()), *argv)
    finally:
        stop.cancel()


async def test_the_tables_say_what_the_exchange_says(tmp_path: Path, clock: VirtualClock) -> None:
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, channels=CHANNELS_RUN, equities=None,
                       record_dir=str(record), record_every=2) as client:
        await trade(client, 0)
        play_games(clock, 3)
        exchange = client.app[keys.SERVICE].exchange
        results = {(a, m): exchange.market_result(a, m) for a in ("alice", "bob")
                   for m in ("holdem.0", "omaha-hilo.0-low")}
        balances = {a: exchange.funds(a).balance for a in ("alice", "bob")}
        await client.app[keys.RECORDING].written()
        assert parts(record, "games") == ["part-000000000-000000001.parquet", "part-000000002-000000003.parquet",
                                          "part-000000004-000000005.parquet"]
        # the fourth games are under way: only what ended is written, and the rest when the server stops
    tables = {name: table.to_pandas() for name, table in read_tables(record).items()}
    games, settlements, fills = tables["games"], tables["settlements"], tables["fills"]
    assert sorted(games.game_index) == list(range(len(games)))
    assert sorted(games.market_id) == sorted(f"{c}.{n}" for c in CHANNELS_RUN for n in range(3))
    assert games.session.eq(0).all() and (games.session_game == games.game_index).all()
    for name in TABLES:  # each part file holds the games its name says
        for part in parts(record, name):
            first, last = (int(n) for n in part.removesuffix(".parquet").split("-")[1:])
            indexes = pd.read_parquet(record / TABLES[name].file_name / part).game_index
            assert indexes.between(first, last).all(), (name, part)

    for (account, market_id), result in results.items():
        (row,) = settlements[(settlements.account == account) & (settlements.market_id == market_id)].itertuples()
        assert (row.gross_profit, row.commission) == (result.profit, result.commission)
        assert row.net_profit == result.profit - result.commission and row.status == "SETTLED"
        assert row.matched_stake == 1000 and row.bets == 1
        assert row.balance_after == balances[account]  # they traded in the first games only
    for market_id, rows in settlements.groupby("market_id"):  # every market's money, to the penny
        assert rows.net_profit.sum() + rows.commission_received.sum() + rows.rounding_received.sum() == 0, market_id
    assert set(settlements.account) == {"alice", "bob", "HOUSE"}

    assert sorted(fills.market_id) == ["holdem.0", "omaha-hilo.0-low"]
    assert (fills.back_account == "alice").all() and (fills.lay_account == "bob").all()
    assert fills["size"].eq(1000).all() and fills.price.eq(3.0).all() and not fills.voided.any()
    hilo = games[games.channel == "omaha-hilo"]
    assert hilo.low_market_id.str.endswith("-low").all()
    published = set(tables["equities"].market_id)
    assert published == set(games.market_id) | set(hilo.low_market_id)


async def test_a_restart_carries_on_after_the_games_recorded(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    record = tmp_path / "rec"
    for start in range(2):
        clock = VirtualClock(start_ms=1_700_000_000_000 + start * 10 * GAME_MS)
        with caplog.at_level(logging.INFO, logger="exchange.server.recording"):
            async with serving(tmp_path / "ex.db", clock, accounts=("alice",) if start == 0 else (),
                               record_dir=str(record), record_every=5):
                play_games(clock, 2)
        # the stop says what the folder holds (the games under way are not among them)
        assert f"recording: {record} stopped after game_index {2 * start + 1} (a game under way" in caplog.text
    games = read_tables(record, ["games"])["games"].to_pandas()
    assert list(games.sort_values("game_index").game_index) == [0, 1, 2, 3]
    # the second start's games are numbered on from the first's; its first game number follows the journal's
    assert list(games.sort_values("game_index").market_id) == ["holdem.0", "holdem.1", "holdem.3", "holdem.4"]
    assert parts(record, "games") == ["part-000000000-000000001.parquet", "part-000000002-000000003.parquet"]
    assert next_game_index(record) == 4


async def test_a_part_is_written_at_the_first_game_end_after_its_time(tmp_path: Path, clock: VirtualClock) -> None:
    """``--record-every-minutes``: what a killed server can lose is bounded in time, not only in games."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=100,
                       record_every_ms=GAME_MS * 3 // 2) as client:
        play_games(clock, 7)
        await client.app[keys.RECORDING].written()
        # games end about GAME_MS apart: every second game end is the first one past one and a half games' time
        assert parts(record, "games") == ["part-000000000-000000001.parquet", "part-000000002-000000003.parquet",
                                          "part-000000004-000000005.parquet"]
    assert parts(record, "games")[-1] == "part-000000006-000000006.parquet"  # the rest when the server stops


def _fills_folder_a_file(record: Path) -> Callable[[], None]:
    """The fills' folder is a file: the part's files cannot be written. Returns what takes it away."""
    fills = record / TABLES["fills"].file_name
    fills.rmdir()
    fills.write_text("in the way")

    def remove() -> None:
        fills.unlink()
        fills.mkdir()

    return remove


def _part_name_taken(record: Path, table: str = "games") -> Callable[[], None]:
    """A folder holding something where ``table``'s first part goes: its rename fails."""
    taken = record / TABLES[table].file_name / "part-000000000-000000000.parquet"
    (taken / "x").mkdir(parents=True)
    return lambda: shutil.rmtree(taken)


def _stream_name_taken(record: Path) -> Callable[[], None]:
    """A folder holding something where the first game's stream file goes: the part is not committed."""
    taken = record / "streams" / "holdem.0"
    (taken / "x").mkdir(parents=True)
    return lambda: shutil.rmtree(taken)


def hidden_files(record: Path) -> list[str]:
    """The files of a part (or a stream file) being written, left behind."""
    folders = [*(record / TABLES[name].file_name for name in TABLES), record / "streams"]
    return [p.name for folder in folders for p in folder.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("obstacle", [_fills_folder_a_file, _part_name_taken, _stream_name_taken],
                         ids=["write", "first-rename", "stream-file"])
async def test_a_part_that_cannot_be_written_is_tried_again_with_the_next_one(
    tmp_path: Path, clock: VirtualClock, caplog: pytest.LogCaptureFixture,
    obstacle: Callable[[Path], Callable[[], None]],
) -> None:
    """A failed write, or a failed first rename (the one that commits the part), leaves no part of any table, the
    server trades on, and the games it held are written with the next part: no gap in ``game_index``."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        remove = obstacle(record)
        recording = client.app[keys.RECORDING]
        with caplog.at_level(logging.ERROR):
            play_games(clock, 1)
            await recording.written()  # the parts are written on the recording's own thread
        assert "recording: games 0 to 0 could not be written to" in caplog.text
        assert "they are tried again with the next part" in caplog.text
        remove()
        assert all(parts(record, name) == [] for name in TABLES) and hidden_files(record) == []
        play_games(clock, 1)
        await recording.written()
        assert client.app[keys.SERVICE].failure is None
    for name in TABLES:
        assert parts(record, name) == ["part-000000000-000000001.parquet"], name
    games = read_tables(record, ["games"])["games"].to_pandas()
    assert list(games.game_index) == [0, 1] and list(games.market_id) == ["holdem.0", "holdem.1"]
    assert hidden_files(record) == []
    assert sorted(p.name for p in (record / "streams").iterdir()) == ["holdem.0", "holdem.1"]


async def test_a_part_that_could_not_be_written_is_tried_once_more_at_the_stop(
    tmp_path: Path, clock: VirtualClock
) -> None:
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        remove = _fills_folder_a_file(record)
        play_games(clock, 1)
        await client.app[keys.RECORDING].written()
        remove()  # the disk has room again; no game ends before the stop
    for name in TABLES:
        assert parts(record, name) == ["part-000000000-000000000.parquet"], name


async def test_a_rename_failing_after_the_commit_is_finished_at_the_next_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The part is in the first tables: it is not written again with the next part (no game twice); the tables
    left without it get it at the next start."""
    record = tmp_path / "rec"
    clock = VirtualClock(start_ms=1_700_000_000_000)
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        remove = _part_name_taken(record, "settlements")
        with caplog.at_level(logging.ERROR):
            play_games(clock, 1)
            await client.app[keys.RECORDING].written()
        assert "is written but not in every table yet" in caplog.text
        assert parts(record, "games") == ["part-000000000-000000000.parquet"]
        remove()
        play_games(clock, 1)
    assert parts(record, "settlements") == ["part-000000001-000000001.parquet"]
    clock = VirtualClock(start_ms=1_700_000_000_000 + 10 * GAME_MS)
    async with serving(tmp_path / "ex.db", clock, accounts=(), record_dir=str(record)):
        pass
    for name in TABLES:
        assert parts(record, name) == ["part-000000000-000000000.parquet", "part-000000001-000000001.parquet"], name
    tables = read_tables(record)
    assert sorted(tables["games"].column("game_index").to_pylist()) == [0, 1]
    settled = tables["settlements"].to_pandas()
    assert not settled.duplicated(["game_index", "market_id", "account"]).any() and set(settled.game_index) == {0, 1}
    assert hidden_files(record) == []


async def test_after_a_fault_in_writing_a_part_nothing_more_is_written(
    tmp_path: Path, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the disk (that part would be tried again) but a fault of the recording's: writing the next parts would
    leave a gap in ``game_index`` where the failed one was."""
    record = tmp_path / "rec"
    write_table = record_folder.pq.write_table
    calls: list[object] = []

    def fails_once(table: object, where: object, **options: object) -> None:
        calls.append(where)
        if len(calls) == 1:
            raise ValueError("a bug in writing")
        write_table(table, where, **options)

    monkeypatch.setattr(record_folder.pq, "write_table", fails_once)
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        play_games(clock, 2)
        recording = client.app[keys.RECORDING]
        await recording.written()
        assert recording.stopped == "ValueError: a bug in writing"
    assert all(parts(record, name) == [] for name in TABLES) and hidden_files(record) == []
    assert len(calls) == 1


def test_a_folder_that_cannot_take_a_recording_is_refused(tmp_path: Path) -> None:
    backtest = tmp_path / "backtest"
    backtest.mkdir()
    (backtest / "games.parquet").write_bytes(b"PAR1")
    with pytest.raises(RecordingRefused, match=r"holds a backtest's tables \(games.parquet is a file\)"):
        next_game_index(backtest)
    with pytest.raises(RecordingRefused, match="is not a folder"):
        next_game_index(backtest / "games.parquet")
    assert next_game_index(tmp_path / "new") == 0
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "orders.parquet").write_bytes(b"PAR1")  # was taken for a folder at the server's start
    with pytest.raises(RecordingRefused, match=r"\(orders.parquet is a file\)"):
        next_game_index(tmp_path / "other")
    (tmp_path / "streams-a-file").mkdir()
    (tmp_path / "streams-a-file" / "streams").write_text("not a folder")
    with pytest.raises(RecordingRefused, match="streams is in the way of the stream files' folder"):
        next_game_index(tmp_path / "streams-a-file")


@pytest.mark.parametrize(
    ("where", "fragment"),
    [
        ("backtest", "holds a backtest's tables (games.parquet is a file); record into another folder"),
        ("play", "holds the hands 'exchange-poker play' wrote (results.parquet, hands/); record into another folder"),
        ("a-file", "is not a folder"),
        ("a-file/below", "cannot record into"),
        ("a" * 300, "File name too long"),
        ("broken-link", "broken-link/games.parquet is in the way of a table's folder (a link to nothing?)"),
        ("stray-part", "holds a part numbering games past 9223372036854775807"),
        ("", "--record: give a folder (an empty name names none)"),
    ],
)
def test_serve_refuses_a_record_folder_before_it_starts(
    where: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "backtest").mkdir()
    (tmp_path / "backtest" / "games.parquet").write_bytes(b"PAR1")
    (tmp_path / "play" / "hands").mkdir(parents=True)  # (its results.parquet beside: either one says it)
    (tmp_path / "a-file").write_text("")
    (tmp_path / "broken-link").mkdir()
    (tmp_path / "broken-link" / "games.parquet").symlink_to(tmp_path / "nowhere")
    (tmp_path / "stray-part" / "fills.parquet").mkdir(parents=True)
    (tmp_path / "stray-part" / "fills.parquet" / "part-1-99999999999999999999.parquet").write_bytes(b"")
    record = str(tmp_path / where) if where else ""
    code, out, err = refused_serve(capsys, "--db", str(tmp_path / "ex.db"), "--record", record)
    assert (code, out) == (2, "")
    assert err.startswith("exchange-poker: error: --record") and fragment in err and err.count("\n") == 1, err
    assert not (tmp_path / "ex.db").exists()


async def test_the_settlements_notebook_reads_a_recording_of_two_channels(
    tmp_path: Path, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, channels=CHANNELS_RUN, equities=None,
                       record_dir=str(record)) as client:
        for game in range(2):
            await trade(client, game)
            play_games(clock, 1)
    monkeypatch.setenv("BACKTEST_CHANNEL", "omaha-hilo")
    outputs, images = run_notebook(record, monkeypatch, account="Alice")  # names are the same whatever their case
    # the hi/lo channel's only: each game's Low market has alice, bob and HOUSE, its High market HOUSE alone
    assert "2 games, 4 orders, 2 fills, 8 settlement rows" in outputs
    assert "1 sessions of up to 2 games" in outputs
    assert "(the balance is the account's over holdem, omaha-hilo: it moves with the other channels'" in outputs
    assert "alice: 2 matches with an equity" in outputs
    assert images >= 4
    monkeypatch.setenv("BACKTEST_CHANNEL", "razz")  # a channel the recording does not hold: said, not an empty run
    refused = pytest.importorskip("nbclient.exceptions").CellExecutionError
    with pytest.raises(refused, match=r"CHANNEL 'razz': .* holds games of holdem, omaha-hilo only"):
        run_notebook(record, monkeypatch, account="alice")
    monkeypatch.setenv("BACKTEST_CHANNEL", "omaha-hilo")  # an account with no result there: said, not an empty run
    with pytest.raises(refused, match=r"ACCOUNT 'alcie' has no result in .* \(omaha-hilo\); its accounts are HOUSE, "
                                      r"alice, bob"):
        run_notebook(record, monkeypatch, account="alcie")

    # a recording begun by an older version: its first fills part has no equity column, the next part has it (read
    # as the first part's columns, the column was gone from every part, and the calibration failed on it)
    (part,) = (record / "fills.parquet").iterdir()
    fills = pq.read_table(part)
    last = max(f["game_index"] for f in fills.to_pylist() if "alice" in (f["back_account"], f["lay_account"]))
    older = fills.filter(pc.less(fills["game_index"], last))
    newer = fills.filter(pc.greater_equal(fills["game_index"], last))
    pq.write_table(older.drop_columns(["equity"]), part.with_name(f"part-{0:09d}-{last - 1:09d}.parquet"))
    pq.write_table(newer, part.with_name(f"part-{last:09d}-{pc.max(newer['game_index']).as_py():09d}.parquet"))
    part.unlink()
    with_equity = newer.filter(pc.is_valid(newer["equity"])).to_pylist()
    mine = sum("alice" in (f["back_account"], f["lay_account"]) for f in with_equity)
    assert 0 < mine < 2  # alice's matches of the first game have no equity now
    outputs, _ = run_notebook(record, monkeypatch, account="alice")
    assert f"alice: {mine} matches with an equity" in outputs and "2 games, 4 orders, 2 fills" in outputs


async def test_the_settlements_notebook_says_a_recording_holds_no_game_yet(
    tmp_path: Path, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record)) as client:
        assert client.app[keys.RECORDING].next_index == 0  # stopped before its first game ended
    assert all(parts(record, name) == [] for name in TABLES)  # six tables, not one part in them
    refused = pytest.importorskip("nbclient.exceptions").CellExecutionError
    with pytest.raises(refused, match=r"holds no game yet: a recording writes each game once it has ended"):
        run_notebook(record, monkeypatch, account="alice")


async def test_a_fault_in_the_recording_stops_the_recording_not_the_games(
    tmp_path: Path, clock: VirtualClock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The channels' event bus lets a listener's exception through (fail fast): left there, a bug in the
    recording would have halted every game of a live server."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        play_games(clock, 1)

        def broken(self: Collector, stamped: Stamped) -> None:
            raise RuntimeError("a bug in the collector")

        monkeypatch.setattr(Collector, "__call__", broken)
        with caplog.at_level(logging.ERROR, logger="exchange.server.recording"):
            play_games(clock, 2)
        recording = client.app[keys.RECORDING]
        assert recording.stopped == "RuntimeError: a bug in the collector"
        assert "recording: stopped at event" in caplog.text and "a bug in the collector" in caplog.text
        assert [r["id"] for r in (await (await client.get("/games/v1/channels/holdem/results")).json())["results"]
                ][:3] == ["holdem.2", "holdem.1", "holdem.0"]  # the games went on
        await recording.written()
    assert parts(record, "games") == ["part-000000000-000000000.parquet"]  # what was written before stays


async def test_a_refusal_row_says_what_the_client_asked(tmp_path: Path, clock: VirtualClock) -> None:
    """As a backtest's rows do: the exchange's refusal alone names no side, price or size."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record)) as client:
        alice = await login(client, "alice", "pw-alice")
        bob = await login(client, "bob", "pw-bob")
        refused = (await rpc(client, alice, "placeOrders", place("holdem.0", 2, "LAY", 5.0, 900.0)))["result"]
        assert refused["instructionReports"][0]["errorCode"] == "INSUFFICIENT_FUNDS", refused
        bet = (await place_one(client, alice, "holdem.0", 1, "BACK", 3.0, 10.0))["betId"]
        await place_one(client, bob, "holdem.0", 1, "LAY", 3.0, 10.0, matched=10.0)
        cancel = {"marketId": "holdem.0", "instructions": [{"betId": bet, "sizeReduction": 2.0}]}
        assert (await rpc(client, alice, "cancelOrders", cancel))["result"]["status"] == "FAILURE"
        replace = {"marketId": "holdem.0", "instructions": [{"betId": bet, "newPrice": 4.0}]}
        assert (await rpc(client, alice, "replaceOrders", replace))["result"]["status"] == "FAILURE"
        play_games(clock, 1)
    orders = read_tables(record, ["orders"])["orders"].to_pandas()
    rows = orders[orders.status == "REJECTED"].sort_values("placed_ms", kind="stable")
    assert list(rows.action) == ["PLACE", "CANCEL", "REPLACE"]
    place_row, cancel_row, replace_row = rows.itertuples()
    assert (place_row.error_code, place_row.side, place_row.price, place_row.size, place_row.selection_id) == (
        "INSUFFICIENT_FUNDS", "LAY", 5.0, 90_000, 2)
    assert (cancel_row.bet_id, cancel_row.side, cancel_row.size, cancel_row.selection_id) == (int(bet), "BACK", 200, 1)
    assert (replace_row.bet_id, replace_row.price) == (int(bet), 4.0) and pd.isna(replace_row.size)  # none asked


async def test_a_cancel_of_a_bet_id_never_had_is_recorded_under_the_market_it_was_sent_through(
    tmp_path: Path, clock: VirtualClock
) -> None:
    """As a backtest's: the server refused it itself, before the exchange, and the recording never saw it."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        alice = await login(client, "alice", "pw-alice")
        cancel = {"marketId": "holdem.0", "instructions": [{"betId": "999999", "sizeReduction": 2.0}]}
        report = (await rpc(client, alice, "cancelOrders", cancel))["result"]
        assert report["instructionReports"][0]["errorCode"] == "INVALID_BET_ID", report
        play_games(clock, 1)
    orders = read_tables(record, ["orders"])["orders"].to_pandas()
    (row,) = orders[orders.status == "REJECTED"].itertuples()
    assert (row.market_id, row.action, row.error_code, row.bet_id, row.size) == (
        "holdem.0", "CANCEL", "INVALID_BET_ID", 999999, 200)


async def test_a_replace_of_a_bet_not_the_caller_s_is_recorded_as_a_cancel_of_one_is(
    tmp_path: Path, clock: VirtualClock
) -> None:
    """A bet id never had, and another account's: the server refused the replace itself, before the exchange, and the
    recording never saw it (a cancel of either has its row). The answer is as before, the same for both; the row
    names neither the other account's runner nor its side."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        alice = await login(client, "alice", "pw-alice")
        bob = await login(client, "bob", "pw-bob")
        bobs = (await place_one(client, bob, "holdem.0", 2, "LAY", 3.0, 10.0))["betId"]
        answers = []
        for bet in ("999999", bobs):
            replace = {"marketId": "holdem.0", "instructions": [{"betId": bet, "newPrice": 4.0}]}
            report = (await rpc(client, alice, "replaceOrders", replace))["result"]["instructionReports"][0]
            answers.append((report["errorCode"], report["cancelInstructionReport"]["errorCode"]))
        assert answers == [("INVALID_BET_ID", "INVALID_BET_ID")] * 2
        assert (await rpc(client, bob, "listCurrentOrders", {"betIds": [bobs]}))["result"]["currentOrders"][0][
            "priceSize"]["price"] == 3.0  # bob's bet as it was
        play_games(clock, 1)
    orders = read_tables(record, ["orders"])["orders"].to_pandas()
    rows = orders[orders.status == "REJECTED"]
    assert [(r.account, r.market_id, r.action, r.error_code, r.bet_id, r.price) for r in rows.itertuples()] == [
        ("alice", "holdem.0", "REPLACE", "INVALID_BET_ID", 999999, 4.0),
        ("alice", "holdem.0", "REPLACE", "INVALID_BET_ID", int(bobs), 4.0)]
    assert rows.selection_id.isna().all() and rows.side.isna().all()


async def test_a_refused_reduction_past_any_stake_is_recorded_without_its_size(tmp_path: Path,
                                                                              clock: VirtualClock) -> None:
    """A cancel asking to reduce a bet by 1e20 is refused; its size fits no column (the part failed to convert, the
    recording stopped and the server's stop raised)."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1) as client:
        alice = await login(client, "alice", "pw-alice")
        bob = await login(client, "bob", "pw-bob")
        bet = (await place_one(client, alice, "holdem.0", 1, "BACK", 3.0, 10.0))["betId"]
        await place_one(client, bob, "holdem.0", 1, "LAY", 3.0, 10.0, matched=10.0)
        cancel = {"marketId": "holdem.0", "instructions": [{"betId": bet, "sizeReduction": 1e20}]}
        assert (await rpc(client, alice, "cancelOrders", cancel))["result"]["status"] == "FAILURE"
        play_games(clock, 1)
        await client.app[keys.RECORDING].written()
        assert client.app[keys.RECORDING].stopped is None
    orders = read_tables(record, ["orders"])["orders"].to_pandas()
    (row,) = orders[orders.status == "REJECTED"].itertuples()
    assert row.action == "CANCEL" and pd.isna(row.size)


async def test_games_the_journal_did_not_hold_are_not_recorded(
    tmp_path: Path, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The journal's writer dies: the game that ends meanwhile is not on disk (a restart finds it unsettled), so the
    recording must not say it settled; the game before it, on disk, is written."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=2) as client:
        service = client.app[keys.SERVICE]
        play_games(clock, 1)
        await service.durable()  # game 0 is on disk
        writer = client.app[keys.JOURNAL].writer_pid
        os.kill(writer, signal.SIGKILL)
        os.waitpid(writer, 0)
        with caplog.at_level(logging.ERROR, logger="exchange.server.recording"):
            play_games(clock, 1)  # game 1 ends before the journal has a chance to find its writer gone
            await client.app[keys.RECORDING].written()
        assert service.failure is not None
        assert "recording: games 1 to 1 are not recorded: the journal failed before they were on disk" in caplog.text
    games = read_tables(record, ["games"])["games"].to_pandas()
    assert list(games.market_id) == ["holdem.0"]
    assert all(parts(record, name) == ["part-000000000-000000000.parquet"] for name in TABLES)


async def test_a_fault_in_one_games_rows_keeps_the_games_before_it(
    tmp_path: Path, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each game's rows are converted alone: the fault stops the recording, and the two games waiting for their
    part are still written when the server stops."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=5) as client:
        play_games(clock, 2)
        write = Collector.write

        def broken(self: Collector, tables: dict[str, object]) -> None:
            write(self, tables)  # type: ignore[arg-type]
            raise RuntimeError("half-way")  # this game's rows are written, then something fails

        monkeypatch.setattr(Collector, "write", broken)
        play_games(clock, 1)
        assert client.app[keys.RECORDING].stopped == "RuntimeError: half-way"
    assert parts(record, "games") == ["part-000000000-000000001.parquet"]
    tables = read_tables(record)
    assert list(tables["games"].column("market_id").to_pylist()) == ["holdem.0", "holdem.1"]
    assert "holdem.2" not in set(tables["settlements"].column("market_id").to_pylist())


async def test_a_part_a_crash_left_half_renamed_is_finished_at_the_next_start(tmp_path: Path) -> None:
    """The six renames are not atomic together: a crash between them leaves some tables with the part and the
    rest with it under its hidden name; the next start finishes the renames and removes an unfinished part."""
    record = tmp_path / "rec"
    clock = VirtualClock(start_ms=1_700_000_000_000)
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), record_every=1):
        play_games(clock, 1)
    name = "part-000000000-000000000.parquet"
    for table in ("orders", "settlements"):  # the crash came before these two were renamed
        folder = record / TABLES[table].file_name
        os.replace(folder / name, folder / f".{name}.tmp")
    unfinished = record / TABLES["fills"].file_name / ".part-000000001-000000001.parquet.tmp"
    unfinished.write_bytes(b"half a file")  # a crash while writing the next part
    (record / "streams" / ".holdem.1.tmp").write_text("half a stream file")  # or the stream files before it
    clock = VirtualClock(start_ms=1_700_000_000_000 + 10 * GAME_MS)
    async with serving(tmp_path / "ex.db", clock, accounts=(), record_dir=str(record), record_every=1):
        play_games(clock, 1)
    for table in TABLES:
        assert parts(record, table) == [name, "part-000000001-000000001.parquet"], table
    assert len(read_tables(record)["settlements"].to_pandas().query("game_index == 0")) > 0
    assert hidden_files(record) == []


def test_next_game_index_reads_every_table(tmp_path: Path) -> None:
    for table, last in (("games", 3), ("orders", 5), ("fills", 4)):
        (tmp_path / TABLES[table].file_name).mkdir()
        (tmp_path / TABLES[table].file_name / f"part-000000000-{last:09d}.parquet").write_bytes(b"")
    (tmp_path / TABLES["fills"].file_name / ".part-000000006-000000009.parquet.tmp").write_bytes(b"")
    assert next_game_index(tmp_path) == 6


async def test_a_recording_holds_its_folder_while_the_server_runs(tmp_path: Path, clock: VirtualClock) -> None:
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record)):
        with pytest.raises(RecordingRefused, match=f"another server is recording into {record}"):
            check_folder(record)
        with pytest.raises(RecordingRefused, match=f"another server is recording into {record}"):
            async with serving(tmp_path / "other.db", clock, record_dir=str(record)):
                pytest.fail("a second server started recording into the folder")
    check_folder(record)  # given up when the server stopped


@contextlib.contextmanager
def held_lock(record: Path) -> Iterator[None]:
    """``record``'s lock held as another server's recording holds it."""
    record.mkdir(exist_ok=True)
    fd = os.open(record / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def test_serve_refuses_a_folder_another_server_records_into(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "rec"
    refusal = f"--record {record}: another server is recording into {record} (it holds {LOCK_NAME} there)"
    with held_lock(record):
        code, out, err = refused_serve(capsys, "--db", str(tmp_path / "a.db"), "--record", str(record))
        assert (code, out) == (2, "") and refusal in err and err.count("\n") == 1, err
        assert not (tmp_path / "a.db").exists()  # refused before the server started
        # the lock taken between that check and the start: the start refuses it the same way
        monkeypatch.setattr(record_folder, "check_folder", lambda directory: None)
        code, out, err = refused_serve(capsys, "--db", str(tmp_path / "b.db"), "--record", str(record))
        assert (code, out) == (2, "") and refusal in err and err.count("\n") == 1, err


@pytest.mark.parametrize("options", [["--record-every", "5"], ["--record-every-minutes", "2"],
                                     ["--record-every", "5", "--record-every-minutes", "2"]])
def test_the_recordings_options_alone_are_refused(options: list[str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = refused_serve(capsys, "--db", str(tmp_path / "ex.db"), *options)
    given = " and ".join(o for o in options if o.startswith("--"))
    assert (code, out, err) == (2, "", f"exchange-poker: error: {given}: the recording's, given without --record DIR\n")


async def record_games(db: Path, record: Path, games: int, start_ms: int) -> None:
    clock = VirtualClock(start_ms=start_ms)
    async with serving(db, clock, accounts=(), record_dir=str(record), record_every=1):
        play_games(clock, games)


def test_a_folder_another_exchange_recorded_is_refused_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh database deals holdem.0 again: recording it beside the old holdem.0 would repeat market ids (the
    notebook failed on them). Only the start knows what the exchange has dealt: the command line's check passes a
    folder naming no exchange (recorded before folders named theirs), and one naming another is refused by the
    command line before the database is made (below)."""
    record = tmp_path / "rec"
    asyncio.run(record_games(tmp_path / "old.db", record, 2, START_MS))
    (record / EXCHANGE_NAME).unlink()
    code, out, err = refused_serve(capsys, "--db", str(tmp_path / "new.db"), "--record", str(record))
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert (f"--record {record}: {record} holds holdem.1, a game this exchange has not dealt yet (it has dealt no "
            "holdem game): it is another exchange's recording") in err  # (not "numbered below 0")
    asyncio.run(record_games(tmp_path / "old.db", record, 1, START_MS + 10 * GAME_MS))  # its own exchange goes on
    assert parts(record, "games")[-1] == "part-000000002-000000002.parquet"


def test_a_folder_naming_an_exchange_is_refused_for_a_new_database_before_it_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database that does not exist yet would be a new exchange: a folder naming one is another's, refused on one
    line before anything is opened (the database, its lock and its durable mark were made, and a recovery logged)."""
    record = tmp_path / "rec"
    asyncio.run(record_games(tmp_path / "old.db", record, 1, START_MS))
    code, out, err = refused_serve(capsys, "--db", str(tmp_path / "new.db"), "--record", str(record))
    theirs = (record / EXCHANGE_NAME).read_text().strip()
    assert (code, out, err) == (2, "", f"exchange-poker: error: --record {record}: it is another exchange's recording "
                                       f"(it names {theirs}, and the database {tmp_path / 'new.db'} does not exist "
                                       "yet: it would be a new exchange); record into another folder, or give the "
                                       "--db that recorded it\n")
    assert not list(tmp_path.glob("new.db*"))


def test_serve_refuses_a_lock_file_it_cannot_open(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "rec"
    (record / LOCK_NAME).mkdir(parents=True)  # in the way of the lock file
    code, out, err = refused_serve(capsys, "--db", str(tmp_path / "a.db"), "--record", str(record))
    assert (code, out) == (2, "") and f"--record {record}: cannot record into {record}: Is a directory" in err, err


def test_a_start_that_fails_after_the_recording_was_made_gives_its_folder_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the games could not start")

    monkeypatch.setattr(ExchangeService, "start", broken)
    record = tmp_path / "rec"
    with pytest.raises(RuntimeError, match="the games could not start"):
        refused_serve(capsys, "--db", str(tmp_path / "a.db"), "--record", str(record))
    check_folder(record)  # its lock is not held any more


def test_serve_says_where_it_records(tmp_path: Path) -> None:
    """The startup lines name the folder, the first game_index and when parts are written; the recording
    carries on from the folder's last game (two parts there already)."""
    record = tmp_path / "rec"
    asyncio.run(record_games(tmp_path / "ex.db", record, 2, START_MS))
    with ServerProcess(tmp_path / "ex.db", "--record", str(record), "--record-every", "7",
                       "--record-every-minutes", "2.5") as server:
        line = next(line for line in server.out.read_text().splitlines() if line.startswith("  record:"))
    assert line == (f"  record:   the tables of every game that ends, {record.resolve()}/<table>.parquet/ (from "
                    "game_index 2; a part every 7 games or 2.5 minutes, and at the stop)")


def test_the_folder_check_leaves_a_folder_as_it_found_it(tmp_path: Path) -> None:
    """The check made the tables' folders, the lock and ``.pending``, and left them: a folder that then looked like a
    recording, which a backtest refused (a server refused after the check, on its port, leaves nothing now)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("mine")
    check_folder(empty)
    assert [p.name for p in empty.iterdir()] == ["notes.txt"]
    check_folder(tmp_path / "new" / "rec")
    assert not (tmp_path / "new").exists()


def test_a_refused_folder_check_removes_nothing_another_server_made(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Another server made the folder and took it while the check ran: the check, refused, removed the folder it
    thought it had made, that server's lock and recording with it (found by a review)."""
    record, other = tmp_path / "rec", list[record_folder.RecordFolder]()
    first_look, taking = record_folder.next_game_index, list[bool]()

    def another_server_takes_it(directory: Path) -> int:
        if not taking:  # (once: the other server's own look comes here too)
            taking.append(True)
            other.append(record_folder.RecordFolder(directory))
        return first_look(directory)

    monkeypatch.setattr(record_folder, "next_game_index", another_server_takes_it)
    with pytest.raises(RecordingRefused, match="another server is recording"):
        check_folder(record)
    assert (record / LOCK_NAME).exists() and (record / ".pending").is_dir()
    other[0].close()
