"""Betfair's Heartbeat API: cancel a customer's unmatched bets when their client stops calling in.

``HeartbeatAPING/v1.0/heartbeat`` at ``/exchange/heartbeat/json-rpc/v1`` takes ``preferredTimeoutSeconds``
(required; 0 unregisters; negative is ``INVALID_INPUT_DATA``; below 10 is taken as 10 and above 300 as 300, the
limits Betfair states) and answers a ``HeartbeatReport``: ``actualTimeoutSeconds`` (the timeout now in force,
0 once unregistered) and ``actionPerformed``, what the heartbeat did since the last call (``NONE`` on the first).

A heartbeat belongs to the account, not the session (Betfair's acts "for the given customer"): each call moves
the deadline to ``timeout`` seconds from now on the server's clock. If no call comes by then, the account's
unmatched bets are cancelled, every market, as a ``cancelOrders`` with no instructions would (each one journaled
and sent on the order stream), and the heartbeat is unregistered; the next call reports
``ALL_BETS_CANCELLED``, or ``SOME_BETS_NOT_CANCELLED`` if the exchange refused to cancel one (Betfair also has
``CANCELLATION_REQUEST_SUBMITTED``, ``CANCELLATION_REQUEST_ERROR`` and ``CANCELLATION_STATUS_UNKNOWN`` for
cancellations still under way or lost: here the cancels are done at the deadline, so none of those happens), then
``NONE`` again. As Betfair's, a heartbeat does not outlive the service: a restart forgets every registration
(the bets stay), and a client resumes by calling again.

>>> from exchange.clock import VirtualClock
>>> clock, cancelled = VirtualClock(start_ms=0), []
>>> beats = Heartbeats(clock, lambda account: cancelled.append(account) or True)
>>> beats.beat("alice", 5), beats.beat("alice", 20)
((<ActionPerformed.NONE: 'NONE'>, 10), (<ActionPerformed.NONE: 'NONE'>, 20))
>>> clock.run(until_ms=19_999); cancelled
[]
>>> clock.run(until_ms=20_000); cancelled
['alice']
>>> beats.beat("alice", 0), beats.beat("alice", 0)
((<ActionPerformed.ALL_BETS_CANCELLED: 'ALL_BETS_CANCELLED'>, 0), (<ActionPerformed.NONE: 'NONE'>, 0))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from exchange.clock import Clock, Timer
from exchange.core.commands import CancelOrder
from exchange.core.events import OrderRejected
from exchange.server.auth import Session
from exchange.server.errors import invalid_input
from exchange.server.params import get_int
from exchange.server.service import ExchangeService

MIN_TIMEOUT_S = 10
MAX_TIMEOUT_S = 300
I32_MAX = 2**31 - 1  # the parameter is Betfair's i32


class ActionPerformed(StrEnum):
    """What a heartbeat did since the account's last call (Betfair's ``ActionPerformed``)."""

    NONE = "NONE"
    CANCELLATION_REQUEST_SUBMITTED = "CANCELLATION_REQUEST_SUBMITTED"
    ALL_BETS_CANCELLED = "ALL_BETS_CANCELLED"
    SOME_BETS_NOT_CANCELLED = "SOME_BETS_NOT_CANCELLED"
    CANCELLATION_REQUEST_ERROR = "CANCELLATION_REQUEST_ERROR"
    CANCELLATION_STATUS_UNKNOWN = "CANCELLATION_STATUS_UNKNOWN"


class Heartbeats:
    """Every account's heartbeat: its deadline's timer on ``clock`` and what the last lapse did.

    ``cancel_all(account)`` cancels the account's unmatched bets and says whether every one was cancelled.
    """

    def __init__(self, clock: Clock, cancel_all: Callable[[str], bool]) -> None:
        self._clock = clock
        self._cancel_all = cancel_all
        self._timers: dict[str, Timer] = {}
        self._actions: dict[str, ActionPerformed] = {}

    def beat(self, account: str, preferred_s: int) -> tuple[ActionPerformed, int]:
        """Register (or with 0 unregister) ``account``'s heartbeat: ``(action performed since the last call,
        actual timeout in seconds)``."""
        if not 0 <= preferred_s <= I32_MAX:
            raise invalid_input(f"preferredTimeoutSeconds must be 0 (unregister) to {I32_MAX} (a 32-bit integer; "
                                f"{MIN_TIMEOUT_S} to {MAX_TIMEOUT_S} is used), not {preferred_s}")
        action = self._actions.pop(account, ActionPerformed.NONE)
        timer = self._timers.pop(account, None)
        if timer is not None:
            timer.cancel()
        if preferred_s == 0:
            return action, 0
        timeout_s = min(max(preferred_s, MIN_TIMEOUT_S), MAX_TIMEOUT_S)
        self._timers[account] = self._clock.call_later(timeout_s * 1000, lambda: self._lapse(account))
        return action, timeout_s

    def _lapse(self, account: str) -> None:
        """The deadline passed with no call: cancel the account's unmatched bets and unregister."""
        self._timers.pop(account, None)
        every = self._cancel_all(account)
        self._actions[account] = (ActionPerformed.ALL_BETS_CANCELLED if every
                                  else ActionPerformed.SOME_BETS_NOT_CANCELLED)

    def stop(self) -> None:
        """Drop every registration (the server stops): no lapse runs after it."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()


def cancel_unmatched(service: ExchangeService, account: str) -> bool:
    """Cancel every unmatched bet of ``account`` on every market; whether the exchange cancelled them all."""
    every = True
    for view in service.orders(account):
        if view.size_remaining:
            events = service.execute(CancelOrder(ts=service.now(), account_id=account, bet_id=view.bet_id))
            every = every and not any(isinstance(e, OrderRejected) for e in events)
    return every


async def heartbeat(beats: Heartbeats, session: Session, params: Mapping[str, Any]) -> dict[str, Any]:
    """``HeartbeatAPING/v1.0/heartbeat``: a ``HeartbeatReport``."""
    action, timeout_s = beats.beat(session.account, get_int(params, "preferredTimeoutSeconds"))
    return {"actionPerformed": str(action), "actualTimeoutSeconds": timeout_s}
