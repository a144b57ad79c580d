"""How the routes the page reads refuse a request: the Games API's channel list and snapshots.

The live server and the replay serve those routes to the same page, so they refuse alike, from here:
``{"error": CODE, "details": ...}``, ``404`` ``CHANNEL_NOT_FOUND`` for a channel not shown, ``400``
``INVALID_INPUT_DATA`` for a bad query (a parameter a route does not take is refused, not ignored). The live
server's navigation menu and OpenAPI document, which take no query either, refuse one with the same answer, and
every other REST refusal of the server (its error middleware's) has the same body, :func:`error_body`.
"""

from __future__ import annotations

from collections.abc import Iterable

from aiohttp import web


def error_body(code: str, details: str) -> dict[str, str]:
    """The body of every refusal a REST route of the server or the replay answers (the server's error middleware's
    too)."""
    return {"error": code, "details": details}


def refusal(code: str, details: str, status: int = 400) -> web.Response:
    return web.json_response(error_body(code, details), status=status)


def bad_input(details: str) -> web.Response:
    return refusal("INVALID_INPUT_DATA", details)


def unknown_channel(name: str, channels: Iterable[str]) -> web.Response:
    return refusal("CHANNEL_NOT_FOUND", f"no channel {name[:40]!r}; channels are {', '.join(channels)}", 404)


def unknown_query(request: web.Request, takes: str, allowed: Iterable[str] = ()) -> web.Response:
    """The refusal of the query parameters a route does not take (``takes`` says which it does)."""
    unknown = sorted(set(request.query) - set(allowed))
    return bad_input(f"unknown query parameters {unknown[:5]}; {takes}")
