"""Snapshots: the core's bytes round-trip, recovery from a snapshot plus the tail equals a full replay, a damaged
snapshot is detected, reported and passed over, and the journal has them taken by a process of their own."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import pickle
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from exchange.clock import VirtualClock
from exchange.core import cleared as cleared_module
from exchange.core import snapshot
from exchange.core.commands import CreateMarket, Deposit, OpenAccount, OpenMarket, PlaceOrder, SettleMarket
from exchange.core.events import AccountOpened
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.side import Side
from exchange.server import ended_markets, jsoncodec, snapshots
from exchange.server.ended_markets import ENDED_KIND, SNAPSHOT_MAGIC, EndedMarket, EndedMarkets
from exchange.server.journal import Journal
from exchange.server.kept_results import KEEP_RESULTS, RESULT_KIND, GameResult, KeptResults
from exchange.server.notes import MarketNotes
from exchange.server.recovery import main, restore, take_snapshot
from exchange.server.service import ExchangeService
from exchange.server.snapshots import SnapshotPolicy
from tests.server.helpers import account_events, play, trading_service

START_MS = 1_000_000


def _full_replay(journal: Journal, keep_results: int = KEEP_RESULTS) -> tuple[Exchange, MarketNotes, KeptResults]:
    """The state from record 1, sharing no code with snapshots: the old recovery, and the results' records."""
    from exchange.core.events import event_from_dict

    exchange, notes, results = Exchange(), MarketNotes(), KeptResults(keep_results)
    for record in journal.records():
        if record.kind == "event":
            event = event_from_dict(dict(record.body))
            exchange.apply(event)
            notes.note(event)
        elif record.kind == RESULT_KIND:
            results.add(GameResult.from_dict(record.body))
    return exchange, notes, results


def _snapshot_results(journal: Journal, seq: int) -> KeptResults:
    (blob,) = journal._conn.execute("SELECT results FROM snapshots WHERE seq = ?", (seq,)).fetchone()
    return KeptResults.from_json(blob)


@pytest.fixture
def played() -> tuple[ExchangeService, VirtualClock]:
    """A journal (in memory) of about five games, stopped in the middle of a betting window: books have orders."""
    clock = VirtualClock(START_MS)
    service = trading_service(Journal.open(":memory:"), clock)
    play(service, clock, START_MS + 30_700)
    market = service.exchange.markets[service.live_market_ids()[0]]
    assert market.is_open and service.exchange.next_match_id > 10, "the fixture should have open books and matches"
    return service, clock


def test_a_snapshot_round_trips_the_state_with_open_books(played: tuple[ExchangeService, VirtualClock]) -> None:
    exchange = played[0].exchange
    restored = snapshot.load(snapshot.dump(exchange))
    assert restored.state_digest() == exchange.state_digest()
    restored._check()
    assert restored is not exchange and restored.orders.keys() == exchange.orders.keys()


def test_a_snapshot_holds_nothing_of_what_the_last_close_forgot_and_loads_without_it() -> None:
    """``Exchange.forgotten`` (what the latest close forgot, for the stream) is no part of the state: a snapshot
    leaves it out, and a state pickled before it existed loads with it empty."""
    exchange = Exchange(ExchangeConfig(keep_closed_markets=0))
    for command in (OpenAccount(0, "al"), Deposit(0, "al", 5000), CreateMarket(0, "m.1", (1, 2)),
                    OpenMarket(0, "m.1"), PlaceOrder(1, "al", "m.1", 1, Side.BACK, Decimal("3"), 200),
                    SettleMarket(2, "m.1", (1,))):
        exchange.execute(command)
    assert list(exchange.forgotten) == ["m.1"] and "m.1" not in exchange.markets
    loaded = snapshot.load(snapshot.dump(exchange))
    assert loaded.forgotten == {} and loaded.state_digest() == exchange.state_digest()
    older = Exchange.__new__(Exchange)  # as a snapshot written before the attribute unpickles
    older.__setstate__({k: v for k, v in vars(exchange).items() if k != "forgotten"})
    assert older.forgotten == {} and older.state_digest() == exchange.state_digest()


def test_a_snapshot_names_no_apply_method_and_an_older_format_is_refused() -> None:
    """Format 5 pickled the state's table of bound ``apply_*`` methods, so renaming one made every snapshot
    unloadable; from format 6 a load rebuilds the table. Format 7's orders keep when they were cancelled and
    lapsed, which an older snapshot's orders lack: it is refused, saying so, and a start replays the journal."""
    exchange = Exchange()
    exchange.execute(OpenAccount(0, "alice"))
    data = snapshot.dump(exchange)
    assert b"apply_" not in data
    loaded = snapshot.load(data)
    loaded.execute(OpenAccount(1, "bob"))  # its appliers work
    assert {"alice", "bob"} <= set(loaded.accounts) and "bob" not in exchange.accounts
    applier = loaded._appliers[AccountOpened]
    assert getattr(applier, "__self__", None) is loaded  # this code's method, bound to the loaded state
    now = snapshot.FORMAT_VERSION
    older = snapshot.MAGIC + (now - 1).to_bytes(2, "little") + data[len(snapshot.MAGIC) + 2:]
    with pytest.raises(snapshot.SnapshotError,
                       match=f"snapshot format {now - 1} is an older version's; this code reads formats {now}$"):
        snapshot.load(older)


@pytest.mark.parametrize(("data", "says"), [
    (b"", "does not start with"),
    (b"PICKLE" + pickle.dumps(1), "does not start with"),
    (snapshot.MAGIC + (snapshot.FORMAT_VERSION + 1).to_bytes(2, "little") + pickle.dumps(1),
     f"format {snapshot.FORMAT_VERSION + 1} is a newer version's"),
    (snapshot.MAGIC + snapshot.FORMAT_VERSION.to_bytes(2, "little") + pickle.dumps({"not": "an exchange"}),
     "holds a dict, not an Exchange"),
    (snapshot.dump(Exchange())[:-20], "does not unpickle"),
])
def test_load_refuses_what_is_not_a_snapshot_and_says_why(data: bytes, says: str) -> None:
    with pytest.raises(snapshot.SnapshotError, match=says):
        snapshot.load(data)


def test_recovery_from_a_snapshot_and_the_tail_equals_a_full_replay(
    played: tuple[ExchangeService, VirtualClock],
) -> None:
    service, clock = played
    saved, _ = take_snapshot(service.journal)
    assert saved is not None and saved.seq == service.journal.last_seq
    play(service, clock, START_MS + 45_300)  # more games, again mid-window
    restored = restore(service.journal)
    assert restored.snapshot_seq == saved.seq and restored.replayed == service.journal.last_seq - saved.seq > 0
    assert restored.damaged == ()
    exchange, notes, results = _full_replay(service.journal)
    assert restored.exchange.state_digest() == exchange.state_digest() == service.exchange.state_digest()
    assert restored.notes == notes
    before = _snapshot_results(service.journal, saved.seq)
    assert len(list(results)) > len(list(before)) > 0  # games ended before the snapshot and after it
    assert restored.results == results == service.results.kept
    restored.exchange._check()
    restored.results._check()


def test_nothing_new_after_a_snapshot_means_no_new_snapshot(played: tuple[ExchangeService, VirtualClock]) -> None:
    journal = played[0].journal
    first, _ = take_snapshot(journal)
    again, restored = take_snapshot(journal)
    assert first is not None and again is None and restored.snapshot_seq == first.seq and restored.replayed == 0


def _corrupt(journal: Journal, seq: int, column: str, change: bytes | None = None) -> None:
    """Flip a byte in the middle of a snapshot's ``column`` (or replace it with ``change``), as a bad disk might."""
    conn = journal._conn
    (blob,) = conn.execute(f"SELECT {column} FROM snapshots WHERE seq = ?", (seq,)).fetchone()
    if change is None:
        middle = len(blob) // 2
        change = blob[:middle] + bytes([blob[middle] ^ 0x01]) + blob[middle + 1:]
    conn.execute(f"UPDATE snapshots SET {column} = ? WHERE seq = ?", (change, seq))


@pytest.mark.parametrize("column", ["exchange", "notes", "results", "ended"])
def test_a_flipped_byte_is_detected_reported_and_the_older_snapshot_used(
    played: tuple[ExchangeService, VirtualClock], column: str,
) -> None:
    service, clock = played
    older, _ = take_snapshot(service.journal)
    play(service, clock, START_MS + 40_000)
    newer, _ = take_snapshot(service.journal)
    play(service, clock, START_MS + 45_300)
    assert older is not None and newer is not None
    _corrupt(service.journal, newer.seq, column)

    restored = restore(service.journal)
    assert restored.snapshot_seq == older.seq
    assert [(d.seq, d.problem.split(":")[0]) for d in restored.damaged] == [(newer.seq, "checksum mismatch")]
    assert restored.exchange.state_digest() == _full_replay(service.journal)[0].state_digest()

    _corrupt(service.journal, older.seq, "exchange")
    restored = restore(service.journal)
    assert restored.snapshot_seq == 0 and [d.seq for d in restored.damaged] == [newer.seq, older.seq]
    assert restored.exchange.state_digest() == service.exchange.state_digest()


def test_a_snapshot_carries_the_digests_of_the_cleared_orders_it_loaded_packed(
    played: tuple[ExchangeService, VirtualClock], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The taker digests the state before dumping it, so the cleared orders it loaded from the last snapshot are
    written with their digests: a reload reads only the cleared orders of the markets closed since."""
    service, clock = played
    older, _ = take_snapshot(service.journal)
    closed_before = set(service.exchange.closed)
    play(service, clock, START_MS + 60_000)
    newer, _ = take_snapshot(service.journal)
    assert older is not None and newer is not None
    closed_since = set(service.exchange.closed) - closed_before
    assert closed_before and closed_since, "the fixture should close markets before and after the first snapshot"

    loaded, _ = service.journal.load_snapshot()
    assert loaded is not None and loaded.seq == newer.seq
    read: list[bytes] = []
    loads = pickle.loads

    def reading(data: bytes) -> object:
        read.append(data)
        return loads(data)

    monkeypatch.setattr(cleared_module.pickle, "loads", reading)
    assert loaded.exchange.state_digest() == service.exchange.state_digest()
    expected = sum(market_id in closed_since for account in loaded.exchange.accounts.values()
                   for market_id in account.cleared)
    assert len(read) == expected > 0


def test_a_dump_that_does_not_reload_to_its_state_is_never_written(
    played: tuple[ExchangeService, VirtualClock], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bytes that would hash right but hold another state (a bug in the dump, not the disk) are caught when taken."""
    service = played[0]
    journal = service.journal
    dump = snapshot.dump
    monkeypatch.setattr(snapshots.core_snapshot, "dump", lambda exchange: dump(Exchange()))
    with pytest.raises(snapshot.SnapshotError, match="reloads to digest"):
        journal.save_snapshot(journal.last_seq, service.exchange, MarketNotes(), KeptResults(), EndedMarkets(0))
    assert snapshots.newest_seq(journal._conn) == 0


def test_a_snapshot_beyond_the_journal_and_one_of_another_config_are_passed_over(
    played: tuple[ExchangeService, VirtualClock],
) -> None:
    service = played[0]
    journal = service.journal
    journal.save_snapshot(journal.last_seq + 5, service.exchange, MarketNotes(), KeptResults(), EndedMarkets(0))
    restored = restore(journal)
    assert restored.snapshot_seq == 0 and "beyond the journal's last record" in restored.damaged[0].problem
    from exchange.core.exchange import ExchangeConfig

    journal._conn.execute("DELETE FROM snapshots")
    take_snapshot(journal)
    restored = restore(journal, ExchangeConfig(commission_bps=500))
    assert restored.snapshot_seq == 0 and "another exchange config" in restored.damaged[0].problem


def test_only_the_newest_snapshots_are_kept_and_every_journal_record_stays(
    played: tuple[ExchangeService, VirtualClock],
) -> None:
    service, clock = played
    seqs = []
    for step in range(snapshots.KEEP + 2):
        play(service, clock, START_MS + 31_000 + 1_000 * step)
        saved, _ = take_snapshot(service.journal)
        assert saved is not None
        seqs.append(saved.seq)
    kept = [seq for (seq,) in service.journal._conn.execute("SELECT seq FROM snapshots ORDER BY seq")]
    assert kept == seqs[-snapshots.KEEP:]
    assert [r.seq for r in service.journal.records()] == list(range(1, service.journal.last_seq + 1))


def test_the_recovery_log_line_says_what_it_did(
    played: tuple[ExchangeService, VirtualClock], caplog: pytest.LogCaptureFixture,
) -> None:
    service, clock = played
    older, _ = take_snapshot(service.journal)
    play(service, clock, START_MS + 40_000)
    newer, _ = take_snapshot(service.journal)
    play(service, clock, START_MS + 45_300)
    assert older is not None and newer is not None
    _corrupt(service.journal, newer.seq, "exchange")
    open_market = service.live_market_ids()[0]
    tail = service.journal.last_seq - older.seq

    with caplog.at_level(logging.INFO, logger="exchange.server.service"):
        after = ExchangeService(service.journal, VirtualClock(START_MS + 60_000), service.configs.values())
        after.recover()
    (line,) = [r for r in caplog.records if r.getMessage().startswith("recovery:")]
    message = line.getMessage()
    assert line.levelno == logging.WARNING  # something was damaged
    assert f"snapshot at seq {older.seq} + {tail} journal records (seq {older.seq + 1}-{older.seq + tail})" in message
    assert f"passed over (damaged, from an older version or other settings): snapshot at seq {newer.seq}: " \
           "checksum mismatch" in message
    assert message.endswith(f"markets voided: {open_market}")
    assert after.recovered_voids == [open_market]
    assert after.infos.keys() == service.infos.keys()


async def _taken(journal: Journal, count: int, within_s: float = 30) -> None:
    for _ in range(int(within_s / 0.05)):
        if len(journal.snapshots_taken) >= count and journal.snapshot_taker_pid is None:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"only {journal.snapshots_taken} snapshots were taken")


async def test_the_journal_has_a_snapshot_taken_every_n_records(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal.open(str(path))
    journal.start(SnapshotPolicy(every_records=25, every_ms=0))
    for i, event in enumerate(account_events(30)):
        journal.append("event", event, ts_ms=i)
    await journal.sync()
    await _taken(journal, 1)
    assert journal.snapshots_taken == [30] and journal.snapshot_seq == 30
    for i, event in enumerate(account_events(60)[30:]):  # fifteen more accounts
        journal.append("event", event, ts_ms=i)
    await journal.sync()
    await _taken(journal, 2)
    await journal.stop()
    journal.close()
    conn = sqlite3.connect(path)
    assert [seq for (seq,) in conn.execute("SELECT seq FROM snapshots ORDER BY seq")] == journal.snapshots_taken
    conn.close()


async def test_the_journal_has_a_snapshot_taken_every_m_minutes_if_anything_changed(tmp_path: Path) -> None:
    clock = VirtualClock(START_MS)
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start(SnapshotPolicy(every_records=0, every_ms=200), clock=clock)
    events = account_events(4)
    for i, event in enumerate(events[:3]):
        journal.append("event", event, ts_ms=i)
    await journal.sync()
    clock.advance(199)
    assert journal.snapshot_taker_pid is None  # not yet due
    clock.advance(1)
    assert journal.snapshot_taker_pid is not None  # due at 200 ms: a taker at work
    await _taken(journal, 1)
    clock.advance(200)  # nothing changed: no taker, no snapshot
    assert journal.snapshot_taker_pid is None and journal.snapshots_taken == [3]
    journal.append("event", events[3], ts_ms=3)
    await journal.sync()
    clock.advance(200)  # one record since: due again
    await _taken(journal, 2)
    assert journal.snapshots_taken == [3, 4]
    await journal.stop()
    journal.close()


def test_a_snapshot_keeps_the_results_it_was_told_to_and_one_that_kept_fewer_is_passed_over(
    played: tuple[ExchangeService, VirtualClock],
) -> None:
    """The taker keeps the server's ``--keep-results``; a restart keeping fewer cuts them to the newest, one keeping
    more cannot use the snapshot (a full replay would list more) and replays the journal; each equals a full replay."""
    service, clock = played
    saved, _ = take_snapshot(service.journal, keep_results=3)
    assert saved is not None
    assert _snapshot_results(service.journal, saved.seq).keep == 3
    play(service, clock, START_MS + 45_300)
    fewer = restore(service.journal, keep_results=2)
    assert fewer.snapshot_seq == saved.seq and fewer.results == _full_replay(service.journal, 2)[2]
    assert len(fewer.results.recent("holdem", 10)) == 2
    more = restore(service.journal, keep_results=4)
    assert more.snapshot_seq == 0 and "it kept 3 results a channel, fewer than 4" in more.damaged[0].problem
    assert more.results == _full_replay(service.journal, 4)[2]


def test_a_snapshot_from_before_results_were_kept_is_passed_over(
    played: tuple[ExchangeService, VirtualClock],
) -> None:
    """A row written before the results column (NULL there, its checksum over the exchange and notes only) is
    passed over, saying why, and the journal is folded whole: results included."""
    service, clock = played
    saved, _ = take_snapshot(service.journal)
    assert saved is not None
    conn = service.journal._conn
    state, notes = conn.execute("SELECT exchange, notes FROM snapshots WHERE seq = ?", (saved.seq,)).fetchone()
    old_checksum = hashlib.sha256(state + notes).hexdigest()
    conn.execute("UPDATE snapshots SET results = NULL, sha256 = ? WHERE seq = ?", (old_checksum, saved.seq))
    play(service, clock, START_MS + 45_300)
    restored = restore(service.journal, keep_results=7)
    assert restored.snapshot_seq == 0
    why = "it was taken before recent results were kept"
    assert [(d.seq, d.problem) for d in restored.damaged] == [(saved.seq, why)]
    assert restored.results == _full_replay(service.journal, 7)[2]


def _rewrite_ended(journal: Journal, seq: int, ended: bytes | None) -> None:
    """Put ``ended`` in the snapshot's ``ended`` column (None: NULL, as a row from before the column), with the
    checksum that makes the row valid again."""
    conn = journal._conn
    parts = conn.execute("SELECT exchange, notes, results FROM snapshots WHERE seq = ?", (seq,)).fetchone()
    conn.execute("UPDATE snapshots SET ended = ?, sha256 = ? WHERE seq = ?",
                 (ended, hashlib.sha256(b"".join(parts) + (ended or b"")).hexdigest(), seq))


def test_a_snapshot_from_before_ended_markets_were_kept_is_used_remembering_none_then_the_tails() -> None:
    """A row written before the ``ended`` column (NULL there, its checksum over the other parts) is still used: it
    remembers no forgotten market (none was journaled then), and the ones the journal's tail remembers are folded
    in: what the live server remembers."""
    clock = VirtualClock(START_MS)
    service = trading_service(Journal.open(":memory:"), clock, ExchangeConfig(keep_closed_markets=1))
    play(service, clock, START_MS + 30_700)
    saved, _ = take_snapshot(service.journal, service.exchange.config)
    assert saved is not None and len(service.ended.by_id) == 1
    _rewrite_ended(service.journal, saved.seq, None)
    play(service, clock, START_MS + 45_300)
    restored = restore(service.journal, service.exchange.config)
    assert restored.snapshot_seq == saved.seq and not restored.damaged
    tail = [EndedMarket.from_dict(r.body) for r in service.journal.records(after=saved.seq) if r.kind == ENDED_KIND]
    assert tail and list(restored.ended.by_id.values()) == tail[-1:]  # one remembered, as one is kept
    assert restored.ended == service.ended


def _remembering_snapshot() -> tuple[ExchangeService, int]:
    """A journal whose newest snapshot remembers a forgotten market (one closed market is kept, and one
    forgotten remembered), and the snapshot's sequence number."""
    clock = VirtualClock(START_MS)
    service = trading_service(Journal.open(":memory:"), clock, ExchangeConfig(keep_closed_markets=1))
    play(service, clock, START_MS + 45_300)
    saved, _ = take_snapshot(service.journal, service.exchange.config)
    assert saved is not None and len(service.ended.by_id) == 1, "the fixture should remember a forgotten market"
    return service, saved.seq


def test_a_snapshot_pickles_the_markets_remembered_and_one_holding_their_json_still_loads() -> None:
    """The markets remembered are pickled in a snapshot (a third of their JSON's time to load at a restart); a
    snapshot taken before that holds their JSON, and is used the same."""
    service, seq = _remembering_snapshot()
    (stored,) = service.journal._conn.execute("SELECT ended FROM snapshots WHERE seq = ?", (seq,)).fetchone()
    assert stored.startswith(SNAPSHOT_MAGIC)
    restored = restore(service.journal, service.exchange.config)
    assert restored.snapshot_seq == seq and restored.ended == service.ended

    _rewrite_ended(service.journal, seq, service.ended.to_json())
    restored = restore(service.journal, service.exchange.config)
    assert restored.snapshot_seq == seq and not restored.damaged and restored.ended == service.ended


@pytest.mark.parametrize("damage", [b"EXENDED1 not a pickle", b"EXENDED1" + pickle.dumps((1, ())),
                                    b"EXENDED1" + pickle.dumps((ended_markets._layout(), 1, ("a market",))),
                                    b"EXENDED1" + pickle.dumps((ended_markets._layout(), "keep", ()))])
def test_remembered_markets_that_do_not_unpickle_pass_the_snapshot_over_saying_why(damage: bytes) -> None:
    """Bytes under a valid checksum that are no pickle of the markets (written by a broken version) are damage:
    the snapshot is passed over, with why, and the journal replayed."""
    service, seq = _remembering_snapshot()
    _rewrite_ended(service.journal, seq, damage)
    restored = restore(service.journal, service.exchange.config)
    assert restored.snapshot_seq == 0
    assert [(d.seq, d.problem.split(":")[0]) for d in restored.damaged] == [
        (seq, "the markets remembered do not unpickle")]
    assert restored.ended == service.ended


def test_remembered_markets_in_a_newer_version_s_form_pass_the_snapshot_over_saying_so() -> None:
    """A rollback: the snapshot a newer version took holds its markets remembered in a form this code does not
    know. Said as such (it read as damage: "do not decode: JSONDecodeError"), and the journal replayed."""
    service, seq = _remembering_snapshot()
    newer = SNAPSHOT_MAGIC[:-1] + b"2" + pickle.dumps("a newer form")
    _rewrite_ended(service.journal, seq, newer)
    restored = restore(service.journal, service.exchange.config)
    assert restored.snapshot_seq == 0 and restored.ended == service.ended
    (passed_over,) = restored.damaged
    assert passed_over.seq == seq and passed_over.problem == (
        "the markets remembered are in a newer version's form (b'EXENDED2'); this code reads b'EXENDED1' and JSON")


def test_the_taker_reports_a_snapshot_it_passed_over_as_the_server_logs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The taker's lines before its verdict are the server's log lines as they are (``snapshot taker: ...``)."""
    service, seq = _remembering_snapshot()
    _rewrite_ended(service.journal, seq, SNAPSHOT_MAGIC[:-1] + b"2")
    path = tmp_path / "copy.db"
    service.journal._conn.execute("VACUUM INTO ?", (str(path),))
    assert main([str(path), jsoncodec.dumps(service.exchange.config.to_dict()).decode()]) == 0
    passed_over, verdict = capsys.readouterr().out.splitlines()
    assert passed_over == (f"passed over the snapshot at seq {seq}: the markets remembered are in a newer version's "
                           "form (b'EXENDED2'); this code reads b'EXENDED1' and JSON")
    assert verdict.startswith(f"saved {service.journal.last_seq} ")


def test_remembered_markets_pickled_under_another_record_layout_pass_the_snapshot_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Records pickle their values by position: under a code whose MarketSnapshot has a field more, an older
    snapshot's markets would load with each value in the next field, without an error. The layout pickled with
    them refuses that: the snapshot is passed over, saying which record changed, and the journal replayed."""
    service, seq = _remembering_snapshot()
    now = ended_markets._layout()
    changed = tuple((name, (*fields, "delay_ms") if name.endswith(".MarketSnapshot") else fields)
                    for name, fields in now)
    monkeypatch.setattr(ended_markets, "_layout", lambda: changed)
    restored = restore(service.journal, service.exchange.config)
    assert restored.snapshot_seq == 0 and restored.ended == service.ended
    (damaged,) = restored.damaged
    assert damaged.seq == seq and "another layout of the records" in damaged.problem
    assert "exchange.betfair.stream.MarketSnapshot" in damaged.problem and "ClearedOrder" not in damaged.problem


def test_an_old_snapshots_table_gets_the_results_column(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, ts_ms INTEGER NOT NULL, kind TEXT NOT NULL, "
                 "body TEXT NOT NULL)")  # an exchange's database of that time: its journal beside
    conn.execute("CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, created_ms INTEGER NOT NULL, exchange BLOB NOT NULL,"
                 " notes BLOB NOT NULL, sha256 TEXT NOT NULL, state_digest TEXT NOT NULL)")
    conn.commit()
    conn.close()
    journal = Journal.open(str(path))
    assert {"results", "ended"} <= {row[1] for row in journal._conn.execute("PRAGMA table_info(snapshots)")}
    journal.close()
    Journal.open(str(path)).close()  # and opening it again changes nothing


def test_the_taker_process_folds_with_the_servers_results_kept(
    played: tuple[ExchangeService, VirtualClock], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """``python -m exchange.server.recovery DB CONFIG --keep-results N``, run here as its ``main``."""
    path = tmp_path / "copy.db"
    played[0].journal._conn.execute("VACUUM INTO ?", (str(path),))
    config = played[0].exchange.config
    assert main([str(path), jsoncodec.dumps(config.to_dict()).decode(), "--keep-results", "2"]) == 0
    assert capsys.readouterr().out.startswith("saved ")
    journal = Journal.open(str(path))
    try:
        results = _snapshot_results(journal, journal.last_seq)
        assert results.keep == 2 and results == _full_replay(journal, 2)[2]
    finally:
        journal.close()


def test_a_long_fold_is_announced_before_it_starts(monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """Folding a whole journal takes seconds (a first start after a snapshot format changed), in which the server
    does not listen: the log says why before the fold begins, and says nothing for a short one."""
    from exchange.server import recovery

    clock = VirtualClock(START_MS)
    service = trading_service(Journal.open(":memory:"), clock, ExchangeConfig())
    play(service, clock, START_MS + 5_000)
    records = service.journal.last_seq
    monkeypatch.setattr(recovery, "ANNOUNCED_FOLD", records)
    with caplog.at_level(logging.INFO, logger="exchange.server.recovery"):
        restore(service.journal)
    assert [r.getMessage() for r in caplog.records] == [
        f"recovery: folding {records} journal records from the first (no snapshot this code can use)"]
    caplog.clear()
    monkeypatch.setattr(recovery, "ANNOUNCED_FOLD", records + 1)
    with caplog.at_level(logging.INFO, logger="exchange.server.recovery"):
        restore(service.journal)
    assert not caplog.records
