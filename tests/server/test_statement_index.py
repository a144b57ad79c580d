"""getAccountStatement's index against a plain fold of the whole journal (the way the statement was read
before it had an index), on a seeded history: every page, kind and date range, as the journal grows, after a
restart (a new index on the same files), after damaged records were set aside and their numbers reused, and
after the index file was deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.betfair import apiformat
from exchange.clock import VirtualClock
from exchange.core.events import (
    AccountCredited,
    AccountDebited,
    AccountResult,
    Event,
    MarketCreated,
    MarketSettled,
    MarketVoided,
)
from exchange.server import keys
from exchange.server.journal import Journal
from exchange.server.journal_check import JournalDamaged
from exchange.server.statement_index import SCHEMA, VERSION, Item, StatementIndex, page_query
from tests.server.helpers import ACCOUNT, PLAYING_MS, START_MS, WINDOW_MS, login, place, rpc, serving

ACCOUNTS = ("alice", "bob", "carol")
KINDS = {"ALL": ("DEPOSIT", "WITHDRAWAL", "RESULT", "COMMISSION"), "DEPOSITS_WITHDRAWALS": ("DEPOSIT", "WITHDRAWAL"),
         "EXCHANGE": ("RESULT", "COMMISSION"), "POKER_ROOM": ()}
PAGE = 4096  # SQLite's page size
WINDOWS = [(0, 100), (0, 1), (1, 3), (7, 100), (50, 10), (99, 100), (150, 5), (10_000, 100)]


def _history(rng: random.Random, ts: int, count: int, market_base: int) -> list[tuple[int, str, Any]]:
    """``count`` journal records from ``ts`` on: money movements of every kind among orders and commands."""
    out: list[tuple[int, str, Any]] = []
    for i in range(count):
        ts += rng.choice((0, 1, 250, 1_000))  # some records share a millisecond
        account = rng.choice(ACCOUNTS)
        roll = rng.random()
        event: Event | dict[str, Any]
        if roll < 0.15:
            event = AccountCredited(ts, account, rng.randint(1, 50_000), "deposit")
        elif roll < 0.25:
            event = AccountDebited(ts, account, rng.randint(1, 5_000), "withdrawal")
        elif roll < 0.55:
            if rng.random() < 0.8:  # the market's start, journaled earlier (most markets': some began before)
                created = ts - rng.randint(0, 5_000)
                out.append((created, "event", MarketCreated(created, f"holdem.{market_base + i}", (1, 2), 10, 250)))
            results = tuple(AccountResult(a, rng.choice((0, rng.randint(-900, 900))), rng.choice((0, 0, 3, 17)))
                            for a in rng.sample(ACCOUNTS, rng.randint(1, 3)))
            event = (MarketSettled(ts, f"holdem.{market_base + i}", (1,), (), results, 0, "house")
                     if rng.random() < 0.8 else MarketVoided(ts, f"holdem.{market_base + i}", results, "house", "x"))
        elif roll < 0.8:
            event = {"type": "OrderPlaced", "ts": ts, "account_id": account, "amount": 5}  # not a movement
        else:
            out.append((ts, "operator", {"action": "suspend", "marketId": f"holdem.{market_base + i}", "operator": "op",
                                         "reason": "a record the statement passes over"}))
            continue
        out.append((ts, "event", event))
    return out


def _write(path: Path, records: list[tuple[int, str, Any]], *, set_aside_from: int | None = None) -> None:
    async def write() -> None:
        journal = Journal.open(str(path))
        if set_aside_from is not None:
            journal.set_aside(set_aside_from, "a test's damage")
        journal.start()
        for ts, kind, body in records:
            journal.append(kind, body, ts_ms=ts)
        await journal.sync()
        await journal.stop()
        journal.close()

    asyncio.run(write())


def _journal(folder: Path, *, seed: int) -> tuple[Path, list[tuple[int, str, Any]], random.Random]:
    """A journal in ``folder`` of 300 records of a seeded history; the history, and the generator to go on with."""
    rng = random.Random(seed)
    path = folder / "ex.db"
    history = _history(rng, 1_700_000_000_000, 300, 0)
    _write(path, history)
    return path, history, rng


def _fold(path: Path) -> dict[str, list[Item]]:
    """The statement as it was read before the index: the whole journal folded, each account's items oldest
    first with its running balance."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT seq, ts_ms, kind, body FROM journal ORDER BY seq").fetchall()
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    rewinds = ([first for (first,) in conn.execute("SELECT first_seq FROM journal_rewinds")]
               if "journal_rewinds" in tables else [])
    conn.close()
    items: dict[str, list[Item]] = {a: [] for a in ACCOUNTS}
    balance = dict.fromkeys(ACCOUNTS, 0)
    starts: dict[str, int] = {}
    for number, ts, kind, text in rows:
        body = json.loads(text)
        if kind != "event":
            continue
        if body["type"] == "MarketCreated":
            starts[body["market_id"]] = body["ts"]
        rewound = sum(1 for first in rewinds if first <= number)  # the record's number after each rewind below it
        seq = f"{number}.{rewound}" if rewound else str(number)
        if body["type"] in ("AccountCredited", "AccountDebited"):
            account = body["account_id"]
            credit = body["type"] == "AccountCredited"
            amount = body["amount"] if credit else -body["amount"]
            balance[account] += amount
            items[account].append(Item(str(seq), ts, amount, balance[account], "DEPOSIT" if credit else "WITHDRAWAL"))
        elif body["type"] in ("MarketSettled", "MarketVoided"):
            for result in body["accounts"]:
                account = result["account_id"]
                if result["profit"]:
                    balance[account] += result["profit"]
                    items[account].append(Item(str(seq), ts, result["profit"], balance[account], "RESULT",
                                               body["market_id"], starts.get(body["market_id"])))
                if result["commission"]:
                    balance[account] -= result["commission"]
                    items[account].append(Item(f"{seq}-c", ts, -result["commission"], balance[account],
                                               "COMMISSION", body["market_id"], starts.get(body["market_id"])))
    return items


def _cut(items: list[Item], kinds: tuple[str, ...], start: int | None, end: int | None, first: int,
         count: int) -> tuple[list[Item], bool]:
    """Newest first, of ``kinds`` within the dates, then the page: as the statement was cut before the index."""
    chosen = [i for i in reversed(items) if i.kind in kinds and (start is None or i.ts >= start)
              and (end is None or i.ts <= end)]
    page = chosen[first:first + count]
    return page, first + len(page) < len(chosen)


def _agree(index: StatementIndex, path: Path, rng: random.Random, span: tuple[int, int]) -> int:
    """Every account, kind and window, with date ranges drawn inside ``span``, as the reference; pages compared."""
    compared = 0
    folded = _fold(path)
    for account in ACCOUNTS:
        for include, kinds in KINDS.items():
            low, high = sorted(rng.randint(*span) for _ in range(2))
            for start, end in ((None, None), (low, None), (None, high), (low, high), (high + 1, high)):
                if start is not None and end is not None and start > end:
                    continue
                for first, count in WINDOWS:
                    got = index.page(account, kinds, start, end, first, count)
                    want = _cut(folded[account], kinds, start, end, first, count)
                    assert got == want, (account, include, start, end, first, count)
                    compared += len(got[0])
    index._check()
    return compared


@pytest.mark.parametrize("name", ["ex.db", "what? #1 100%.db"])
def test_pages_match_the_full_fold_as_the_journal_grows_restarts_and_is_damaged(tmp_path: Path, name: str) -> None:
    """(A file name with ``?``, ``#`` or ``%`` was cut short where the index reads the journal through a URI.)"""
    rng = random.Random(20261201)
    path = tmp_path / name
    first = _history(rng, 1_700_000_000_000, 400, 0)
    _write(path, first)
    index = StatementIndex(str(path))
    span = (first[0][0], first[-1][0])
    assert _agree(index, path, rng, span) > 1_000  # the seed gives pages full of items

    more = _history(rng, first[-1][0], 150, 1_000)  # while the index is in use: it catches up
    _write(path, more)
    assert _agree(index, path, rng, (span[0], more[-1][0])) > 0
    index.close()

    restarted = StatementIndex(str(path))  # a restart: the index on disk carries on from its mark
    later = _history(rng, more[-1][0], 100, 2_000)
    _write(path, later)
    assert _agree(restarted, path, rng, (span[0], later[-1][0])) > 0

    # damage accepted at a start: the journal's last 120 records set aside, their numbers used again
    conn = sqlite3.connect(path)
    (last,) = conn.execute("SELECT MAX(seq) FROM journal").fetchone()
    conn.close()
    other = _history(rng, later[-1][0], 150, 3_000)
    _write(path, other, set_aside_from=last - 120)
    assert _agree(restarted, path, rng, (span[0], other[-1][0])) > 0
    restarted.close()

    Path(restarted.index_path).unlink()  # derived data: deleted, it is built again
    rebuilt = StatementIndex(str(path))
    assert _agree(rebuilt, path, rng, (span[0], other[-1][0])) > 0
    rebuilt.close()


def test_an_index_of_the_layout_before_the_markets_starts_is_built_again(tmp_path: Path) -> None:
    """An index written before it kept each market's start has no ``markets`` table (and ``user_version`` 0): left as
    it was, its items would say no start; it is built again from the journal."""
    path, history, rng = _journal(tmp_path, seed=5)
    built = StatementIndex(str(path))
    built.page("alice", KINDS["ALL"], None, None, 0, 10)
    built.close()
    conn = sqlite3.connect(built.index_path)
    conn.execute("DROP TABLE markets")
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    again = StatementIndex(str(path))
    assert _agree(again, path, rng, (history[0][0], history[-1][0])) > 0
    starts = [item.market_start for item in again.page("alice", KINDS["EXCHANGE"], None, None, 0, 100)[0]]
    assert any(start is not None for start in starts)  # the seed's markets have their starts
    again.close()
    with sqlite3.connect(built.index_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (VERSION,)


@pytest.mark.parametrize("damage", ["garbage", "torn pages"])
def test_a_damaged_index_is_rebuilt_with_a_warning(tmp_path: Path, damage: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """A damaged index file made every getAccountStatement fail (UNEXPECTED_ERROR) until someone deleted it."""
    path, history, rng = _journal(tmp_path, seed=11)
    built = StatementIndex(str(path))
    built.page("alice", KINDS["ALL"], None, None, 0, 10)
    built.close()
    index_file = Path(built.index_path)
    if damage == "garbage":  # not a database at all
        index_file.write_bytes(b"not an index" * 1_000)
    else:  # SQLite's header kept, the pages after the first overwritten: "database disk image is malformed"
        data = bytearray(index_file.read_bytes())
        assert len(data) > 3 * PAGE
        data[PAGE:] = bytes(len(data) - PAGE)
        index_file.write_bytes(bytes(data))
    again = StatementIndex(str(path))
    with caplog.at_level("WARNING", logger="exchange.server.statement_index"):
        assert _agree(again, path, rng, (history[0][0], history[-1][0])) > 0
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "is damaged" in warned[0] and "building it again" in warned[0], warned
    again.close()


def test_a_call_reads_only_the_records_committed_since_the_last(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path, history, rng = _journal(tmp_path, seed=7)
    index = StatementIndex(str(path))
    read: list[int] = []
    original = StatementIndex._records

    def counting(self: StatementIndex, journal: sqlite3.Connection, after: int, through: int
                 ) -> Iterator[tuple[int, str]]:
        for row in original(self, journal, after, through):
            read.append(row[0])
            yield row

    monkeypatch.setattr(StatementIndex, "_records", counting)
    index.page("alice", KINDS["ALL"], None, None, 0, 10)
    assert read and sorted(read) == read
    indexed_once = len(read)
    index.page("bob", KINDS["EXCHANGE"], None, None, 5, 10)
    assert len(read) == indexed_once  # nothing new: nothing read
    _write(path, _history(rng, history[-1][0], 50, 1_000))
    index.page("alice", KINDS["ALL"], None, None, 0, 10)
    assert len(read) > indexed_once and min(read[indexed_once:]) > max(read[:indexed_once])
    index.close()


def test_every_page_is_one_index_walk_without_a_sort() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    for classes in (["D"], ["X"], ["D", "X"]):
        for start, end in ((None, None), (5, None), (None, 9), (5, 9)):
            sql, args = page_query("alice", classes, start, end)
            plan = " ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", (*args, 10, 0)))
            assert "USING INDEX items_by_" in plan and "TEMP B-TREE" not in plan, (classes, start, end, plan)
    conn.close()


async def _settle(client: TestClient, clock: VirtualClock, market_id: str) -> None:
    for _ in range(12):
        if market_id not in client.app[keys.SERVICE].live_market_ids():
            return
        clock.advance(WINDOW_MS + PLAYING_MS)
    raise AssertionError(f"{market_id} did not settle")


async def _statement(client: TestClient, token: str, params: dict[str, Any]) -> tuple[list[tuple[str, float]], bool]:
    answer = (await rpc(client, token, "getAccountStatement", params, path=ACCOUNT))["result"]
    return [(i["refId"], i["balance"]) for i in answer["accountStatement"]], answer["moreAvailable"]


async def test_get_account_statement_pages_as_the_fold_across_a_restart(tmp_path: Path) -> None:
    """Through the API: alice's statement after a game, and after a restart and another game, page by page."""
    start_ms = START_MS
    for game in range(2):
        clock = VirtualClock(start_ms=start_ms)
        async with serving(tmp_path / "ex.db", clock, accounts=("alice", "bob") if game == 0 else ()) as client:
            app = client.app
            alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
            (market_id, *_) = app[keys.SERVICE].live_market_ids()
            for selection, size in ((1, 5), (2, 3)):  # alice wins 12.00 or 4.00, or loses 8.00: never nothing
                await rpc(client, bob, "placeOrders", place(market_id, selection, "LAY", 4.0, 10))
                await rpc(client, alice, "placeOrders", place(market_id, selection, "BACK", 4.0, size))
            await _settle(client, clock, market_id)
            await app[keys.SERVICE].durable()  # the settlement on disk, where the fold reads it
            folded = _fold(tmp_path / "ex.db")["alice"]
            assert [i.kind for i in folded].count("RESULT") == game + 1  # a result per game played so far
            for include, kinds in KINDS.items():
                for first, count in ((0, 0), (0, 1), (1, 2), (2, 100), (5, 1)):
                    page, more = _cut(folded, kinds, None, None, first, count or 100)
                    want = [(i.ref_id, i.balance / 100) for i in page], more
                    assert await _statement(client, alice, {"includeItem": include, "fromRecord": first,
                                                            "recordCount": count}) == want, (include, first, count)
            newest = folded[-1].ts
            dated = {"itemDateRange": {"from": apiformat.iso(newest), "to": apiformat.iso(newest)}}
            assert (await _statement(client, alice, dated))[0] == [
                (i.ref_id, i.balance / 100) for i in _cut(folded, KINDS["ALL"], newest, newest, 0, 100)[0]]
            funds = (await rpc(client, alice, "getAccountFunds", {}, path=ACCOUNT))["result"]
            assert (await _statement(client, alice, {}))[0][0][1] == funds["availableToBetBalance"]
            start_ms = clock.now() + 1_000


async def test_a_damaged_record_refuses_the_statement_naming_it(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """A record whose body no longer matches its checksum (a bit flipped on disk) was read into the statement as it
    stood: 1,000.00 more deposited than was. The start checks only the records after the newest snapshot, so the
    statement checks each record it reads, and refuses to show money past a damaged one."""
    db = tmp_path / "ex.db"
    async with serving(db, VirtualClock(start_ms=START_MS)) as client:
        alice = await login(client, "alice", "pw-alice")
        with contextlib.closing(sqlite3.connect(db)) as conn, conn:
            (seq,) = conn.execute("""SELECT seq FROM journal WHERE body LIKE '{"type":"AccountCredited"%"alice"%'"""
                                  ).fetchone()
            conn.execute("UPDATE journal SET body = replace(body, '100000', '200000') WHERE seq = ?", (seq,))
        with caplog.at_level("ERROR", logger="exchange.server.statement"):
            answer = await rpc(client, alice, "getAccountStatement", {}, path=ACCOUNT)
        error = answer["error"]["data"]["AccountAPINGException"]
        assert error["errorCode"] == "UNEXPECTED_ERROR", answer
        assert f"record {seq}: its body does not match its checksum" in error["errorDetails"], answer
        assert [r.levelname for r in caplog.records if f"record {seq}" in r.getMessage()] == ["ERROR"]
        funds = await rpc(client, alice, "getAccountFunds", {}, path=ACCOUNT)
        assert funds["result"]["availableToBetBalance"] == 1000.0  # the exchange's own money is untouched


def test_the_records_before_a_damaged_one_are_indexed_and_the_rest_once_it_is_whole(tmp_path: Path) -> None:
    """The catch-up stops at a damaged record with what came before it indexed, so a call reads again from that
    record only; once it is whole again (a backup restored), the statement reads on."""
    path, _, _ = _journal(tmp_path, seed=11)
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        rows = conn.execute("""SELECT seq, body FROM journal WHERE body LIKE '{"type":"AccountCredited"%'""").fetchall()
        seq, body = rows[len(rows) // 2]
        conn.execute("UPDATE journal SET body = ? WHERE seq = ?", (body.replace('"amount":', '"amount":1'), seq))
    index = StatementIndex(str(path))
    with pytest.raises(JournalDamaged) as refused:
        index.page("alice", KINDS["ALL"], None, None, 0, 10)
    assert refused.value.first_bad == seq
    with contextlib.closing(sqlite3.connect(index.index_path)) as conn:
        assert conn.execute("SELECT seq FROM mark").fetchone() == (seq - 1,)
        assert conn.execute("SELECT MAX(seq) FROM items").fetchone()[0] < seq
    with pytest.raises(JournalDamaged):  # refused again
        index.page("bob", KINDS["ALL"], None, None, 0, 10)
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE journal SET body = ? WHERE seq = ?", (body, seq))
    index.page("alice", KINDS["ALL"], None, None, 0, 10)
    index._check()  # the same as a fold of the whole journal
    index.close()
