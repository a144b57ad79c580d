"""``exchange-poker serve``: the exchange server on the wall clock, with house liquidity and SQLite.

With ``--demo`` it creates the account ``demo`` (if absent) and prints its
password on the startup line; without it no account is made, and a server on
an empty database says how to add one. Every start recovers from the journal.

If the journal fails (its writer died, failed or stalled past
``--journal-timeout``), the server logs one line saying why and exits with
status 3 a moment later, once the clients waiting have been answered
``SERVICE_UNAVAILABLE``; the next start rebuilds the state from the journal.
A journal that lost or damaged acknowledged records refuses the start
(status 2) unless ``--accept-damaged-journal`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import logging
import os
import socket
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from exchange.cli.commands import SUMMARIES
from exchange.cli.options import (
    database,
    fail,
    http_url,
    minutes_in_ms,
    minutes_or_off,
    not_negative,
    one_line_errors,
    port,
    port_or_any,
    positive,
    seconds,
    seconds_or_zero,
    share,
    whole_number,
)
from exchange.game.channels import CHANNELS, dealt_as_holdem
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import DEFAULT_KEEP_CLOSED_MARKETS, ServerConfig
from exchange.server.connections import (
    DEFAULT_BODY_TIMEOUT_MS,
    DEFAULT_HEADER_TIMEOUT_MS,
    DEFAULT_MAX_CONNECTIONS,
    run_app,
)
from exchange.server.database import DatabaseUnusable, refusal
from exchange.server.journal import DEFAULT_COMMIT_TIMEOUT_MS, JournalFailed
from exchange.server.kept_results import KEEP_RESULTS
from exchange.server.limits import Limits
from exchange.server.recording_options import DEFAULT_EVERY as DEFAULT_RECORD_EVERY
from exchange.server.recording_options import DEFAULT_EVERY_MS as DEFAULT_RECORD_EVERY_MS
from exchange.server.recording_options import RecordingRefused
from exchange.server.snapshots import DEFAULT_EVERY_MS, DEFAULT_EVERY_RECORDS, SnapshotPolicy
from exchange.server.store import AccountStore
from exchange.server.tls import TlsConfigError, server_context

if TYPE_CHECKING:  # loaded for serve --record only (it loads pyarrow)
    from exchange.server.recording import Recording

LOOPBACK = "127.0.0.1"
EXIT_JOURNAL_FAILED = 3
FAIL_STOP_GRACE_S = 0.2  # time for the answers already refused to reach their clients before the exit
# Young-generation threshold: 10,000 net allocations instead of Python's 700 (see tune_gc).
GC_YOUNG_THRESHOLD = 10_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("serve", help=SUMMARIES["serve"])
    parser.add_argument("--host", default=LOOPBACK, help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8080, help="port to listen on (default 8080)")
    parser.add_argument("--db", type=database, default="exchange.db",
                        help="SQLite database: accounts and journal (default: exchange.db)")
    _add_game_arguments(parser)
    _journal_options(parser)
    parser.add_argument("--keep-results", type=positive, default=KEEP_RESULTS, metavar="N",
                        help=f"finished games kept per channel for GET /games/v1/channels/{{id}}/results, newest "
                             f"first (default {KEEP_RESULTS})")
    parser.add_argument("--keep-closed-markets", type=positive, default=DEFAULT_KEEP_CLOSED_MARKETS,
                        metavar="N",
                        help=f"settled or voided markets kept in memory with their cleared orders, newest first "
                             f"(default {DEFAULT_KEEP_CLOSED_MARKETS}); listClearedOrders and listMarketBook "
                             "answer for these, the journal keeps everything")
    parser.add_argument("--max-connections", type=positive, metavar="N", default=DEFAULT_MAX_CONNECTIONS,
                        help=f"connections open at once on the HTTP port, and apart on the stream port; past it a "
                             f"new one is answered 503 (stream: MAX_CONNECTION_LIMIT_EXCEEDED) (default "
                             f"{DEFAULT_MAX_CONNECTIONS})")
    parser.add_argument("--header-timeout", type=seconds, default=DEFAULT_HEADER_TIMEOUT_MS / 1000, metavar="S",
                        help="seconds a connection has to send a request's head, from opening or from its last "
                             f"response; also the keep-alive idle limit, and the stream port's TLS handshake limit "
                             f"(default {DEFAULT_HEADER_TIMEOUT_MS // 1000})")
    parser.add_argument("--body-timeout", type=seconds, default=DEFAULT_BODY_TIMEOUT_MS / 1000, metavar="S",
                        help=f"seconds a request's body has to arrive once its head has; else 408 (default "
                             f"{DEFAULT_BODY_TIMEOUT_MS // 1000})")
    _stream_options(parser)
    _record_options(parser)
    parser.add_argument("--demo", action="store_true",
                        help="create the account demo/demo with 1000.00 if absent (its password is printed)")
    defaults = Limits()
    parser.add_argument("--calls-per-second", type=not_negative(int), default=defaults.calls_per_second,
                        metavar="N", help=f"JSON-RPC calls a second per account, batch members counted "
                                          f"(default {defaults.calls_per_second}; 0: no limit); "
                                          "past it: TOO_MANY_REQUESTS")
    parser.add_argument("--reads-in-flight", type=not_negative(int), default=defaults.reads_in_flight,
                        metavar="N", help=f"list calls in progress at once per account (default "
                                          f"{defaults.reads_in_flight}; 0: no limit); past it: TOO_MANY_REQUESTS")
    parser.add_argument("--read-records-per-second", type=not_negative(int), default=defaults.read_rows_per_second,
                        metavar="N", help=f"records a second per account from the order lists before its list calls "
                                          f"are paced (default {defaults.read_rows_per_second}; 0: no limit)")
    parser.add_argument("--max-rows-per-batch", type=positive, default=defaults.max_rows_per_batch,
                        metavar="N", help=f"records one request (a batch) may return (default "
                                          f"{defaults.max_rows_per_batch}); past it: TOO_MUCH_DATA")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def _seconds_by_channel(field: str) -> str:
    """A window length of the channels in seconds, as help says it: the most channels' first, then the others'.

    >>> _seconds_by_channel("betting_window_ms")
    '30; holdem-turbo 18'
    """
    lengths = {name: getattr(config, field) / 1000 for name, config in CHANNELS.items()}
    usual = max(set(lengths.values()), key=list(lengths.values()).count)
    return "; ".join([f"{usual:g}", *(f"{name} {length:g}" for name, length in lengths.items() if length != usual)])


def _add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the games themselves: channels, windows, decks, house liquidity, dealer errors."""
    parser.add_argument("--channel", action="append", choices=sorted(CHANNELS), dest="channels",
                        help="a channel to run (repeat for several; default holdem)")
    parser.add_argument("--window-seconds", type=seconds, default=None, metavar="S",
                        help="betting window length (default: the channel's, "
                             f"{_seconds_by_channel('betting_window_ms')})")
    parser.add_argument("--playing-seconds", type=seconds_or_zero, default=None, metavar="S",
                        help="playing (suspended) window length (default: the channel's, "
                             f"{_seconds_by_channel('playing_window_ms')})")
    parser.add_argument("--seed", type=whole_number, default=None,
                        help="seed for the decks, any whole number, for games dealt again alike (default: random); "
                             "anyone who knows or guesses it can deal every game's cards ahead of their reveal, so "
                             "leave it out for real trading")
    parser.add_argument("--no-house", action="store_true", help="run without the house market maker")
    parser.add_argument("--noise-traders", type=not_negative(int), default=DEFAULT_NOISE_TRADERS, metavar="N",
                        help=f"house noise traders taking the best prices at random moments, so the ladder moves "
                        f"(default {DEFAULT_NOISE_TRADERS}; 0 for none)")
    parser.add_argument("--irregularity-rate", type=share, default=0.0, metavar="P",
                        help="share of games dealt with a dealer's irregularity, 0 to 1 (default 0)")


def _journal_options(parser: argparse.ArgumentParser) -> None:
    """The journal's snapshots, its commit timeout and how a start checks it."""
    parser.add_argument("--snapshot-every-records", type=not_negative(int), default=DEFAULT_EVERY_RECORDS,
                        metavar="N",
                        help=f"snapshot the state every N journal records (default {DEFAULT_EVERY_RECORDS}; 0: never)")
    parser.add_argument("--snapshot-every-minutes", type=minutes_or_off, default=DEFAULT_EVERY_MS / 60_000,
                        metavar="M",
                        help=f"and every M minutes if anything changed (default {DEFAULT_EVERY_MS // 60_000:g}; "
                             "0: never)")
    parser.add_argument("--journal-timeout", type=seconds, default=DEFAULT_COMMIT_TIMEOUT_MS / 1000, metavar="S",
                        help="seconds the journal writer may hold a batch uncommitted; past it the server answers "
                             f"SERVICE_UNAVAILABLE and stops (default {DEFAULT_COMMIT_TIMEOUT_MS / 1000:g})")
    parser.add_argument("--check-pages", action="store_true",
                        help="also check every page of the database with SQLite's quick_check at start "
                             "(its time grows with the journal; records a restart reads are always checked)")
    parser.add_argument("--accept-damaged-journal", action="store_true",
                        help="start even if the journal lost or damaged acknowledged records (they are logged, "
                             "and damaged ones set aside); without it such a start is refused")


def _record_options(parser: argparse.ArgumentParser) -> None:
    """``--record``: the backtest's Parquet tables of every game that ends, written as the server runs."""
    parser.add_argument("--record", default=None, metavar="DIR",
                        help="also write the backtest's Parquet tables (games, orders, fills, settlements, equities, "
                             "irregularities) of every game that ends, as part files under DIR/<table>.parquet/; a "
                             "restart carries on after the games already there")
    parser.add_argument("--record-every", type=positive, default=None, metavar="N",
                        help=f"games written together in one part file, at most (default {DEFAULT_RECORD_EVERY}); "
                             "the games since the last part are written when the server stops")
    parser.add_argument("--record-every-minutes", type=minutes_or_off, default=None, metavar="M",
                        help="and a part at the first game end M minutes after the last part, so readers see a "
                             "game within about M minutes (a kill does not lose the games since: they are held in "
                             "DIR/.pending and written at the next start) (default "
                             f"{DEFAULT_RECORD_EVERY_MS // 60_000:g}; 0: by the number of games only)")


def _stream_options(parser: argparse.ArgumentParser) -> None:
    """``--stream-port`` and its certificate: the Exchange Stream as Betfair serves it."""
    parser.add_argument("--stream-port", type=port_or_any, default=None, metavar="N",
                        help="also serve the Exchange Stream as Betfair does (TLS, CRLF JSON lines) on this port, "
                             "for betfairlightweight's BetfairStream and flumine live (0: a free port, printed at "
                             "start; default: the WebSocket only)")
    parser.add_argument("--tls-cert", default=None, metavar="PEM",
                        help="the stream port's certificate (with --tls-key); default: self-signed, made at start")
    parser.add_argument("--tls-key", default=None, metavar="PEM", help="the private key of --tls-cert")



DEFAULT_NOISE_TRADERS = 2



def limits_from(args: argparse.Namespace) -> Limits:
    return Limits(calls_per_second=args.calls_per_second, reads_in_flight=args.reads_in_flight,
                  read_rows_per_second=args.read_records_per_second, max_rows_per_batch=args.max_rows_per_batch)


def config_from(args: argparse.Namespace) -> ServerConfig:
    return ServerConfig(
        db_path=args.db,
        channels=tuple(args.channels or ("holdem",)),
        window_ms=None if args.window_seconds is None else int(args.window_seconds * 1000),
        playing_ms=None if args.playing_seconds is None else int(args.playing_seconds * 1000),
        seed=args.seed,
        house=not args.no_house,
        snapshots=SnapshotPolicy(args.snapshot_every_records, minutes_in_ms(args.snapshot_every_minutes)),
        demo=args.demo,
        max_connections=args.max_connections,
        header_timeout_ms=round(args.header_timeout * 1000),
        body_timeout_ms=round(args.body_timeout * 1000),
        journal_timeout_ms=round(args.journal_timeout * 1000),
        accept_damaged_journal=args.accept_damaged_journal,
        check_pages=args.check_pages,
        keep_closed_markets=args.keep_closed_markets,
        keep_results=args.keep_results,
        irregularity_rate=args.irregularity_rate,
        noise_traders=args.noise_traders,
        stream_port=args.stream_port,
        stream_host=args.host,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        record_dir=args.record,
        record_every=DEFAULT_RECORD_EVERY if args.record_every is None else args.record_every,
        record_every_ms=(DEFAULT_RECORD_EVERY_MS if args.record_every_minutes is None
                         else minutes_in_ms(args.record_every_minutes)),
    )


def _check_stream_options(args: argparse.Namespace) -> None:
    """Options that only make sense together: a certificate is the stream port's, which is not the HTTP port."""
    if args.stream_port is None and (args.tls_cert is not None or args.tls_key is not None):
        fail("--tls-cert and --tls-key are the certificate of the stream port: give --stream-port N with them")
    if args.stream_port == args.port:
        fail(f"--stream-port {args.port} is the HTTP --port; give the stream another port")


def _check_record(args: argparse.Namespace) -> None:
    """A folder that cannot take the recording is refused before the server starts (the folder is taken as the
    recording takes it, then given back as it was); so are the recording's options alone."""
    if args.record is None:
        options = (("--record-every", args.record_every), ("--record-every-minutes", args.record_every_minutes))
        given = [option for option, value in options if value is not None]
        if given:
            fail(f"{' and '.join(given)}: the recording's, given without --record DIR")
        return
    if not args.record:
        fail("--record: give a folder (an empty name names none)")
    from exchange.server.record_folder import check_folder, named_exchange  # pyarrow: only for a server that records

    try:
        theirs = named_exchange(Path(args.record))
    except (OSError, UnicodeDecodeError):  # the folder's own check says what is wrong with it
        theirs = None
    if theirs is not None and args.db != ":memory:" and not Path(args.db).exists():  # refused before it is made
        fail(f"--record {args.record}: it is another exchange's recording (it names {theirs}, and the database "
             f"{args.db} does not exist yet: it would be a new exchange); record into another folder, or give the "
             "--db that recorded it")
    try:
        check_folder(Path(args.record))
    except RecordingRefused as exc:
        fail(f"--record {args.record}: {exc}")


def _check_irregularities(args: argparse.Namespace) -> None:
    """A rate of dealer errors on channels none of which deals them would be silently ignored: refuse it."""
    if args.irregularity_rate and not dealt_as_holdem(args.channels or ("holdem",)):
        able = ", ".join(dealt_as_holdem())
        fail("--irregularity-rate: the dealer's irregularities are Hold'em's, and no channel given is dealt as hole "
              f"cards then flop, turn and river ({able} are)")


def _check_listening(args: argparse.Namespace) -> None:
    """A host that is no address of this machine, a port another process listens on, or a certificate that cannot
    be loaded, is refused now: found only once the server had started, the refusal came after its recovery, its
    journal's first records and its log. (A port taken in the moment between is still found as the server binds.)"""
    try:
        found = socket.getaddrinfo(args.host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        addresses = {(info[0], str(info[4][0])) for info in found}
        for family, address in addresses:
            _bind(family, address, 0)  # any free port: the address alone is checked
    except (OSError, UnicodeError) as exc:
        fail(f"--host {args.host}: cannot listen there ({_reason(exc)}); give an address of this machine, "
             f"such as {LOOPBACK} or 0.0.0.0")
    ports = [("--port", args.port)] + ([("--stream-port", args.stream_port)] if args.stream_port else [])
    for option, number in ports:
        try:
            for family, address in addresses:
                _bind(family, address, number)
        except OSError as exc:
            fail(f"{option} {number}: cannot listen on {args.host}:{number} ({_reason(exc)}); is another server "
                 "on it? Give another port")
    if args.tls_cert is not None or args.tls_key is not None:
        try:
            server_context(args.tls_cert, args.tls_key)
        except TlsConfigError as exc:
            fail(str(exc))


def _bind(family: int, address: str, number: int) -> None:
    """Bind a socket to ``address:number`` as the server will (reusing an address no one listens on), then let go."""
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((address, number))


def _reason(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def run(args: argparse.Namespace) -> int:
    _check_stream_options(args)
    _check_irregularities(args)
    _check_record(args)
    _check_listening(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        config = config_from(args)
    except ValueError as exc:
        fail(str(exc))
    try:
        AccountStore.open(config.db_path).close()
    except (DatabaseUnusable, sqlite3.Error) as exc:
        fail(refusal(config.db_path, exc))
    app = create_app(config, on_fatal=exit_soon, limits=limits_from(args))
    tune_gc(app)
    stopped_by: str | None = None  # the signal run_app returned on
    try:
        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            stopped_by = run_app(app, host=args.host, port=args.port,
                                 ready=functools.partial(announce, config=config, url=http_url(args.host, args.port)))
        logging.getLogger(__name__).info("stopped" if stopped_by is None else f"stopped on {stopped_by}")
    except (DatabaseUnusable, sqlite3.Error) as exc:  # in use by another server, or went bad since the check
        fail(refusal(config.db_path, exc))
    except JournalFailed:  # before the first answer (a full disk): the service has logged its fail-stop line
        logging.shutdown()
        return EXIT_JOURNAL_FAILED
    except TlsConfigError as exc:
        fail(str(exc))
    except RecordingRefused as exc:  # taken by another server, or changed since the check
        fail(f"--record {args.record}: {exc}")
    except OSError as exc:  # the address: taken, or not this machine's
        ports = f"{args.port}" if args.stream_port is None else f"{args.port} (or the stream port {args.stream_port})"
        fail(f"cannot listen on {args.host}:{ports}: {exc.strerror or exc}")
    return 0


async def announce(app: web.Application, *, config: ServerConfig, url: str) -> None:
    """The startup lines, once the app holds the database and the port (a refused server prints only why).

    The demo password was checked while the server recovered (``keys.DEMO_PASSWORD_OK``). A reader of standard
    output that is gone (``serve | head -1``) does not stop the server: what it serves is not its output.
    """
    lines = _startup_lines(app, config, url)
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more is tried, at exit either
        logging.getLogger(__name__).warning("standard output's reader is gone: serving on, its log on stderr")


def _startup_lines(app: web.Application, config: ServerConfig, url: str) -> list[str]:
    store = app[keys.STORE]
    demo = ""
    if config.demo:
        if app[keys.DEMO_PASSWORD_OK]:
            demo = f"; demo account {config.demo_account!r}, password {config.demo_password!r}"
        else:
            demo = f"; account {config.demo_account!r} exists with another password (--demo left it as it was)"
    from exchange.backtest.provenance import installed_version  # as --version reads it

    version = installed_version() or "a checkout never installed"
    lines = [f"Exchange Poker server on {url}  (version {version}; database {config.db_path}{demo})",
             f"  page:     {url}/  (the trading page: open it in a browser)"]
    if config.demo and app[keys.DEMO_PASSWORD_OK]:
        lines.append(f"  login:    curl -s -X POST {url}/api/login -H 'X-Application: demo' "
                     f"-d username={config.demo_account} -d password={config.demo_password}")
    elif len(store) == 0:
        lines.append(f"  no accounts yet: add one with 'exchange-poker accounts --db {config.db_path} add NAME "
                     "--password P --balance 1000', or start with --demo")
    lines.append(f"  snapshot: curl -s {url}/games/v1/channels/{config.channels[0]}/snapshot")
    if keys.STREAM_PORT in app:
        lines.append(f"  stream:   TLS on port {app[keys.STREAM_PORT]} (betfairlightweight: "
                     f"BetfairStream._BetfairStream__port = {app[keys.STREAM_PORT]})")
    if keys.RECORDING in app:
        lines.append(f"  record:   {_recording_line(app[keys.RECORDING])}")
    if config.irregularity_rate:
        lines.append(f"  dealer:   {_irregularity_line(config)}")
    if config.seed is not None:
        lines.append(f"  decks:    {_seeded_line(config.seed)}")
    lines.append(f"  OpenAPI:  {url}/openapi.json")
    lines.append(f"  audit:    exchange-poker journal --db {config.db_path} --last 20 --follow")
    return lines


def _seeded_line(seed: int) -> str:
    """What a server dealing from ``--seed`` says as it starts: its deals can be foreseen."""
    return (f"seeded (--seed {seed}): whoever knows or guesses the seed can deal every card ahead of its reveal (a "
            "market's id numbers its game); leave --seed out for real trading")


def _irregularity_line(config: ServerConfig) -> str:
    """Where ``--irregularity-rate`` deals errors: the channels dealt as Hold'em is, and which it leaves alone."""
    dealt = dealt_as_holdem(config.channels)
    others = [name for name in config.channels if name not in dealt]
    line = f"irregularities in a share {config.irregularity_rate:g} of the games on {', '.join(dealt)}"
    if others:
        line += f" (none on {', '.join(others)}: the rules are for games dealt as Hold'em)"
    return line


def _recording_line(recording: Recording) -> str:
    """Where ``serve --record`` writes, from which ``game_index``, and when."""
    when = f"every {recording.every} games"
    if recording.every_ms:
        when += f" or {recording.every_ms / 60_000:g} minutes"
    return (f"the tables of every game that ends, {recording.directory.resolve()}/<table>.parquet/ (from "
            f"game_index {recording.next_index}; a part {when}, and at the stop)")


def exit_soon(reason: str) -> None:
    """Fail-stop: the journal failed (the service has logged why); exit once waiting clients have their answer.

    ``os._exit``: no cleanup may write or show anything more, and nothing the process holds in memory alone
    is worth keeping; the kernel closes the sockets and drops the database lock.
    """
    asyncio.get_running_loop().call_later(FAIL_STOP_GRACE_S, _exit_now)


def _exit_now() -> None:
    logging.shutdown()
    sys.stderr.flush()
    os._exit(EXIT_JOURNAL_FAILED)


def tune_gc(app: web.Application) -> None:
    """Garbage collection for a server whose heap only grows during a game: rarer, and never over startup.

    With Python's default thresholds (700, 10, 10) the objects of every request
    in flight (alive across the ~10 ms fsync wait) are promoted, which forces
    full collections over the whole heap, resting orders included: under 64
    clients that was 8 % of the CPU and pauses of 50-100 ms, the p99 latency.
    With a young threshold of 10,000 few request objects live long enough to be
    promoted, and what the server built at startup (modules, the recovered
    exchange) is frozen out of every collection once the app has started.

    Before the freeze, the young generations are collected, not the whole heap: the start's garbage (the orders
    of the markets a restart's tail closed, which refer to their positions and back) is mostly young. After the
    soak's 10,000 games a full collection, which walks the recovered heap as well, found nothing more in three
    times the time (35 against 14 ms); after a full replay of a smaller journal it found some 300 objects more
    (about 100 KB), which stay, frozen, for the process's life.
    """
    gc.set_threshold(GC_YOUNG_THRESHOLD, 10, 10)

    async def freeze(_app: web.Application) -> None:
        gc.collect(1)
        gc.freeze()

    app.on_startup.append(freeze)
