"""``serve --record DIR`` writes each recorded market's Betfair stream file, ``DIR/streams/<marketId>``, and
``exchange-poker replay`` shows a recording as it shows a backtest.

As a backtest's folder has them: betfairlightweight rebuilds each market from its file as the tables say it
ended, and the file of a game appears with its part (not while the game is held, nor while it is played; the
tests of holding and of failed parts are in ``test_recording_kill.py`` and ``test_recording.py``).
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from exchange.backtest.replay import ReplayError, game_snapshot, load_timeline
from exchange.backtest.replay_server import PLAYER, create_replay_app
from exchange.cli import main
from exchange.clock import VirtualClock
from exchange.game.channels import CHANNELS
from exchange.server import keys
from exchange.tables.outputs import TABLES, read_tables
from tests.backtest.backtest_support import flumine_backs_the_winners, market_books
from tests.server.helpers import PLAYING_MS, WINDOW_MS, serving
from tests.server.test_recording import CHANNELS_RUN, GAME_MS, play_games, trade


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
            lines = [json.loads(line) for line in path.read_text().splitlines()]
            assert lines[0]["pt"] == game["start_ms"] and lines[0]["mc"][0]["img"] is True
            assert all(a["pt"] < b["pt"] for a, b in itertools.pairwise(lines)), market_id  # one message an instant
            books = market_books(path)
            assert books[0].status == "OPEN" and books[-1].status == "CLOSED", market_id
            won = {int(w) for w in winners.split(",")}
            for runner in books[-1].runners:
                assert runner.status == ("WINNER" if runner.selection_id in won else "LOSER"), market_id
                assert round(runner.total_matched * 100) == traded.get((market_id, runner.selection_id), 0)


async def test_the_replay_shows_a_recorded_channel_with_an_accounts_bets(
    tmp_path: Path, clock: VirtualClock, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exchange-poker replay DIR --account NAME --channel NAME`` on a recording: the games of one channel, dealt as
    numbered live, on the windows the server played (the tests' short ones, not the channel's), with the account's
    bets as the exchange matched and settled them."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, channels=CHANNELS_RUN, equities=None,
                       record_dir=str(record)) as client:
        await trade(client, 0)
        play_games(clock, 2)
        exchange = client.app[keys.SERVICE].exchange
        result = exchange.market_result("alice", "omaha-hilo.0-low")
    with pytest.raises(ReplayError, match=r"is a server's recording: choose whose bets to show with --account \(the "
                                          r"accounts that bet in it: alice, bob\)"):
        load_timeline(record)
    empty = tmp_path / "empty"  # a recording begun, no game ended yet
    for name in ("games", "orders", "fills", "settlements", "streams"):
        (empty / (name if name == "streams" else f"{name}.parquet")).mkdir(parents=True)
    with pytest.raises(ReplayError, match=r"choose whose bets to show with --account \(the accounts that bet in it: "
                                          r"none yet\)"):
        load_timeline(empty)
    with pytest.raises(ReplayError, match="the folder has no games to replay"):
        load_timeline(empty, "alice")
    with pytest.raises(ReplayError, match=r"'alcie' placed no bet on the omaha-hilo games of .*: the page would show "
                                          r"no bets \(the accounts that did: alice, bob\)"):
        load_timeline(record, "alcie", "omaha-hilo")
    assert main(["replay", str(record), "--account", "alice"]) == 2
    assert capsys.readouterr().err == ("exchange-poker: error: the folder holds games of 2 channels (holdem, "
                                       "omaha-hilo): choose one with --channel\n")
    with pytest.raises(ReplayError, match="holds no game of channel 'stud7'; it holds holdem, omaha-hilo"):
        load_timeline(record, "alice", "stud7")

    timeline = load_timeline(record, "alice", "omaha-hilo")
    assert [(g.market_id, g.game_number) for g in timeline.games] == [("omaha-hilo.0", 0), ("omaha-hilo.1", 1)]
    shouted = load_timeline(record, "ALICE", "omaha-hilo")  # names are the same whatever their case, as the server's
    assert shouted.account == "alice" and shouted.games[0].settlements == timeline.games[0].settlements != []
    first = timeline.games[0]
    assert [w.length_ms for w in first.windows] == [WINDOW_MS] * CHANNELS["omaha-hilo"].windows
    assert first.windows[1].opens_ms - first.windows[0].closes_ms == PLAYING_MS
    assert first.closed_ms is not None and first.start_ms < first.closed_ms <= first.end_ms
    assert [len(m.stream) > 2 for m in first.markets] == [True, True]  # High and Low, each from its own file
    orders = game_snapshot(first, first.end_ms)["game"]["orders"]
    assert [(o["marketId"], o["selectionId"], o["side"], o["sizeMatched"]) for o in orders] == [
        ("omaha-hilo.0-low", 2, "BACK", 10.0)]
    (settled,) = timeline.settled_before(timeline.length_ms)
    assert settled["marketId"] == "omaha-hilo.0-low"
    assert round(settled["profit"] * 100) == result.profit - result.commission
    assert game_snapshot(timeline.games[1], timeline.games[1].end_ms)["game"]["orders"] == []
    assert create_replay_app(timeline)[PLAYER].state()["account"] == "alice"  # the page says whose bets they are

    # who placed a bet is asked of the channel's games, and a refused one is none: carol's only bet was refused,
    # dave bet on the hi/lo channel only
    others = [{name: None for name in TABLES["orders"].schema.names} | row for row in (
        {"game_index": 0, "market_id": "holdem.0", "account": "carol", "error_code": "INSUFFICIENT_FUNDS"},
        {"game_index": 0, "market_id": "omaha-hilo.0-low", "account": "dave", "error_code": None})]
    pq.write_table(pa.Table.from_pylist(others, schema=TABLES["orders"].schema),
                   record / "orders.parquet" / "part-999999998-999999999.parquet")
    for account, channel in (("carol", "holdem"), ("dave", "holdem")):
        with pytest.raises(ReplayError, match=rf"'{account}' placed no bet on the holdem games .*\(the accounts that "
                                              r"did: alice, bob\)"):
            load_timeline(record, account, channel)
    assert load_timeline(record, "dave", "omaha-hilo").account == "dave"
    (record / "orders.parquet" / "part-999999998-999999999.parquet").unlink()

    # a recording begun by an older version: its first part has no window columns, the next part has them
    (part,) = (record / "games.parquet").iterdir()
    games = pq.read_table(part)
    older = games.filter(pc.less(games["game_index"], 2)).drop_columns(["betting_window_ms", "playing_window_ms"])
    pq.write_table(older, part.with_name("part-000000000-000000001.parquet"))
    pq.write_table(games.filter(pc.greater_equal(games["game_index"], 2)),
                   part.with_name("part-000000002-000000003.parquet"))
    part.unlink()
    older_game, newer_game = load_timeline(record, "alice", "omaha-hilo").games
    assert older_game.windows[0].length_ms == CHANNELS["omaha-hilo"].betting_window_ms  # the channel's
    assert newer_game.windows[0].length_ms == WINDOW_MS


@pytest.mark.parametrize("apart_ms", [10 * GAME_MS, 2 * GAME_MS])
async def test_the_replay_skips_the_time_the_server_was_stopped(apart_ms: int, tmp_path: Path) -> None:
    """A recording over two runs of the server, ten games' time apart or two (a wait of one game after the first
    run's game: only longer ones were cut): the replay plays the second run's game a playing window after the
    first's, not after the wait, and each on its own recorded time."""
    record = tmp_path / "rec"
    starts = [1_700_000_000_000, 1_700_000_000_000 + apart_ms]
    for run, start in enumerate(starts):
        clock = VirtualClock(start_ms=start)
        async with serving(tmp_path / "ex.db", clock, accounts=("alice",) if run == 0 else (),
                           record_dir=str(record)):
            play_games(clock, 1)
    timeline = load_timeline(record, "alice")
    first, second = timeline.games
    assert (first.market_id, second.market_id) == ("holdem.0", "holdem.2")  # holdem.1 was under way at the stop
    assert (first.start_ms, second.start_ms) == (starts[0], starts[1])
    later = timeline.next_start(0)
    assert later == GAME_MS + PLAYING_MS and timeline.length_ms == 2 * GAME_MS + PLAYING_MS
    assert timeline.place_at(later - 1) == 0 and timeline.place_at(later) == 1
    assert timeline.recorded_ms(later) == second.start_ms
    assert timeline.recorded_ms(later - 1) == first.end_ms + PLAYING_MS - 1
    dealt = timeline.snapshot(later)["game"]
    assert (dealt["id"], dealt["round"], dealt["bettingOpen"]) == ("holdem.2", 1, True)
    assert [s["marketId"] for s in timeline.settled_before(later)] == []  # alice did not bet
    assert [r["id"] for r in timeline.results_before(later)] == ["holdem.0"]
    assert [r["id"] for r in timeline.results_before(timeline.length_ms)] == ["holdem.2", "holdem.0"]


async def test_flumine_backtests_a_live_sessions_markets(tmp_path: Path, clock: VirtualClock) -> None:
    """A flumine simulation over a live session's stream files (the house quoting) backs the winner of each market
    at its best price, and settles each bet as the recording says the market ended (in a fresh process: importing
    flumine patches betfairlightweight for the whole process)."""
    record = tmp_path / "rec"
    async with serving(tmp_path / "ex.db", clock, record_dir=str(record), house=True):
        play_games(clock, 3)
    games = {g["market_id"]: g for g in read_tables(record, ["games"])["games"].to_pylist()}
    assert sorted(games) == ["holdem.0", "holdem.1", "holdem.2"]
    files = sorted(str(record / "streams" / market_id) for market_id in games)
    assert flumine_backs_the_winners(games, files), "flumine should have matched a back at the house's prices"
