"""The one error middleware: domain errors become JSON 4xx answers; a 500 is a bug, logged.

JSON-RPC routes never get here with an error (their endpoint answers every
failure in the JSON-RPC envelope, as Betfair does); this covers the REST
routes: the identity service, the Exchange Games snapshot and aiohttp's own
404/405/413.

A request aiohttp cannot parse (a header line over 8 KiB, a bad request line,
a bad chunk) is answered before any route or middleware sees it;
:class:`JsonErrorsHandler`, the connection protocol the server listens with
(:func:`exchange.server.connections.listen`), answers it in the same JSON shape:
``REQUEST_HEADER_FIELDS_TOO_LARGE`` (431) for a line over the limit,
``BAD_REQUEST`` (400) for the rest, and closes the connection. It answers the
same way what aiohttp refuses after parsing but before the app: an ``Expect``
header other than ``100-continue`` (``EXPECTATION_FAILED``, 417).
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from aiohttp import hdrs, web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from aiohttp.typedefs import Handler

from exchange.page.refusals import error_body
from exchange.server.errors import ApiError, LoginFailure

log = logging.getLogger(__name__)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as err:
        return web.json_response(error_body(str(err.code), err.details), status=err.http_status)
    except LoginFailure as err:
        # The identity service answers a refusal with 200 and status FAIL (what Betfair's clients expect).
        product = request.headers.get("X-Application", "")
        return web.json_response(err.answer({"token": "", "product": product, "status": "FAIL",
                                             "error": str(err.code)}))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = exc.reason.upper().replace(" ", "_")
        details = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else _said(request, exc)
        response = web.json_response(error_body(code, details), status=exc.status, headers=_kept_headers(exc))
        # its body left unread (too large, or timed out): closed after the answer, not kept for another request (a
        # 408's body stream is ended first, so aiohttp does not linger)
        if exc.status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE or exc.headers.get("Connection", "").lower() == "close":
            response.force_close()
        return response
    except ConnectionResetError:  # the client went while its request was read: nothing wrong here, nobody to answer
        log.info("connection lost during %s %s", request.method, request.path)
        return web.json_response(error_body("CONNECTION_LOST", "the connection was lost"), status=400)
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        body = error_body("UNEXPECTED_ERROR", "an unexpected internal error; it was logged")
        return web.json_response(body, status=500)


def _said(request: web.Request, exc: web.HTTPException) -> str:
    """What a refusal aiohttp's router makes says: for a 405 and a 404, what the client can do instead."""
    path = request.path if len(request.path) <= 200 else request.path[:200] + "..."
    if isinstance(exc, web.HTTPMethodNotAllowed):
        return f"{request.method} is not allowed on {path}: use {' or '.join(sorted(exc.allowed_methods))}"
    if isinstance(exc, web.HTTPNotFound):
        return f"nothing is at {path}: /openapi.json lists the routes"
    return exc.reason


def _kept_headers(exc: web.HTTPException) -> dict[str, str]:
    """The refusal's headers that tell the client what to do: ``Allow`` (405) and ``Retry-After`` (503)."""
    return {name: exc.headers[name] for name in ("Allow", "Retry-After") if name in exc.headers}


class JsonErrorsHandler(web.RequestHandler):
    """aiohttp's HTTP/1.1 connection protocol, answering what it cannot parse in the project's JSON error shape."""

    __slots__ = ()

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if request.writer.output_size > 0:
            raise ConnectionError("an answer was already begun; the error cannot be sent")
        if isinstance(exc, HttpProcessingError):  # the client's mistake: one line, not a traceback
            log.info("unreadable request from %s: %s", request.remote, _first_line(exc.message))
        else:
            self.log_exception("Error handling request from %s", request.remote, exc_info=exc)
        status, code, details = _described(status, exc)
        response = web.json_response(error_body(code, details), status=status)
        response.force_close()
        return response

    async def finish_response(self, request: web.BaseRequest, resp: web.StreamResponse,
                              start_time: float | None) -> tuple[web.StreamResponse, bool]:
        """Send ``resp``; aiohttp's refusal of an ``Expect`` other than ``100-continue``, raised before the app
        (and its middleware) saw the request, goes in JSON too."""
        if isinstance(resp, web.HTTPExpectationFailed):
            expect = request.headers.get(hdrs.EXPECT, "")[:100]
            details = f"Expect: {expect!r} cannot be met; the only expectation this server meets is 100-continue"
            resp = web.json_response(error_body("EXPECTATION_FAILED", details), status=resp.status)
        return await super().finish_response(request, resp, start_time)


def _described(status: int, exc: BaseException | None) -> tuple[int, str, str]:
    """The status, stable code and details of an error aiohttp's protocol met outside the app."""
    if isinstance(exc, LineTooLong):
        limit = exc.args[1] if len(exc.args) > 1 else "8190"
        return (HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "REQUEST_HEADER_FIELDS_TOO_LARGE",
                f"a request line or header field is at most {limit} bytes")
    if status >= 500 or not isinstance(exc, HttpProcessingError):
        return 500, "UNEXPECTED_ERROR", "an unexpected internal error; it was logged"
    phrase = HTTPStatus(status).phrase if status in {s.value for s in HTTPStatus} else "Bad Request"
    return status, phrase.upper().replace(" ", "_"), f"the request is not valid HTTP/1.1: {_first_line(exc.message)}"


def _first_line(text: str) -> str:
    """The first line of aiohttp's parser message, without the echo of the request that follows it."""
    line = text.strip().split("\n", 1)[0].rstrip(":")
    return line if len(line) <= 200 else line[:197] + "..."
