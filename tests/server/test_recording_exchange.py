"""``serve --record DIR`` records one exchange per folder: ``DIR/.exchange-id`` names it.

An exchange's id is made when its database is first opened and kept there (a copy of the database keeps it). A
folder naming another exchange is refused at the start, also where the two exchanges' market ids do not collide
(the check of the games dealt cannot see that case); a folder naming none is named by the first exchange that
records into it.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from exchange.clock import VirtualClock
from exchange.server.journal import Journal
from exchange.server.record_folder import EXCHANGE_NAME
from exchange.tables.outputs import read_tables
from tests.server.helpers import START_MS, serving
from tests.server.test_recording import GAME_MS, parts, play_games, record_games, refused_serve


def exchange_of(db: Path) -> str:
    journal = Journal.open(str(db))
    try:
        return journal.exchange_id()
    finally:
        journal.close()


async def deal(db: Path, games: int) -> None:
    """``games`` games of a server recording nothing."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(db, clock, accounts=()):
        play_games(clock, games)


def test_an_exchanges_id_is_kept_in_its_database(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    first = exchange_of(db)
    assert exchange_of(db) == first
    shutil.copy(db, tmp_path / "copy.db")
    assert exchange_of(tmp_path / "copy.db") == first  # a backup restored is the same exchange
    assert exchange_of(tmp_path / "other.db") != first


def test_a_folder_naming_another_exchange_is_refused_where_no_market_id_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other exchange has dealt past the folder's games: recording would not repeat a market id, but it would
    mix two exchanges' games in one set of tables."""
    record = tmp_path / "rec"
    asyncio.run(record_games(tmp_path / "old.db", record, 1, START_MS))
    assert (record / EXCHANGE_NAME).read_text() == f"{exchange_of(tmp_path / 'old.db')}\n"
    asyncio.run(deal(tmp_path / "new.db", 3))
    code, out, err = refused_serve(capsys, "--db", str(tmp_path / "new.db"), "--record", str(record))
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert (f"--record {record}: {record} is another exchange's recording (its .exchange-id names "
            f"{exchange_of(tmp_path / 'old.db')}, this database's exchange is {exchange_of(tmp_path / 'new.db')})"
            in err)
    assert parts(record, "games") == ["part-000000000-000000000.parquet"]  # nothing of the new exchange's
    asyncio.run(record_games(tmp_path / "old.db", record, 1, START_MS + 10 * GAME_MS))  # its own goes on
    assert parts(record, "games")[-1] == "part-000000001-000000001.parquet"


def test_a_folder_naming_no_exchange_is_named_by_the_first_that_records(tmp_path: Path) -> None:
    """A recording made before folders named their exchange carries on, and is named from then on; a moved copy of
    the database records on into it."""
    record = tmp_path / "rec"
    asyncio.run(record_games(tmp_path / "old.db", record, 1, START_MS))
    (record / EXCHANGE_NAME).unlink()
    asyncio.run(record_games(tmp_path / "old.db", record, 1, START_MS + 10 * GAME_MS))
    assert (record / EXCHANGE_NAME).read_text() == f"{exchange_of(tmp_path / 'old.db')}\n"
    shutil.move(tmp_path / "old.db", tmp_path / "moved.db")
    asyncio.run(record_games(tmp_path / "moved.db", record, 1, START_MS + 20 * GAME_MS))
    games = read_tables(record, ["games"])["games"].to_pandas().sort_values("game_index")
    assert list(games.game_index) == [0, 1, 2] and games.market_id.is_unique
