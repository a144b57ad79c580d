"""The Exchange Games API, read side: ``/games/v1/channels`` and a channel's snapshot.

The answers are built by :mod:`exchange.server.game_view` (the same that the
spectators' stream sends).
"""

from __future__ import annotations

from aiohttp import web

from exchange.server import keys
from exchange.server.game_view import channel_list, channel_snapshot


async def list_channels(request: web.Request) -> web.Response:
    return web.json_response({"channels": channel_list(request.app[keys.SERVICE])})


async def snapshot(request: web.Request) -> web.Response:
    service = request.app[keys.SERVICE]
    name = request.match_info["channel"]
    out = channel_snapshot(service, name)
    if out is None:  # 404, as the OpenAPI document says: the path names nothing
        raise web.HTTPNotFound(text=f"no channel {name[:40]!r}; channels are {', '.join(service.channels)}")
    return web.json_response(out)
