"""``exchange-poker journal``: the audit trail found by what it concerns, judged against the journal read by hand.

The journal is written by the server's own :class:`~exchange.server.journal.Journal` from a real exchange's
events (two markets whose ids one prefixes the other, a match, a replace, a cancel, a lapse, an early settlement
and a settlement) beside an operator's record and a game's result. The oracle reads the rows with plain
``sqlite3`` and ``json`` and names, record shape by record shape, where each sort of value stands: it shares
no code with the search it judges.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import exchange.cli.journal as journal_cli
from exchange.clock import VirtualClock
from exchange.core.commands import (
    CancelOrder,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
)
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.side import Side
from exchange.server.journal import Journal
from exchange.server.journal_check import REWINDS_SCHEMA
from exchange.server.journal_mark import DurableMark
from exchange.server.journal_read import Record
from exchange.server.journal_writer import body_crc
from exchange.server.recovery import restore
from exchange.server.store import AccountStore
from tests.cli_helpers import as_a_user_held_to_permissions, run_cli
from tests.server.helpers import START_MS, play, trading_service, wait_until
from tests.server.serverproc import ServerProcess, cli

Row = dict[str, Any]
Written = (OpenAccount | Deposit | CreateMarket | OpenMarket | PlaceOrder | ReplaceOrder | CancelOrder | SuspendMarket
           | SettleSelection | SettleMarket)
T0 = 1_796_000_000_000  # 2026-11-30T00:53:20Z


def _commands() -> Iterator[Written]:
    for name in ("al", "bo", "cy"):
        yield OpenAccount(0, name)
        yield Deposit(0, name, 100_000)
    for market in ("m.1", "m.10"):
        yield CreateMarket(0, market, (1, 2, 3))
        yield OpenMarket(0, market)
    yield PlaceOrder(1_000, "al", "m.1", 1, Side.BACK, Decimal("3"), 500)  # bet 1
    yield PlaceOrder(2_000, "bo", "m.1", 1, Side.LAY, Decimal("3"), 300)  # bet 2: matches 300 of bet 1
    yield PlaceOrder(3_000, "cy", "m.10", 2, Side.BACK, Decimal("4"), 200)  # bet 3
    yield ReplaceOrder(4_000, "cy", 3, Decimal("5"))  # bet 4 replaces bet 3
    yield PlaceOrder(5_000, "bo", "m.10", 1, Side.LAY, Decimal("2"), 1000)  # bet 5
    yield CancelOrder(6_000, "bo", 5)
    yield PlaceOrder(7_000, "al", "m.10", 3, Side.LAY, Decimal("2"), 400)  # bet 6: lapses
    yield SuspendMarket(8_000, "m.10")
    yield SuspendMarket(8_000, "m.1")
    yield SettleSelection(9_000, "m.1", 3)
    yield SettleMarket(10_000, "m.1", (1,))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of the commands' events, an operator's suspension of m.10 (at +7.5 s, journaled after them) and
    deposit for al (+11 s), both by op, and a game's result (+12 s)."""
    path = tmp_path_factory.mktemp("journal") / "exchange.db"
    journal = Journal.open(str(path))
    exchange = Exchange()
    for command in _commands():
        for event in exchange.execute(command):
            journal.append("event", event, ts_ms=T0 + command.ts)
    journal.append("operator", {"action": "suspend", "marketId": "m.10", "operator": "op", "reason": "feed down",
                                "at": T0 + 7_500}, ts_ms=T0 + 7_500)
    journal.append("operator", {"action": "deposit", "account": "al", "amount": 5.0, "operator": "op",
                                "reason": "top-up", "at": T0 + 11_000}, ts_ms=T0 + 11_000)
    journal.append("result", {"channel": "holdem", "game_id": "m.1", "status": "SETTLED",
                              "markets": [{"market_id": "m.1", "winners": [1]}]}, ts_ms=T0 + 12_000)
    journal.flush()
    journal.close()
    return path


def _rows(db: Path) -> list[Row]:
    conn = sqlite3.connect(db)
    try:
        return [{"seq": seq, "ts_ms": ts, "kind": kind, "body": json.loads(body)}
                for seq, ts, kind, body in conn.execute("SELECT seq, ts_ms, kind, body FROM journal ORDER BY seq")]
    finally:
        conn.close()


def _copy(db: Path, to: Path) -> Path:
    """A copy of the database at ``to`` (the module's journal is shared by its tests: one that writes, writes a
    copy)."""
    source = sqlite3.connect(db)
    source.execute("VACUUM INTO ?", (str(to),))
    source.close()
    return to


def _nested(body: Row, key: str) -> list[Row]:
    """The records listed under ``key`` (a settlement's ``bets`` and ``accounts``, a result's ``markets``)."""
    return list(body.get(key) or [])


def _accounts_of(body: Row) -> set[str]:
    named = {body.get(k) for k in ("account_id", "back_account_id", "lay_account_id", "house_account_id", "account",
                                   "operator")}
    named |= {item["account_id"] for key in ("bets", "accounts") for item in _nested(body, key)}
    return {name for name in named if name is not None}


def _bets_of(body: Row) -> set[int]:
    named = {body.get(k) for k in ("bet_id", "back_bet_id", "lay_bet_id", "replaces")}
    named |= {bet["bet_id"] for bet in _nested(body, "bets")}
    return {bet for bet in named if bet is not None}


def _markets_of(body: Row) -> set[str]:
    named = [body.get("market_id"), body.get("marketId"), *(m["market_id"] for m in _nested(body, "markets"))]
    return {m for m in named if m is not None}


def _listed(capsys: pytest.CaptureFixture[str], db: Path, *options: str, unknown: str = "") -> list[Row]:
    """The records listed; ``unknown``: what the note on stderr names that no record concerns (none: no note)."""
    code, out, err = run_cli(capsys, "journal", "--db", str(db), *options)
    note = f"exchange-poker: note: no record of the journal concerns {unknown}\n" if unknown else ""
    assert (code, err) == (0, note)
    return [json.loads(line) for line in out.splitlines()]


def _without_time(rows: list[Row]) -> list[Row]:
    return [{k: v for k, v in row.items() if k != "time"} for row in rows]


@pytest.mark.parametrize(
    ("options", "wanted"),
    [
        ((), lambda row: True),
        (("--account", "bo"), lambda row: "bo" in _accounts_of(row["body"])),
        (("--account", "op"), lambda row: "op" in _accounts_of(row["body"])),
        (("--account", "HOUSE"), lambda row: "HOUSE" in _accounts_of(row["body"])),
        (("--account", "al", "--account", "cy"), lambda row: bool({"al", "cy"} & _accounts_of(row["body"]))),
        (("--bet", "3"), lambda row: 3 in _bets_of(row["body"])),
        (("--bet", "1", "--account", "bo"),
         lambda row: 1 in _bets_of(row["body"]) and "bo" in _accounts_of(row["body"])),
        (("--market", "m.1"), lambda row: "m.1" in _markets_of(row["body"])),
        (("--market", "m.10", "--kind", "operator"), lambda row: row["kind"] == "operator"
         and "m.10" in _markets_of(row["body"])),
        (("--market", "m.10", "--type", "OrderLapsed"), lambda row: row["body"].get("type") == "OrderLapsed"
         and row["body"]["market_id"] == "m.10"),
        (("--kind", "operator", "--kind", "result"), lambda row: row["kind"] in ("operator", "result")),
        (("--type", "Matched", "--type", "OrderCancelled"), lambda row: row["body"].get("type") in
         ("Matched", "OrderCancelled")),
        (("--after", "20", "--until", "2026-11-30T00:53:29"), lambda row: row["seq"] > 20
         and row["ts_ms"] < T0 + 9_000),
        (("--since", "2026-11-30T01:53:30+01:00"), lambda row: row["ts_ms"] >= T0 + 10_000),
        # half a millisecond after T0 + 8 s: the records stamped T0 + 8 s are before it
        (("--since", "2026-11-30T00:53:28.0005"), lambda row: row["ts_ms"] > T0 + 8_000),
        (("--until", "2026-11-30T00:53:28.0005"), lambda row: row["ts_ms"] <= T0 + 8_000),
    ],
)
def test_what_is_listed_is_every_record_the_options_ask_for_oldest_first(
    db: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], wanted: Callable[[Row], bool],
) -> None:
    expected = [row for row in _rows(db) if wanted(row)]
    assert expected, "the journal should hold records of each case"
    assert _without_time(_listed(capsys, db, *options)) == expected


def test_each_case_finds_what_it_is_about(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the oracle is held to: a bet's records from its placing to its settlement, a replacement by the bet it
    replaces, and the market m.1 only where its id stands whole (not in m.10's)."""
    types = [row["body"].get("type") for row in _listed(capsys, db, "--bet", "1")]
    assert types == ["OrderPlaced", "Matched", "OrderLapsed", "MarketSettled"]
    replaced = _listed(capsys, db, "--bet", "3")
    assert [(row["body"]["type"], row["body"]["bet_id"]) for row in replaced][-1] == ("OrderPlaced", 4)
    assert {row["body"].get("market_id") for row in _listed(capsys, db, "--market", "m.1")} == {"m.1", None}
    assert [row["kind"] for row in _listed(capsys, db, "--market", "m.1", "--kind", "result")] == ["result"]


def test_an_account_is_found_whatever_the_case_of_its_name(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As logins and ``accounts`` take names: ``AL`` is the account al, ``house`` the server's HOUSE; a name the
    database holds no account of is looked for as it is. The listing was empty, status 0."""
    copy = _copy(db, tmp_path / "exchange.db")
    store = AccountStore.open(str(copy))
    store.add("al", "pw", deposit=0)
    store.close()
    al = _listed(capsys, copy, "--account", "al")
    assert al and _listed(capsys, copy, "--account", "AL") == al == _listed(capsys, copy, "--account", "Al")
    house = _listed(capsys, copy, "--account", "HOUSE")
    assert house and _listed(capsys, copy, "--account", "house") == house
    assert _listed(capsys, db, "--account", "house") == house  # a journal with no accounts table: the same
    assert _listed(capsys, copy, "--account", "BO", unknown="account BO") == []  # bo traded, has no login here
    conn = sqlite3.connect(copy)  # a client named house, added before the server's names were refused in any case
    conn.execute("INSERT INTO accounts (name, salt, pw_hash, deposit, currency, created_ms) VALUES ('house', x'', "
                 "x'', 0, 'GBP', 0)")
    conn.commit()
    conn.close()
    assert _listed(capsys, copy, "--account", "House", unknown="account house") == []  # that client's, not HOUSE's


def test_an_operators_action_on_a_game_is_found_by_each_of_its_markets(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A void sent through a hi/lo game's High market voids its Low market too: a search of the Low market finds
    the operator's record behind its MarketVoided (it found the event alone), and not the High market's events."""
    copy = _copy(db, tmp_path / "exchange.db")
    journal = Journal.open(str(copy))
    for market in ("omaha-hilo.16", "omaha-hilo.16-low"):
        journal.append("event", {"type": "MarketVoided", "ts": 20_000, "market_id": market, "accounts": [],
                                 "house_account_id": "HOUSE", "reason": "operator op"}, ts_ms=T0 + 20_000)
    journal.append("operator", {"action": "void", "marketId": "omaha-hilo.16", "operator": "op", "reason": "fault",
                                "at": T0 + 20_000}, ts_ms=T0 + 20_000)
    journal.append("operator", {"action": "void", "marketId": "omaha-hilo.17", "operator": "op", "reason": "fault",
                                "at": T0 + 21_000}, ts_ms=T0 + 21_000)  # another game's: never found here
    journal.flush()
    journal.close()
    low = _listed(capsys, copy, "--market", "omaha-hilo.16-low")
    assert [(row["kind"], row["body"].get("market_id", row["body"].get("marketId"))) for row in low] == [
        ("event", "omaha-hilo.16-low"), ("operator", "omaha-hilo.16")]
    assert _listed(capsys, copy, "--market", "omaha-hilo.16-low", "--kind", "operator") == low[1:]
    assert _listed(capsys, copy, "--market", "omaha-hilo.16", "--kind", "operator") == low[1:]
    assert _listed(capsys, copy, "--market", "m.10", "--kind", "operator")[0]["body"]["action"] == "suspend"


def test_the_first_and_the_last_and_the_time_in_utc(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    every = _listed(capsys, db, "--account", "al")
    assert _listed(capsys, db, "--account", "al", "--limit", "2") == every[:2]
    assert _listed(capsys, db, "--account", "al", "--last", "2") == every[-2:]
    assert every[-1]["time"] == "2026-11-30T00:53:31.000Z" and every[-1]["kind"] == "operator"
    assert _listed(capsys, db, "--account", "nobody", unknown="account nobody") == []


def test_a_damaged_record_stops_the_listing_after_those_before_it(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    copy = _copy(db, tmp_path / "damaged.db")
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE journal SET body = replace(body, '\"size\":300', '\"size\":900') WHERE seq = ("
                 "SELECT min(seq) FROM journal WHERE body LIKE '%\"Matched\"%')")
    (bad,) = conn.execute("SELECT seq FROM journal WHERE body LIKE '%\"size\":900%'").fetchone()
    conn.commit()
    conn.close()
    rows = _rows(db)
    for options, wanted in (((), rows), (("--account", "bo"), [r for r in rows if "bo" in _accounts_of(r["body"])])):
        code, out, err = run_cli(capsys, "journal", "--db", str(copy), *options)
        assert code == 1 and err.count("\n") == 1 and "the journal is damaged" in err and f"{bad}" in err
        assert [json.loads(line)["seq"] for line in out.splitlines()] == [r["seq"] for r in wanted if r["seq"] < bad]
    # --last reads from the end back: the records it reads are checked, those before them are not read
    assert [row["seq"] for row in _listed(capsys, copy, "--last", "2")] == [r["seq"] for r in rows[-2:]]
    code, out, err = run_cli(capsys, "journal", "--db", str(copy), "--last", str(len(rows)))
    assert (code, out) == (1, "") and f"{bad}" in err


def test_set_aside_lists_what_starts_set_aside_as_damaged_each_with_its_problem(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Two starts accept damage (a record whose body is not JSON, then an earlier one whose body no longer matches
    its checksum): ``--set-aside`` lists every record they set aside, in that order, as read, each with what is
    wrong with it; the journal's own listing ends before them."""
    copy = _copy(db, tmp_path / "aside.db")
    rows = _rows(copy)
    first, second = rows[len(rows) // 3]["seq"], rows[2 * len(rows) // 3]["seq"]
    _accept_damage(copy, "UPDATE journal SET body = '{not json', crc = NULL WHERE seq = ?", second)
    _accept_damage(copy, "UPDATE journal SET body = replace(body, ':', ': ') WHERE seq = ?", first)

    listed = _listed(capsys, copy, "--set-aside")
    order = [r for r in rows if r["seq"] >= second] + [r for r in rows if first <= r["seq"] < second]
    *listed, skipped = listed  # the last: the record the first start wrote at ``second`` to skip those ids
    assert (skipped["seq"], skipped["body"]["type"], skipped["problem"]) == (second, "IdsSkipped", None)
    assert [(r["seq"], r["kind"], r["problem"] is not None) for r in listed] == [
        (r["seq"], r["kind"], r["seq"] in (first, second)) for r in order]
    by_seq = {r["seq"]: r for r in listed}
    assert by_seq[second]["body"] is None and by_seq[second]["text"] == "{not json"
    assert "not JSON" in by_seq[second]["problem"]
    assert by_seq[first]["body"] == next(r["body"] for r in rows if r["seq"] == first)  # the same JSON, spaced out
    assert "does not match its checksum" in by_seq[first]["problem"] and "text" not in by_seq[first]
    assert _without_time([r for r in listed if r["seq"] not in (first, second)]) == [
        {**r, "problem": None} for r in order if r["seq"] not in (first, second)]
    assert [r["seq"] for r in _listed(capsys, copy)] == [r["seq"] for r in rows if r["seq"] < first] + [first]
    bo = [r for r in listed if r["body"] is not None and "bo" in _accounts_of(r["body"])]
    assert bo and _listed(capsys, copy, "--set-aside", "--account", "bo", "--last", "2") == bo[-2:]
    code, _, err = run_cli(capsys, "journal", "--db", str(copy), "--set-aside", "--follow")
    assert code == 2 and "not with --limit, --until or --set-aside" in err
    assert _listed(capsys, db, "--set-aside") == []  # a journal nothing was set aside from


def _accept_damage(db: Path, damage: str, seq: int) -> None:
    """Damage record ``seq`` with the SQL ``damage``; then a start accepts it, as ``serve --accept-damaged-journal``
    does (recovery sets the records from there on aside)."""
    conn = sqlite3.connect(db)
    conn.execute(damage, (seq,))
    conn.commit()
    conn.close()
    journal = Journal.open(str(db))
    try:
        assert restore(journal, accept_damaged=True).last_seq == seq  # ``seq`` now skips the ids of those set aside
    finally:
        journal.close()


@pytest.mark.parametrize("options", [(), ("--kind", "event"), ("--type", "Matched"), ("--account", "bo"),
                                     ("--last", "1000"), ("--account", "bo", "--last", "1000"),
                                     ("--since", "2000-01-01"), ("--until", "2099-01-01"),
                                     ("--since", "2000-01-01", "--last", "1000")])
def test_a_missing_record_stops_every_search_that_reaches_it(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...],
) -> None:
    """A search that does not read every record still checks the journal's numbering: a record deleted from the
    middle stops it (after the records before it, read oldest first), status 1, where a filter skipped it."""
    copy = _copy(db, tmp_path / "gap.db")
    rows = _rows(copy)
    gone = rows[len(rows) // 2]["seq"]
    conn = sqlite3.connect(copy)
    conn.execute("DELETE FROM journal WHERE seq = ?", (gone,))
    conn.commit()
    conn.close()
    code, out, err = run_cli(capsys, "journal", "--db", str(copy), *options)
    assert code == 1 and err.count("\n") == 1 and f"record {gone} is missing" in err
    assert all(json.loads(line)["seq"] < gone for line in out.splitlines())
    if "--last" in options:
        assert out == ""
    else:
        listed = [json.loads(line)["seq"] for line in out.splitlines()]
        assert listed == [line["seq"] for line in _listed(capsys, db, *options) if line["seq"] < gone]
    filters = options[:2] if options[:1] != ("--last",) else ()
    after = [row for row in _listed(capsys, db, *filters) if row["seq"] > gone]
    assert _listed(capsys, copy, *filters, "--after", str(gone)) == after  # past the gap: read as ever


def test_a_search_past_a_gap_that_lists_nothing_leaves_unsaid_what_the_gap_may_hold(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The note looks for each value over the whole journal: a record missing before the span searched is no fault
    of the search (status 0, as ever), and the note says nothing it could not check."""
    copy = _copy(db, tmp_path / "gap.db")
    conn = sqlite3.connect(copy)
    conn.execute("DELETE FROM journal WHERE seq = 3")
    conn.commit()
    conn.close()
    assert _listed(capsys, copy, "--account", "zed", "--after", "5") == []  # no note, no damage said


def test_it_reads_what_is_committed_beside_a_writer_and_changes_nothing(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A record written and not yet committed is not listed; the database's file is the same, byte for byte."""
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO journal (seq, ts_ms, kind, body, crc) VALUES (10000, 0, 'event', '{}', 0)")
    try:
        listed = _listed(capsys, db)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert [row["seq"] for row in listed] == [row["seq"] for row in _rows(db)]


@contextlib.contextmanager
def _following(db: Path, *options: str, stop: signal.Signals = signal.SIGINT,
               ) -> Iterator[tuple[Callable[[], Row], list[str]]]:
    """``exchange-poker journal --db DB OPTIONS --follow`` as a process: a call gives its next record (waiting at most
    30 s); once the block ends it is sent ``stop``, must end with status 0, and what it said on stderr is in the
    list. A record it printed that the block did not take fails the test."""
    argv = [sys.executable, "-m", "exchange.cli", "journal", "--db", str(db), *options, "--follow"]
    said: list[str] = []
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as follower:
        lines: queue.Queue[str] = queue.Queue()
        stdout = follower.stdout
        assert stdout is not None

        def read() -> None:
            for line in stdout:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        try:
            yield (lambda: json.loads(lines.get(timeout=30))), said
        finally:
            follower.send_signal(stop)
        assert follower.wait(timeout=30) == 0
        assert follower.stderr is not None
        said.extend(follower.stderr.read().splitlines())
    assert lines.empty()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_follow_prints_what_is_committed_after_it_started_until_it_is_stopped(
    stop: signal.Signals, db: Path, tmp_path: Path,
) -> None:
    """``--last 1 --follow``, as ``tail -f``: the account's last record, then each of its records a writer commits
    later (another account's left out); Ctrl-C ends it quietly, status 0, and so does SIGTERM (as it stops a
    server: it ended the follower as the signal does, status 143 where Ctrl-C gave 0)."""
    live = _copy(db, tmp_path / "live.db")
    rows = _rows(live)
    every, end = [row for row in rows if "al" in _accounts_of(row["body"])], rows[-1]["seq"]
    with _following(live, "--account", "al", "--last", "1", stop=stop) as (following, said):
        assert following()["seq"] == every[-1]["seq"]
        writer = Journal.open(str(live))
        for account, amount in (("al", 7.0), ("bo", 8.0), ("al", 9.0)):
            writer.append("operator", {"action": "deposit", "account": account, "amount": amount, "operator": "op",
                                       "reason": "later", "at": T0 + 20_000}, ts_ms=T0 + 20_000)
        writer.flush()
        writer.close()
        later = [following() for _ in range(2)]
        assert [(row["body"]["account"], row["body"]["amount"]) for row in later] == [("al", 7.0), ("al", 9.0)]
        assert [row["seq"] for row in later] == [end + 1, end + 3]
    assert said == []


def test_a_search_cut_short_by_ctrl_c_says_so_with_status_130(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only ``--follow`` ends by Ctrl-C: a search stopped part of the way through exited 0, as if it had listed
    everything it found."""
    printed = journal_cli._print

    def interrupted(records: Iterable[Record]) -> int:
        printed(itertools.islice(records, 2))
        raise KeyboardInterrupt

    monkeypatch.setattr(journal_cli, "_print", interrupted)
    code, out, err = run_cli(capsys, "journal", "--db", str(db))
    assert (code, len(out.splitlines()), err) == (130, 2, "exchange-poker: interrupted\n")


def test_follow_goes_back_to_where_a_start_set_records_aside(db: Path, tmp_path: Path) -> None:
    """A start that accepts damage sets the journal's last records aside and numbers its next ones from there
    (``journal_rewinds`` says from where). Seen in one look, the new records reach past the old end: a follower
    going on from the number it had read to would miss those below it."""
    live = _copy(db, tmp_path / "live.db")
    end = _rows(live)[-1]["seq"]
    with _following(live, "--after", str(end - 2)) as (following, said):
        assert [following()["seq"] for _ in range(2)] == [end - 1, end]
        conn = sqlite3.connect(live, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")  # all in one commit: the follower sees the rewind and the new records at once
        conn.execute(REWINDS_SCHEMA)
        conn.execute("DELETE FROM journal WHERE seq >= ?", (end - 1,))
        conn.execute("INSERT INTO journal_rewinds (first_seq) VALUES (?)", (end - 1,))
        for seq in (end - 1, end, end + 1):
            body = json.dumps({"action": "deposit", "account": "cy", "amount": seq, "operator": "op", "reason": "r",
                               "at": T0}, separators=(",", ":"))
            conn.execute("INSERT INTO journal (seq, ts_ms, kind, body, crc) VALUES (?, ?, 'operator', ?, ?)",
                         (seq, T0 + 30_000, body, body_crc(body)))
        conn.execute("COMMIT")
        conn.close()
        assert [following()["body"]["amount"] for _ in range(3)] == [end - 1, end, end + 1]
    assert said == [f"exchange-poker: note: a start set records after {end - 2} aside (damage accepted) and numbered "
                    "its new records from there: following from there"]


def test_a_servers_own_records_are_found_by_what_they_concern_at_any_depth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A server's journal (its games' results, the markets it forgot, with each account's cleared orders listed
    under the account's name): an account's records include every forgotten market it has cleared orders on, a
    market's include its result and how it ended. The oracle names where the value stands in each kind."""
    db = tmp_path / "exchange.db"
    clock = VirtualClock(START_MS)
    service = trading_service(Journal.open(str(db)), clock, ExchangeConfig(keep_closed_markets=1))
    play(service, clock, START_MS + 45_300)
    service.journal.close()
    rows = _rows(db)
    ended = [row for row in rows if row["kind"] == "ended"]
    assert len(ended) >= 2, "the server should have forgotten markets"
    for row in ended:
        market = row["body"]["info"]["market_id"]
        found = _listed(capsys, db, "--market", market, "--kind", "ended", "--kind", "result")
        assert [(r["kind"], r["seq"]) for r in found] == [
            (r["kind"], r["seq"]) for r in rows if (r["kind"] == "ended" and r["body"]["info"]["market_id"] == market)
            or (r["kind"] == "result" and market in {m["market_id"] for m in r["body"]["markets"]})]
        assert [r["kind"] for r in found] == ["result", "ended"]
    noise = _listed(capsys, db, "--account", "noise-1", "--kind", "ended")
    assert noise and [r["seq"] for r in noise] == [r["seq"] for r in ended if "noise-1" in r["body"]["cleared"]]


def test_the_servers_start_names_the_command_and_it_reads_the_running_servers_journal(tmp_path: Path) -> None:
    """``serve`` names the audit trail's command as it starts; run beside the running server (without
    ``--follow``, which would not end), it prints the server's last records."""
    db = tmp_path / "exchange.db"
    with ServerProcess(db, "--demo", window_s=1, playing_s=0.1) as server:
        (audit,) = [line.split(None, 1)[1] for line in server.out.read_text().splitlines()
                    if line.strip().startswith("audit:")]
        assert audit == f"exchange-poker journal --db {db} --last 20 --follow"
        wait_until(lambda: len(_rows(db)) >= 20, timeout_s=30, what="the server's first 20 records")
        done = cli(*audit.split()[1:-1])
        assert (done.returncode, done.stderr) == (0, "")
        listed = _without_time([json.loads(line) for line in done.stdout.splitlines()])
    first = listed[0]["seq"]
    assert [row["seq"] for row in listed] == list(range(first, first + 20))
    assert listed == [row for row in _rows(db) if first <= row["seq"] < first + 20]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--type", "Placed"), "'Placed' is not an event type; the types are AccountCredited"),
        (("--kind", "events"), "argument --kind: invalid choice: 'events'"),
        (("--since", "last week"), "'last week' is not a time like 2026-12-05T09:30"),
        (("--bet", "x"), "argument --bet: must be a whole number from 1, not x"),
        (("--limit", "2", "--last", "2"), "argument --last: not allowed with argument --limit"),
        (("--last", "9" * 30), "argument --last: must be a whole number from 1 to "),
        (("--market", "m,10"), "'m,10' is not a market id: one is CHANNEL.GAME, such as holdem.17"),
    ],
)
def test_a_bad_option_is_status_2_and_one_line(
    db: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], says: str,
) -> None:
    code, out, err = run_cli(capsys, "journal", "--db", str(db), *options)
    assert (code, out) == (2, "") and err.count("\n") == 1 and says in err


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--market", "m.11"), "market m.11"),
        (("--account", "zed", "--market", "m.1", "--bet", "99"), "account zed, bet 99"),  # m.1 is found alone
        (("--account", "bo", "--kind", "operator"), ""),  # each alone is found: together nothing, and no note
    ],
)
def test_a_search_that_lists_nothing_says_which_value_it_names_no_record_concerns(
    db: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], says: str,
) -> None:
    """A misspelt market, account or bet id lists nothing, as a search that finds nothing does: stderr says which
    of them the journal never mentions (status 0: nothing is wrong with the journal)."""
    assert _listed(capsys, db, *options, unknown=says) == []


def test_a_line_end_inside_a_text_is_escaped_so_each_record_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """JSON leaves U+0085, U+2028 and U+2029 as they are, and ``str.splitlines`` ends a line at each: a client's
    reference holding one would split its record in two for such a reader."""
    path = tmp_path / "exchange.db"
    journal = Journal.open(str(path))
    journal.append("operator", {"action": "deposit", "account": "al", "reason": "a\x85b\u2028c\u2029d"}, ts_ms=1)
    journal.flush()
    journal.close()
    code, out, err = run_cli(capsys, "journal", "--db", str(path))
    assert (code, err) == (0, "") and len(out.splitlines()) == 1
    assert json.loads(out)["body"]["reason"] == "a\x85b\u2028c\u2029d"


def test_a_database_in_a_folder_it_may_not_write_is_read_as_it_is(db: Path, tmp_path: Path) -> None:
    """An archived copy in a read-only folder: SQLite cannot make its -shm there, and said "attempt to write a
    readonly database". With no -wal nothing can be writing it: read as it is. With a -wal and no -shm, refused
    saying what to do."""
    folder = tmp_path / "archive"
    folder.mkdir()
    archived = _copy(db, folder / "exchange.db")
    folder.chmod(0o555)
    try:
        done = as_a_user_held_to_permissions("journal", "--db", str(archived), "--last", "2")
        assert (done.returncode, done.stderr) == (0, "")
        assert [json.loads(line)["seq"] for line in done.stdout.splitlines()] == [r["seq"] for r in _rows(db)[-2:]]
        folder.chmod(0o755)
        (folder / "exchange.db-wal").touch()
        folder.chmod(0o555)
        refused = as_a_user_held_to_permissions("journal", "--db", str(archived))
        assert refused.returncode == 2 and "copy the database with its -wal to a folder you can write" in refused.stderr
    finally:
        folder.chmod(0o755)
    assert sorted(p.name for p in folder.iterdir()) == ["exchange.db", "exchange.db-wal"]


def test_a_journal_from_before_checksums_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A server adds the checksum column when it opens an older journal; the command, which writes nothing, reads
    one no server has opened since (it said "no such column: crc")."""
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, ts_ms INTEGER NOT NULL, kind TEXT NOT NULL, "
                 "body TEXT NOT NULL)")
    conn.execute("""INSERT INTO journal VALUES (1, 5, 'event', '{"type":"AccountOpened","ts":5,"account_id":"al"}')""")
    conn.commit()
    conn.close()
    (row,) = _listed(capsys, old, "--account", "al")
    assert (row["seq"], row["body"]["account_id"]) == (1, "al")


def test_a_database_that_is_not_one_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.db"
    code, _, err = run_cli(capsys, "journal", "--db", str(missing))
    assert code == 2 and f"no database at {missing}" in err and not missing.exists()
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    code, _, err = run_cli(capsys, "journal", "--db", str(other))
    assert code == 2 and "it has no journal" in err and err.count("\n") == 1


@pytest.mark.parametrize("options", [(), ("--account", "al"), ("--last", "1")], ids=["all", "an-account", "last"])
def test_acknowledged_records_lost_at_the_end_fail_a_search(
    options: tuple[str, ...], db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The -wal lost or cut: the records at the journal's end are gone, and only the durable mark knows they were
    acknowledged. A server refuses to start on it; a search listed what was left with status 0, as if whole."""
    copy = _copy(db, tmp_path / "copy.db")
    end = _rows(copy)[-1]["seq"]
    whole = run_cli(capsys, "journal", "--db", str(copy), *options)
    assert whole[0] == 0 and whole[2] == ""
    mark = DurableMark.open(str(copy))
    mark.write(end + 3)
    mark.close()
    code, out, err = run_cli(capsys, "journal", "--db", str(copy), *options)
    assert (code, out) == (1, whole[1])  # what there is, then the refusal
    assert err.startswith(f"exchange-poker: error: cannot use the database {copy}: the journal is damaged: records "
                          f"up to seq {end + 3} were acknowledged to clients (the durable mark), but the journal ends "
                          f"at seq {end}: 3 acknowledged records are missing (the -wal file was lost, or damaged from "
                          "that point); restore the database") and err.count("\n") == 1, err


def test_a_follower_is_told_of_acknowledged_records_lost_at_the_end(db: Path, tmp_path: Path) -> None:
    copy = _copy(db, tmp_path / "copy.db")
    end = _rows(copy)[-1]["seq"]
    mark = DurableMark.open(str(copy))
    mark.write(end + 2)
    mark.close()
    with _following(copy, "--last", "1") as (following, said):
        assert following()["seq"] == end
    assert said == [f"exchange-poker: note: records up to seq {end + 2} were acknowledged to clients (the durable "
                    f"mark), but the journal ends at seq {end}: 2 acknowledged records are missing (the -wal file "
                    "was lost, or damaged from that point)"]
