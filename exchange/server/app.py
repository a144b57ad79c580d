"""The aiohttp application: ``create_app(config)``, its routes in one place, and its lifecycle.

Background work runs in ``cleanup_ctx`` contexts, in order: the database
(accounts store and journal writer), the exchange (recovery from the journal,
then the channels on the clock with the house seated), and the stream hub's
heartbeats. Handlers are thin: they read the request, call one function and
write JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web

from exchange.channels import get_channel
from exchange.clock import Clock, WallClock
from exchange.game.table import EquityFn
from exchange.server import account, betting, games_api, identity, jsoncodec, keys, listings, openapi
from exchange.server.auth import Session, Sessions
from exchange.server.config import ServerConfig
from exchange.server.errors import ApiError
from exchange.server.journal import Journal
from exchange.server.jsonrpc import Endpoint, Method, Params, aping_error, envelope_error
from exchange.server.rest_errors import add_fallbacks, http_error, json_errors, unexpected
from exchange.server.service import ExchangeService
from exchange.server.store import AccountExists, AccountStore
from exchange.server.stream import StreamHub

ServiceMethod = Callable[[ExchangeService, Session, Params], Awaitable[Any]]

BETTING_PREFIX = "SportsAPING/v1.0/"
ACCOUNT_PREFIX = "AccountAPING/v1.0/"

log = logging.getLogger(__name__)


def create_app(
    config: ServerConfig, *, clock: Clock | None = None, equities: EquityFn | None = None
) -> web.Application:
    """The server as an aiohttp application; nothing runs until the app starts."""
    app = web.Application(client_max_size=config.max_body_bytes)  # no middleware: see rest_errors
    app[keys.CONFIG] = config
    clock = clock or WallClock()
    app[keys.SESSIONS] = Sessions(clock, ttl_ms=config.session_ttl_ms)
    app.cleanup_ctx.append(functools.partial(_database, config=config))
    app.cleanup_ctx.append(functools.partial(_exchange, config=config, clock=clock, equities=equities))
    app.cleanup_ctx.append(_stream)
    _routes(app)
    return app


def _routes(app: web.Application) -> None:
    """Every route; REST handlers wrapped in :func:`json_errors`, JSON-RPC ones answer their own errors."""
    router = app.router
    router.add_post("/api/login", json_errors(identity.login))
    router.add_post("/api/keepAlive", json_errors(identity.keep_alive))
    router.add_post("/api/logout", json_errors(identity.logout))
    router.add_post("/exchange/betting/json-rpc/v1", _rpc(keys.BETTING))
    router.add_post("/exchange/account/json-rpc/v1", _rpc(keys.ACCOUNT))
    router.add_get("/games/v1/channels", json_errors(games_api.list_channels))
    router.add_get("/games/v1/channels/{channel}/snapshot", json_errors(games_api.snapshot))
    router.add_get("/stream", json_errors(stream))
    router.add_get("/openapi.json", json_errors(openapi_json))
    add_fallbacks(router)


# --- lifecycle -------------------------------------------------------------------------------


async def _database(app: web.Application, *, config: ServerConfig) -> AsyncIterator[None]:
    store = AccountStore.open(config.db_path)
    journal = Journal.open(config.db_path)
    journal.start()
    app[keys.STORE] = store
    app[keys.JOURNAL] = journal
    yield
    await journal.stop()
    log.info("journal: %d records in %d commits", journal.written, journal.commits)
    journal.close()
    store.close()


async def _exchange(
    app: web.Application, *, config: ServerConfig, clock: Clock, equities: EquityFn | None
) -> AsyncIterator[None]:
    channels = []
    for name in config.channels:
        channel = get_channel(name)
        if config.window_ms is not None or config.playing_ms is not None:
            channel = channel.with_times(config.window_ms or channel.betting_window_ms, config.playing_ms)
        channels.append(channel)
    service = ExchangeService(app[keys.JOURNAL], clock, channels, seed=config.seed, equities=equities,
                              house=config.house)
    service.recover()
    store = app[keys.STORE]
    if config.demo_account and len(store) == 0:
        with contextlib.suppress(AccountExists):
            store.add(config.demo_account, config.demo_password, deposit=config.demo_balance)
    hub = StreamHub(app[keys.SESSIONS], service, heartbeat_ms=config.heartbeat_ms)
    app[keys.SERVICE] = service
    app[keys.HUB] = hub
    app[keys.BETTING] = _endpoint("SportsAPING", "APINGException", BETTING_PREFIX, service, {
        "placeOrders": betting.place_orders,
        "cancelOrders": betting.cancel_orders,
        "replaceOrders": betting.replace_orders,
        "listCurrentOrders": listings.list_current_orders,
        "listClearedOrders": listings.list_cleared_orders,
        "listMarketBook": listings.list_market_book,
        "listMarketCatalogue": listings.list_market_catalogue,
    })
    app[keys.ACCOUNT] = _endpoint("AccountAPING", "AccountAPINGException", ACCOUNT_PREFIX, service, {
        "getAccountFunds": account.get_account_funds,
    })
    service.start(hub.touched, run_games=config.run_games)
    await service.durable()
    yield
    service.stop()
    await service.durable()


async def _stream(app: web.Application) -> AsyncIterator[None]:
    hub = app[keys.HUB]
    task = asyncio.get_running_loop().create_task(hub.heartbeats(), name="stream-heartbeats")
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await hub.close()


def _endpoint(service_name: str, exception_name: str, prefix: str, service: ExchangeService,
              methods: dict[str, ServiceMethod]) -> Endpoint:
    bound: dict[str, Method] = {prefix + name: functools.partial(fn, service) for name, fn in methods.items()}
    return Endpoint(service_name, exception_name, bound)


# --- handlers --------------------------------------------------------------------------------


def _session(request: web.Request) -> Session:
    headers = request.headers
    return request.app[keys.SESSIONS].check(headers.get("X-Authentication"), headers.get("X-Application"))


def _rpc(key: web.AppKey[Endpoint]) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The handler of one JSON-RPC URL: every failure is answered in the envelope (no middleware runs here)."""

    async def json_rpc(request: web.Request) -> web.Response:
        try:
            body = await request.read()
            endpoint = request.app[key]
            try:
                session = _session(request)
            except ApiError as err:
                answer = envelope_error(_request_id(body), aping_error(err, endpoint.exception_name))
                return web.json_response(answer)
            return web.Response(body=await endpoint.handle(body, session), content_type="application/json")
        except web.HTTPException as exc:  # the body is too large (413) or unreadable
            return http_error(exc)
        except Exception:
            return unexpected(request)

    return json_rpc


def _request_id(body: bytes) -> object:
    try:
        parsed = jsoncodec.loads(body)
    except (ValueError, RecursionError):
        return None
    return parsed.get("id") if isinstance(parsed, dict) and isinstance(parsed.get("id"), int | str) else None


async def stream(request: web.Request) -> web.StreamResponse:
    return await request.app[keys.HUB].handle(request)


async def openapi_json(request: web.Request) -> web.Response:
    return web.json_response(openapi.document())
