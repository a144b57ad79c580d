"""The Exchange Stream API over a WebSocket at ``/stream``.

Messages are Betfair's, one JSON object per WebSocket text frame:

* the server opens with ``{"op": "connection", "connectionId": ...}``;
* the client authenticates (``{"op": "authentication", "id", "appKey", "session"}``
  with a token from ``/api/login``), then subscribes with
  ``marketSubscription`` (``marketFilter.marketIds``; none means every market)
  and ``orderSubscription`` (its own orders only); each request is answered by
  ``{"op": "status", "id", "statusCode": "SUCCESS" | "FAILURE", ...}``;
* market changes come as ``mcm`` (``ct: "SUB_IMAGE"`` first, then deltas:
  ``rc: [{id, atb, atl, trd, ltp, tv}]``, ``marketDefinition`` when a status
  changes), order changes as ``ocm`` (``oc: [{id, orc: [{id, uo, mb, ml}]}]``),
  and ``ct: "HEARTBEAT"`` when nothing else was sent for ``heartbeatMs``.

Changes are conflated: an event marks its market (and the accounts it
touches) dirty, and one flush ``conflate_ms`` later diffs each dirty market
once (with :class:`exchange.backtest.recorder.MarketRecorder`, the same code
that writes the simulator's stream recordings) and fans the change out.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from exchange.backtest.recorder import MarketRecorder
from exchange.events import Event
from exchange.server.auth import Sessions
from exchange.server.errors import ApiError
from exchange.server.service import ExchangeService, accounts_of

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
MAX_MESSAGE = 64 * 1024
MIN_HEARTBEAT_MS = 500
MAX_HEARTBEAT_MS = 30_000
ALL_FIELDS = frozenset({"EX_ALL_OFFERS", "EX_BEST_OFFERS", "EX_TRADED", "EX_TRADED_VOL", "EX_LTP", "EX_MARKET_DEF"})
_RC_FIELD = {"atb": "offers", "atl": "offers", "trd": "EX_TRADED", "tv": "EX_TRADED_VOL", "ltp": "EX_LTP"}


@dataclass
class Subscription:
    """One market or order subscription of a connection: its request id, clock and filters."""

    id: int
    heartbeat_ms: int
    market_ids: frozenset[str] | None = None
    fields: frozenset[str] = ALL_FIELDS
    clk: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    last_sent_ms: int = 0

    def wants(self, market_id: str) -> bool:
        return self.market_ids is None or market_id in self.market_ids

    def filter_change(self, change: JsonDict) -> JsonDict:
        """A market change with only the fields this subscription asked for."""
        out = {k: v for k, v in change.items() if k != "marketDefinition" or "EX_MARKET_DEF" in self.fields}
        if "tv" in out and "EX_TRADED_VOL" not in self.fields:
            del out["tv"]
        if "rc" in change:
            offers = bool(self.fields & {"EX_ALL_OFFERS", "EX_BEST_OFFERS"})
            rcs = []
            for rc in change["rc"]:
                kept = {k: v for k, v in rc.items()
                        if k == "id" or (_RC_FIELD.get(k) == "offers" and offers) or _RC_FIELD.get(k) in self.fields}
                if len(kept) > 1 or change.get("img"):
                    rcs.append(kept)
            if rcs:
                out["rc"] = rcs
            else:
                out.pop("rc", None)
        return out


class StreamConnection:
    """One WebSocket client."""

    def __init__(self, hub: StreamHub, ws: web.WebSocketResponse, connection_id: str) -> None:
        self.hub = hub
        self.ws = ws
        self.connection_id = connection_id
        self.account: str | None = None
        self.market_sub: Subscription | None = None
        self.order_sub: Subscription | None = None
        self.closed = False

    async def send(self, message: JsonDict) -> None:
        if self.closed or self.ws.closed:
            return
        try:
            await self.ws.send_str(json.dumps(message, separators=(",", ":")))
        except (ConnectionError, RuntimeError):
            self.closed = True

    async def status(self, request_id: int | None, error: str | None = None, message: str = "",
                     *, close: bool = False) -> None:
        out: JsonDict = {"op": "status", "statusCode": "FAILURE" if error else "SUCCESS", "connectionClosed": close}
        if request_id is not None:
            out["id"] = request_id
        if error:
            out["errorCode"] = error
            out["errorMessage"] = message
        else:
            out["connectionsAvailable"] = 10
        await self.send(out)
        if close:
            self.closed = True
            await self.ws.close()

    async def handle(self, text: str) -> None:
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            await self.status(None, "INVALID_INPUT", "the message is not JSON")
            return
        if not isinstance(message, dict):
            await self.status(None, "INVALID_INPUT", "a message must be a JSON object with an op")
            return
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, int | None):
            await self.status(None, "INVALID_INPUT", "id must be an integer")
            return
        op = message.get("op")
        if op == "authentication":
            await self._authenticate(request_id, message)
        elif op == "heartbeat":
            await self.status(request_id)
        elif op in ("marketSubscription", "orderSubscription"):
            if self.account is None:
                await self.status(request_id, "NOT_AUTHORIZED", "authenticate first", close=True)
            elif op == "marketSubscription":
                await self._subscribe_markets(request_id, message)
            else:
                await self._subscribe_orders(request_id, message)
        else:
            await self.status(request_id, "INVALID_INPUT", f"unknown op {op!r:.40}; use authentication, "
                              "marketSubscription, orderSubscription or heartbeat")

    async def _authenticate(self, request_id: int | None, message: Mapping[str, Any]) -> None:
        app_key, token = message.get("appKey"), message.get("session")
        try:
            session = self.hub.sessions.check(token if isinstance(token, str) else None,
                                              app_key if isinstance(app_key, str) else None)
        except ApiError as err:
            await self.status(request_id, str(err.code), err.details, close=True)
            return
        self.account = session.account
        await self.status(request_id)

    def _heartbeat(self, message: Mapping[str, Any]) -> int:
        value = message.get("heartbeatMs", self.hub.heartbeat_ms)
        if isinstance(value, bool) or not isinstance(value, int):
            value = self.hub.heartbeat_ms
        return max(MIN_HEARTBEAT_MS, min(MAX_HEARTBEAT_MS, value))

    async def _subscribe_markets(self, request_id: int | None, message: Mapping[str, Any]) -> None:
        market_filter = message.get("marketFilter") or {}
        data_filter = message.get("marketDataFilter") or {}
        if not isinstance(market_filter, dict) or not isinstance(data_filter, dict):
            await self.status(request_id, "INVALID_INPUT", "marketFilter and marketDataFilter must be objects")
            return
        ids = market_filter.get("marketIds")
        if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)
                                or len(ids) > 1000):
            await self.status(request_id, "INVALID_INPUT", "marketFilter.marketIds must be a list of strings")
            return
        fields = data_filter.get("fields")
        if fields is not None and (not isinstance(fields, list) or not all(isinstance(f, str) for f in fields)):
            await self.status(request_id, "INVALID_INPUT", "marketDataFilter.fields must be a list of strings")
            return
        sub = Subscription(
            id=request_id or 0,
            heartbeat_ms=self._heartbeat(message),
            market_ids=frozenset(ids) if ids else None,
            fields=frozenset(fields) & ALL_FIELDS if fields else ALL_FIELDS,
        )
        self.market_sub = sub
        await self.status(request_id)
        images = [sub.filter_change(change) for change in self.hub.market_images(sub)]
        await self.send_market(sub, images, ct="SUB_IMAGE")

    async def _subscribe_orders(self, request_id: int | None, message: Mapping[str, Any]) -> None:
        assert self.account is not None
        sub = Subscription(id=request_id or 0, heartbeat_ms=self._heartbeat(message))
        self.order_sub = sub
        await self.status(request_id)
        await self.send_orders(sub, self.hub.order_images(self.account, None), ct="SUB_IMAGE")

    async def send_market(self, sub: Subscription, changes: list[JsonDict], *, ct: str | None = None) -> None:
        now = self.hub.service.now()
        clk = str(next(sub.clk))
        out: JsonDict = {"op": "mcm", "id": sub.id, "clk": clk, "pt": now}
        if ct == "SUB_IMAGE":
            out.update({"initialClk": clk, "ct": ct, "heartbeatMs": sub.heartbeat_ms, "conflateMs": 0})
        elif ct:
            out["ct"] = ct
        if changes or ct == "SUB_IMAGE":
            out["mc"] = changes
        sub.last_sent_ms = now
        await self.send(out)

    async def send_orders(self, sub: Subscription, changes: list[JsonDict], *, ct: str | None = None) -> None:
        now = self.hub.service.now()
        clk = str(next(sub.clk))
        out: JsonDict = {"op": "ocm", "id": sub.id, "clk": clk, "pt": now}
        if ct == "SUB_IMAGE":
            out.update({"initialClk": clk, "ct": ct, "heartbeatMs": sub.heartbeat_ms, "conflateMs": 0})
        elif ct:
            out["ct"] = ct
        if changes or ct == "SUB_IMAGE":
            out["oc"] = changes
        sub.last_sent_ms = now
        await self.send(out)


class StreamHub:
    """All stream connections, the per-market recorders, and the conflated flush."""

    def __init__(self, sessions: Sessions, service: ExchangeService, *, heartbeat_ms: int = 5_000,
                 conflate_ms: int = 50) -> None:
        self.sessions = sessions
        self.service = service
        self.heartbeat_ms = heartbeat_ms
        self.conflate_ms = conflate_ms
        self.connections: set[StreamConnection] = set()
        self._ids = itertools.count(1)
        self._recorders: dict[str, MarketRecorder] = {}
        self._last_change: dict[str, JsonDict] = {}
        self._dirty_markets: set[str] = set()
        self._dirty_orders: set[tuple[str, str]] = set()
        self._flush_handle: asyncio.Handle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # --- fed by the service -------------------------------------------------------------

    def touched(self, market_id: str | None, event: Event | None) -> None:
        """``event`` (or a game event, None) changed ``market_id`` and the orders of the accounts it names; flush soon.

        Called for every event the exchange makes: with no stream client connected it returns at once.
        """
        if not self.connections or market_id is None:
            return
        self._dirty_markets.add(market_id)
        if event is not None:
            self._dirty_orders.update((a, market_id) for a in accounts_of(event))
        if self._flush_handle is None:
            loop = asyncio.get_running_loop()
            self._flush_handle = loop.call_later(self.conflate_ms / 1000, self._flush_soon)

    def _flush_soon(self) -> None:
        self._flush_handle = None
        task = asyncio.get_running_loop().create_task(self.flush())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        markets, self._dirty_markets = self._dirty_markets, set()
        orders, self._dirty_orders = self._dirty_orders, set()
        changes = [c for c in (self._market_change(m) for m in sorted(markets)) if c is not None]
        for conn in list(self.connections):
            sub = conn.market_sub
            if sub is not None:
                mine = [sub.filter_change(c) for c in changes if sub.wants(c["id"])]
                mine = [c for c in mine if len(c) > 1]
                if mine:
                    await conn.send_market(sub, mine)
            osub = conn.order_sub
            if osub is not None and conn.account is not None:
                touched = {m for a, m in orders if a == conn.account}
                if touched:
                    await conn.send_orders(osub, self.order_images(conn.account, touched))

    def _market_change(self, market_id: str) -> JsonDict | None:
        snapshot = self.service.stream_snapshot(market_id)
        if snapshot is None:
            return None
        recorder = self._recorders.get(market_id)
        if recorder is None:
            info = self.service.recorder_info(market_id)
            if info is None:
                return None
            recorder = self._recorders[market_id] = MarketRecorder(info)
        line = recorder.update(snapshot, self.service.now())
        recorder.lines.clear()
        if line is None:
            return None
        change: JsonDict = json.loads(line)["mc"][0]
        change.pop("img", None)
        self._forget_closed()
        return change

    def _forget_closed(self) -> None:
        if len(self._recorders) > 64:
            live = set(self.service.live_market_ids())
            for market_id in [m for m in self._recorders if m not in live][:-16]:
                del self._recorders[market_id]

    def market_images(self, sub: Subscription) -> list[JsonDict]:
        images = []
        for market_id in self.service.stream_market_ids(sub.market_ids):
            snapshot = self.service.stream_snapshot(market_id)
            info = self.service.recorder_info(market_id)
            if snapshot is None or info is None:
                continue
            line = MarketRecorder(info).update(snapshot, self.service.now())
            if line is not None:
                images.append(json.loads(line)["mc"][0])
        return images

    def order_images(self, account: str, market_ids: set[str] | None) -> list[JsonDict]:
        return self.service.order_changes(account, market_ids)

    # --- connections and heartbeats -------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30)
        await ws.prepare(request)
        conn = StreamConnection(self, ws, f"{next(self._ids):03d}-{self.service.now()}")
        self.connections.add(conn)
        try:
            await conn.send({"op": "connection", "connectionId": conn.connection_id})
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await conn.handle(msg.data)
                elif msg.type is WSMsgType.BINARY:
                    await conn.status(None, "INVALID_INPUT", "send JSON text frames")
                if conn.closed:
                    break
        finally:
            self.connections.discard(conn)
            conn.closed = True
        return ws

    async def heartbeats(self) -> None:
        """Send ``ct: HEARTBEAT`` on every subscription idle for its ``heartbeatMs``; runs until cancelled."""
        while True:
            await asyncio.sleep(MIN_HEARTBEAT_MS / 1000 / 2)
            now = self.service.now()
            for conn in list(self.connections):
                if conn.market_sub and now - conn.market_sub.last_sent_ms >= conn.market_sub.heartbeat_ms:
                    await conn.send_market(conn.market_sub, [], ct="HEARTBEAT")
                if conn.order_sub and now - conn.order_sub.last_sent_ms >= conn.order_sub.heartbeat_ms:
                    await conn.send_orders(conn.order_sub, [], ct="HEARTBEAT")

    async def close(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                await conn.ws.close()
        for task in list(self._tasks):
            task.cancel()
