"""``exchange-poker journal``: the audit trail, the server database's journal records, as JSON lines.

Each line is one record, oldest first: ``{"seq", "ts_ms", "time", "kind", "body"}`` (``time`` is ``ts_ms`` in
ISO 8601, UTC), the body as the server journaled it (a core event's fields, an operator's action, a game's
result). The filters are :mod:`exchange.server.audit_trail`'s: what a record concerns (``--market``,
``--account``, ``--bet``, each repeatable), its ``--kind`` and event ``--type``, ``--after`` a record's number,
``--since`` / ``--until`` a time; ``--follow`` then prints what the server commits from then on, as ``tail -f``
does. A search that lists nothing says on stderr which market, account or bet it names no record concerns at all.
It reads what the server has committed, beside a running server or without one, and changes nothing. A
damaged or missing record stops it, after the records before it, with status 1 (a search reads and checks only the
records that can concern it; ``--last N`` reads from the journal's end back). ``--set-aside`` lists instead the
records starts set aside as damaged (``serve --accept-damaged-journal``), each with what is wrong with it.

    exchange-poker journal --db exchange.db --account alice --type Matched
    exchange-poker journal --market holdem.17 > holdem.17.jsonl   # pandas: pd.read_json(path, lines=True)
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, NoReturn

from exchange.cli.commands import SUMMARIES
from exchange.cli.options import PROG, database, fail, one_line_errors, positive, whole_number_from_to
from exchange.cli.stopping import Terminated, terminated_as_interrupted
from exchange.game.channels import parse_market_id
from exchange.server import journal_kinds, jsoncodec, snapshots
from exchange.server.audit_trail import EVENT_TYPE_NAMES, Query, find, find_last
from exchange.server.database import DatabaseUnusable, nothing_at, open_read_only, refusal, refuse_uri, tables_of
from exchange.server.journal_check import JournalDamaged, lost_at_the_end, rewinds
from exchange.server.journal_read import Record, last_seq, set_aside
from exchange.server.store import reserved_as_stored, stored_name

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: ``--limit`` and ``--last``: counts a Python slice takes.
COUNT = whole_number_from_to(1, sys.maxsize)
#: How often ``--follow`` looks for records committed since it last looked (seconds).
FOLLOW_POLL_S = 0.2
#: The status when a damaged record stopped the listing (bad arguments are 2, as every command's).
DAMAGED = 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "journal", help=SUMMARIES["journal"],
        description="Print the journal's records as JSON lines, oldest first: every record, or those the options "
                    "ask for (several values of one option: any of them; several options: all of them).")
    parser.add_argument("--db", type=database, default="exchange.db", help="the server database (default: exchange.db)")
    parser.add_argument("--market", action="append", default=[], metavar="ID", type=_market_id,
                        help="records that concern this market (holdem.17, omaha-hilo.3-low)")
    parser.add_argument("--account", action="append", default=[], metavar="NAME",
                        help="records that concern this account: its bets, matches, results, money moved for or by it")
    parser.add_argument("--bet", action="append", default=[], type=positive, metavar="ID",
                        help="records that concern this bet: its placing, matches, cancel or lapse, result")
    parser.add_argument("--kind", action="append", default=[], choices=journal_kinds.KINDS,
                        help="records of this kind: the core's events, operators' actions, games' results, "
                             "markets the exchange forgot")
    parser.add_argument("--type", action="append", default=[], metavar="TYPE", type=_event_type,
                        help="events of this type (OrderPlaced, Matched, OrderLapsed, MarketSettled, ...)")
    parser.add_argument("--after", type=whole_number_from_to(0, 2**63 - 1), default=0, metavar="SEQ",
                        help="only records numbered after SEQ")
    parser.add_argument("--since", type=_time, metavar="TIME",
                        help="only records at or after TIME (ISO 8601, such as 2026-12-05T09:30; UTC unless it says)")
    parser.add_argument("--until", type=_time, metavar="TIME", help="only records before TIME")
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--limit", type=COUNT, metavar="N", help="at most the first N records found")
    count.add_argument("--last", type=COUNT, metavar="N", help="only the last N records found")
    parser.add_argument("--set-aside", action="store_true",
                        help="list the records a start set aside as damaged (serve --accept-damaged-journal) instead, "
                             "in the order they were set aside, each with what is wrong with it")
    parser.add_argument("--follow", action="store_true",
                        help="then print the records the server commits from now on, as they come, until stopped "
                             "(Ctrl-C); with --last N, the last N first (as tail -f)")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def _market_id(text: str) -> str:
    if parse_market_id(text) is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a market id: one is CHANNEL.GAME, such as holdem.17, or "
                                         "CHANNEL.GAME-low for a hi/lo game's Low market, such as omaha-hilo.3-low")
    return text


def _event_type(text: str) -> str:
    if text not in EVENT_TYPE_NAMES:
        raise argparse.ArgumentTypeError(f"{text!r} is not an event type; the types are {', '.join(EVENT_TYPE_NAMES)}")
    return text


def _time(text: str) -> int:
    """An ISO 8601 time (UTC unless it gives an offset) as the first epoch millisecond at or after it: a record
    stamped then is at or after the time, one stamped before it is before (a time between two milliseconds is
    rounded up, not down)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time like 2026-12-05T09:30 or 2026-12-05") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return -((EPOCH - when) // timedelta(milliseconds=1))


def query_of(args: argparse.Namespace, conn: sqlite3.Connection) -> Query:
    """The :class:`Query` the command line asks for; account names as stored, whatever their case (as logins
    take them)."""
    accounts = frozenset(_as_stored(conn, name) for name in args.account)
    return Query(markets=frozenset(args.market), accounts=accounts, bets=frozenset(args.bet),
                 kinds=frozenset(args.kind), types=frozenset(args.type), after=args.after, since_ms=args.since,
                 until_ms=args.until)


def _as_stored(conn: sqlite3.Connection, name: str) -> str:
    """The account ``name`` names as the journal writes it: a client's stored name (one added before the server's
    names were refused in any case, ``house`` say, is still a client's), else the server's own (``house`` is
    ``HOUSE``), else ``name`` itself (an account the database does not hold, or a database of no accounts)."""
    if "accounts" in tables_of(conn):
        client = stored_name(conn, name)
        if client is not None:
            return client
    return reserved_as_stored(name) or name


def run(args: argparse.Namespace) -> int:
    if args.follow and (args.limit is not None or args.until is not None or args.set_aside):
        fail("--follow prints records as they come, with no end: not with --limit, --until or --set-aside")
    try:
        refuse_uri(args.db)
        if nothing_at(args.db):
            fail(f"no database at {args.db} (exchange-poker serve --db {args.db} makes one)")
        conn = _open(args.db)
    except (DatabaseUnusable, sqlite3.Error) as exc:
        fail(refusal(args.db, exc))
    try:
        return _answer(conn, args)
    except JournalDamaged as exc:
        print(f"exchange-poker: error: {_damage_said(conn, exc)}", file=sys.stderr)
        return DAMAGED
    except sqlite3.Error as exc:
        fail(refusal(args.db, exc))
    finally:
        conn.close()


def _answer(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    """Print what the command asks of the journal. Acknowledged records lost at its end (the durable mark says so)
    fail a search as a record missing inside it does, after what it found (a follower is told, and follows)."""
    query = query_of(args, conn)
    if args.set_aside:
        _print_set_aside(conn, query, args.limit, args.last)
        return 0
    lost = lost_at_the_end(conn, args.db)  # before the records are read (see there)
    if args.follow:
        if lost is not None:
            print(f"{PROG}: note: {lost}", file=sys.stderr, flush=True)
        _follow(conn, args.db, query, args.last)
        return 0
    if not _print(_chosen(conn, args.db, query, args.limit, args.last)):
        _say_what_no_record_concerns(conn, args.db, query)
    if lost is not None:
        raise JournalDamaged(args.db, lost)
    return 0


def _damage_said(conn: sqlite3.Connection, exc: JournalDamaged) -> JournalDamaged:
    """``exc``, or, for a damaged record before the newest sound snapshot (none of a start's business: the state is
    rebuilt from the snapshot), the same damage with what repairs it."""
    snapshot = 0
    with contextlib.suppress(sqlite3.Error):  # (a database from before snapshots)
        loaded, _ = snapshots.newest_valid(conn, last_seq(conn))  # (a damaged one a start passes over too)
        snapshot = loaded.seq if loaded is not None else 0
    if exc.first_bad is None or exc.first_bad > snapshot:
        return exc
    return JournalDamaged(exc.path, exc.detail, exc.first_bad, snapshot=snapshot)


def _open(db: str) -> sqlite3.Connection:
    """The database, read-only (:func:`~exchange.server.database.open_read_only`); one with no journal is refused
    (nothing would be found in it)."""
    conn = open_read_only(db)
    try:
        if "journal" not in tables_of(conn):
            raise DatabaseUnusable(db, "it has no journal: it is not a database 'exchange-poker serve' has run on")
    except BaseException:
        conn.close()
        raise
    return conn


def _follow(conn: sqlite3.Connection, db: str, query: Query, last: int | None) -> None:
    """Print what ``query`` finds now (the ``last`` of it, if given), then what it finds among the records committed
    since, every :data:`FOLLOW_POLL_S`, until Ctrl-C or SIGTERM: how it is ended, so it returns (status 0; a search
    with an end that either stops is cut short, and says so, status 130 or 143).

    A start that accepts damage sets the journal's last records aside and numbers its new ones from the first of
    them again (a row of ``journal_rewinds`` says from where): followed from the number it had read to, those new
    records would be missed, so a rewind takes the follower back to it, and it says so on stderr."""
    with terminated_as_interrupted(), contextlib.suppress(KeyboardInterrupt, Terminated):
        _follow_for_ever(conn, db, query, last)


def _follow_for_ever(conn: sqlite3.Connection, db: str, query: Query, last: int | None) -> NoReturn:
    read_to, seen = None, collections.Counter(rewinds(conn))
    while True:
        through, now = last_seq(conn), collections.Counter(rewinds(conn))
        new = now - seen
        if read_to is not None and new and min(new) <= read_to:
            read_to = min(new) - 1
            print(f"{PROG}: note: a start set records after {read_to} aside (damage accepted) and numbered its new "
                  "records from there: following from there", file=sys.stderr, flush=True)
        seen = now
        after = query.after if read_to is None else max(query.after, read_to)
        _print(_chosen(conn, db, replace(query, after=after, through=through), None, last))
        sys.stdout.flush()
        read_to, last = through, None
        time.sleep(FOLLOW_POLL_S)


def _chosen(conn: sqlite3.Connection, db: str, query: Query, limit: int | None, last: int | None) -> Iterable[Record]:
    """What ``query`` finds: all of it, the first ``limit`` or the ``last``."""
    if last is not None:
        return find_last(conn, db, query, last)
    found = find(conn, db, query)
    return found if limit is None else itertools.islice(found, limit)


#: Characters that JSON leaves as they are but Python's ``str.splitlines`` (and some editors) take as line ends: a
#: line of the output holds them escaped, so that it is one line to every reader.
_LINE_ENDS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _print(records: Iterable[Record]) -> int:
    return _write(map(line, records))


def _write(rows: Iterable[dict[str, Any]]) -> int:
    """Each row as one line of JSON; how many there were."""
    write = sys.stdout.write
    written = 0
    for row in rows:
        write(jsoncodec.dumps_str(row).translate(_LINE_ENDS) + "\n")
        written += 1
    return written


def _concerns_none(conn: sqlite3.Connection, db: str, alone: Query) -> bool:
    """Whether no record of the whole journal concerns what ``alone`` names (a damaged or missing record on the way,
    outside the span searched, leaves it unsaid: False)."""
    try:
        return next(find(conn, db, alone), None) is None
    except JournalDamaged:
        return False


def _say_what_no_record_concerns(conn: sqlite3.Connection, db: str, query: Query) -> None:
    """After a search that listed nothing, say on stderr which of the markets, accounts and bets it named no record
    of the journal concerns at all (a misspelt one would otherwise look like a search that found nothing)."""
    named = [(f"market {m}", Query(markets=frozenset({m}))) for m in sorted(query.markets)]
    named += [(f"account {a}", Query(accounts=frozenset({a}))) for a in sorted(query.accounts)]
    named += [(f"bet {b}", Query(bets=frozenset({b}))) for b in sorted(query.bets)]
    unknown = [name for name, alone in named if _concerns_none(conn, db, alone)]
    if unknown:
        print(f"{PROG}: note: no record of the journal concerns {', '.join(unknown)}", file=sys.stderr)


def _print_set_aside(conn: sqlite3.Connection, query: Query, limit: int | None, last: int | None) -> None:
    """Print the records starts set aside that ``query`` asks for (the first ``limit``, or the ``last``), as
    :func:`line` prints the journal's, each with its ``problem`` (what is wrong with it; null: nothing, it went with
    a damaged record before it) and, if its body is not JSON, ``body`` null and the ``text`` read."""
    rows = _set_aside_lines(conn, query)
    _write(collections.deque(rows, maxlen=last) if last is not None else itertools.islice(rows, limit))


def _set_aside_lines(conn: sqlite3.Connection, query: Query) -> Iterator[dict[str, Any]]:
    for aside in set_aside(conn):
        try:
            body, problem = jsoncodec.loads(aside.text), aside.problem
        except (ValueError, RecursionError) as exc:
            body, problem = None, aside.problem or f"record {aside.seq}: its body is not JSON ({exc})"
        record = Record(aside.seq, aside.ts_ms, aside.kind, body)
        if query.matches(record):
            yield {**line(record), "problem": problem, **({"text": aside.text} if body is None else {})}


def line(record: Record) -> dict[str, Any]:
    """One record as the command prints it."""
    time = (EPOCH + timedelta(milliseconds=record.ts_ms)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"seq": record.seq, "ts_ms": record.ts_ms, "time": time, "kind": record.kind, "body": record.body}
