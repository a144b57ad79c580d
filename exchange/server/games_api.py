"""The Exchange Games API, read side: ``/games/v1/channels``, a channel's snapshot and its recent results.

The channel list and snapshots are built by :mod:`exchange.server.game_view`
(the same that the spectators' stream sends); the results by
:mod:`exchange.server.results`. Refusals are :mod:`exchange.page.refusals`'s, the same as the replay's routes
give: ``404`` ``CHANNEL_NOT_FOUND`` for a channel the server does not run (a path
the server has no route for is the middleware's ``NOT_FOUND``), ``400`` ``INVALID_INPUT_DATA`` for a bad query: a
parameter a route does not take is refused, not ignored (the channel list and a snapshot take none, the results
``limit``).
"""

from __future__ import annotations

from aiohttp import web

from exchange.page.refusals import bad_input, unknown_channel, unknown_query
from exchange.server import keys
from exchange.server.game_view import channel_list, channel_snapshot
from exchange.server.results import result_json

#: How many results the results route gives when no ``limit`` is asked for (at most the number kept).
DEFAULT_RESULTS = 10


async def list_channels(request: web.Request) -> web.Response:
    if request.query:
        return unknown_query(request, "the channel list takes none")
    return web.json_response({"channels": channel_list(request.app[keys.SERVICE])})


async def snapshot(request: web.Request) -> web.Response:
    service = request.app[keys.SERVICE]
    name = request.match_info["channel"]
    out = channel_snapshot(service, name)
    if out is None:
        return unknown_channel(name, service.channels)
    return unknown_query(request, "a snapshot takes none") if request.query else web.json_response(out)


async def results(request: web.Request) -> web.Response:
    """``GET /games/v1/channels/{channel}/results?limit=N``: the channel's last N finished games, newest first."""
    service = request.app[keys.SERVICE]
    name = request.match_info["channel"]
    if name not in service.channels:
        return unknown_channel(name, service.channels)
    kept = service.results.keep
    if set(request.query) - {"limit"}:
        return unknown_query(request, f"the only one is limit (1 to {kept})", allowed={"limit"})
    if len(request.query.getall("limit", ())) > 1:
        return bad_input(f"limit is given {len(request.query.getall('limit'))} times; give it once (1 to {kept})")
    raw = request.query.get("limit", str(min(DEFAULT_RESULTS, kept)))
    limit = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 10 else None
    if limit is None or not 1 <= limit <= kept:
        return bad_input(f"limit must be a whole number from 1 to {kept} (the results kept per channel), "
                         f"not {raw[:20] + ('...' if len(raw) > 20 else '')!r}")
    config = service.channels[name].config
    found = service.results.recent(name, limit)
    return web.json_response({"channel": name, "kept": kept,
                              "results": [result_json(result, config) for result in found]})
