"""The Betfair stream recordings: betfairlightweight reads them, flumine backtests over them."""

from __future__ import annotations

import importlib.util
import itertools
import json
import multiprocessing
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from exchange.backtest.loading import StrategySpec
from exchange.backtest.replay import ReplayError, load_timeline
from exchange.backtest.runner import run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.betfair.stream import EVENT_TYPE_ID
from exchange.clock import VirtualClock
from exchange.core.events import MarketCreated
from exchange.game.channels import get_channel
from exchange.game.events import GameStarted, Stamped
from exchange.tables.outputs import TableWriter
from exchange.tables.streams import StreamFeed
from tests.backtest.backtest_support import (
    Run,
    flumine_backs_the_winners,
    flumine_replay,
    market_books,
    small_config,
)


def test_every_line_is_an_mcm_with_clk_pt_and_a_full_first_image(small_run: Run) -> None:
    path = small_run.out / "streams" / "holdem.0"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(m["op"] == "mcm" and isinstance(m["clk"], str) and isinstance(m["pt"], int) for m in lines)
    # one message per instant, as Betfair's historical files: the events of one millisecond come over several turns
    # of the clock (a window opens, then the house quotes in it), each was a line of its own at the same pt
    assert all(a["pt"] < b["pt"] for a, b in itertools.pairwise(lines))
    first = lines[0]["mc"][0]
    assert first["img"] is True and first["id"] == "holdem.0"
    definition = first["marketDefinition"]
    assert definition["status"] == "OPEN" and definition["bettingType"] == "ODDS"
    assert [r["id"] for r in definition["runners"]] == [1, 2, 3, 4]
    assert {r["sortPriority"] for r in definition["runners"]} == {1, 2, 3, 4}
    assert all({"id", "atb", "atl", "tv"} <= rc.keys() for rc in first["rc"])
    versions = [m["mc"][0]["marketDefinition"]["version"] for m in lines if "marketDefinition" in m["mc"][0]]
    # The market's version counts its definition changes; created and opened at the same instant, the first
    # image already shows version 2 (as listMarketBook does then), and every later definition a higher one.
    assert versions[0] == 2 and all(a < b for a, b in itertools.pairwise(versions))
    assert lines[-1]["mc"][0]["marketDefinition"]["status"] == "CLOSED"


def test_betfairlightweight_rebuilds_each_market_as_it_ended(small_run: Run) -> None:
    tables = small_run.result.tables
    traded: dict[tuple[str, int], int] = defaultdict(int)
    for f in tables["fills"].to_pylist():
        traded[(f["market_id"], f["selection_id"])] += f["size"]
    for game in tables["games"].to_pylist():
        books = market_books(small_run.out / "streams" / game["market_id"])
        statuses = [b.status for b in books]
        assert statuses[0] == "OPEN" and statuses[-1] == "CLOSED" and "SUSPENDED" in statuses
        final = books[-1]
        definition = final.market_definition
        assert definition.market_type == "WIN" and definition.number_of_winners == 1
        assert definition.event_type_id == EVENT_TYPE_ID and definition.betting_type == "ODDS"
        winners = {int(w) for w in game["winners"].split(",")}
        for runner in final.runners:
            assert runner.status == ("WINNER" if runner.selection_id in winners else "LOSER")
            expected = traded.get((game["market_id"], runner.selection_id), 0)
            assert round(runner.total_matched * 100) == expected
        assert round(final.total_matched * 100) == game["total_matched"]
        assert any(b.inplay for b in books) and not books[0].inplay


def test_a_flumine_backtest_replays_the_recorded_markets(small_run: Run) -> None:
    """Back one hand in each market through flumine's own simulation; it settles them by our dead-heat rule.

    Run in a fresh process: importing flumine patches betfairlightweight's classes for the whole process.
    """
    # flumine is a test dependency: missing, it is a failure. Only look it up here; importing it would patch bflw.
    assert importlib.util.find_spec("flumine") is not None, "flumine is missing: pip install '.[test]'"
    games = {g["market_id"]: g for g in small_run.result.tables["games"].to_pylist()}
    files = sorted(str(p) for p in (small_run.out / "streams").iterdir())
    assert len(files) == len(games)
    tied = flumine_backs_the_winners(games, files)
    assert any(n > 1 for n in tied), "flumine should have settled at least one dead heat"


def test_a_game_misdealt_at_its_deal_is_met_by_flumine_before_it_closes(tmp_path: Path) -> None:
    """A misdeal voids the market in the millisecond it was created: its file's one line was a closed image, and
    flumine's simulation, meeting a market already closed, called none of a strategy's hooks for it ("Market
    holdem.3 not present when closing"). The file starts with the market as created, runners and all, then closes
    at the same ``pt``."""
    config = replace(small_config(), games=12, seed=5, irregularity_rate=1.0)
    with InlineExecutor() as executor:
        games = {g["market_id"]: g for g in run_backtest(config, executor, tmp_path).tables["games"].to_pylist()}
    voided = sorted(m for m, g in games.items() if g["status"] == "VOID")
    assert voided, "seed 5 must misdeal a game for this test to mean anything"
    for market_id in games:
        lines = [json.loads(line)["mc"][0] for line in (tmp_path / "streams" / market_id).read_text().splitlines()]
        first = lines[0]["marketDefinition"]
        assert first["status"] != "CLOSED" and [r["status"] for r in first["runners"]] == ["ACTIVE"] * 4, market_id
        assert lines[-1]["marketDefinition"]["status"] == "CLOSED"
    files = [str(tmp_path / "streams" / m) for m in voided]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        _, closed = pool.submit(flumine_replay, files, {m: 1 for m in voided}).result(timeout=120)
    assert sorted(closed) == voided  # each closed as flumine's own market, its process_closed_market called


def test_a_backtest_written_over_an_older_one_leaves_only_its_own_recordings(tmp_path: Path) -> None:
    """``streams/`` is the backtest's: a rerun into the same ``--out`` (fewer games, another channel, or no streams
    at all) leaves no recording of the older run to be read as this one's (by flumine, or by the replay, which
    refuses a folder without recordings)."""
    out = tmp_path / "out"
    with InlineExecutor() as executor:
        run_backtest(replace(small_config(), games=3), executor, out)
        assert sorted(p.name for p in (out / "streams").iterdir()) == ["holdem.0", "holdem.1", "holdem.2"]
        (out / "notes.txt").write_text("mine")
        run_backtest(replace(small_config(), games=1, channel="omaha"), executor, out)
        assert sorted(p.name for p in (out / "streams").iterdir()) == ["omaha.0"]
        run_backtest(replace(small_config(), games=1, record_streams=False), executor, out)
    assert not (out / "streams").exists()
    assert (out / "notes.txt").read_text() == "mine", "nothing else in the folder is touched"
    with pytest.raises(ReplayError, match="--no-streams"):
        load_timeline(out)


FAILS_IN_GAME_2 = """
from exchange.backtest.strategy import Strategy


class FailsInGame2(Strategy):
    def on_market_open(self, market):
        if market.market_id == "holdem.2":
            raise RuntimeError("a strategy's bug in game 2")
"""


def test_a_backtest_that_fails_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    """Nothing of a run that fails reaches ``--out``: an earlier backtest there keeps its tables and recordings,
    byte for byte (not the recordings of the games the failed run had finished, nor half-written tables), and no
    staging folder is left behind."""
    out = tmp_path / "out"
    with InlineExecutor() as executor:
        run_backtest(replace(small_config(), games=2), executor, out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    source = tmp_path / "fails.py"
    source.write_text(FAILS_IN_GAME_2)
    failing = replace(small_config(), strategy=StrategySpec.parse(f"{source}:FailsInGame2"), games=3, seed=2)
    with InlineExecutor() as executor, pytest.raises(RuntimeError, match="a strategy's bug in game 2"):
        run_backtest(failing, executor, out, chunk_size=1)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert {p.name for p in out.iterdir()} == {p.parts[0] for p in before}, "no staging folder is left"


def test_a_failure_to_close_the_unfinished_tables_does_not_hide_why_the_run_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The strategy's error is the one raised, with a note of what went wrong while throwing its files away (a
    disk that fills as the tables are closed, here made to fail on purpose), and no staging folder is left."""

    def cannot_close(self: TableWriter) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TableWriter, "abandon", cannot_close)
    source = tmp_path / "fails.py"
    source.write_text(FAILS_IN_GAME_2)
    failing = replace(small_config(), strategy=StrategySpec.parse(f"{source}:FailsInGame2"), games=3, seed=2)
    out = tmp_path / "out"
    with InlineExecutor() as executor, pytest.raises(RuntimeError, match="a strategy's bug in game 2") as raised:
        run_backtest(failing, executor, out, chunk_size=1)
    notes = getattr(raised.value, "__notes__", [])
    assert any("No space left on device" in note for note in notes), notes
    assert not out.exists(), "no staging folder is left, nor the folder the run made for it"


#: When the recorded game starts (ms since the epoch, as the events are stamped).
START_MS = 1_767_225_600_000


def test_a_recording_starts_once_its_market_exists() -> None:
    """On the live server a game's first event can come a millisecond before its market's creation (the loop
    turning between): the feed recorded an image with no runners, which flumine took for the market's first book.
    Nothing is recorded before the creation; the first line lists the runners."""
    clock = VirtualClock(START_MS)
    config = get_channel("holdem")
    feed = StreamFeed(clock, "holdem.0", config, START_MS)
    feed.on_event(Stamped(0, START_MS, "holdem.0", GameStarted("holdem", 0, config.variant, 4, ())))
    clock.advance(1)  # the feed's flush of the instant runs
    feed.on_event(Stamped(1, START_MS + 1, "holdem.0", MarketCreated(START_MS + 1, "holdem.0", (1, 2, 3, 4), 200, 250)))
    clock.advance(1)
    lines = [json.loads(line)["mc"][0] for line in feed.text().splitlines()]
    assert [[r["id"] for r in line["marketDefinition"]["runners"]] for line in lines] == [[1, 2, 3, 4]]
