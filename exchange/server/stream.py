"""The Exchange Stream API: over a WebSocket at ``/stream`` and, as Betfair, over TLS (:mod:`.stream_socket`).

Messages are Betfair's, one JSON object per WebSocket text frame:

* the server opens with ``{"op": "connection", "connectionId": ...}``;
* the client authenticates (``{"op": "authentication", "id", "appKey", "session"}``
  with a token from ``/api/login``), then subscribes with
  ``marketSubscription`` (``marketFilter.marketIds``; none means every market)
  and ``orderSubscription`` (its own orders only); each request is answered by
  ``{"op": "status", "id", "statusCode": "SUCCESS" | "FAILURE", ...}``. Every
  subscription field is checked by :mod:`exchange.server.stream_params`; a
  wrong one is answered ``FAILURE`` / ``INVALID_INPUT`` with a message naming it;
* market changes come as ``mcm`` (``ct: "SUB_IMAGE"`` first, then deltas:
  ``rc: [{id, atb, atl, batb, batl, trd, ltp, tv}]``, ``marketDefinition`` when
  a status changes), order changes as ``ocm`` (``oc: [{id, orc: [{id, uo, mb,
  ml, smc}], closed}]``; ``mb``/``ml`` the matched backs and lays summed per
  fill price, ``smc`` the same per ``customerStrategyRef``, with
  ``partitionMatchedByStrategyRef``), and ``ct: "HEARTBEAT"`` when nothing else
  was sent for ``heartbeatMs``. As Betfair: the order image (``SUB_IMAGE``)
  marks each runner ``fullImage`` and holds only the *executable* orders with
  the whole matched position (a resubscription's, with a ``clk``, the ended ones
  too: the client's cache may hold them as they were when it left); every later ``ocm`` is a delta of the runners
  that changed, with only the orders that changed (one that ended once more,
  status ``EC``) and only the matched levels that moved (``[price, 0]`` for
  one that went), built from the events the hub heard
  (:mod:`exchange.server.order_deltas`, :mod:`exchange.betfair.order_changes`).
  ``EX_ALL_OFFERS`` gives the full ladder as ``atb``/``atl``; ``EX_BEST_OFFERS``
  the best ``ladderLevels`` levels as ``batb``/``batl``
  (:mod:`exchange.server.best_offers`); ``EX_BEST_OFFERS_DISP`` the same as
  ``bdatb``/``bdatl``, as no simulator market cross-matches (no virtual prices).
* an account may hold :data:`MAX_CONNECTIONS_PER_ACCOUNT` connections (10, as
  Betfair); each authentication's status says how many more it may open
  (``connectionsAvailable``) and one past the limit is refused with
  ``MAX_CONNECTION_LIMIT_EXCEEDED`` and closed;
* a connection that has no subscription is sent ``status`` ``FAILURE`` /
  ``TIMEOUT`` and closed :data:`IDLE_TIMEOUT_MS` (15 s, as Betfair) after its
  last request, so a client cannot hold idle sockets open;
* a connection lives no longer than the session it authenticated with: at
  logout or expiry it is sent ``status`` ``FAILURE`` /
  ``INVALID_SESSION_INFORMATION`` with ``connectionClosed: true`` and closed,
  and nothing more of its subscriptions is sent.

Changes are conflated: an event marks its market (and the accounts it
touches) dirty, and one flush ``conflate_ms`` later diffs each dirty market
once (with :class:`exchange.betfair.stream.MarketRecorder`, the same code
that writes the simulator's stream recordings) and fans the change out. The
hub's recorder of a market always holds what every subscriber of it was last
shown: a new subscription first brings the recorders of its markets up to date
(sending those changes to the other subscribers) and takes its image from the
very same snapshots, so no later delta is computed against a state it never saw.

Heartbeats and idle timeouts keep to the server's clock, as the flush does:
the hub plans one look at its connections, at the earliest time one is due
(:meth:`StreamHub.check_by`), so a heartbeat goes out when its subscription has
been quiet for exactly ``heartbeatMs``, and a test's clock decides when.

A client is never waited for: sending only queues a connection's messages on its
outbox, written by a task of its own, so one client that stops reading
holds up nobody else; one that lets more than ``max_queued_bytes`` (1 MiB)
pile up beyond its largest message is dropped
(:mod:`exchange.server.stream_transport`).

Nothing is sent before the journal holds it: each flush (its market diffs
and its order deltas alike) and each subscription image is computed, then
held until the records behind it are
committed (:meth:`ExchangeService.held`), one at a time (the hub's ``sending``
lock keeps them in order). If the journal fails, every connection is told
``SERVICE_UNAVAILABLE`` and closed (:meth:`StreamHub.fail`), and so is one that
connects and asks anything (authentication, a subscription) while the server stops.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from exchange.betfair.stream import BetfairMarketStatus, MarketRecorder, MarketSnapshot, RunnerSnapshot
from exchange.clock import Timer
from exchange.core.events import Event, MarketSettled, MarketVoided
from exchange.page.refusals import unknown_query
from exchange.server.auth import Session, Sessions
from exchange.server.limits import AccountGate
from exchange.server.order_deltas import DirtyOrders, OrderDirt
from exchange.server.service import ExchangeService
from exchange.server.stream_connection import MAX_CONNECTIONS_PER_ACCOUNT, RESUME_MARGIN_MS, StreamConnection
from exchange.server.stream_subscription import MarketDelta, Subscription
from exchange.server.stream_transport import MAX_QUEUED_BYTES, Transport, WebSocketTransport

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
MAX_MESSAGE = 64 * 1024
WS_READ_LIMIT = 4 * MAX_MESSAGE
#: A connection with no subscription is closed with ``TIMEOUT`` this long after its last request, as Betfair's is.
IDLE_TIMEOUT_MS = 15_000
#: Looks at the connections for heartbeats come at most this often: each is a pass over every connection, and
#: quiet subscriptions fall due at scattered times (a heartbeat is at most this late when several are due close).
CHECK_SPACING_MS = 50
#: Closed markets' images kept built, at least: as many as a resubscription can ask for with the default keep
#: settings (a server keeping more closed markets keeps twice their number).
CLOSED_IMAGES_KEPT = 2_000


@dataclass(frozen=True, slots=True)
class Pending:
    """Changes collected by one flush: each changed market, and each subscribed account's order delta (``oc``)."""

    markets: list[MarketDelta]
    orders: dict[str, list[JsonDict]]


def _runners(snapshot: MarketSnapshot | None) -> dict[int, RunnerSnapshot]:
    return {} if snapshot is None else {r.selection_id: r for r in snapshot.runners}


class StreamHub:
    """All stream connections, the per-market recorders, and the conflated flush."""

    def __init__(self, sessions: Sessions, service: ExchangeService, *, heartbeat_ms: int = 5_000,
                 conflate_ms: int = 50, idle_ms: int = IDLE_TIMEOUT_MS,
                 max_queued_bytes: int = MAX_QUEUED_BYTES, gate: AccountGate | None = None) -> None:
        self.sessions = sessions
        #: Paces an account whose subscription images pass its read rate, as its list calls are (None: never).
        self.gate = gate
        self.max_queued_bytes = max_queued_bytes
        self.service = service
        self.heartbeat_ms = heartbeat_ms
        self.conflate_ms = conflate_ms
        self.idle_ms = idle_ms
        self.connections: set[StreamConnection] = set()
        self._ids = itertools.count(1)
        self._recorders: dict[str, MarketRecorder] = {}
        self._shown: dict[str, MarketSnapshot] = {}
        self._dirty_markets: set[str] = set()
        self._dirty_orders = DirtyOrders()
        #: The changes of markets that closed since the last flush, read as they closed (see :meth:`_read_closed`).
        self._closed_markets: list[MarketDelta] = []
        #: The images of closed markets, each built once: a closed market's image never changes, and a
        #: resubscription images every market closed since its clock (up to the kept and remembered ones).
        self._closed_images: OrderedDict[str, MarketDelta] = OrderedDict()  # least recently shown first
        #: As many as a resubscription can ask for: the closed markets the exchange keeps, and as many remembered.
        self._closed_images_kept = max(CLOSED_IMAGES_KEPT, 2 * (service.exchange.config.keep_closed_markets or 0))
        self._closed_orders: dict[str, list[dict[str, Any]]] = {}  # per account
        self._flush_handle: Timer | None = None
        #: The next look at the connections for heartbeats and idle timeouts (:meth:`check_by`): when, its timer.
        self._check_at: int | None = None
        self._check_timer: Timer | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.sending = asyncio.Lock()  # one flush or subscription image at a time, in order

    # --- fed by the service -------------------------------------------------------------

    def touched(self, market_id: str | None, event: Event | None) -> None:
        """``event`` (or a game event, None) changed ``market_id`` and perhaps orders (noted); flush soon.

        Called for every event the exchange makes: with no stream client connected it returns at once (the last
        one to go took the recorders with it, which would go stale: a subscription after it starts them afresh).
        """
        if not self.connections or market_id is None:
            return
        self._dirty_markets.add(market_id)
        if event is not None:
            self._dirty_orders.note(event)
            if isinstance(event, MarketSettled | MarketVoided):
                self._read_closed(market_id)
        if self._flush_handle is None:  # on the service's clock, so a test's clock decides when it flushes
            self._flush_handle = self.service.clock.call_later(self.conflate_ms, self._flush_soon)

    def _read_closed(self, market_id: str) -> None:
        """Read what a market that has just closed changed now, while the exchange still has it: another close
        before the flush can make it forget the market (``keep_closed_markets``), and its subscribers must still
        learn that it closed and how each of their orders ended (an unmatched rest lapsed, ``EC``)."""
        self._dirty_markets.discard(market_id)
        delta = self._market_delta(market_id)
        if delta is not None:
            self._closed_markets.append(delta)
        subscribed = self._order_subscribers()
        for account, changed in self._dirty_orders.take_market(market_id).items():
            if account in subscribed:
                entries = self.service.order_deltas(account, {market_id: changed})
                self._closed_orders.setdefault(account, []).extend(entries)

    def _order_subscribers(self) -> set[str]:
        return {c.account for c in self.connections if c.order_sub is not None and c.account is not None}

    def _flush_soon(self) -> None:
        self._flush_handle = None
        self._spawn(self.flush())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task the hub cancels when it closes."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        async with self.sending:
            pending = self.collect()
            if await self.service.held():
                self.fan_out(pending)

    def fail(self, reason: str) -> None:
        """The journal failed: every connection gets nothing more, then is told and closed (:meth:`_tell_soon`)."""
        for conn in list(self.connections):
            self._tell_soon(conn, conn.unavailable)

    def collect(self, also: Iterable[str] = ()) -> Pending:
        """Take the dirty markets (and ``also``) and orders: diff each market once against what was shown, and
        build each account's order delta once, whatever its number of connections (an account with no order
        subscription has none: a subscription starts from an image).

        A market of ``also`` that nothing changed while a client was connected and that has no recorder (it closed
        before any client followed it, or its recorder was forgotten) only starts one: no other subscriber was
        following it, so its first line is nobody's change."""
        dirty, self._dirty_markets = self._dirty_markets, set()
        fresh = set(also) - dirty - self._recorders.keys()
        for market_id in fresh:
            self._market_delta(market_id)
        markets = (dirty | set(also)) - fresh
        subscribed = self._order_subscribers()
        dirt: dict[str, dict[str, OrderDirt]] = {}
        for (account, market_id), changed in self._dirty_orders.take().items():
            if account in subscribed:
                dirt.setdefault(account, {})[market_id] = changed
        orders = {account: self.service.order_deltas(account, mine) for account, mine in dirt.items()}
        closed, self._closed_orders = self._closed_orders, {}
        for account, entries in closed.items():
            if account in subscribed:
                orders[account] = sorted(entries + orders.get(account, []), key=lambda entry: entry["id"])
        deltas, self._closed_markets = self._closed_markets, []
        deltas += [d for d in (self._market_delta(m) for m in sorted(markets)) if d is not None]
        return Pending(deltas, orders)

    def fan_out(self, pending: Pending, *, skip: Subscription | None = None) -> None:
        """Send collected changes to every subscriber (but ``skip``, which has just had an image of them)."""
        for conn in list(self.connections):
            if conn.token is not None and not self.sessions.alive(conn.token):
                continue  # ended here: the listener has scheduled its close
            sub = conn.market_sub
            if sub is not None and sub is not skip:
                mine = [sub.filter_change(d) for d in pending.markets if sub.wants(d.change["id"])]
                mine = [c for c in mine if len(c) > 1]
                if mine:
                    conn.send_market(sub, mine)
            osub = conn.order_sub
            account = conn.account
            if osub is not None and osub is not skip and account is not None and account in pending.orders:
                changes = osub.filter_orders(pending.orders[account])
                if changes:
                    conn.send_orders(osub, changes, filtered=True)

    def _market_delta(self, market_id: str) -> MarketDelta | None:
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
        before = self._shown.get(market_id)
        self._shown[market_id] = snapshot
        if line is None:
            return None
        change: JsonDict = json.loads(line)["mc"][0]
        change.pop("img", None)
        self._forget_closed()
        return MarketDelta(change, _runners(before), _runners(snapshot))

    def _forget_closed(self) -> None:
        if len(self._recorders) > 64:
            live = set(self.service.live_market_ids())
            for market_id in [m for m in self._recorders if m not in live][:-16]:
                del self._recorders[market_id]
                self._shown.pop(market_id, None)

    def images_in_step(self, sub: Subscription, resume_from_ms: int | None = None
                       ) -> tuple[Pending, list[MarketDelta]]:
        """Bring the recorders of ``sub``'s markets up to date, then image those same states for ``sub``.

        A resubscription (``resume_from_ms``, from its clock) also images the markets that closed since then
        (less :data:`RESUME_MARGIN_MS`), so the client's cache learns how they ended: each as it closed, with no
        recorder (nothing will change it).

        Synchronous on purpose: nothing can change the exchange between the
        collect and the images, so the next delta ``sub`` receives is computed
        against exactly what its image showed. The collected changes are for the
        other subscribers (:meth:`fan_out` with ``skip=sub``).
        """
        followed = [m for m in self.service.stream_market_ids(sub.market_ids) if sub.wants(m)]
        closed = [] if resume_from_ms is None else [
            m for m in self.service.closed_market_ids(resume_from_ms - RESUME_MARGIN_MS) if sub.wants(m)]
        pending = self.collect(followed)  # a closed market has no next delta to be in step with
        return pending, self.market_images(sorted({*followed, *closed}))

    def market_images(self, market_ids: Iterable[str]) -> list[MarketDelta]:
        """A full image (``img: true``) of each market as it is now (a closed one's as it closed, built once)."""
        images = []
        for market_id in market_ids:
            image = self._closed_images.get(market_id)
            if image is None:
                image = self._image(market_id)
            else:
                self._closed_images.move_to_end(market_id)
            if image is not None:
                images.append(image)
        return images

    def _image(self, market_id: str) -> MarketDelta | None:
        snapshot = self.service.stream_snapshot(market_id)
        info = self.service.recorder_info(market_id)
        if snapshot is None or info is None:
            return None
        line = MarketRecorder(info).update(snapshot, self.service.now())
        if line is None:
            return None
        image = MarketDelta(json.loads(line)["mc"][0], {}, _runners(snapshot))
        if snapshot.status is BetfairMarketStatus.CLOSED and snapshot.settled_ms is not None:  # final, to the letter
            self._closed_images[market_id] = image
            while len(self._closed_images) > self._closed_images_kept:
                self._closed_images.popitem(last=False)
        return image

    # --- connections and heartbeats -------------------------------------------------------

    def session_ended(self, session: Session) -> None:
        """A session ended (logout or expiry): its connections get nothing more, then are told and closed."""
        for conn in [c for c in self.connections if c.token == session.token]:
            self._tell_soon(conn, conn.end_session)

    @staticmethod
    def _tell_soon(conn: StreamConnection, tell: Callable[[], None]) -> None:
        """Stop ``conn``'s subscriptions now, and ``tell`` it (a status that closes it) once the loop has finished
        what it is doing: a request that found the session ended (or the journal failed) answers first, with its
        id, and the closed connection then takes nothing more."""
        conn.forget_session()
        asyncio.get_running_loop().call_soon(tell)

    def connect(self, transport: Transport) -> StreamConnection:
        """A new connection on ``transport``, greeted with ``{"op": "connection", "connectionId"}``."""
        conn = StreamConnection(self, transport, f"{next(self._ids):03d}-{self.service.now()}")
        self.connections.add(conn)
        self.check_by(conn.next_check_ms())
        conn.send({"op": "connection", "connectionId": conn.connection_id})
        return conn

    def connections_available(self, account: str | None) -> int:
        """How many more connections ``account`` may authenticate (all of them for no account yet)."""
        held = 0 if account is None else sum(1 for c in self.connections if c.account == account and not c.closed)
        return max(0, MAX_CONNECTIONS_PER_ACCOUNT - held)

    def disconnect(self, conn: StreamConnection) -> None:
        self.connections.discard(conn)
        conn.closed = True
        if not self.connections:  # nothing keeps the recorders up to date now (touched returns at once)
            self._recorders.clear()
            self._shown.clear()

    async def release(self, conn: StreamConnection) -> None:
        """The connection's reader has ended: forget it, then write what it still has queued and close it."""
        self.disconnect(conn)
        await conn.outbox.finish()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.query:  # (a session token goes in the authentication message, as on Betfair's stream)
            return unknown_query(request, "the stream takes none: send the authentication message")
        # a message past MAX_MESSAGE is refused in words, as on the TLS port; past WS_READ_LIMIT the socket's own
        # reader closes the connection with 1009 (message too big) before it is read
        ws = web.WebSocketResponse(max_msg_size=WS_READ_LIMIT, heartbeat=30)
        await ws.prepare(request)
        conn = self.connect(WebSocketTransport(ws, request.transport))
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT and len(msg.data.encode()) > MAX_MESSAGE:
                    conn.status(None, "INVALID_INPUT", f"a message is at most {MAX_MESSAGE} bytes", close=True)
                elif msg.type is WSMsgType.TEXT:
                    await conn.handle(msg.data)
                elif msg.type is WSMsgType.BINARY:
                    conn.status(None, "INVALID_INPUT", "send JSON text frames")
                if conn.closed:
                    break
        finally:
            await self.release(conn)
        return ws

    def check_by(self, at_ms: int | None) -> None:
        """Look at the connections (:meth:`beat`) at ``at_ms``, on the service's clock, unless a look comes sooner.

        Heartbeats and idle timeouts keep to the clock, as the flush does: a test's clock sends each exactly when
        it passes its time. A connection's next look only moves later as it is sent messages or sends requests,
        so only a new connection and a request (a subscription made or ended) call this, and each look plans the
        next at the earliest connection's."""
        if at_ms is None or self._closed or (self._check_at is not None and self._check_at <= at_ms):
            return
        if self._check_timer is not None:
            self._check_timer.cancel()
        self._check_at = at_ms
        self._check_timer = self.service.clock.call_at(at_ms, self._check)

    def _check(self) -> None:
        self._check_at = self._check_timer = None
        try:
            self.beat()
        finally:  # whatever happened, the next look is planned: quiet subscribers ask for none
            due = [at for at in (conn.next_check_ms() for conn in self.connections) if at is not None]
            if due:  # a look costs one pass over the connections: at most one each CHECK_SPACING_MS
                self.check_by(max(min(due), self.service.now() + CHECK_SPACING_MS))

    def beat(self) -> None:
        """Send ``ct: HEARTBEAT`` on every subscription idle for its ``heartbeatMs``, and close with ``TIMEOUT``
        every connection that has no subscription and has sent no request for the hub's ``idle_ms``; a connection
        whose session ended (or the journal failed) is only to be told so, and is passed over."""
        now = self.service.now()
        for conn in list(self.connections):
            if conn.ended or (conn.token is not None and not self.sessions.alive(conn.token)):
                continue  # expired: ended here, and the listener closes it
            if conn.market_sub is None and conn.order_sub is None:
                if conn.idle_due_ms <= now and not conn.busy:  # (busy: its request's answer plans the next look)
                    conn.status(None, "TIMEOUT", f"the connection is not subscribed and has been idle for "
                                f"{self.idle_ms} ms", close=True)
                continue
            if conn.market_sub and conn.market_sub.heartbeat_due_ms <= now:
                conn.send_market(conn.market_sub, [], ct="HEARTBEAT")
            if conn.order_sub and conn.order_sub.heartbeat_due_ms <= now:
                conn.send_orders(conn.order_sub, [], ct="HEARTBEAT")

    async def close(self) -> None:
        for timer in (self._flush_handle, self._check_timer):
            if timer is not None:
                timer.cancel()
        self._closed = True  # a request still being answered plans no look after this
        # each connection closed politely after what it has queued, all at once, an unread one aborted in 5 s
        await asyncio.gather(*(conn.outbox.finish() for conn in list(self.connections)))
        for task in list(self._tasks):
            task.cancel()
