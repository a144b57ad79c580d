"""Betfair's identity service: ``/api/login``, ``/api/certlogin``, ``/api/keepAlive``, ``/api/logout``.

Login takes form fields ``username`` and ``password`` with the
``X-Application`` header and answers ``{"token", "product", "status", "error"}``
(``status: FAIL`` and an error code when refused, still HTTP 200, as Betfair
does and as its clients expect). keepAlive and logout take the
``X-Authentication`` header, and ``X-Application`` only if the client gives it
(Betfair's documents it optional there). Login attempts are limited per account and
per client address (:mod:`exchange.server.ratelimit`); one past either limit
is answered ``TEMPORARY_BAN_TOO_MANY_REQUESTS`` before any password is checked.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from exchange.server import keys
from exchange.server.auth import Session, check_app_key
from exchange.server.connections import read_form
from exchange.server.errors import ApiError, LoginCode, LoginFailure
from exchange.server.store import check_password

MAX_FIELD = 256
#: What aiohttp raises for a form it cannot read: a bad part header (HttpProcessingError), an unknown charset
#: (LookupError) or Content-Transfer-Encoding (RuntimeError), a part without a name or bad bytes (ValueError).
FORM_ERRORS = (ValueError, LookupError, RuntimeError, HttpProcessingError)


def _identity_answer(token: str, product: str) -> web.Response:
    return web.json_response({"token": token, "product": product, "status": "SUCCESS", "error": ""})


def _app_key(request: web.Request) -> str:
    try:
        return check_app_key(request.headers.get("X-Application"))
    except ApiError as err:
        raise LoginFailure(LoginCode.INVALID_APP_KEY, err.details) from None


async def login(request: web.Request) -> web.Response:
    session = await _open_session(request)
    return _identity_answer(session.token, session.app_key)


async def cert_login(request: web.Request) -> web.Response:
    """Betfair's non-interactive login: ``{"sessionToken", "loginStatus"}``, a refusal as ``loginStatus`` alone.

    Betfair checks a client certificate on its own host before this; the simulator has no certificates to
    check (its HTTP is plain), so a client's certificate files are not looked at and the login is the
    account's username and password, with the same limits as the interactive one.
    """
    try:
        session = await _open_session(request)
    except LoginFailure as err:
        return web.json_response(err.answer({"loginStatus": str(err.code)}))
    return web.json_response({"sessionToken": session.token, "loginStatus": "SUCCESS"})


async def _open_session(request: web.Request) -> Session:
    """Check the login form (``username``, ``password``, header ``X-Application``) and open a session."""
    app_key = _app_key(request)
    try:
        form = await read_form(request)
    except FORM_ERRORS as err:  # a malformed form or multipart body
        raise LoginFailure(LoginCode.INPUT_VALIDATION_ERROR, f"the login form could not be read: {err}") from None
    except (web.HTTPBadRequest, web.HTTPUnsupportedMediaType) as err:  # an encoding that does not decode or is not
        # taken
        raise LoginFailure(LoginCode.INPUT_VALIDATION_ERROR, f"the login form could not be read: {err.text}") from None
    repeated = [name for name in ("username", "password") if len(form.getall(name, ())) > 1]
    if repeated:
        raise LoginFailure(LoginCode.INPUT_VALIDATION_ERROR, f"form field {repeated[0]} is given more than once")
    username, password = form.get("username"), form.get("password")
    if not isinstance(username, str) or not isinstance(password, str) or not username or not password:
        json_sent = " (the login takes a form, application/x-www-form-urlencoded, as Betfair's: not JSON)"
        raise LoginFailure(LoginCode.INPUT_VALIDATION_ERROR, "form fields username and password are required"
                           + (json_sent if request.content_type == "application/json" else ""))
    if len(username) > MAX_FIELD or len(password) > MAX_FIELD:
        raise LoginFailure(LoginCode.INPUT_VALIDATION_ERROR, f"username and password are at most {MAX_FIELD} long")
    wait_ms = request.app[keys.LOGIN_LIMITS].attempt(username.lower(), request.remote or "")  # names: any case
    if wait_ms:
        raise LoginFailure(LoginCode.TEMPORARY_BAN_TOO_MANY_REQUESTS,
                           f"too many login attempts for this account or from this address; wait {wait_ms} ms")
    credentials = request.app[keys.STORE].credentials(username)
    account = await asyncio.to_thread(check_password, credentials, password)
    if account is None:
        raise LoginFailure(LoginCode.INVALID_USERNAME_OR_PASSWORD)
    request.app[keys.SERVICE].ensure_account(account)
    return request.app[keys.SESSIONS].open(account.name, app_key)


def _optional_app_key(request: web.Request) -> str | None:
    """keepAlive's and logout's ``X-Application``: optional, as Betfair's (the session knows its key), checked when
    given."""
    return None if request.headers.get("X-Application") is None else _app_key(request)


async def keep_alive(request: web.Request) -> web.Response:
    app_key = _optional_app_key(request)
    try:
        session = request.app[keys.SESSIONS].keep_alive(request.headers.get("X-Authentication"), app_key)
    except ApiError as err:
        raise LoginFailure(LoginCode.NO_SESSION, err.details) from None
    return _identity_answer(session.token, session.app_key)


async def logout(request: web.Request) -> web.Response:
    app_key = _optional_app_key(request)
    try:
        session = request.app[keys.SESSIONS].close(request.headers.get("X-Authentication"), app_key)
    except ApiError as err:
        raise LoginFailure(LoginCode.NO_SESSION, err.details) from None
    return _identity_answer(session.token, session.app_key)
