"""JSON errors without a middleware: a wrapper for the REST handlers, and last routes for 404 and 405.

Domain errors become JSON 4xx answers with a stable code; a 500 is a bug,
logged (and still JSON). An aiohttp middleware would do this for every route,
but it costs every request two more coroutine layers (the middleware, and
aiohttp's ``_fix_request_current_app``, which aiohttp adds as soon as an app
has any middleware): a few microseconds on each placeOrders, whose JSON-RPC
handler answers every failure in the JSON-RPC envelope anyway. So the handling
sits where it is needed: :func:`json_errors` wraps each REST handler (the
identity service, Exchange Games, the stream, OpenAPI) and the JSON-RPC
handlers call :func:`http_error` and :func:`unexpected` themselves;
:func:`add_fallbacks` gives every resource a last route answering 405 (with
``Allow``) and the router a last resource answering 404, in the same JSON
shape, where aiohttp would answer plain text.
"""

from __future__ import annotations

import functools
import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from exchange.server.errors import ApiError, LoginFailure

log = logging.getLogger(__name__)


def error_body(code: str, details: str) -> dict[str, str]:
    return {"error": code, "details": details}


def http_error(exc: web.HTTPException) -> web.Response:
    """aiohttp's 4xx (413 body too large, 400 bad form, 404, 405) as ``{"error": "NOT_FOUND", ...}``."""
    code = exc.reason.upper().replace(" ", "_")
    details = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
    allow = exc.headers.get("Allow")
    return web.json_response(error_body(code, details), status=exc.status, headers={"Allow": allow} if allow else None)


def unexpected(request: web.Request) -> web.Response:
    """A bug: logged with its traceback (call it from an ``except`` block), answered 500 in JSON."""
    log.exception("unhandled error on %s %s", request.method, request.path)
    return web.json_response(error_body("UNEXPECTED_ERROR", "an unexpected internal error; it was logged"), status=500)


def json_errors(handler: Handler) -> Handler:
    """``handler`` with its errors answered in JSON: ApiError as 4xx, LoginFailure as Betfair's FAIL, HTTP 4xx."""

    @functools.wraps(handler)
    async def guarded(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except ApiError as err:
            return web.json_response(error_body(str(err.code), err.details), status=err.http_status)
        except LoginFailure as err:
            # The identity service answers a refusal with 200 and status FAIL (what Betfair's clients expect).
            product = request.headers.get("X-Application", "")
            return web.json_response({"token": "", "product": product, "status": "FAIL", "error": str(err.code)})
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return http_error(exc)
        except Exception:
            return unexpected(request)

    return guarded


def add_fallbacks(router: web.UrlDispatcher) -> None:
    """After all routes: 405 in JSON for a known path with another method, 404 in JSON for any other path."""
    for resource in list(router.resources()):
        if isinstance(resource, web.Resource):
            resource.add_route("*", _not_allowed(frozenset(route.method for route in resource)))
    router.add_route("*", "/{tail:.*}", _not_found)


def _not_allowed(allowed: frozenset[str]) -> Handler:
    async def method_not_allowed(request: web.Request) -> web.StreamResponse:
        return http_error(web.HTTPMethodNotAllowed(request.method, allowed))

    return method_not_allowed


async def _not_found(request: web.Request) -> web.StreamResponse:
    return http_error(web.HTTPNotFound())
