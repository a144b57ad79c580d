"""One Exchange Stream connection, whatever its transport: its requests (authentication, subscriptions,
heartbeats) answered, and the messages it is sent, each queued on its outbox at once (sending never waits).

The protocol, and what the hub does with the connections, are described in :mod:`exchange.server.stream`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from exchange.server import jsoncodec
from exchange.server.errors import ApiError, ApingCode
from exchange.server.params import INT_MAX, INT_MIN
from exchange.server.stream_params import (
    MarketParams,
    OrderParams,
    StreamInputError,
    check_request,
    clock_token,
    parse_market_subscription,
    parse_order_subscription,
)
from exchange.server.stream_subscription import Subscription
from exchange.server.stream_transport import Outbox, Transport

if TYPE_CHECKING:
    from exchange.server.stream import StreamHub

JsonDict = dict[str, Any]
#: Stream connections one account may hold at once (Betfair's default); one more is refused at authentication.
MAX_CONNECTIONS_PER_ACCOUNT = 10
#: A resubscription is also shown the markets that closed this long before its clock's time, as well as after:
#: a close flushed just after the client's last message may have been missed, and one shown twice does no harm.
RESUME_MARGIN_MS = 60_000
#: What one market's image in a subscription costs against the account's read rate (``--read-records-per-second``),
#: in list records: building and sending it takes about as long as ten of a list's records.
IMAGE_RECORDS = 10
_Params = TypeVar("_Params", MarketParams, OrderParams)
_NO_SESSION = "authentication needs a session: the token /api/login answered, as the message's 'session' (a string)"


class StreamConnection:
    """One stream client, whatever its transport."""

    def __init__(self, hub: StreamHub, transport: Transport, connection_id: str) -> None:
        self.hub = hub
        self.transport = transport
        self.outbox = Outbox(transport, max_bytes=hub.max_queued_bytes)
        self.connection_id = connection_id
        self.account: str | None = None
        self.token: str | None = None
        self.market_sub: Subscription | None = None
        self.order_sub: Subscription | None = None
        self.closed = False
        #: Its session ended (or the server is stopping): it is only to be told and closed, nothing more is due.
        self.ended = False
        #: When the connection opened, or its last request was answered (the service's clock): the idle timeout
        #: counts from it.
        self.last_request_ms = hub.service.now()
        #: A request of it is being answered (a subscription may wait for the account's read rate): not idle.
        self.busy = False

    def next_check_ms(self) -> int | None:
        """When the hub must look at this connection next (:meth:`StreamHub.beat`): a subscription's heartbeat is
        due, or with none the idle timeout; None once it is closed or ended. (A session that has expired is found
        then.)"""
        if self.closed or self.ended:
            return None
        subs = [sub for sub in (self.market_sub, self.order_sub) if sub is not None]
        return min(sub.heartbeat_due_ms for sub in subs) if subs else self.idle_due_ms

    @property
    def idle_due_ms(self) -> int:
        """When the connection, if it has no subscription, is closed as idle (``TIMEOUT``)."""
        return self.last_request_ms + self.hub.idle_ms

    def send(self, message: JsonDict) -> None:
        """Queue ``message`` on the connection's outbox (it never waits for the client: see :mod:`.stream_transport`);
        a connection gone, or dropped as too slow, is closed here."""
        if self.closed or self.transport.closed:
            return
        if not self.outbox.put(json.dumps(message, separators=(",", ":"))):
            self.closed = True
            self.hub.disconnect(self)

    def status(self, request_id: int | None, error: str | None = None, message: str = "",
               *, close: bool = False) -> None:
        out: JsonDict = {"op": "status", "statusCode": "FAILURE" if error else "SUCCESS", "connectionClosed": close}
        if request_id is not None:
            out["id"] = request_id
        if error:
            out["errorCode"] = error
            out["errorMessage"] = message
        else:
            out["connectionsAvailable"] = self.hub.connections_available(self.account)
        self.send(out)
        if close:
            self.closed = True
            self.outbox.close_after()

    async def handle(self, text: str) -> None:
        self.busy = True
        try:
            await self._handle(text)
        finally:  # a subscription made, or ended, may need a check sooner than the one planned
            self.busy = False
            self.last_request_ms = self.hub.service.now()
            self.hub.check_by(self.next_check_ms())

    async def _handle(self, text: str) -> None:
        try:
            message = jsoncodec.loads_client(text)
        except jsoncodec.NotUnicode as exc:
            self.status(None, "INVALID_INPUT", f"the message holds text that is not Unicode: {exc}")
            return
        except jsoncodec.NotANumber as exc:
            self.status(None, "INVALID_INPUT", f"the message is not JSON: {exc}")
            return
        except jsoncodec.RepeatedKey as exc:
            self.status(None, "INVALID_INPUT", f"the message is ambiguous: {exc}")
            return
        except RecursionError:
            self.status(None, "INVALID_INPUT", "the message is nested too deeply to be read (a few hundred "
                        "levels at most)")
            return
        except ValueError:
            self.status(None, "INVALID_INPUT", "the message is not JSON")
            return
        if not isinstance(message, dict):
            self.status(None, "INVALID_INPUT", "a message must be a JSON object with an op")
            return
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, int | None) or (
            request_id is not None and not INT_MIN <= request_id <= INT_MAX
        ):
            self.status(None, "INVALID_INPUT", f"id must be an integer of 64 bits, from {INT_MIN} to {INT_MAX}")
            return
        op = message.get("op")
        if self.hub.service.failure is not None:  # the server is stopping: no request can be served
            self.unavailable(request_id)
        elif op == "authentication":
            if self._keys_known(request_id, op, message):
                self._authenticate(request_id, message)
        elif op == "heartbeat":
            if self._keys_known(request_id, op, message):
                self.status(request_id)
        elif op in ("marketSubscription", "orderSubscription"):
            if self.account is None:
                self.status(request_id, "NOT_AUTHORIZED", "authenticate first", close=True)
            elif self.token is None or not self.hub.sessions.alive(self.token):
                self.end_session(request_id)
            elif op == "marketSubscription":
                await self._subscribe_markets(request_id, message)
            else:
                await self._subscribe_orders(request_id, message)
        else:
            self.status(request_id, "INVALID_INPUT", f"unknown op {op!r:.40}; use authentication, "
                        "marketSubscription, orderSubscription or heartbeat")

    def _keys_known(self, request_id: int | None, op: str, message: Mapping[str, Any]) -> bool:
        """Whether the request holds only the keys of its op; if not, the client is told which one is not."""
        try:
            check_request(op, message)
        except StreamInputError as err:
            self.status(request_id, "INVALID_INPUT", str(err))
            return False
        return True

    def unavailable(self, request_id: int | None = None) -> None:
        """Tell the client the journal has failed and close: the server is stopping, nothing more is served."""
        self.forget_session()
        self.status(request_id, "SERVICE_UNAVAILABLE",
                    f"the exchange is stopping: {self.hub.service.failure or 'the journal failed'}", close=True)

    def _authenticate(self, request_id: int | None, message: Mapping[str, Any]) -> None:
        app_key, token = message.get("appKey"), message.get("session")
        try:
            session = self.hub.sessions.check(token if isinstance(token, str) else None,
                                              app_key if isinstance(app_key, str) else None)
        except ApiError as err:  # the sessions' NO_SESSION names the HTTP header: here the token is a field
            details = _NO_SESSION if err.code is ApingCode.NO_SESSION else err.details
            self.status(request_id, str(err.code), details, close=True)
            return
        if self.account is not None and self.account != session.account:
            self.status(request_id, "INVALID_INPUT", "this connection is authenticated for another account, "
                        "whose subscriptions it carries; open a new connection for this one")
            return
        if self.account != session.account and self.hub.connections_available(session.account) <= 0:
            self.status(request_id, "MAX_CONNECTION_LIMIT_EXCEEDED",
                        f"the account has {MAX_CONNECTIONS_PER_ACCOUNT} stream connections open, the most it "
                              "may; close one first", close=True)
            return
        self.account = session.account
        self.token = session.token
        self.status(request_id)

    def forget_session(self) -> None:
        """Stop everything for this connection at once (its session ended); :meth:`end_session` tells and closes."""
        self.account = None
        self.market_sub = self.order_sub = None
        self.ended = True

    def end_session(self, request_id: int | None = None) -> None:
        self.forget_session()
        self.status(request_id, "INVALID_SESSION_INFORMATION",
                    "the session has ended (logout or expiry); log in again", close=True)

    async def _subscribe_markets(self, request_id: int | None, message: Mapping[str, Any]) -> None:
        try:
            params = self._checked(parse_market_subscription(message, default_heartbeat_ms=self.hub.heartbeat_ms))
        except StreamInputError as err:
            self.status(request_id, "INVALID_INPUT", str(err))
            return
        sub = Subscription(id=request_id or 0, heartbeat_ms=params.heartbeat_ms, market_ids=params.market_ids,
                           params=params,
                           fields=params.fields, ladder_levels=params.ladder_levels)
        if not await self._paced():
            return
        async with self.hub.sending:
            pending, images = self.hub.images_in_step(sub, params.resume_from_ms)
            self._charge(len(images))
            if not await self.hub.service.held():  # the journal failed meanwhile: say so, at once
                self.unavailable(request_id)
                return
            self.market_sub = sub
            self.status(request_id)
            self.send_market(sub, [sub.filter_change(image) for image in images], ct="SUB_IMAGE")
            self.hub.fan_out(pending, skip=sub)

    async def _subscribe_orders(self, request_id: int | None, message: Mapping[str, Any]) -> None:
        assert self.account is not None
        try:
            order_params = self._checked(parse_order_subscription(message, default_heartbeat_ms=self.hub.heartbeat_ms))
        except StreamInputError as err:
            self.status(request_id, "INVALID_INPUT", str(err))
            return
        params = order_params
        sub = Subscription(id=request_id or 0, heartbeat_ms=params.heartbeat_ms,
                           overall_position=params.include_overall_position, strategy_refs=params.strategy_refs,
                           partition_by_strategy=params.partition_by_strategy)
        if not await self._paced():
            return
        async with self.hub.sending:  # as for markets: what is pending goes to the others, the image shows it
            pending = self.hub.collect()
            resuming = params.resume_from_ms is not None  # the client's cache may hold orders that ended since
            images = self.hub.service.order_image(self.account, ended=resuming)
            if params.resume_from_ms is not None:  # and the final records on the markets that closed since
                images += self.hub.service.closed_order_images(self.account, params.resume_from_ms - RESUME_MARGIN_MS)
            self._charge(len(images))
            if not await self.hub.service.held():  # the journal failed meanwhile: say so, at once
                self.unavailable(request_id)
                return
            self.order_sub = sub
            self.status(request_id)
            self.send_orders(sub, images, ct="SUB_IMAGE")
            self.hub.fan_out(pending, skip=sub)

    async def _paced(self) -> bool:
        """Wait while the account is over its read rate: a subscription's image is a read, and a resubscription's
        (every market closed since its clock) a large one; a client resubscribing in a loop held the loop that
        every client shares. Whether to go on: not if the connection was closed or its session ended meanwhile."""
        if self.hub.gate is not None and self.account is not None:
            await self.hub.gate.paced(self.account)
        return not (self.closed or self.ended or self.account is None)

    def _charge(self, markets: int) -> None:
        """Count an image of ``markets`` markets against the account's read rate, each as :data:`IMAGE_RECORDS`."""
        if self.hub.gate is not None and self.account is not None:
            self.hub.gate.spend_rows(self.account, markets * IMAGE_RECORDS)

    def _checked(self, params: _Params) -> _Params:
        """``params``, as a fresh subscription if their clock (a resubscription's) is ahead of the server's: it is
        from another server, so what closed since it cannot be told (and refusing it would refuse for good a client
        that resends its clock after every reconnect)."""
        if params.resume_from_ms is not None and params.resume_from_ms > self.hub.service.now():
            return replace(params, resume_from_ms=None)
        return params

    def send_market(self, sub: Subscription, changes: list[JsonDict], *, ct: str | None = None) -> None:
        """A market change message (``mcm``) of ``changes``; ``ct`` its change type (``SUB_IMAGE``, ...)."""
        self._send_change(sub, "mcm", ct, {"mc": changes} if changes or ct == "SUB_IMAGE" else {})

    def send_orders(self, sub: Subscription, changes: list[JsonDict], *, ct: str | None = None,
                    filtered: bool = False) -> None:
        """An order change message (``ocm``) of ``changes`` as the subscription's ``orderFilter`` asks (already,
        if ``filtered``)."""
        if not filtered:
            changes = sub.filter_orders(changes)
        self._send_change(sub, "ocm", ct, {"oc": changes} if changes or ct == "SUB_IMAGE" else {})

    def _send_change(self, sub: Subscription, op: str, ct: str | None, body: JsonDict) -> None:
        now = self.hub.service.now()
        clk = clock_token(next(sub.clk), now)
        out: JsonDict = {"op": op, "id": sub.id, "clk": clk, "pt": now}
        if ct == "SUB_IMAGE":
            out.update({"initialClk": clk, "ct": ct, "heartbeatMs": sub.heartbeat_ms,
                        "conflateMs": self.hub.conflate_ms})
        elif ct:
            out["ct"] = ct
        out.update(body)
        sub.last_sent_ms = now
        self.send(out)
