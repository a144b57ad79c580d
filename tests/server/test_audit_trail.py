"""The audit trail's search never loses a record to its text search: whatever the bodies hold (text with quotes,
backslashes, letters beyond ASCII, numbers inside numbers, values at any depth), ``find`` and ``find_last`` give
exactly the records a plain reading of every record judges to match (hypothesis)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exchange.server.audit_trail import ACCOUNT_FIELDS, BET_FIELDS, MARKET_FIELDS, Query, find, find_last
from exchange.server.database import connect_read_only
from exchange.server.journal import Journal
from exchange.server.journal_kinds import KINDS
from exchange.server.journal_read import PAGE, Record, records_after

# Values drawn from small pools, so that a query's value is often in a body, and often in it for another reason.
TEXTS = ("holdem.1", "holdem.10", "al", "al\"x", "a\\l", "Zoë", "ø", "a\x7fb", "1", "12")
NUMBERS = (1, 2, 12, 21, 121, 2**40, 2**70)  # past 64 bits: a body the standard library writes, its letters escaped
FIELDS = (*sorted(MARKET_FIELDS | ACCOUNT_FIELDS | BET_FIELDS), "type", "reason", "other")

values = st.one_of(st.sampled_from(TEXTS), st.sampled_from(NUMBERS), st.none(), st.booleans())
bodies = st.recursive(
    st.dictionaries(st.sampled_from(FIELDS), values, max_size=4),
    lambda inner: st.dictionaries(st.sampled_from(FIELDS), st.one_of(values, inner, st.lists(inner, max_size=3)),
                                  max_size=4),
    max_leaves=12,
)
records = st.lists(st.tuples(st.sampled_from(KINDS), bodies, st.integers(0, 50)), min_size=1, max_size=25)
queries = st.builds(
    Query,
    markets=st.frozensets(st.sampled_from(TEXTS), max_size=2),
    accounts=st.frozensets(st.sampled_from(TEXTS), max_size=2),
    bets=st.frozensets(st.sampled_from(NUMBERS), max_size=2),
    kinds=st.frozensets(st.sampled_from(KINDS), max_size=2),
    types=st.frozensets(st.sampled_from(TEXTS), max_size=1),
    after=st.integers(0, 5),
    since_ms=st.none() | st.integers(0, 50),
    until_ms=st.none() | st.integers(0, 50),
)


def _journal(path: Path, written: list[tuple[str, dict[str, Any], int]]) -> list[Record]:
    journal = Journal.open(str(path))
    for kind, body, ts in written:
        journal.append(kind, body, ts_ms=ts)
    journal.flush()
    journal.close()
    conn = sqlite3.connect(path)
    try:
        return list(records_after(conn, str(path), 0))
    finally:
        conn.close()


@settings(max_examples=150, deadline=None)
@given(written=records, query=queries, last=st.integers(1, 4))
@example(written=[("event", {"account_id": "Zoë", "other": 2**70}, 1)], query=Query(accounts=frozenset({"Zoë"})),
         last=1)  # a body with a number past 64 bits is written by the standard library: its "ë" escaped
@example(written=[("event", {"account_id": "al\"x"}, 1)], query=Query(accounts=frozenset({"al\"x"})), last=1)
@example(written=[("event", {"account_id": "a\x7fb", "other": 2**70}, 1)], query=Query(accounts=frozenset({"a\x7fb"})),
         last=1)  # DEL: as it is by orjson, escaped by the standard library
@example(written=[("event", {"type": {"other": 1}}, 1)], query=Query(types=frozenset({"al"})), last=1)  # not text
def test_the_search_finds_exactly_what_reading_every_record_finds(
    tmp_path_factory: pytest.TempPathFactory, written: list[tuple[str, dict[str, Any], int]], query: Query, last: int,
) -> None:
    path = tmp_path_factory.mktemp("trail") / "exchange.db"
    every = _journal(path, written)
    wanted = [r for r in every if r.seq > query.after and query.matches(r)]
    conn = sqlite3.connect(path)
    try:
        assert list(find(conn, str(path), query)) == wanted
        assert find_last(conn, str(path), query, last) == wanted[-last:]
    finally:
        conn.close()


def test_a_body_that_is_not_an_object_holds_no_field() -> None:
    """A hand-edited or foreign journal's body may be any JSON: it concerns nothing, and raises nothing."""
    for body in (["al"], "al", 12, None):
        record = Record(1, 0, "event", body)  # type: ignore[arg-type]  # not a mapping, on purpose
        assert not Query(accounts=frozenset({"al"}), types=frozenset({"al"})).matches(record)
        assert Query().matches(record)


def test_a_slow_reader_does_not_hold_the_servers_log(tmp_path: Path) -> None:
    """Records are read a page at a time, each page's query finished before its records are handed on: a reader
    whose output waits (``exchange-poker journal | less``) holds no read transaction, so the server's checkpoints
    can start its write-ahead log again (one held open let the log grow by gigabytes an hour)."""
    path = tmp_path / "exchange.db"
    _journal(path, [("event", {"i": i}, i) for i in range(PAGE + 10)])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("INSERT INTO journal (seq, ts_ms, kind, body) VALUES (?, 0, 'event', '{}')", (PAGE + 11,))
    reader = connect_read_only(str(path))
    try:
        records = records_after(reader, str(path), 0)
        assert next(records).seq == 1  # the reader has read, and waits on its caller
        busy, _, _ = writer.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        assert busy == 0
        assert [r.seq for r in records] == list(range(2, PAGE + 12))
    finally:
        reader.close()
        writer.close()
