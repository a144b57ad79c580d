"""``serve --record DIR`` writes each recorded market's Betfair stream file, ``DIR/streams/<marketId>``.

As a backtest's folder has them: betfairlightweight rebuilds each market from its file as the tables say it
ended, the file of a game appears with its part (not while the game is held, nor while it is played), and
files that cannot be written are tried again with the next part.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.tables.outputs import read_tables
from tests.backtest.backtest_support import market_books
from tests.server.helpers import serving
from tests.server.test_recording import CHANNELS_RUN, play_games, trade


def stream_files(record: Path) -> dict[str, str]:
    """The stream files readers see in ``record`` (not those under a hidden name), by market id."""
    return {p.name: p.read_text() for p in (record / "streams").iterdir() if not p.name.startswith(".")}


async def test_each_market_written_has_a_stream_file_that_rebuilds_it(tmp_path: Path, clock: VirtualClock) -> None:
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, channels=CHANNELS_RUN, equities=None, record_dir=str(record),
                       record_every=2) as client:
        await trade(client, 0)
        play_games(clock, 2)
        await client.app[keys.RECORDING].written()
        # two games of each channel ended, in two parts; the third games are under way and have no file yet
        assert sorted(stream_files(record)) == ["holdem.0", "holdem.1", "omaha-hilo.0", "omaha-hilo.0-low",
                                                "omaha-hilo.1", "omaha-hilo.1-low"]
    tables = read_tables(record)
    games = tables["games"].to_pylist()
    assert len(stream_files(record)) == len(games) + sum(g["low_market_id"] is not None for g in games)
    traded: dict[tuple[str, int], int] = defaultdict(int)
    for fill in tables["fills"].to_pylist():
        traded[(fill["market_id"], fill["selection_id"])] += fill["size"]
    assert traded == {("holdem.0", 1): 1000, ("omaha-hilo.0-low", 2): 1000}  # what alice and bob matched
    for game in games:
        markets = [(game["market_id"], game["winners"])]
        if game["low_market_id"] is not None:
            markets.append((game["low_market_id"], game["low_winners"]))
        for market_id, winners in markets:
            path = record / "streams" / market_id
            first = json.loads(path.read_text().splitlines()[0])
            assert first["pt"] == game["start_ms"] and first["mc"][0]["img"] is True
            books = market_books(path)
            assert books[0].status == "OPEN" and books[-1].status == "CLOSED", market_id
            won = {int(w) for w in winners.split(",")}
            for runner in books[-1].runners:
                assert runner.status == ("WINNER" if runner.selection_id in won else "LOSER"), market_id
                assert round(runner.total_matched * 100) == traded.get((market_id, runner.selection_id), 0)
