"""The journal as the audit trail: its records found by what they concern (``exchange-poker journal``).

Every record a server journaled stays in its database: a restart folds only the records after the newest
snapshot, and none is ever deleted. :func:`find` reads them back, oldest first, each checked against its
checksum: those that concern a market, an account or a bet, of a kind or an event type, in a span of time.

A record *concerns* a value when a field of its body named for that sort of value holds it, at any depth:

* a market: ``market_id`` (``marketId`` in an operator's suspend, resume or void, which acts on the whole game:
  so such a record concerns every market of the game it names, a hi/lo game's Low market with its High);
* an account: ``account_id``, a match's ``back_account_id`` and ``lay_account_id``, the ``house_account_id`` a
  settlement pays commission to, and an operator record's ``account`` (whose money moved) and ``operator`` (who
  acted);
* a bet: ``bet_id``, a match's ``back_bet_id`` and ``lay_bet_id``, and the bet a replacement ``replaces``.

So a market's settlement concerns every account and bet it settles, and a match both of its bets and accounts.
Several values of one sort are any of them; values of several sorts must all be met.

Reading takes no lock and changes nothing (:func:`~exchange.server.database.connect_read_only`): it may run
beside a server, and sees what the server has committed.

>>> from exchange.core.events import Matched
>>> from exchange.core.side import Side
>>> match = jsoncodec.loads(jsoncodec.dumps_record(Matched(5, 1, "holdem.3", 2, 40, 500, 7, 9, "al", "bo", Side.BACK)))
>>> record = Record(12, 5, "event", match)
>>> Query(accounts=frozenset({"bo"}), bets=frozenset({7})).matches(record)
True
>>> Query(markets=frozenset({"holdem.30"})).matches(record)
False
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from exchange.core.events import EVENT_TYPES
from exchange.game.layouts import MarketKind
from exchange.server import journal_kinds, jsoncodec
from exchange.server.journal_check import JournalDamaged
from exchange.server.journal_read import Record, first_missing, records_after, records_holding

#: The core's event types (an event's ``type``).
EVENT_TYPE_NAMES = tuple(sorted(EVENT_TYPES))

MARKET_FIELDS = frozenset({"market_id", "marketId"})  # an operator's action on a market names it as API-NG does
ACCOUNT_FIELDS = frozenset({"account_id", "back_account_id", "lay_account_id", "house_account_id", "account",
                            "operator"})
BET_FIELDS = frozenset({"bet_id", "back_bet_id", "lay_bet_id", "replaces"})


@dataclass(frozen=True, slots=True)
class Query:
    """Which records to find: each non-empty set must be met (by one of its values); ``after`` and ``through`` the
    span of a record's number (``through`` included: None, to the end), ``since_ms`` / ``until_ms`` that of its time
    (``until_ms`` excluded)."""

    markets: frozenset[str] = frozenset()
    accounts: frozenset[str] = frozenset()
    bets: frozenset[int] = frozenset()
    kinds: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()
    after: int = 0
    through: int | None = None
    since_ms: int | None = None
    until_ms: int | None = None

    def matches(self, record: Record) -> bool:
        """Whether ``record`` is one the query asks for (a body that is not a JSON object holds no field)."""
        body = record.body if isinstance(record.body, Mapping) else {}
        return (
            (not self.kinds or record.kind in self.kinds)
            and (not self.types or (record.kind == "event" and _text(body.get("type")) in self.types))
            and (self.since_ms is None or record.ts_ms >= self.since_ms)
            and (self.until_ms is None or record.ts_ms < self.until_ms)
            and (not self.markets or concerns(body, MARKET_FIELDS, self._markets_of(record.kind)))
            and (not self.accounts or concerns(body, ACCOUNT_FIELDS, self.accounts))
            and (not self.bets or concerns(body, BET_FIELDS, self.bets))
        )

    def _markets_of(self, kind: str) -> frozenset[str]:
        """The market ids a record of ``kind`` concerning :attr:`markets` names: an operator's, any market of their
        games (an action on a game is sent through one of its markets and acts on all)."""
        if kind != journal_kinds.OPERATOR:
            return self.markets
        return frozenset(market for asked in self.markets for market in game_markets(asked))

    def texts(self) -> list[set[str]]:
        """For each set of values asked for, their JSON texts: a record concerning one holds it. The journal is
        written in compact JSON by orjson, or by the standard library where orjson refuses a body (a number past
        64 bits), and the two write some characters differently (orjson a letter past ASCII or DEL as it is, the
        standard library escaped): a set holding a value they write differently is not looked for, and the records
        are judged by :meth:`matches` alone."""
        operator = journal_kinds.OPERATOR
        markets = self._markets_of(operator) if not self.kinds or operator in self.kinds else self.markets
        groups = [markets, self.accounts, self.bets, self.types]
        return [{_json(value) for value in group} for group in groups
                if group and all(_json(value) == json.dumps(value) for value in group)]


def game_markets(market_id: str) -> tuple[str, str]:
    """The markets of ``market_id``'s game an operator's action may name: its main market and, in a hi/lo game, its
    Low market (a game of one market has no Low: its id is simply never found).

    >>> game_markets("omaha-hilo.16-low"), game_markets("holdem.3")
    (('omaha-hilo.16', 'omaha-hilo.16-low'), ('holdem.3', 'holdem.3-low'))
    """
    main = market_id.removesuffix(MarketKind.LOW.suffix)
    return main, main + MarketKind.LOW.suffix


def _json(value: object) -> str:
    """A value as the journal's writer writes it (orjson, compact)."""
    return jsoncodec.dumps_str(value)


def _text(value: object) -> str | None:
    """``value`` if it is text, else None (a body is read as it is: what a field holds is not assumed)."""
    return value if isinstance(value, str) else None


def concerns(body: object, fields: frozenset[str], values: Iterable[object]) -> bool:
    """Whether a field named in ``fields``, anywhere in ``body``, holds one of ``values``."""
    wanted = set(values)
    return any(_held(body, fields, wanted))


def _held(body: object, fields: frozenset[str], wanted: set[object]) -> Iterator[bool]:
    """True for each field named in ``fields`` that holds a wanted text or whole number, at any depth."""
    if isinstance(body, Mapping):
        for key, value in body.items():
            if key in fields and type(value) in (str, int) and value in wanted:
                yield True
            yield from _held(value, fields, wanted)
    elif isinstance(body, list):
        for item in body:
            yield from _held(item, fields, wanted)


def find_last(conn: sqlite3.Connection, path: str, query: Query, count: int) -> list[Record]:
    """The last ``count`` records ``query`` asks for, oldest first, read from the journal's end back, so the last
    few of a long journal come at once: each one read is checked against its checksum, and the journal's numbering
    over the span read (:class:`~exchange.server.journal_check.JournalDamaged` for a record missing there)."""
    texts = [sorted(group) for group in query.texts()]
    records = records_holding(conn, path, query.after, query.through, sorted(query.kinds), texts,
                              since_ms=query.since_ms, until_ms=query.until_ms, newest_first=True)
    found = list(itertools.islice((record for record in records if query.matches(record)), count))
    gap = first_missing(conn, found[-1].seq - 1 if len(found) == count else query.after, query.through)
    if gap is not None:
        raise JournalDamaged(path, f"record {gap} is missing", first_bad=gap)
    found.reverse()
    return found


def find(conn: sqlite3.Connection, path: str, query: Query) -> Iterator[Record]:
    """The records ``query`` asks for, oldest first, each checked against its checksum, and the journal's numbering
    (:class:`~exchange.server.journal_check.JournalDamaged` at the first damaged or missing record, after those
    before it). The journal's text is searched for the values asked for first, and its times for the span asked for,
    so a search for one market, one account or one hour does not decode every record (the checksums of the records
    it does not read are not checked)."""
    texts = query.texts()
    if not texts and not query.kinds and query.since_ms is None and query.until_ms is None:
        yield from (record for record in records_after(conn, path, query.after, query.through)
                    if query.matches(record))
        return
    gap = first_missing(conn, query.after, query.through)
    through = query.through if gap is None else gap - 1
    records = records_holding(conn, path, query.after, through, sorted(query.kinds), [sorted(t) for t in texts],
                              since_ms=query.since_ms, until_ms=query.until_ms)
    yield from (record for record in records if query.matches(record))
    if gap is not None:
        raise JournalDamaged(path, f"record {gap} is missing", first_bad=gap)
