"""A reveal never stalls the server (issue "the server fails safe", item 9).

Two parts: the game with an equity runner that answers later (a virtual
clock, the result handed over by the test), and a real ``serve`` process on a
cold engine cache, whose first game must keep every window at its full length.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

from exchange.clock import VirtualClock
from exchange.core.exchange import Exchange
from exchange.core.market import MarketStatus
from exchange.game.channel import Channel
from exchange.game.channels import HOLDEM
from exchange.game.deal import seeded_decks
from exchange.game.rounds import Round
from exchange.game.table import Phase
from exchange.server.journal import Journal
from tests.game.helpers import Later
from tests.server.serverproc import ServerProcess

POLL_S = 0.05  # the pause between two snapshots the page-like poller asks for
#: How late a wall-clock timer or an answer may be and still not be a stall. Compiling a kernel or building the
#: tables inside the loop stalls it for many seconds (a cold first run takes tens); a loaded host (load 10 on two
#: cores) makes timers fire a few hundred ms late, and an answer that waits for the journal later still. The margin
#: tells the two apart without timing the machine.
STALL_S = 2.0
#: How far from its length a betting window may be in the journal: its timers fired late, no more (a stall in the
#: loop stretches or cuts one by a second or more).
WINDOW_TOLERANCE_S = 1.0
#: How long the watch may take: the first game's first three windows (3 s each) with their reveals, which a loaded
#: host can hold shut for a while (a reveal's equities are computed beside the loop).
WATCH_S = 60


def _channel(runner: Later) -> tuple[Channel, VirtualClock, Exchange]:
    clock, exchange = VirtualClock(start_ms=0), Exchange()
    channel = Channel(HOLDEM, clock, exchange, decks=seeded_decks(3), runner=runner)
    channel.start(games=1)
    return channel, clock, exchange


def test_a_result_in_time_keeps_the_timetable_to_the_millisecond() -> None:
    runner = Later()
    channel, clock, exchange = _channel(runner)
    game = channel.current
    assert game is not None
    deal, preflop = game.windows[0], game.windows[1]
    clock.run(until_ms=deal.closes_ms)
    assert game.phase is Phase.PLAYING and len(runner.jobs) == 1
    clock.run(until_ms=deal.closes_ms + 10)  # the result arrives 10 ms later, well inside the playing window
    runner.deliver()
    clock.run(until_ms=preflop.opens_ms)
    assert game.round is Round.PREFLOP and game.phase is Phase.BETTING
    assert exchange.market_status(game.market_id) is MarketStatus.ACTIVE
    clock.run(until_ms=preflop.closes_ms - 1)
    assert game.phase is Phase.BETTING
    clock.run(until_ms=preflop.closes_ms)
    assert game.phase is Phase.PLAYING


def test_a_late_result_holds_the_window_shut_until_it_comes_and_the_close_stays_on_time() -> None:
    runner = Later()
    channel, clock, exchange = _channel(runner)
    game = channel.current
    assert game is not None
    preflop = game.windows[1]
    clock.run(until_ms=preflop.opens_ms + 2_000)
    assert game.phase is Phase.PLAYING  # no one trades hands whose fate is not yet known
    assert exchange.market_status(game.market_id) is MarketStatus.SUSPENDED
    runner.deliver()
    assert game.round is Round.PREFLOP and game.phase is Phase.BETTING
    clock.run(until_ms=preflop.closes_ms)
    assert game.phase is Phase.PLAYING and game.windows[1] == preflop


def test_the_whole_game_with_late_results_ends_as_it_does_inline() -> None:
    inline_clock = VirtualClock()
    inline_channel = Channel(HOLDEM, inline_clock, Exchange(), decks=seeded_decks(3))
    inline_channel.start(games=1)
    inline_clock.run()
    expected = inline_channel.game("holdem.0")
    runner = Later()
    channel, clock, _ = _channel(runner)
    while runner.jobs or clock.pending:
        clock.run(until_ms=clock.now() + 500)
        while runner.jobs:
            runner.deliver()
    game = channel.game("holdem.0")
    assert game is not None and expected is not None
    assert game.phase is Phase.FINISHED and game.winners == expected.winners
    assert game.public.board == expected.public.board


def test_a_result_after_a_halt_is_ignored_and_a_failure_voids_the_game() -> None:
    runner = Later()
    channel, clock, _ = _channel(runner)
    game = channel.current
    assert game is not None
    clock.run(until_ms=game.windows[0].closes_ms)
    channel.halt()
    runner.deliver()
    assert game.round is Round.DEAL and game.phase is Phase.PLAYING

    runner = Later()
    channel, clock, exchange = _channel(runner)
    game = channel.current
    assert game is not None
    clock.run(until_ms=game.windows[0].closes_ms)
    runner.fail()
    assert game.phase is Phase.VOID
    assert exchange.market_status(game.market_id) is MarketStatus.VOID


def _snapshot(port: int) -> tuple[dict[str, object], float]:
    began = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/games/v1/channels/holdem/snapshot", timeout=30) as resp:
        body = json.load(resp)
    return body, time.perf_counter() - began


@pytest.mark.timeout(420)  # a start of up to 240 s, the watch and the stop: past the suite's 300 s a test
def test_a_cold_engine_cache_is_warmed_before_listening_and_the_first_game_keeps_full_windows(tmp_path: Path) -> None:
    """A fresh install: empty table and numba caches. Every window of the first game lasts its 3 s."""
    cache = tmp_path / "cache"
    env = {"EXCHANGE_POKER_CACHE_DIR": str(cache / "tables"), "NUMBA_CACHE_DIR": str(cache / "numba"),
           "PYTHONUNBUFFERED": "1"}
    window_s, playing_s = 3.0, 1.0
    with ServerProcess(tmp_path / "ex.db", window_s=window_s, playing_s=playing_s, seed=5, house=True,
                       start_timeout_s=240, env=env) as server:  # the port opens only once the engine is warm
        text = server.log()
        assert "first run: building its tables and compiling its kernels" in text
        assert "poker engine ready in" in text
        seen: dict[tuple[object, object], list[float]] = {}  # (game, round) -> times seen open
        slowest = widest = 0.0  # the longest request; the longest time between two sightings
        deadline, last = time.monotonic() + WATCH_S, time.monotonic()
        while time.monotonic() < deadline and not any(key[0] != "holdem.0" or key[1] == 4 for key in seen):
            body, took = _snapshot(server.port)
            now = time.monotonic()
            slowest, widest, last = max(slowest, took), max(widest, now - last), now
            game = body["game"]
            if isinstance(game, dict) and game["bettingOpen"]:
                seen.setdefault((game["id"], game["round"]), []).append(now)
            time.sleep(POLL_S)
        stop_at = time.monotonic()
    assert slowest < STALL_S, f"a request waited {slowest * 1000:.0f} ms: the loop stalled"
    first_game = [key for key in seen if key[0] == "holdem.0"]
    assert [r for _, r in sorted(first_game)][:3] == [1, 2, 3], seen.keys()  # no window skipped
    slack = 2 * widest  # a sighting lags the truth by up to the time between two, at each end
    for key, times in seen.items():
        if key == ("holdem.0", 1) or times[-1] > stop_at - slack:
            continue  # the Deal window opens as the port does; a window cut by the end of the watch
        assert times[-1] - times[0] >= window_s - slack, f"window {key} was seen open {times[-1] - times[0]:.2f} s"
    # The journal has when each window of the first game opened and closed, to the millisecond: every one
    # lasted its full length (the Deal window included, which opened before the first request could see it).
    lengths = _window_lengths_ms(tmp_path / "ex.db", "holdem.0")
    assert len(lengths) >= 3, lengths
    assert all(abs(ms - window_s * 1000) < WINDOW_TOLERANCE_S * 1000 for ms in lengths), lengths  # nor by a stall


def _window_lengths_ms(db: Path, market_id: str) -> list[int]:
    """From the journal: how long each betting window of ``market_id`` was open (suspended minus opened)."""
    journal = Journal.open(str(db))
    try:
        opened: dict[int, int] = {}
        lengths = []
        for record in journal.records():
            body = record.body
            if record.kind != "event" or body.get("market_id") != market_id:
                continue
            if body["type"] == "MarketOpened":
                opened[body["round"]] = body["ts"]
            elif body["type"] == "MarketSuspended":
                lengths.append(body["ts"] - opened[body["round"]])
        return lengths
    finally:
        journal.close()
