"""The results route answers the same after a restart: a clean stop, a crash, from a snapshot or a full replay.

An in-process server (Omaha Hi/Lo, two markets a game, and Hold'em) plays a few
games on a virtual clock; the route's answer for each channel (every result it
keeps, the default number and one) is read, the server stops, and a new server
on the same database, whose clock is never advanced (so no game ends there),
must answer the very same JSON, below the game it voided (listed with the restart's
reason). A crash is the database as it stood while the
server ran (its files copied then, with no shutdown: what SIGKILL leaves; the
real SIGKILL is in ``test_snapshot_process.py``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from exchange.clock import VirtualClock
from exchange.game.channels import CHANNELS
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.journal import Journal
from exchange.server.recovery import restore, take_snapshot
from exchange.server.service import VOID_REASON
from tests.server.helpers import APP_KEY, PLAYING_MS, START_MS, WINDOW_MS, login

KEEP = 3
SERVED = ("omaha-hilo", "holdem")
GAME_MS = CHANNELS["omaha-hilo"].windows * (WINDOW_MS + PLAYING_MS)  # the longer of the two
LATER_MS = 10**9  # a restart's clock: long after, and never advanced


@asynccontextmanager
async def serving(db: Path, clock: VirtualClock, keep: int = KEEP) -> AsyncIterator[TestClient]:
    config = ServerConfig(db_path=str(db), window_ms=WINDOW_MS, playing_ms=PLAYING_MS, seed=5, channels=SERVED,
                          house=False, keep_results=keep)
    async with TestClient(TestServer(create_app(config, clock=clock), host="127.0.0.1")) as client:
        yield client


async def answers(client: TestClient, keep: int = KEEP) -> dict[str, Any]:
    """Every channel's answer to the route: all it keeps, the default, one."""
    out = {}
    for channel in SERVED:
        for query in (f"?limit={keep}", "", "?limit=1"):
            resp = await client.get(f"/games/v1/channels/{channel}/results{query}")
            assert resp.status == 200, await resp.text()
            out[channel + query] = await resp.json()
    return out


async def played(db: Path, games: int, keep: int = KEEP) -> dict[str, Any]:
    """Serve on ``db``, play ``games`` whole games of the hi/lo channel (and Hold'em meanwhile), stop in the middle
    of the next game; the route's answers just before the stop."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(db, clock, keep) as client:
        clock.advance(0)
        clock.advance(games * (GAME_MS + PLAYING_MS) + WINDOW_MS // 2)
        before = await answers(client, keep)
        service = client.app[keys.SERVICE]
        assert service.live_market_ids(), "the stop should come in the middle of a game"
    return before


async def after_restart(db: Path, keep: int = KEEP, *, voids: bool = True) -> dict[str, Any]:
    """The route's answers on a server restarted on ``db`` (``voids``: the first since the stop voids the game it
    interrupted; a restart after it finds no game open)."""
    async with serving(db, VirtualClock(start_ms=START_MS + LATER_MS), keep) as client:
        service = client.app[keys.SERVICE]
        assert bool(service.recovered_voids) is voids
        service.results.kept._check()
        return await answers(client, keep)


def restart_voided_on_top(after: dict[str, Any], before: dict[str, Any]) -> None:
    """``after`` lists what ``before`` did, below the game the restart voided (a trader saw their bets on it VOIDED
    with no reason anywhere): each channel's next game, voided with the restart's reason, no cards."""
    for key, answer in before.items():
        top, *rest = after[key]["results"]
        assert rest == answer["results"][:len(rest)], key
        numbers = [result["gameNumber"] for result in answer["results"]]
        assert (top["status"], top["voidReason"], top["endedMs"]) == ("VOID", VOID_REASON, START_MS + LATER_MS)
        assert top["gameNumber"] == (max(numbers) + 1 if numbers else 0)
        assert {card for hand in top["gameData"]["hands"] for card in hand["cards"]} == {"NOT AVAILABLE"}
        for market in top["markets"]:  # (with this seed no market was settled before the stop)
            assert (market["result"], market["voidReason"], market["winners"]) == ("VOID", VOID_REASON, [])


def _numbers(answer: dict[str, Any]) -> list[int]:
    return [result["gameNumber"] for result in answer["results"]]


async def test_a_clean_restart_answers_the_same_results(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    before = await played(db, 2)
    assert _numbers(before[f"omaha-hilo?limit={KEEP}"]) == [1, 0]
    assert len(before[f"holdem?limit={KEEP}"]["results"]) == 2
    assert {len(r["markets"]) for r in before[f"omaha-hilo?limit={KEEP}"]["results"]} == {2}  # High and Low
    after = await after_restart(db)
    restart_voided_on_top(after, before)
    assert await after_restart(db, voids=False) == after  # journaled: the next restart lists it too


async def test_more_games_than_are_kept_restart_to_the_newest_kept(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    before = await played(db, KEEP + 3)
    assert _numbers(before[f"omaha-hilo?limit={KEEP}"]) == [KEEP + 2, KEEP + 1, KEEP]
    assert len(before[f"holdem?limit={KEEP}"]["results"]) == KEEP
    after = await after_restart(db)
    restart_voided_on_top(after, before)
    # and a restart that keeps fewer lists the newest of them, cut as the route would have cut them
    fewer = await after_restart(db, keep=2, voids=False)
    assert fewer["omaha-hilo?limit=2"]["results"] == after[f"omaha-hilo?limit={KEEP}"]["results"][:2]
    assert fewer["holdem?limit=2"]["results"] == after[f"holdem?limit={KEEP}"]["results"][:2]


async def test_a_crash_restarts_to_the_same_results(tmp_path: Path) -> None:
    """The files as they stand while the server runs (every answer given is durable by then) are what a SIGKILL
    leaves: a server started on a copy of them answers what the running one answered."""
    db, crashed = tmp_path / "ex.db", tmp_path / "crashed"
    clock = VirtualClock(start_ms=START_MS)
    async with serving(db, clock) as client:
        clock.advance(0)
        clock.advance(2 * (GAME_MS + PLAYING_MS) + WINDOW_MS // 2)
        before = await answers(client)
        crashed.mkdir()
        for path in tmp_path.glob("ex.db*"):  # the database, its WAL, the durable mark, the statement index
            if path.is_file() and not path.name.endswith(("-shm", ".lock")):
                shutil.copy(path, crashed / path.name)
    assert _numbers(before[f"omaha-hilo?limit={KEEP}"]) == [1, 0]
    restart_voided_on_top(await after_restart(crashed / "ex.db"), before)


async def test_a_restart_from_a_snapshot_and_a_full_replay_answer_the_same(tmp_path: Path) -> None:
    """Games end before the snapshot and after it; the restart folds only the tail after it. The same database
    without snapshots (a full replay of the journal) answers the same."""
    db = tmp_path / "ex.db"
    await played(db, 2)
    journal = Journal.open(str(db))
    saved, _ = take_snapshot(journal, ServerConfig().exchange_config(), KEEP)  # as the server's snapshot taker does
    journal.close()
    assert saved is not None
    async with serving(db, VirtualClock(start_ms=START_MS + LATER_MS)) as client:
        clock = client.app[keys.SERVICE].clock
        clock.advance(0)
        clock.advance(GAME_MS + PLAYING_MS + WINDOW_MS // 2)
        before = await answers(client)
    journal = Journal.open(str(db))
    assert restore(journal, ServerConfig().exchange_config(), keep_results=KEEP).snapshot_seq == saved.seq
    journal.close()
    listed = _numbers(before[f"omaha-hilo?limit={KEEP}"])
    assert listed == [3, 2, 1]  # game 2 voided by the restart (listed since), game 3 played after it
    from_snapshot = await after_restart(db)
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM snapshots")
    conn.commit()
    conn.close()
    restart_voided_on_top(from_snapshot, before)
    assert await after_restart(db, voids=False) == from_snapshot


async def test_a_game_the_operator_voided_restarts_as_it_was_listed(tmp_path: Path) -> None:
    """Both markets voided with the operator's reason, their selections REMOVED, no cards: kept as listed."""
    db = tmp_path / "ex.db"
    clock = VirtualClock(start_ms=START_MS)
    async with serving(db, clock) as client:
        client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
        clock.advance(0)
        ops = await login(client, "ops", "pw-ops")
        resp = await client.post("/operator/v1/markets/omaha-hilo.0/void", data=json.dumps({"reason": "feed lost"}),
                                 headers={"X-Application": APP_KEY, "X-Authentication": ops})
        assert resp.status == 200
        clock.advance(GAME_MS + PLAYING_MS + WINDOW_MS // 2)  # and the next game played out
        before = await answers(client)
    voided = before[f"omaha-hilo?limit={KEEP}"]["results"][-1]
    assert (voided["id"], voided["status"]) == ("omaha-hilo.0", "VOID") and "feed lost" in voided["voidReason"]
    assert {s["status"] for market in voided["markets"] for s in market["selections"]} == {"REMOVED"}
    restart_voided_on_top(await after_restart(db), before)
