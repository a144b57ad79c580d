"""Operator routes: suspend, resume and void a live market for a technical fault, each journaled.

``POST /operator/v1/markets/{marketId}/suspend`` (and ``/resume``, ``/void``) with
``{"reason": "..."}`` and the usual ``X-Application`` / ``X-Authentication``
headers. Only an operator account (``exchange-poker accounts add NAME
--operator``) may act; anyone else is refused ``403`` ``ACCESS_DENIED`` and
nothing changes. What each does is the game's to decide
(:meth:`~exchange.game.table.Game.operator_suspend`, ``operator_resume``,
``operator_void``): a suspension holds the open window (unmatched orders
lapse, as at any suspension) until a resume or the window's close; a void
refunds matched bets, cancels unmatched ones and closes the market with no
winner. An action the market's state does not allow is ``409``
``MARKET_STATE_CONFLICT``; a market that is not live ``404`` ``MARKET_NOT_FOUND``.

Every accepted action is a journal record of kind ``"operator"`` (who, what,
which market, why, when) beside the core events it caused, so it survives a
restart with the audit trail; the answer waits until the record is on disk.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from exchange.game.table import Game, GameStateError
from exchange.server import keys
from exchange.server.connections import read_body
from exchange.server.errors import ApiError, ApingCode, invalid_input
from exchange.server.service import ExchangeService

ACTIONS = ("suspend", "resume", "void")
MAX_REASON = 200
JOURNAL_KIND = "operator"


class OperatorRefusal(web.HTTPException):
    """A refusal with a stable code, answered as ``{"error": code, "details": ...}`` by the error middleware."""

    def __init__(self, status: int, code: str, details: str) -> None:
        self.status_code = status
        super().__init__(reason=code.replace("_", " ").title(), text=details)


async def suspend(request: web.Request) -> web.Response:
    return await _act(request, "suspend")


async def resume(request: web.Request) -> web.Response:
    return await _act(request, "resume")


async def void(request: web.Request) -> web.Response:
    return await _act(request, "void")


async def _act(request: web.Request, action: str) -> web.Response:
    session = request.app[keys.SESSIONS].check(request.headers.get("X-Authentication"),
                                                request.headers.get("X-Application"))
    if not request.app[keys.STORE].is_operator(session.account):
        raise ApiError(ApingCode.ACCESS_DENIED, f"account {session.account!r} is not an operator; only an operator "
                       "account (exchange-poker accounts add NAME --operator) may suspend, resume or void a market")
    reason = _reason(await _body(request))
    service = request.app[keys.SERVICE]
    service.check_available()
    market_id = request.match_info["marketId"]
    game = _live_game(service, market_id)
    try:
        if action == "suspend":
            game.operator_suspend(reason)
        elif action == "resume":
            game.operator_resume()
        else:
            game.operator_void(reason)
    except GameStateError as exc:
        raise OperatorRefusal(409, "MARKET_STATE_CONFLICT", str(exc)) from None
    now = service.now()
    record = {"action": action, "marketId": market_id, "operator": session.account, "reason": reason, "at": now}
    service.journal.append(JOURNAL_KIND, record, ts_ms=now)
    status = service.exchange.markets[market_id].status if market_id in service.exchange.markets else None
    return web.json_response({**record, "marketStatus": None if status is None else status.value})


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = json.loads(await read_body(request))
    except ValueError:
        raise invalid_input('the body must be a JSON object: {"reason": "..."}') from None
    if not isinstance(body, dict):
        raise invalid_input('the body must be a JSON object: {"reason": "..."}')
    return body


def _reason(body: dict[str, Any]) -> str:
    reason = body.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise invalid_input(f"reason must be a non-empty string of at most {MAX_REASON} characters, not {reason!r}")
    unknown = sorted(set(body) - {"reason"})
    if unknown:
        raise invalid_input(f"unknown fields {unknown}; the body is {{\"reason\": \"...\"}}")
    return reason.strip()


def _live_game(service: ExchangeService, market_id: str) -> Game:
    channel = service.channels.get(market_id.rpartition(".")[0])
    game = None if channel is None else channel.game(market_id)
    if game is None or game.over:
        raise OperatorRefusal(404, "MARKET_NOT_FOUND",
                              f"market {market_id!r} is not a live game's market on this server (ids are CHANNEL.GAME)")
    return game
