"""The one error middleware: domain errors become JSON 4xx answers; a 500 is a bug, logged.

JSON-RPC routes never get here with an error (their endpoint answers every
failure in the JSON-RPC envelope, as Betfair does); this covers the REST
routes: the identity service, the Exchange Games snapshot and aiohttp's own
404/405/413.
"""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from exchange.server.errors import ApiError, LoginFailure

log = logging.getLogger(__name__)


def error_body(code: str, details: str) -> dict[str, str]:
    return {"error": code, "details": details}


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
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
        code = exc.reason.upper().replace(" ", "_")
        details = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
        return web.json_response(error_body(code, details), status=exc.status, headers=_keep_allow(exc))
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        body = error_body("UNEXPECTED_ERROR", "an unexpected internal error; it was logged")
        return web.json_response(body, status=500)


def _keep_allow(exc: web.HTTPException) -> dict[str, str]:
    allow = exc.headers.get("Allow")
    return {"Allow": allow} if allow else {}
