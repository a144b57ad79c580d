"""``exchange-poker replay DIR``: the trading page over a backtest's recorded games, with play / pause / speed.

The app serves the same page and the same read routes as the live server
(``/games/v1/channels``, ``/games/v1/channels/{id}/snapshot`` and the
spectators' WebSocket ``/games/v1/stream``, in the same shapes), built from a
:class:`~exchange.backtest.replay.Timeline` at the replay's position instead
of from a running exchange. The ``channels`` message carries ``replay`` (the
player's state), and each ``snapshot`` message ``settled`` (the strategy's
result on each game settled so far) and ``results`` (the last games' winners
and boards), so the page shows controls instead of a login, and the
strategy's bets, P&L and history, whichever games were skipped.

``POST /replay/v1/control`` with a JSON object: ``{"action": "play" | "pause" |
"next"}`` and/or ``{"speed": S}`` (0.1 to 100); it answers the player's state
``{playing, speed, position, positionMs, lengthMs}``, and every page is told.
Bad input is a 400 ``{"error": "INVALID_INPUT_DATA", "details": ...}``, as the server's REST routes answer it.

The position moves on a :class:`~exchange.backtest.replay_clock.ReplayClock`: with the wall clock by default,
or any ``now`` function a test injects. Each page is sent to by its own
:class:`~exchange.backtest.replay_watchers.Watcher`: a page that stops reading
holds up no other, and is dropped once far behind. When the replay stops, every
page is told at once (``on_shutdown``), not after aiohttp's grace for handlers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import WSMsgType, web

from exchange.backtest.replay import Timeline
from exchange.backtest.replay_clock import MAX_SPEED, MIN_SPEED, ReplayClock
from exchange.backtest.replay_watchers import Watcher
from exchange.page import add_page_routes, body_coding
from exchange.page.refusals import refusal, unknown_channel, unknown_query

TICK_S = 0.1  # how often (wall clock) the player looks whether the table changed
TIMELINE = web.AppKey("timeline", Timeline)
JsonDict = dict[str, Any]


class Player:
    """The replay clock, the pages watching, and what each was last sent."""

    def __init__(self, timeline: Timeline, clock: ReplayClock) -> None:
        self.timeline = timeline
        self.clock = clock
        self.connections: set[Watcher] = set()
        self._last: str | None = None
        self._place = timeline.place_at(clock.position())  # the game the last broadcast was at (its place)

    def state(self) -> JsonDict:
        position = self.clock.position()
        place = self.timeline.place_at(position)
        return {"playing": self.clock.playing, "speed": self.clock.speed, "positionMs": position,
                "lengthMs": self.timeline.length_ms,
                "position": f"game {place + 1} of {len(self.timeline.games)}", "account": self.timeline.account}

    def channels_message(self) -> JsonDict:
        entry = self.timeline.channel_entry()
        entry["gameId"] = self.timeline.game_at(self.clock.position()).market_id
        return {"op": "channels", "pt": self.clock.position(), "channels": [entry], "replay": self.state()}

    def snapshot_message(self) -> JsonDict:
        position = self.clock.position()
        return {"op": "snapshot", "pt": position, "channel": self.timeline.channel.name,
                "snapshot": self.timeline.snapshot(position), "settled": self.timeline.settled_before(position),
                "results": self.timeline.results_before(position)}

    def control(self, body: object) -> JsonDict:
        """Apply a control request; raise ``ValueError`` saying what is wrong with it."""
        if not isinstance(body, dict) or not body or set(body) - {"action", "speed"}:
            raise ValueError('send a JSON object with "action" (play, pause or next) and/or "speed"')
        speed = body.get("speed")
        if speed is not None and not _good_speed(speed):
            raise ValueError(f"speed must be a number from {MIN_SPEED:g} to {MAX_SPEED:g}, not {json.dumps(speed):.40}")
        action = body.get("action")
        if action is not None and action not in ("play", "pause", "next"):
            raise ValueError(f"action must be play, pause or next, not {json.dumps(action):.40}")
        if speed is not None:
            self.clock.set_speed(float(speed))
        if action == "play":
            self.clock.play()
        elif action == "pause":
            self.clock.pause()
        elif action == "next":
            following = self.timeline.next_start(self.clock.position())
            self.clock.seek(self.timeline.length_ms if following is None else following)
        return self.state()

    async def broadcast(self, *, channels: bool) -> None:
        """Send the snapshot if it changed since the last one sent, and the channel list (with the player's state)
        if asked or the player has moved on to another game (a page said "game 2 of 20" while it played on)."""
        place = self.timeline.place_at(self.clock.position())
        channels, self._place = channels or place != self._place, place
        messages = [self.channels_message()] if channels else []
        snapshot = self.snapshot_message()
        text = json.dumps({**snapshot, "pt": 0, "snapshot": _without_countdown(snapshot["snapshot"])})
        if channels or text != self._last:
            self._last = text
            messages.append(snapshot)
        texts = [(message["op"], _text(message)) for message in messages]
        for watcher in list(self.connections):
            if watcher.dropped:
                self.connections.discard(watcher)
                continue
            for op, message_text in texts:
                watcher.offer(op, message_text)

    async def run(self) -> None:
        """Watch the position until cancelled: a page hears of every change, and the end pauses the player."""
        while True:
            await asyncio.sleep(TICK_S)
            ended = self.clock.playing and self.clock.position() >= self.timeline.length_ms
            if ended:
                self.clock.pause()
            await self.broadcast(channels=ended)


def _good_speed(speed: object) -> bool:
    return (isinstance(speed, int | float) and not isinstance(speed, bool) and math.isfinite(speed)
            and MIN_SPEED <= speed <= MAX_SPEED)


def _without_countdown(snapshot: JsonDict) -> JsonDict:
    game = snapshot.get("game")
    if not game:
        return snapshot
    return {**snapshot, "game": {k: v for k, v in game.items()
                                 if k not in ("bettingWindowRemainingMs", "bettingWindowPercentageComplete")}}


PLAYER = web.AppKey("player", Player)


def create_replay_app(timeline: Timeline, *, clock: ReplayClock | None = None) -> web.Application:
    """The replay as an aiohttp application: the page, the read routes, the stream and the control route."""
    app = web.Application(middlewares=[_json_errors], handler_args=body_coding.HANDLER_ARGS)
    app[TIMELINE] = timeline
    app[PLAYER] = Player(timeline, clock or ReplayClock(timeline.length_ms))
    app.cleanup_ctx.append(_ticker)
    app.on_shutdown.append(_close_pages)
    app.router.add_get("/games/v1/channels", _channels)
    app.router.add_get("/games/v1/channels/{channel}/snapshot", _snapshot)
    app.router.add_get("/games/v1/stream", _stream)
    app.router.add_post("/replay/v1/control", _control)
    add_page_routes(app)
    return app


async def _ticker(app: web.Application) -> AsyncIterator[None]:
    task = asyncio.get_running_loop().create_task(app[PLAYER].run(), name="replay-player")
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await _close_pages(app)


async def _close_pages(app: web.Application) -> None:
    """Close every page's stream: at shutdown, so that the server need not wait for their handlers to end."""
    for watcher in list(app[PLAYER].connections):
        app[PLAYER].connections.discard(watcher)
        await watcher.close()


@web.middleware
async def _json_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        response: web.StreamResponse = await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return refusal(exc.reason.upper().replace(" ", "_"), exc.text or exc.reason, exc.status)
    return response


async def _channels(request: web.Request) -> web.Response:
    if request.query:
        return unknown_query(request, "the channel list takes none")
    return web.json_response({"channels": request.app[PLAYER].channels_message()["channels"]})


async def _snapshot(request: web.Request) -> web.Response:
    """The channel's snapshot at the replay's position; refused as the live server's Games API refuses."""
    player = request.app[PLAYER]
    name = request.match_info["channel"]
    if name != player.timeline.channel.name:
        return unknown_channel(name, [player.timeline.channel.name])
    if request.query:
        return unknown_query(request, "a snapshot takes none")
    return web.json_response(player.timeline.snapshot(player.clock.position()))


async def _control(request: web.Request) -> web.Response:
    player = request.app[PLAYER]
    try:
        body = json.loads(await body_coding.body_of(request))
    except body_coding.Refused as refused:
        return refusal(refused.code, refused.details, refused.status)
    except ValueError as exc:  # (not UTF-8 either)
        return refusal("INVALID_INPUT_DATA", f"the body is not JSON: {exc}")
    try:
        state = player.control(body)
    except ValueError as exc:
        return refusal("INVALID_INPUT_DATA", str(exc))
    await player.broadcast(channels=True)
    return web.json_response(state)


async def _stream(request: web.Request) -> web.WebSocketResponse:
    player = request.app[PLAYER]
    ws = web.WebSocketResponse(heartbeat=30, max_msg_size=4096)
    await ws.prepare(request)
    watcher = Watcher(ws, request.transport)
    for message in (player.channels_message(), player.snapshot_message()):
        watcher.offer(message["op"], _text(message))
    player.connections.add(watcher)
    try:
        async for msg in ws:
            if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                watcher.offer("error", _text({"op": "error", "errorMessage": "this stream is read-only: send nothing"}))
    finally:
        player.connections.discard(watcher)
        watcher.stop()
    return ws


def _text(message: JsonDict) -> str:
    return json.dumps(message, separators=(",", ":"))
