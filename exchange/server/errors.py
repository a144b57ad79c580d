"""Errors the HTTP edge turns into Betfair-shaped answers.

There are three families, as in Betfair's own API:

* :class:`ApiError` is an ``APINGException`` (or ``AccountAPINGException``):
  the whole call is refused (bad session, bad input, too much data). JSON-RPC
  carries it as error ``-32099`` with ``ANGX-00NN`` as the message (the Account
  API's own numbers, ``AANGX-00NN``, for an ``AccountAPINGException``).
* :class:`LoginFailure` is the identity service's ``{"status": "FAIL", "error": ...}``.
* Order-level failures are not exceptions at all: they are reports with
  ``status: FAILURE`` and an ``errorCode`` (see :mod:`exchange.server.betting`).

>>> err = ApiError(ApingCode.INVALID_INPUT_DATA, "size must be a number")
>>> err.angx
'ANGX-0002'
>>> err.http_status
400
"""

from __future__ import annotations

from enum import StrEnum


class ApingCode(StrEnum):
    """APINGExceptionCode, in Betfair's ANGX order."""

    TOO_MUCH_DATA = "TOO_MUCH_DATA"
    INVALID_INPUT_DATA = "INVALID_INPUT_DATA"
    INVALID_SESSION_INFORMATION = "INVALID_SESSION_INFORMATION"
    NO_APP_KEY = "NO_APP_KEY"
    NO_SESSION = "NO_SESSION"
    UNEXPECTED_ERROR = "UNEXPECTED_ERROR"
    INVALID_APP_KEY = "INVALID_APP_KEY"
    TOO_MANY_REQUESTS = "TOO_MANY_REQUESTS"
    SERVICE_BUSY = "SERVICE_BUSY"
    TIMEOUT_ERROR = "TIMEOUT_ERROR"
    REQUEST_SIZE_EXCEEDS_LIMIT = "REQUEST_SIZE_EXCEEDS_LIMIT"
    ACCESS_DENIED = "ACCESS_DENIED"
    #: Not one of Betfair's codes: the journal cannot make records durable, so the server is stopping.
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"


_ANGX = {code: f"ANGX-{i:04d}" for i, code in enumerate(ApingCode, start=1)}
#: The Account API numbers its codes apart (AccountAPINGExceptionCode, ``AANGX-00NN``); a code it does not
#: define keeps its Sports API number.
_AANGX = {ApingCode.INVALID_INPUT_DATA: "AANGX-0001", ApingCode.INVALID_SESSION_INFORMATION: "AANGX-0002",
          ApingCode.UNEXPECTED_ERROR: "AANGX-0003", ApingCode.INVALID_APP_KEY: "AANGX-0004",
          ApingCode.SERVICE_BUSY: "AANGX-0005", ApingCode.TIMEOUT_ERROR: "AANGX-0006",
          ApingCode.NO_SESSION: "AANGX-0010", ApingCode.NO_APP_KEY: "AANGX-0011",
          ApingCode.TOO_MANY_REQUESTS: "AANGX-0014"}
#: The Heartbeat API's APINGException numbers its six codes apart (``HBT-00NN``); another keeps its ANGX number.
_HBT = {ApingCode.INVALID_INPUT_DATA: "HBT-0001", ApingCode.INVALID_SESSION_INFORMATION: "HBT-0002",
        ApingCode.NO_APP_KEY: "HBT-0003", ApingCode.NO_SESSION: "HBT-0004", ApingCode.INVALID_APP_KEY: "HBT-0005",
        ApingCode.UNEXPECTED_ERROR: "HBT-0006"}

_HTTP_STATUS = {
    ApingCode.INVALID_SESSION_INFORMATION: 401,
    ApingCode.NO_SESSION: 401,
    ApingCode.NO_APP_KEY: 401,
    ApingCode.INVALID_APP_KEY: 401,
    ApingCode.ACCESS_DENIED: 403,
    ApingCode.TOO_MANY_REQUESTS: 429,
    ApingCode.REQUEST_SIZE_EXCEEDS_LIMIT: 413,
    ApingCode.SERVICE_BUSY: 503,
    ApingCode.SERVICE_UNAVAILABLE: 503,
    ApingCode.TIMEOUT_ERROR: 504,
    ApingCode.UNEXPECTED_ERROR: 500,
}


class ApiError(Exception):
    """An APINGException: the call as a whole is refused, with a stable code and a clear reason."""

    def __init__(self, code: ApingCode, details: str) -> None:
        super().__init__(f"{code}: {details}")
        self.code = code
        self.details = details

    @property
    def angx(self) -> str:
        return _ANGX[self.code]

    @property
    def aangx(self) -> str:
        """The message the Account API sends with this error (an ``AccountAPINGException``).

        >>> ApiError(ApingCode.NO_SESSION, "").aangx, ApiError(ApingCode.TOO_MUCH_DATA, "").aangx
        ('AANGX-0010', 'ANGX-0001')
        """
        return _AANGX.get(self.code, self.angx)

    @property
    def hbt(self) -> str:
        """The message the Heartbeat API sends with this error.

        >>> ApiError(ApingCode.NO_SESSION, "").hbt, ApiError(ApingCode.TOO_MANY_REQUESTS, "").hbt
        ('HBT-0004', 'ANGX-0008')
        """
        return _HBT.get(self.code, self.angx)

    @property
    def http_status(self) -> int:
        """The status a plain REST route answers with (JSON-RPC answers 200 with an error body, as Betfair does)."""
        return _HTTP_STATUS.get(self.code, 400)


def invalid_input(details: str) -> ApiError:
    return ApiError(ApingCode.INVALID_INPUT_DATA, details)


class LoginCode(StrEnum):
    """The identity service's error values (interactive login, keepAlive, logout)."""

    INVALID_USERNAME_OR_PASSWORD = "INVALID_USERNAME_OR_PASSWORD"
    INPUT_VALIDATION_ERROR = "INPUT_VALIDATION_ERROR"
    NO_SESSION = "NO_SESSION"
    INVALID_APP_KEY = "INVALID_APP_KEY"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    TEMPORARY_BAN_TOO_MANY_REQUESTS = "TEMPORARY_BAN_TOO_MANY_REQUESTS"


class LoginFailure(Exception):
    """Login, keepAlive or logout refused: answered as ``{"status": "FAIL", "error": code}``, and ``errorDetails``
    saying what was wrong where there is more to say than the code (:meth:`answer`)."""

    def __init__(self, code: LoginCode, details: str = "") -> None:
        super().__init__(f"{code}: {details}" if details else str(code))
        self.code = code
        self.details = details

    def answer(self, fields: dict[str, str]) -> dict[str, str]:
        """The refusal's answer: the login's own ``fields`` (its code among them), and ``errorDetails`` if there
        is more to say than the code (Betfair's clients read the fields they know and show the whole answer)."""
        return {**fields, "errorDetails": self.details} if self.details else fields
