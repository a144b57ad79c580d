"""State from the database: the newest valid snapshot plus the journal records after it; and taking a new snapshot.

The state is the exchange core and what the server keeps beside it: the market
notes, folded from the core events; the channels' recent results, the
journal's ``result`` records (:mod:`exchange.server.kept_results`); and how the
markets the exchange forgot ended, its ``ended`` records
(:mod:`exchange.server.ended_markets`).

:func:`restore` is the one fold both users share: the server at start-up
(:meth:`exchange.server.service.ExchangeService.recover`) and the process
that takes snapshots (``python -m exchange.server.recovery DB``, started by
the journal), so a snapshot is exactly what a restart would have rebuilt.
Without a usable snapshot it folds the whole journal from record 1; with
one, only the tail after it. Every snapshot it had to pass over is in
:attr:`Restored.damaged`, with the reason. Every record folded is checked
(numbering and checksum, :meth:`Journal.records`): a damaged one stops the
restore with :class:`~exchange.server.journal_check.JournalDamaged`, or, when
the operator accepted damage, ends the fold there and sets the rest aside.
The summary says what the journal's start-up check found
(:meth:`Journal.check`) when it ran.

>>> journal = Journal.open(":memory:")
>>> restore(journal).summary()
'full replay of 0 journal records (no snapshot)'
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from exchange.core.events import EVENT_TYPES, Event, event_from_dict
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.server import jsoncodec
from exchange.server.ended_markets import EndedMarket, EndedMarkets
from exchange.server.journal import Journal, JournalDamaged, Record
from exchange.server.journal_check import JournalFromNewerVersion
from exchange.server.journal_kinds import ENDED, EVENT, KINDS, RESULT
from exchange.server.kept_results import KEEP_RESULTS, GameResult, KeptResults
from exchange.server.notes import MarketNotes
from exchange.server.snapshots import END_WITH_SERVER, Damaged, Saved


@dataclass(frozen=True, slots=True)
class Restored:
    """The rebuilt state, and how: the snapshot used (seq 0: none), the records folded after it, what was damaged."""

    exchange: Exchange
    notes: MarketNotes
    results: KeptResults
    ended: EndedMarkets
    snapshot_seq: int
    replayed: int
    last_seq: int
    damaged: tuple[Damaged, ...]
    elapsed_ms: float
    checked: str = ""  # the journal's start-up check, when it ran
    set_aside: str = ""  # damaged records set aside (damage accepted)

    def summary(self) -> str:
        """One sentence for the log."""
        span = f" (seq {self.last_seq - self.replayed + 1}-{self.last_seq})" if self.replayed else ""
        if self.snapshot_seq:
            how = f"snapshot at seq {self.snapshot_seq} + {self.replayed} journal records{span}"
        else:
            how = f"full replay of {self.replayed} journal records{span} (no snapshot)"
        if self.damaged:
            how += "; snapshots passed over (damaged, from an older version or other settings): " + "; ".join(
                str(d) for d in self.damaged)
        if self.set_aside:
            how += "; DAMAGED RECORDS SET ASIDE: " + self.set_aside
        if self.checked:
            how += "; " + self.checked
        return how


#: A fold of this many records or more is announced before it starts (about half a second's work).
ANNOUNCED_FOLD = 20_000
log = logging.getLogger(__name__)


def restore(journal: Journal, config: ExchangeConfig | None = None, *, accept_damaged: bool = False,
            keep_results: int | None = None) -> Restored:
    """The exchange, market notes, recent results and ended markets after every committed record: newest valid
    snapshot, then the tail.

    ``config``: the exchange config the caller runs with (a snapshot taken with another is passed over); None
    takes any snapshot's, and the default for a full replay. ``keep_results``: the results kept a channel (a
    snapshot that kept fewer is passed over); None takes the snapshot's, and the default for a full replay.
    A damaged record raises
    :class:`~exchange.server.journal_check.JournalDamaged`; with ``accept_damaged`` the state is the one
    before it, and it and every later record are set aside (:meth:`Journal.set_aside`).
    """
    started = time.perf_counter()
    loaded, damaged = journal.load_snapshot(config, keep_results)
    if loaded is None:
        exchange, notes, results, seq = Exchange(config), MarketNotes(), KeptResults(keep_results or KEEP_RESULTS), 0
    else:
        exchange, notes, results, seq = loaded.exchange, loaded.notes, loaded.results, loaded.seq
    ended = EndedMarkets(exchange.config.keep_closed_markets or 0)
    if loaded is not None:
        ended.restore(loaded.ended)
    snapshot_seq, replayed, set_aside = seq, 0, ""
    if journal.last_seq - seq >= ANNOUNCED_FOLD:  # seconds before the server listens: say why it is quiet
        log.info("recovery: folding %d journal records %s", journal.last_seq - seq,
                 f"after the snapshot at seq {seq}" if seq else "from the first (no snapshot this code can use)")
    while True:
        try:
            for record in journal.records(after=seq):
                decoded = _decoded(journal, record)
                seq, replayed = record.seq, replayed + 1
                if isinstance(decoded, GameResult):
                    results.add(decoded)
                elif isinstance(decoded, EndedMarket):
                    ended.add(decoded.info.market_id, decoded)
                elif decoded is not None:
                    exchange.apply(decoded)
                    notes.note(decoded)
            break
        except JournalDamaged as exc:
            if not accept_damaged or exc.first_bad is None or set_aside:
                raise
            moved = journal.set_aside(exc.first_bad, exc.detail)
            set_aside = f"{moved} records from seq {exc.first_bad} ({exc.detail})"
            # and fold on: the record the journal wrote in their place skips the bet ids they may have given
    notes.keep_only(exchange.markets)  # what the live server forgets as the core forgets closed markets
    ended.drop_kept(exchange.markets)  # forgotten under a smaller keep_closed_markets, kept under this one
    elapsed = (time.perf_counter() - started) * 1000
    checked = journal.checked.summary(set_aside=bool(set_aside)) if journal.checked is not None else ""
    return Restored(exchange, notes, results, ended, snapshot_seq, replayed, seq, tuple(damaged), elapsed, checked,
                    set_aside)


def _decoded(journal: Journal, record: Record) -> Event | GameResult | EndedMarket | None:
    """A record's event, game result or ended market (``None`` for the kinds recovery does not fold).

    A sound record (its checksum holds) of a kind, or an event of a type, this code does not know was written by a
    newer version: :class:`JournalFromNewerVersion` (no event type has ever been removed or renamed, so an older
    version's are all known). Any other that does not decode is damage at that record (one of before checksums
    cannot be told apart from damage): :class:`JournalDamaged`, which ``accept_damaged`` can set aside like any
    other.
    """
    path = journal.path or ":memory:"
    sound = record.checksummed and isinstance(record.body, Mapping)
    if record.kind not in KINDS:
        if sound:
            raise JournalFromNewerVersion(path, record.seq, f"a record of kind {record.kind!r:.40} (unless that kind "
                                          "is itself damaged: the record's checksum covers its body only)")
        raise JournalDamaged(path, f"record {record.seq} is of no kind this version knows ({record.kind!r:.40}) and "
                             "no checksum vouches for it", first_bad=record.seq)
    event_type = record.body.get("type") if sound and record.kind == EVENT else None
    if isinstance(event_type, str) and event_type not in EVENT_TYPES:
        raise JournalFromNewerVersion(path, record.seq, f"an event {event_type!r:.40}")
    try:
        if record.kind == EVENT:
            return event_from_dict(dict(record.body))
        if record.kind == RESULT:
            return GameResult.from_dict(record.body)
        if record.kind == ENDED:
            return EndedMarket.from_dict(record.body)
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalDamaged(path, f"record {record.seq} ({record.kind}) does not decode: "
                             f"{type(exc).__name__}: {exc}", first_bad=record.seq) from None
    return None


def take_snapshot(
    journal: Journal, config: ExchangeConfig | None = None, keep_results: int | None = None,
) -> tuple[Saved | None, Restored]:
    """Restore (with ``config`` and ``keep_results``, see :func:`restore`), then save the result as a snapshot
    (None if no record came after the newest valid one)."""
    rewinds = journal.rewinds()  # before the fold: a rewind after it means a server set records aside meanwhile
    restored = restore(journal, config, keep_results=keep_results)
    if restored.replayed == 0:
        return None, restored
    saved = journal.save_snapshot(restored.last_seq, restored.exchange, restored.notes, restored.results,
                                  restored.ended, rewinds=rewinds)
    return saved, restored


#: The taker's exit status when it ended because its server closed its stdin or died.
EXIT_SERVER_GONE = 3


def main(argv: list[str] | None = None) -> int:
    """The snapshot taker: one snapshot of the database at ``argv[0]``; reports on stdout (see SnapshotTaker).

    Then, if given, the exchange config as JSON (``ExchangeConfig.to_dict()``) and ``--keep-results N``: the
    server's. A server killed meanwhile has closed the pipe it reads the report from: what was saved is in the
    database and there is nobody to tell, so the taker ends quietly (it printed a traceback into the dead
    server's log).

    With ``--end-with-server`` (anywhere; the server starts it so) the taker ends as soon as its stdin is
    closed: the server never writes to that pipe, so it closes when the server closes it or dies (the kernel
    closes it then, SIGKILL included). A taker that outlived a killed server went on folding the journal on the
    cores the restarted server recovers on, and wrote a snapshot after the restart had begun; one ended half way
    leaves nothing (SQLite rolls its transaction back).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if END_WITH_SERVER in args:
        args.remove(END_WITH_SERVER)
        threading.Thread(target=_end_when_stdin_closes, name="end-with-server", daemon=True).start()
    try:
        return _take_and_report(args)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor a complaint from the exit's flush
        return 0


def _end_when_stdin_closes() -> None:
    """End the process, at once, when stdin is closed: read to its end (the server writes nothing to it; the read
    waits without the GIL). ``os.read``, not ``sys.stdin.buffer.read()``: this daemon thread blocked in the buffered
    reader would hold its lock, and the interpreter's own exit, taking it, aborts (SIGABRT)."""
    while os.read(sys.stdin.fileno(), 4096):
        continue  # whatever comes is not for the taker
    os._exit(EXIT_SERVER_GONE)


def _take_and_report(args: list[str]) -> int:
    path, *rest = args
    try:
        keep_results = None
        if rest[-2:-1] == ["--keep-results"]:
            keep_results, rest = int(rest[-1]), rest[:-2]
        config = ExchangeConfig.from_dict(jsoncodec.loads(rest[0])) if rest else None
        journal = Journal.open(path)
        try:
            saved, restored = take_snapshot(journal, config, keep_results)
        finally:
            journal.close()
    except Exception as exc:
        print(f"error {type(exc).__name__}: {exc}".replace("\n", " "), flush=True)
        return 1
    for damaged in restored.damaged:  # as the server logs them
        print(f"passed over the {damaged}".replace("\n", " "))
    if saved is None:
        print(f"none {restored.snapshot_seq}", flush=True)
    else:
        print(f"saved {saved.seq} {saved.size} {saved.build_ms + restored.elapsed_ms:.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
