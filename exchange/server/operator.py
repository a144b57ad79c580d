"""Operator routes: suspend, resume and void a live market for a technical fault, and deposit into or withdraw from
a trader's account as a cashier (:func:`move_money`, references in :mod:`exchange.server.cashier`), each journaled.

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
which market or account, why, when) beside the core events it caused, so it
survives a restart with the audit trail; it is logged, and answered, once the
record is on disk.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from exchange.betfair import apiformat
from exchange.betfair.stream import market_status
from exchange.core.commands import Deposit, Withdraw
from exchange.core.events import CommandRejected
from exchange.core.money import format_minor, to_minor
from exchange.game.table import Game, GameStateError
from exchange.server import cashier, jsoncodec, keys
from exchange.server.auth import Session
from exchange.server.connections import read_body
from exchange.server.errors import ApiError, ApingCode, invalid_input
from exchange.server.params import not_one_line, plain_decimal
from exchange.server.service import ExchangeService
from exchange.server.store import is_reserved

log = logging.getLogger(__name__)

_DONE = {"suspend": "suspended", "resume": "resumed", "void": "voided", "deposit": "deposited {} into",
         "withdraw": "withdrew {} from"}  # what the server's log says was done
MONEY_ACTIONS = ("deposit", "withdraw")
MAX_REASON = 200
MAX_AMOUNT = 100_000_000_000  # minor units: £1,000,000,000.00 at once
JOURNAL_KIND = cashier.JOURNAL_KIND
_EXAMPLES = {"reason": '"..."', "amount": "25.50", "reference": '"pay-1234"'}


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


def _operator(request: web.Request, what: str) -> Session:
    """The session of the operator making the request; ``ACCESS_DENIED`` for anyone else (``what``: what only an
    operator may do)."""
    session = request.app[keys.SESSIONS].check(request.headers.get("X-Authentication"),
                                                request.headers.get("X-Application"))
    if not request.app[keys.STORE].is_operator(session.account):
        raise ApiError(ApingCode.ACCESS_DENIED, f"account {session.account!r} is not an operator; only an operator "
                       f"account (exchange-poker accounts role NAME operator) may {what}")
    return session


async def _act(request: web.Request, action: str) -> web.Response:
    session = _operator(request, "suspend, resume or void a market")
    reason = _reason(await _body(request, ("reason",)))
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
    await service.durable(service.journal.last_seq)  # the log says only what the journal holds
    log.info("operator %s %s %s: %s", session.account, _DONE[action], market_id, reason)
    status = service.exchange.markets[market_id].status if market_id in service.exchange.markets else None
    # the exchange's status, and Betfair's name for it (listMarketBook's: ACTIVE is OPEN), as the Games API gives both
    return web.json_response({**record, "marketStatus": None if status is None else status.value,
                              "status": None if status is None else str(market_status(status))})


async def _body(request: web.Request, fields: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """The request's JSON object, with no field but ``fields`` and ``optional`` (else ``INVALID_INPUT_DATA`` saying
    its shape)."""
    try:
        body = jsoncodec.loads_client(await read_body(request))
    except (ValueError, RecursionError) as exc:  # (a UnicodeDecodeError is a ValueError)
        raise invalid_input(f"{jsoncodec.not_json(exc)}; the body must be a JSON object: "
                            f"{_shape(fields, optional)}") from None
    if not isinstance(body, dict):
        raise invalid_input("the body must be a JSON object: " + _shape(fields, optional))
    unknown = sorted(set(body) - set(fields) - set(optional))
    if unknown:
        raise invalid_input(f"unknown fields {unknown}; the body is {_shape(fields, optional)}")
    return body


def _shape(fields: tuple[str, ...], optional: tuple[str, ...]) -> str:
    shape = "{" + ", ".join(f'"{name}": {_EXAMPLES[name]}' for name in fields + optional) + "}"
    return shape + "".join(f", {name} optional" for name in optional)


def _reason(body: dict[str, Any]) -> str:
    """The body's ``reason``: text of one line for the audit trail (no control characters, NUL or a newline, nor
    a line or paragraph separator)."""
    reason = body.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise invalid_input(f"reason must be a non-empty string of at most {MAX_REASON} characters, not {reason!r}")
    return _one_line("reason", reason)


def _one_line(field: str, text: str) -> str:
    """``text`` stripped, if it is one line (no control characters, NUL or a newline, nor a line or paragraph
    separator); else ``INVALID_INPUT_DATA``."""
    breaker = apiformat.line_breaker(text.strip())
    if breaker is not None:
        raise invalid_input(not_one_line(field, breaker))
    return text.strip()


def _reference(body: dict[str, Any]) -> str | None:
    """The body's ``reference``, if any: text of one line, at most :data:`~exchange.server.cashier.MAX_REFERENCE`
    characters, naming the movement for the caller (:mod:`exchange.server.cashier`)."""
    reference = body.get("reference")
    if reference is None:
        return None
    if not isinstance(reference, str) or not reference.strip() or len(reference) > cashier.MAX_REFERENCE:
        raise invalid_input(f"reference must be a non-empty string of at most {cashier.MAX_REFERENCE} characters, "
                            f"not {reference!r:.80}")
    return _one_line("reference", reference)


def _amount(body: dict[str, Any]) -> int:
    """The body's ``amount`` in minor units: a number (or a string of one) of pounds, more than 0, two decimals at
    most, at most :data:`MAX_AMOUNT`."""
    amount = body.get("amount")
    problem = f"amount must be a number of pounds, more than 0 and at most {format_minor(MAX_AMOUNT)}, with at " \
              f"most two decimals, not {amount!r}"
    if isinstance(amount, bool) or not isinstance(amount, int | float | str):
        raise invalid_input(problem)
    if isinstance(amount, str) and not plain_decimal(amount):  # no exponent, sign, spaces or other digits
        raise invalid_input(f"{problem} (as text: digits, and a point and decimals if any, as 25.50)")
    if isinstance(amount, float) and abs(amount) < 0.01:  # under a penny: none to move, not a noise to round
        raise invalid_input(problem)
    try:
        minor = to_minor(amount)
    except ValueError as exc:  # (its words: a computed amount one float step off says what to send)
        raise invalid_input(f"{problem} ({exc})") from None
    if not 0 < minor <= MAX_AMOUNT:
        raise invalid_input(problem)
    return minor


def _live_game(service: ExchangeService, market_id: str) -> Game:
    channel = service.channels.get(market_id.rpartition(".")[0])
    game = None if channel is None else channel.game(market_id)
    if game is None or game.over:
        raise OperatorRefusal(404, "MARKET_NOT_FOUND",
                              f"market {market_id!r} is not a live game's market on this server (ids are CHANNEL.GAME)")
    return game


async def move_money(request: web.Request) -> web.Response:
    """``POST /operator/v1/accounts/{account}/deposit`` (or ``withdraw``): money into or out of a trader's account
    from outside the markets, as a cashier would, journaled with who moved it and why; with a ``reference``, once
    whatever number of times it is sent (:mod:`exchange.server.cashier`)."""
    action = request.match_info["action"]
    session = _operator(request, "deposit into or withdraw from an account")
    body = await _body(request, ("amount", "reason"), optional=("reference",))
    reason, amount, reference = _reason(body), _amount(body), _reference(body)
    service, store = request.app[keys.SERVICE], request.app[keys.STORE]
    service.check_available()
    name = store.named(request.match_info["account"])
    if name is None or is_reserved(name):
        raise OperatorRefusal(404, "ACCOUNT_NOT_FOUND", f"no trader's account {request.match_info['account']!r} "
                                                        "(exchange-poker accounts list lists them)")
    if name == session.account:  # a cashier does not pay themselves: another operator may
        raise ApiError(ApingCode.ACCESS_DENIED, f"an operator does not {action} on their own account ({name!r}); "
                       "another operator may")
    references = request.app[keys.CASHIER]
    made = None if reference is None else references.made(reference)
    if made is not None:
        return _made_already(service, made, action, name, amount)
    service.ensure_account(store.get(name))  # one that never logged in is opened first, with its opening balance
    now = service.now()
    command = Deposit if action == "deposit" else Withdraw
    events = service.execute(command(now, name, amount, f"{action} by {session.account}: {reason}"))
    refused = next((e for e in events if isinstance(e, CommandRejected)), None)
    if refused is not None:  # the one refusal left once the amount is checked: more than is available
        raise OperatorRefusal(409, str(refused.error_code), refused.message)
    record: dict[str, Any] = {"action": action, "account": name, "amount": apiformat.money(amount),
                              "operator": session.account, "reason": reason, "at": now}
    if reference is not None:
        record["reference"] = reference
    service.journal.append(JOURNAL_KIND, record, ts_ms=now)
    if reference is not None:  # before any wait: a repeat that comes meanwhile finds it
        references.note(record)
    await service.durable(service.journal.last_seq)  # the log says only what the journal holds
    log.info("operator %s %s %s%s: %s", session.account, _DONE[action].format(format_minor(amount)), name,
             "" if reference is None else f" (reference {reference!r})", reason)
    return _with_funds(service, record)


def _made_already(service: ExchangeService, made: dict[str, Any], action: str, name: str,
                  amount: int) -> web.Response:
    """The answer to a movement asked again by its reference: the first one's record, if it is the same."""
    if not cashier.same_movement(made, action, name, amount):
        raise OperatorRefusal(409, "DUPLICATE_REFERENCE", (
            f"reference {made['reference']!r} names a {made['action']} of {format_minor(to_minor(made['amount']))} "
            f"for {made['account']!r} by {made['operator']!r}, not a {action} of {format_minor(amount)} for "
            f"{name!r}; a reference names one movement (nothing moved)"))
    return _with_funds(service, {**made, "repeated": True})


def _with_funds(service: ExchangeService, record: dict[str, Any]) -> web.Response:
    """A movement's answer: its record and the account's balance and available to bet now."""
    funds = service.funds(record["account"])
    return web.json_response({**record, "balance": apiformat.money(funds.balance),
                              "availableToBetBalance": apiformat.money(funds.available)})
