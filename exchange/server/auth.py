"""Sessions: the tokens Betfair's interactive login hands out.

A token is a random string bound to an account and to the application key it
logged in with. It lasts ``ttl_ms`` from login or from the last ``keepAlive``
(Betfair: hours), after which every call with it is refused with
``INVALID_SESSION_INFORMATION``. Sessions live in memory: a restarted server
asks clients to log in again, as a Betfair session can end at any time.

A session ends at logout (:meth:`Sessions.close`) or when it is found expired
(:meth:`Sessions.check`, or :meth:`Sessions.purge`, which the server runs on a
timer so that expired sessions do not pile up); either way every listener
given to :meth:`Sessions.on_end` is told, so the stream can close the
connections that authenticated with it.

>>> from exchange.clock import VirtualClock
>>> clock = VirtualClock(start_ms=0)
>>> sessions = Sessions(clock, ttl_ms=1_000)
>>> token = sessions.open("alice", "app").token
>>> sessions.check(token, "app").account
'alice'
>>> clock.advance(1_001)
>>> sessions.check(token, "app")
Traceback (most recent call last):
...
exchange.server.errors.ApiError: INVALID_SESSION_INFORMATION: the session has expired; log in again
>>> ended = []
>>> sessions.on_end(ended.append)
>>> _ = sessions.open("bob", "app"); clock.advance(1_000)
>>> sessions.purge(), len(sessions), [s.account for s in ended]
(1, 0, ['bob'])
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace

from exchange.clock import Clock
from exchange.server.errors import ApiError, ApingCode

DEFAULT_TTL_MS = 12 * 60 * 60 * 1000
MAX_APP_KEY = 64


@dataclass(frozen=True, slots=True)
class Session:
    token: str
    account: str
    app_key: str
    expires_ms: int


def check_app_key(app_key: str | None) -> str:
    """The X-Application header (or the stream's ``appKey``): required, 1 to 64 visible ASCII characters.

    Betfair's keys are ASCII letters and digits; any visible ASCII (letters, digits, punctuation) is taken,
    and a space, a control character or anything beyond ASCII is refused.

    >>> check_app_key("my-bot.1")
    'my-bot.1'
    >>> try:
    ...     check_app_key("café")
    ... except ApiError as err:
    ...     print(err.code, err.details[:57])
    INVALID_APP_KEY the application key must be 1-64 visible ASCII characters
    """
    if not app_key:
        raise ApiError(ApingCode.NO_APP_KEY, "an application key header ('X-Application') is required")
    if len(app_key) > MAX_APP_KEY or not all("!" <= c <= "~" for c in app_key):
        shown = app_key if len(app_key) <= 40 else app_key[:37] + "..."
        raise ApiError(ApingCode.INVALID_APP_KEY,
                       f"the application key must be 1-{MAX_APP_KEY} visible ASCII characters "
                       f"(letters, digits, punctuation; no spaces), not {shown!r}")
    return app_key


class Sessions:
    """Live sessions by token. All methods are O(1) but :meth:`purge`, which is O(sessions)."""

    def __init__(self, clock: Clock, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self._clock = clock
        self.ttl_ms = ttl_ms
        self._by_token: dict[str, Session] = {}
        self._listeners: list[Callable[[Session], None]] = []

    def on_end(self, listener: Callable[[Session], None]) -> None:
        """Call ``listener(session)`` whenever a session ends: logout, or found expired."""
        self._listeners.append(listener)

    def _end(self, session: Session) -> None:
        del self._by_token[session.token]
        for listener in self._listeners:
            listener(session)

    def open(self, account: str, app_key: str) -> Session:
        session = Session(secrets.token_urlsafe(24), account, app_key, self._clock.now() + self.ttl_ms)
        self._by_token[session.token] = session
        return session

    def check(self, token: str | None, app_key: str | None) -> Session:
        """The live session for ``token`` used with ``app_key``; raises the API-NG error otherwise."""
        app_key = check_app_key(app_key)
        session = self._live(token)
        if session.app_key != app_key:
            raise ApiError(ApingCode.INVALID_APP_KEY, "the application key is not the one this session logged in with")
        return session

    def _live(self, token: str | None) -> Session:
        """The live session for ``token``, whatever the key; raises the API-NG error otherwise."""
        if not token:
            raise ApiError(ApingCode.NO_SESSION, "a session token header ('X-Authentication') is required")
        session = self._by_token.get(token)
        if session is None:
            raise ApiError(ApingCode.INVALID_SESSION_INFORMATION, "the session token is not valid; log in again")
        if self._clock.now() >= session.expires_ms:
            self._end(session)
            raise ApiError(ApingCode.INVALID_SESSION_INFORMATION, "the session has expired; log in again")
        return session

    def _identified(self, token: str | None, app_key: str | None) -> Session:
        """The live session for ``token`` as keepAlive and logout take it: ``app_key`` None (the optional
        ``X-Application`` header left out) is the session's own key; a key given must be it."""
        return self._live(token) if app_key is None else self.check(token, app_key)

    def keep_alive(self, token: str | None, app_key: str | None) -> Session:
        """Renew the session for ``token`` (``app_key`` None: not given, as keepAlive allows)."""
        session = replace(self._identified(token, app_key), expires_ms=self._clock.now() + self.ttl_ms)
        self._by_token[session.token] = session
        return session

    def alive(self, token: str) -> bool:
        """Whether ``token`` is a session that has neither ended nor expired (an expired one ends here)."""
        session = self._by_token.get(token)
        if session is None:
            return False
        if self._clock.now() >= session.expires_ms:
            self._end(session)
            return False
        return True

    def close(self, token: str | None, app_key: str | None) -> Session:
        """Logout: end the session (its stream connections are closed by the listeners); ``app_key`` None: not
        given, as logout allows."""
        session = self._identified(token, app_key)
        self._end(session)
        return session

    def purge(self) -> int:
        """End every expired session; returns how many."""
        now = self._clock.now()
        dead = [s for s in self._by_token.values() if now >= s.expires_ms]
        for session in dead:
            self._end(session)
        return len(dead)

    def __len__(self) -> int:
        return len(self._by_token)
