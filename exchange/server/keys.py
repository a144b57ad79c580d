"""Typed application keys: everything a handler may take from ``request.app``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from exchange.server.auth import Sessions
from exchange.server.cashier import References
from exchange.server.config import ServerConfig
from exchange.server.dblock import DatabaseLock
from exchange.server.games_stream import GamesHub
from exchange.server.journal import Journal
from exchange.server.jsonrpc import Endpoint
from exchange.server.ratelimit import LoginLimits
from exchange.server.service import ExchangeService
from exchange.server.store import AccountStore
from exchange.server.stream import StreamHub

if TYPE_CHECKING:  # loaded with serve --record only (it loads pyarrow)
    from exchange.server.recording import Recording

CONFIG = web.AppKey("config", ServerConfig)
STORE = web.AppKey("store", AccountStore)
JOURNAL = web.AppKey("journal", Journal)
DB_LOCK = web.AppKey("database_lock", DatabaseLock)
CASHIER = web.AppKey("cashier_references", References)  # operators' deposits and withdrawals by reference
SESSIONS = web.AppKey("sessions", Sessions)
LOGIN_LIMITS = web.AppKey("login_limits", LoginLimits)
SERVICE = web.AppKey("service", ExchangeService)
HUB = web.AppKey("hub", StreamHub)
GAMES = web.AppKey("games_hub", GamesHub)
BETTING = web.AppKey("betting_endpoint", Endpoint)
ACCOUNT = web.AppKey("account_endpoint", Endpoint)
HEARTBEAT = web.AppKey("heartbeat_endpoint", Endpoint)
RECORDING: web.AppKey[Recording] = web.AppKey("recording")  # serve --record: the tables being written
STREAM_PORT = web.AppKey("stream_port", int)  # the TLS stream's port, once it listens (serve --stream-port)
#: serve --demo: whether the demo account has the demo password (checked on a thread while the server recovers)
DEMO_PASSWORD_OK = web.AppKey("demo_password_ok", bool)
