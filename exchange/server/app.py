"""The aiohttp application: ``create_app(config)``, its routes in one place, and its lifecycle.

Background work runs in ``cleanup_ctx`` contexts, in order: the database
(its lock, so that one server alone runs on it, then the accounts store and
journal writer), the exchange (recovery from the journal, then the channels
on the clock with the house seated; on the wall clock the poker engine is
warmed on a worker thread once the server answers, the games start when it
is done, and reveals' equities are computed on that thread), the Exchange
Stream on its own TLS port when one is configured, the stream hubs (closed
as the server stops; their heartbeats are timers on the clock), and the sweep
of expired sessions on the clock. Handlers are thin:
they read the request, call one function and write JSON.

Every answer is held until the journal has committed the records behind it
(:func:`durability_gate` for REST routes, :func:`_rpc` for JSON-RPC, the
stream hub for its messages), and once the journal has failed every request
is refused with ``SERVICE_UNAVAILABLE`` while ``on_fatal`` (the command
line: exit) stops the process (see :mod:`exchange.server.service`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.typedefs import Handler

from exchange.clock import Clock, Timer, WallClock, for_durations
from exchange.core.events import Event
from exchange.game.channels import ChannelConfig, get_channel
from exchange.game.table import EquityFn
from exchange.page import add_page_routes, body_coding
from exchange.page.refusals import unknown_query
from exchange.server import (
    account,
    betting,
    cleared_orders,
    connections,
    discovery,
    games_api,
    heartbeat,
    identity,
    keys,
    listings,
    navigation_menu,
    openapi,
    operator,
    profit_and_loss,
    replace_orders,
    statement,
    tls,
    update_orders,
)
from exchange.server.auth import Session, Sessions
from exchange.server.cashier import References
from exchange.server.config import ServerConfig
from exchange.server.dblock import DatabaseLock
from exchange.server.errors import ApiError, ApingCode
from exchange.server.games_stream import GAMES_STREAM_PATH, GamesHub
from exchange.server.journal import Journal, JournalFailed
from exchange.server.jsonrpc import ACCOUNT_EXCEPTION, HEARTBEAT, Endpoint, Method, Params, envelope_error
from exchange.server.limits import AccountGate, Limits
from exchange.server.middleware import error_middleware
from exchange.server.offload import ThreadedEquities, warm_engine
from exchange.server.ratelimit import LoginLimits
from exchange.server.service import ExchangeService
from exchange.server.store import AccountExists, AccountStore, check_password
from exchange.server.stream import StreamHub
from exchange.server.stream_socket import StreamSocketServer

if TYPE_CHECKING:  # loaded by _recording, for serve --record only (it loads pyarrow)
    from exchange.server.recording import Recording

ServiceMethod = Callable[[ExchangeService, Session, Params], Awaitable[Any]]

#: The longest the engine's warm-up waits for the port to be bound (see _games_once_warm).
LISTEN_WAIT_S = 5
#: How long after the port is bound the engine's warm-up begins (see _games_once_warm).
WARM_UP_AFTER_S = 0.25
BETTING_PREFIX = "SportsAPING/v1.0/"
BETTING_REST = "/exchange/betting/rest/v1.0/"  # then the method's name: API-NG over REST
ACCOUNT_REST = "/exchange/account/rest/v1.0/"
ACCOUNT_PREFIX = "AccountAPING/v1.0/"
BETTING_RPC = "/exchange/betting/json-rpc/v1"
ACCOUNT_RPC = "/exchange/account/json-rpc/v1"
HEARTBEAT_PATH = "/exchange/heartbeat/json-rpc/v1"  # Betfair's Heartbeat API
HEARTBEAT_REST = "/exchange/heartbeat/rest/v1.0/"

log = logging.getLogger(__name__)

#: The API-NG methods of each endpoint (without their prefix).
BETTING_METHODS: dict[str, ServiceMethod] = {
    "placeOrders": betting.place_orders,
    "cancelOrders": betting.cancel_orders,
    "replaceOrders": replace_orders.replace_orders,
    "listCurrentOrders": listings.list_current_orders,
    "listClearedOrders": cleared_orders.list_cleared_orders,
    "listMarketBook": listings.list_market_book,
    "listRunnerBook": listings.list_runner_book,
    "listMarketProfitAndLoss": profit_and_loss.list_market_profit_and_loss,
    "updateOrders": update_orders.update_orders,
    "listMarketCatalogue": listings.list_market_catalogue,
    "listEventTypes": discovery.list_event_types,
    "listEvents": discovery.list_events,
    "listCompetitions": discovery.list_competitions,
    "listMarketTypes": discovery.list_market_types,
    "listCountries": discovery.list_countries,
    "listVenues": discovery.list_venues,
    "listTimeRanges": discovery.list_time_ranges,
}
#: The betting methods that change state: their answers always say what was done (never refused for their size).
BETTING_WRITES = frozenset({"placeOrders", "cancelOrders", "replaceOrders", "updateOrders"})
ACCOUNT_METHODS: dict[str, ServiceMethod] = {
    "getAccountFunds": account.get_account_funds,
    "getAccountDetails": account.get_account_details,
    "listCurrencyRates": account.list_currency_rates,
    "getAccountStatement": statement.get_account_statement,
}


def create_app(
    config: ServerConfig, *, clock: Clock | None = None, equities: EquityFn | None = None,
    on_fatal: Callable[[str], None] | None = None, limits: Limits | None = None,
) -> web.Application:
    """The server as an aiohttp application; nothing runs until the app starts.

    ``on_fatal(reason)`` is called once if the journal fails, after the app has stopped serving (the command
    line exits; in a test the app just refuses everything). ``limits``: what one call, batch and account may
    cost (:mod:`exchange.server.limits`; default ``Limits()``).
    """
    app = web.Application(middlewares=[connections.connection_middleware, error_middleware, durability_gate],
                          client_max_size=config.max_body_bytes,
                          handler_args=body_coding.HANDLER_ARGS)
    app[keys.CONFIG] = config
    clock = clock or WallClock()
    timer = for_durations(clock)  # timeouts and expiries: a step of the wall clock must not move them
    app[connections.GUARD] = connections.ConnectionGuard(max_connections=config.max_connections,
                                                         header_timeout_ms=config.header_timeout_ms, clock=timer)
    app[connections.BODY_TIMEOUT_MS] = config.body_timeout_ms
    app[connections.LISTENING] = asyncio.Event()
    app[keys.SESSIONS] = Sessions(timer, ttl_ms=config.session_ttl_ms)
    app[keys.LOGIN_LIMITS] = LoginLimits(timer, per_account=config.login_per_account,
                                         per_address=config.login_per_address, window_ms=config.login_window_ms)
    gate = AccountGate(limits or Limits(), clock=timer)
    app.cleanup_ctx.append(functools.partial(_database, config=config, clock=clock))
    app.cleanup_ctx.append(functools.partial(_exchange, config=config, clock=clock, equities=equities,
                                             on_fatal=on_fatal, gate=gate))
    app.cleanup_ctx.append(_stream)
    app.on_shutdown.append(_halt)  # first: closing the streams may wait for slow readers
    app.on_shutdown.append(_close_streams)
    app.cleanup_ctx.append(functools.partial(_stream_socket, config=config))
    app.cleanup_ctx.append(functools.partial(_sweeper, clock=clock, every_ms=config.session_sweep_ms))
    _routes(app)
    return app


def _routes(app: web.Application) -> None:
    app.router.add_post("/api/login", identity.login)
    app.router.add_post("/api/certlogin", identity.cert_login)
    app.router.add_post("/api/keepAlive", identity.keep_alive)
    app.router.add_post("/api/logout", identity.logout)
    rpc = {BETTING_RPC: betting_rpc, ACCOUNT_RPC: account_rpc, HEARTBEAT_PATH: heartbeat_rpc}
    for path, handler in rpc.items():  # each also with a trailing slash, as Betfair's sample code and clients call them
        app.router.add_post(path, handler)
        app.router.add_post(path + "/", handler)
    rest = {BETTING_REST: betting_rest, ACCOUNT_REST: account_rest, HEARTBEAT_REST: heartbeat_rest}
    for path, handler in rest.items():  # API-NG over REST: Betfair's paths end in a slash, optional here
        app.router.add_post(path + "{method}/", handler)
        app.router.add_post(path + "{method}", handler)
    app.router.add_get(navigation_menu.MENU_PATH, navigation_menu.navigation_menu)
    app.router.add_get("/games/v1/channels", games_api.list_channels)
    app.router.add_get("/games/v1/channels/{channel}/snapshot", games_api.snapshot)
    app.router.add_get("/games/v1/channels/{channel}/results", games_api.results)
    app.router.add_get(STREAM_PATH, stream)
    app.router.add_get(GAMES_STREAM_PATH, games_stream)
    app.router.add_get("/openapi.json", openapi_json)
    app.router.add_post("/operator/v1/markets/{marketId}/suspend", operator.suspend)
    app.router.add_post("/operator/v1/markets/{marketId}/resume", operator.resume)
    app.router.add_post("/operator/v1/markets/{marketId}/void", operator.void)
    app.router.add_post(f"/operator/v1/accounts/{{account}}/{{action:{'|'.join(operator.MONEY_ACTIONS)}}}",
                        operator.move_money)
    add_page_routes(app)  # the trading page at /, its files under /static/


# --- lifecycle -------------------------------------------------------------------------------


async def _database(app: web.Application, *, config: ServerConfig, clock: Clock) -> AsyncIterator[None]:
    with contextlib.ExitStack() as opened:  # closed in reverse order, however the start or the stop ends
        lock = DatabaseLock.acquire(config.db_path)  # before the journal is read: one server per database
        opened.callback(lock.release)
        if lock.unreleased is not None:
            log.warning("the server on %s before this one (process %d) did not stop cleanly (it was killed, crashed, "
                        "or its machine stopped): the markets it left open are voided (the recovery line names them)",
                        config.db_path, lock.unreleased)
        app[keys.DB_LOCK] = lock
        store = AccountStore.open(config.db_path)
        opened.callback(store.close)
        journal = Journal.open(config.db_path)
        opened.callback(journal.close)
        # lost or damaged records refuse the start
        journal.check(accept_damaged=config.accept_damaged_journal, check_pages=config.check_pages)
        journal.start(config.snapshots, clock=clock, commit_timeout_ms=config.journal_timeout_ms,
                      exchange_config=config.exchange_config(), keep_results=config.keep_results, lock_fd=lock.fd)
        if journal.writer_pid is not None:  # it holds the lock too: named, so a next start can end it if it lingers
            lock.note_child(journal.writer_pid)
        app[keys.STORE] = store
        app[keys.JOURNAL] = journal
        app[keys.CASHIER] = References(journal)
        yield
        await journal.stop()
        if journal.written:  # (none: the start was refused, or nothing happened)
            log.info("journal: %d records in %d commits", journal.written, journal.commits)


async def _exchange(
    app: web.Application, *, config: ServerConfig, clock: Clock, equities: EquityFn | None,
    on_fatal: Callable[[str], None] | None, gate: AccountGate,
) -> AsyncIterator[None]:
    channels = _channel_configs(config)
    # On the wall clock, reveals' equities off the loop (the engine's kernels release the GIL); a virtual
    # clock (tests) keeps them inline, so what happens at a given clock time does not depend on threads.
    runner = ThreadedEquities() if isinstance(clock, WallClock) else None
    # The engine's exact equities need its tables and kernels loaded before the first game is dealt. On the
    # wall clock that happens on the worker thread a moment after the server listens (a restart is not held up by
    # it: the thread's imports would take the GIL from the rest of the start) and the games start when it is done; a
    # virtual clock warms it first, so the games start at a known time.
    warm = equities is None and runner is not None
    if equities is None and runner is None:
        warmer = ThreadedEquities()
        await warm_engine(warmer, [c.variant for c in channels])
        warmer.close()
    demo_check = _demo_password_check(app[keys.STORE], config) if config.demo else None
    service = ExchangeService(app[keys.JOURNAL], clock, channels, seed=config.seed, equities=equities,
                              house=config.house, runner=runner, exchange_config=config.exchange_config(),
                              irregularity_rate=config.irregularity_rate, noise_traders=config.noise_traders,
                              keep_results=config.keep_results)
    service.recover(accept_damaged=config.accept_damaged_journal)
    app[keys.DB_LOCK].recovered()  # what an unclean stop left is dealt with: a stop from now on empties the lock file
    app[keys.JOURNAL].writer_ready()  # started with the journal, it has been starting while the server recovered
    if demo_check is not None:
        app[keys.DEMO_PASSWORD_OK] = await demo_check
    hub, spectators = _add_service(app, service, config, on_fatal, gate)
    beats = _add_endpoints(app, service, gate, clock)
    recording = games = None
    try:  # from here a start that fails (a recording refused) undoes what it did
        recording = _recording(app, config, service, clock)
        service.start(functools.partial(_touch_both, hub, spectators), run_games=config.run_games and not warm,
                      watchers=() if recording is None else (recording,))
        if warm and runner is not None and config.run_games:
            games = asyncio.get_running_loop().create_task(
                _games_once_warm(service, runner, channels, app[connections.LISTENING]), name="warm-up")
        try:
            await service.durable()  # a stop signal may end the start here: the games are stopped all the same
        except ApiError as exc:  # the journal failed before the first answer (a full disk): the fail-stop is logged
            raise JournalFailed(exc.details) from None
        yield
    finally:
        if games is not None:
            games.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await games
        beats.stop()
        service.stop()
        if recording is not None:
            await recording.close()
        if runner is not None:
            runner.close()
        with contextlib.suppress(ApiError):  # the journal failed: nothing more can be written, nor needs to be
            await service.durable()


def _add_service(app: web.Application, service: ExchangeService, config: ServerConfig,
                 on_fatal: Callable[[str], None] | None, gate: AccountGate) -> tuple[StreamHub, GamesHub]:
    """The service and its two stream hubs (traders' and spectators'), each told when the service fails, as
    ``on_fatal`` is; ``gate`` paces the traders' subscription images with their list calls."""
    hub = StreamHub(app[keys.SESSIONS], service, heartbeat_ms=config.heartbeat_ms, gate=gate)
    spectators = GamesHub(service, heartbeat_ms=config.games_heartbeat_ms)
    app[keys.SESSIONS].on_end(hub.session_ended)
    for listener in (hub.fail, spectators.fail, on_fatal):
        if listener is not None:
            service.on_failure(listener)
    app[keys.SERVICE] = service
    app[keys.HUB] = hub
    app[keys.GAMES] = spectators
    return hub, spectators


def _add_endpoints(app: web.Application, service: ExchangeService, gate: AccountGate,
                   clock: Clock) -> heartbeat.Heartbeats:
    """The betting, account and heartbeat endpoints; the heartbeats they keep, to be stopped with the server."""
    app[keys.BETTING] = _endpoint("SportsAPING", "APINGException", BETTING_PREFIX, service, gate, BETTING_METHODS)
    app[keys.ACCOUNT] = _endpoint("AccountAPING", ACCOUNT_EXCEPTION, ACCOUNT_PREFIX, service, gate,
                                  ACCOUNT_METHODS)
    beats = heartbeat.Heartbeats(clock, functools.partial(heartbeat.cancel_unmatched, service))
    app[keys.HEARTBEAT] = Endpoint(HEARTBEAT, "APINGException", {
        f"{HEARTBEAT}/v1.0/heartbeat": functools.partial(heartbeat.heartbeat, beats)}, gate=gate)
    return beats


def _recording(app: web.Application, config: ServerConfig, service: ExchangeService,
               clock: Clock) -> Recording | None:
    """``serve --record``: the Parquet tables of every game that ends, written as the server runs."""
    if config.record_dir is None:
        return None
    from exchange.server.recording import Recording

    recording = app[keys.RECORDING] = Recording(Path(config.record_dir), service.exchange, service.configs,
                                                 durable=service.durable, clock=for_durations(clock),
                                                 next_games={c: service.next_game_number(c) for c in service.configs},
                                                 exchange_id=app[keys.JOURNAL].exchange_id(),
                                                 every=config.record_every, every_ms=config.record_every_ms,
                                                 executing=lambda: service.executing)
    return recording


def _demo_password_check(store: AccountStore, config: ServerConfig) -> asyncio.Future[bool]:
    """Add the demo account (serve --demo only: a known password is no default for a server) unless it exists;
    then whether its password is the demo one, worked out on a thread (scrypt is slow on purpose; it releases
    the GIL) while the server recovers."""
    if store.credentials(config.demo_account) is None:
        with contextlib.suppress(AccountExists):
            store.add(config.demo_account, config.demo_password, deposit=config.demo_balance, by="serve --demo")
    credentials = store.credentials(config.demo_account)

    def works() -> bool:
        return check_password(credentials, config.demo_password) is not None

    # On the default executor at once: a task of ``asyncio.to_thread`` would start only when the loop next ran,
    # after the recovery it is meant to overlap, and the start would wait for it after
    return asyncio.get_running_loop().run_in_executor(None, works)


def _channel_configs(config: ServerConfig) -> list[ChannelConfig]:
    """The channels the server runs, with the window lengths it was given."""
    channels = []
    for name in config.channels:
        channel = get_channel(name)
        if config.window_ms is not None or config.playing_ms is not None:
            channel = channel.with_times(config.window_ms or channel.betting_window_ms, config.playing_ms)
        channels.append(channel)
    return channels


async def _games_once_warm(service: ExchangeService, runner: ThreadedEquities, channels: list[ChannelConfig],
                           listening: asyncio.Event) -> None:
    """:data:`WARM_UP_AFTER_S` after the server listens, warm the poker engine on the equity worker thread, then
    start the channels' games.

    The warm-up's imports hold the GIL in long stretches (numba's libraries load in C, 20-50 ms at a time), so
    begun as the port was bound, they held up the first answers of a restart, to the clients that reconnect at
    once, by 50-75 ms; a moment later those are answered first. The games start that much later (there are no
    open markets before them: a restart voids the ones it finds open).

    A server started without :func:`~exchange.server.connections.listen` (aiohttp's own runners) never says it
    listens: after :data:`LISTEN_WAIT_S` the warm-up goes ahead all the same, so its games are late, not lost.
    """
    try:
        await asyncio.wait_for(listening.wait(), LISTEN_WAIT_S)
    except TimeoutError:
        log.warning("the server did not say it listens within %d s: warming the poker engine now", LISTEN_WAIT_S)
    await asyncio.sleep(WARM_UP_AFTER_S)
    await warm_engine(runner, [c.variant for c in channels])
    service.start_games()


async def _stream(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[keys.HUB].close()
    await app[keys.GAMES].close()


async def _close_streams(app: web.Application) -> None:
    """Close every stream connection as the server starts to stop (``on_shutdown``).

    aiohttp waits for its request handlers (up to a minute) before the cleanup contexts run, and a
    WebSocket's handler ends only when its connection does: left to :func:`_stream`'s exit, one open
    trading page held a Ctrl-C that long. Closing is idempotent, so that exit closes only what came since.
    """
    await app[keys.HUB].close()
    await app[keys.GAMES].close()


async def _halt(app: web.Application) -> None:
    """As the server starts to stop (``on_shutdown``, before aiohttp waits for its request handlers): the games
    freeze where they stand, and a request whose body had not all arrived is refused at once, not after the body
    timeout (:meth:`~exchange.server.connections.ConnectionGuard.stop_reading_bodies`). Left to the cleanup
    contexts, the games went on dealing and settling for as long as aiohttp waited (up to the body timeout).
    The log names the markets left open, which the next start voids."""
    service = app[keys.SERVICE]
    service.halt_games()
    log.info("stopping: no more games are dealt; markets left open (voided at the next start): %s",
             ", ".join(service.live_market_ids()) or "none")
    app[connections.GUARD].stop_reading_bodies()


def _touch_both(hub: StreamHub, games: GamesHub, market_id: str | None, event: Event | None) -> None:
    """Tell both streams of a change: the Exchange Stream's hub, then the spectators' (see :class:`GamesHub`)."""
    hub.touched(market_id, event)
    games.touched(market_id, event)


async def _stream_socket(app: web.Application, *, config: ServerConfig) -> AsyncIterator[None]:
    """The Exchange Stream on its own TLS port, when one is configured (``serve --stream-port``)."""
    if config.stream_port is None:
        yield
        return
    context = tls.server_context(config.tls_cert, config.tls_key, host=config.stream_host)
    server = StreamSocketServer(app[keys.HUB], context, max_connections=config.max_connections,
                                handshake_timeout_ms=config.header_timeout_ms)
    app[keys.STREAM_PORT] = await server.start(config.stream_host, config.stream_port)
    log.info("stream: TLS on %s:%d", config.stream_host, app[keys.STREAM_PORT])
    yield
    await server.stop()


async def _sweeper(app: web.Application, *, clock: Clock, every_ms: int) -> AsyncIterator[None]:
    """Every ``every_ms`` on the clock: end expired sessions (closing their streams) and forget old login counts."""
    timer: Timer | None = None

    def sweep() -> None:
        nonlocal timer
        ended = app[keys.SESSIONS].purge()
        app[keys.LOGIN_LIMITS].purge()
        if ended:
            log.info("sessions: %d expired, %d live", ended, len(app[keys.SESSIONS]))
        timer = clock.call_later(every_ms, sweep)

    timer = clock.call_later(every_ms, sweep)
    yield
    timer.cancel()


def _endpoint(service_name: str, exception_name: str, prefix: str, service: ExchangeService, gate: AccountGate,
              methods: dict[str, ServiceMethod]) -> Endpoint:
    bound: dict[str, Method] = {prefix + name: functools.partial(fn, service) for name, fn in methods.items()}
    return Endpoint(service_name, exception_name, bound, gate=gate,
                    writes={prefix + name for name in methods if name in BETTING_WRITES})


# --- handlers --------------------------------------------------------------------------------

#: API-NG routes check and hold their answers themselves (:func:`_rpc`, :func:`_rest`), to answer in API-NG's shapes.
_JSON_RPC = frozenset(path + tail for path in (BETTING_RPC, ACCOUNT_RPC, HEARTBEAT_PATH) for tail in ("", "/"))
_API_NG_REST = (BETTING_REST, ACCOUNT_REST, HEARTBEAT_REST)
STREAM_PATH = "/stream"  # the hub holds each message it sends (:meth:`StreamHub.flush`)
#: WebSocket routes: each hub holds every message it sends, so the gate only checks the journal is alive.
_STREAMS = frozenset({STREAM_PATH, GAMES_STREAM_PATH})


@web.middleware
async def durability_gate(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse everything once the journal has failed; hold each answer until what it shows is on disk."""
    service = request.app.get(keys.SERVICE)
    if service is None or request.path in _JSON_RPC or request.path.startswith(_API_NG_REST):
        return await handler(request)
    service.check_available()
    response = await handler(request)
    if request.path not in _STREAMS:
        await service.durable(service.journal.last_seq)  # the records there were when the answer was built
    return response



def _session(request: web.Request) -> Session:
    return request.app[keys.SESSIONS].check(request.headers.get("X-Authentication"),
                                             request.headers.get("X-Application"))


def _too_large(request: web.Request) -> ApiError:
    """The refusal of a request whose body is past the server's limit, as API-NG words it."""
    limit = request.app[keys.CONFIG].max_body_bytes
    return ApiError(ApingCode.REQUEST_SIZE_EXCEEDS_LIMIT, f"a request body is at most {limit} bytes")


async def _rpc(request: web.Request, endpoint: Endpoint) -> web.Response:
    try:
        body = await connections.read_body(request)
    except web.HTTPRequestEntityTooLarge:  # refused in API-NG's shape, as every other JSON-RPC error
        return connections.closing(web.json_response(envelope_error(None, endpoint.error(_too_large(request)))))
    try:
        session = _session(request)
        service = request.app[keys.SERVICE]
        service.check_available()
        answer = await endpoint.handle(body, session)
        # What the answer shows is on disk before it leaves: the records there were when it was built.
        await service.durable(service.journal.last_seq)
    except ApiError as err:
        answer = endpoint.refuse(body, err)
    return web.Response(body=answer, content_type="application/json")


async def _rest(request: web.Request, endpoint: Endpoint) -> web.Response:
    """API-NG over REST: the method from the path, its params object as the body, the result alone as the answer
    (a refusal: Betfair's fault, :meth:`Endpoint.rest_fault`); run by the endpoint that runs JSON-RPC calls."""
    name = request.match_info["method"]
    if not endpoint.has_method(name):
        raise web.HTTPNotFound(text=f"no method {name[:100]!r} here; this API has {endpoint.known_methods()}")
    try:
        body = await connections.read_body(request)
    except web.HTTPRequestEntityTooLarge:
        status, answer = endpoint.rest_fault(_too_large(request))
        return connections.closing(web.Response(body=answer, status=status, content_type="application/json"))
    try:
        session = _session(request)
        service = request.app[keys.SERVICE]
        service.check_available()
        status, answer = await endpoint.handle_rest(name, body, session)
        await service.durable(service.journal.last_seq)  # as _rpc: what the answer shows is on disk first
    except ApiError as err:
        status, answer = endpoint.rest_fault(err)
    return web.Response(body=answer, status=status, content_type="application/json")


async def betting_rest(request: web.Request) -> web.Response:
    return await _rest(request, request.app[keys.BETTING])


async def account_rest(request: web.Request) -> web.Response:
    return await _rest(request, request.app[keys.ACCOUNT])


async def betting_rpc(request: web.Request) -> web.Response:
    return await _rpc(request, request.app[keys.BETTING])


async def account_rpc(request: web.Request) -> web.Response:
    return await _rpc(request, request.app[keys.ACCOUNT])


async def heartbeat_rest(request: web.Request) -> web.Response:
    return await _rest(request, request.app[keys.HEARTBEAT])


async def heartbeat_rpc(request: web.Request) -> web.Response:
    return await _rpc(request, request.app[keys.HEARTBEAT])


async def stream(request: web.Request) -> web.StreamResponse:
    return await request.app[keys.HUB].handle(request)


async def games_stream(request: web.Request) -> web.StreamResponse:
    return await request.app[keys.GAMES].handle(request)


async def openapi_json(request: web.Request) -> web.Response:
    if request.query:
        return unknown_query(request, "the document takes none")
    return web.json_response(openapi.document())
