"""API-NG ``replaceOrders``: move unmatched bets to new prices, each a cancel and a new bet at the new price.

As Betfair's: "the cancel is completed first then the new orders are placed", all or none, and "the
cancellations will not be rolled back". Every bet that can be moved is cancelled; if one new bet cannot be placed
(a price off the ladder, funds the account lacks), none is, and each such replace reports ``CANCELLED_NOT_PLACED``
(:func:`_not_placed`) with its new bet's cause, ``RELATED_ACTION_FAILED`` for the others; the call is then a
``FAILURE`` (``BET_ACTION_ERROR``), as a live Betfair reply shows it. A replace refused before its cancel (not the
caller's bet on the market, already taken or lapsed) leaves its bet and does not stop the others. Every instruction
is read before any is carried out: a malformed one refuses the whole call with ``INVALID_INPUT_DATA`` and changes
nothing. A call holds at most 60 instructions, Betfair's limit. ``marketVersion`` and ``async`` are honoured as
:mod:`exchange.server.betting` describes for placeOrders: a stale version leaves only the cancels, and an
asynchronous call reports each cancel in full and each new bet ``PENDING``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from exchange.betfair import apiformat
from exchange.core import ladder
from exchange.core.commands import CancelOrder, Move, ReplaceOrders
from exchange.core.events import Event, Matched, OrderCancelled, OrderPlaced, OrderRejected
from exchange.core.money import to_exact_decimal
from exchange.core.orders import OrderView
from exchange.server.auth import Session
from exchange.server.betting import (
    CALL_ONLY,
    MAX_CHANGE_INSTRUCTIONS,
    JsonDict,
    Outcome,
    cancel_report,
    execution_report,
    named_twice,
    no_such_bet,
    order_call,
    parse_bet_id,
    pending,
    place_report,
    remember_call,
    repeated_call,
    stale_version,
)
from exchange.server.errors import invalid_input
from exchange.server.params import get_bool, get_number
from exchange.server.service import ExchangeService


def _new_bet(view: OrderView) -> JsonDict:
    """The ``instruction`` of a replace's ``placeInstructionReport``: the new bet's runner, side and
    ``customerOrderRef``, the old bet's (as placeOrders echoes its instruction)."""
    echo: JsonDict = {"selectionId": view.selection_id, "side": str(view.side), "orderType": "LIMIT", "handicap": 0.0}
    if view.customer_ref is not None:
        echo["customerOrderRef"] = view.customer_ref
    return echo


def _replace_outcome(instruction: JsonDict, events: Sequence[object], service: ExchangeService,
                     view: OrderView) -> Outcome:
    cancel_instruction: JsonDict = {"betId": instruction["betId"]}
    place_echo = _new_bet(view)
    rejected = next((e for e in events if isinstance(e, OrderRejected)), None)
    cancelled = [e for e in events if isinstance(e, OrderCancelled)]
    if rejected is not None and cancelled:  # the new bet not placed, the old one cancelled all the same
        return _not_placed(cancel_report(cancel_instruction, cancelled).report, str(rejected.error_code), view,
                           rejected.message)
    if rejected is not None:
        code, message = str(rejected.error_code), rejected.message
        report = {
            "status": "FAILURE",
            "errorCode": code,
            "cancelInstructionReport": {"status": "FAILURE", "errorCode": code, "instruction": cancel_instruction},
            "placeInstructionReport": {"status": "FAILURE", "errorCode": "RELATED_ACTION_FAILED",
                                       "instruction": place_echo},
        }
        return Outcome(report, code, message)
    placed = next((e for e in events if isinstance(e, OrderPlaced)), None)
    cancel = cancel_report(cancel_instruction, cancelled)
    if placed is not None:
        place_echo["limitOrder"] = {"size": apiformat.money(placed.size), "price": apiformat.tick_price(placed.tick),
                                    "persistenceType": "LAPSE"}
    place = place_report(events, place_echo)
    return Outcome({"status": "SUCCESS", "cancelInstructionReport": cancel.report,
                    "placeInstructionReport": place.report})


def _parse_replace(item: Any, i: int) -> tuple[int | None, int | float, JsonDict]:
    """``(bet id, newPrice as sent, instruction echo)`` of one ``ReplaceInstruction``; a wrong type raises."""
    where = f"instructions[{i}]."
    if not isinstance(item, dict):
        raise invalid_input(f"instructions[{i}] must be an object")
    bet_id = parse_bet_id(item, where)
    raw_price = get_number(item, "newPrice", where=where)
    return bet_id, raw_price, {"betId": str(item["betId"]), "newPrice": raw_price}


async def replace_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    market_id, customer_ref, raw, too_many_report = order_call(params, MAX_CHANGE_INSTRUCTIONS)
    if too_many_report is not None:
        return too_many_report
    asynchronous = get_bool(params, "async", default=False)
    stale = stale_version(service, market_id, params)
    # every instruction is read before any is carried out: a malformed one refuses the call and changes nothing
    parsed = [_parse_replace(item, i) for i, item in enumerate(raw)]
    bases = [_refused_with_the_call(instruction) for _, _, instruction in parsed]
    twice = named_twice(market_id, customer_ref, [bet_id for bet_id, _, _ in parsed], bases)
    if twice is not None:
        return twice
    repeated = repeated_call(service, session, "replaceOrders", market_id, customer_ref, bases)
    if repeated is not None:
        return repeated
    outcomes: list[Outcome | None] = [None] * len(parsed)
    moves: list[tuple[int, Move, OrderView | None, JsonDict]] = []
    for i, (bet_id, raw_price, instruction) in enumerate(parsed):
        if not service.knows_market(market_id):
            outcomes[i] = _replace_failure(instruction, None, "INVALID_MARKET_ID",
                                           f"market {market_id!r} does not exist")
            continue
        view = service.order(session.account, bet_id) if bet_id is not None else None
        own = view if view is not None and view.market_id == market_id else None  # the caller's bet on the market
        if own is None:
            outcomes[i] = _replace_failure(instruction, None, "INVALID_BET_ID",
                                           no_such_bet(instruction["betId"], bet_id, f"market {market_id}"))
        try:
            new_price = to_exact_decimal(raw_price, "newPrice")
        except ValueError as exc:
            outcomes[i] = outcomes[i] or _replace_failure(instruction, own, "INVALID_ODDS", str(exc))
            continue
        if own is not None and stale is not None:  # the new bet lapses (or is off the ladder): what is left is the
            # cancel of the old one
            outcomes[i] = _lapsed_replace(service, session, own, instruction, stale, new_price)
            continue
        if bet_id is not None:  # a bet not the caller's too: the exchange refuses it, and the recording has its row
            moves.append((i, Move(bet_id, new_price), own, instruction))
    if moves:  # every cancel, then the new bets all placed or none (the core's ReplaceOrders)
        events = service.execute(ReplaceOrders(ts=service.now(), account_id=session.account, market_id=market_id,
                                               moves=tuple(move for _, move, _, _ in moves)))
        for i, move, view, instruction in moves:
            if view is not None:
                outcomes[i] = _replace_outcome(instruction, _of_move(events, move.bet_id), service, view)
    done = [o for o in outcomes if o is not None]
    remember_call(service, session, "replaceOrders", customer_ref, done)
    if asynchronous:
        done = [pending_replace(o) for o in done]
    # no new bet placed: the call failed (as Betfair reports a cancel done and its new bet not placed)
    return execution_report(market_id, customer_ref, done, dependent=all(o.error for o in done))


def _of_move(events: Sequence[Event], bet_id: int) -> list[Event]:
    """The events of one move of a ReplaceOrders: its bet's cancel or refusal, the new bet placed for it, and every
    fill (:func:`exchange.server.betting.place_report` counts those of the new bet only)."""
    return [e for e in events if isinstance(e, Matched) or (isinstance(e, OrderPlaced) and e.replaces == bet_id)
            or (isinstance(e, OrderCancelled | OrderRejected) and e.bet_id == bet_id)]


def pending_replace(outcome: Outcome) -> Outcome:
    """A replace as an asynchronous ``replaceOrders`` answers it: the cancel reported in full, the new bet's
    placement as :func:`pending` reports one (``PENDING``, no bet id nor match: they come on the order stream)."""
    if outcome.error is not None:
        return outcome
    place = pending(Outcome(outcome.report["placeInstructionReport"])).report
    return Outcome({**outcome.report, "placeInstructionReport": place})


def _lapsed_replace(service: ExchangeService, session: Session, view: OrderView, instruction: JsonDict,
                    why: str, new_price: Decimal) -> Outcome:
    """A replace whose new bet lapses (a stale ``marketVersion``): the old bet's remainder is cancelled, no new bet
    (:func:`_not_placed`, the new bet ``BET_TAKEN_OR_LAPSED``, or ``INVALID_ODDS`` off the ladder, as a current
    replace's)."""
    command = CancelOrder(ts=service.now(), account_id=session.account, bet_id=view.bet_id)
    cancel = cancel_report({"betId": instruction["betId"]}, service.execute(command)).report
    if ladder.tick_of(new_price) is None:
        return _not_placed(cancel, "INVALID_ODDS", view, ladder.invalid_price_message(new_price))
    return _not_placed(cancel, "BET_TAKEN_OR_LAPSED", view, why)


def _not_placed(cancel: JsonDict, place_code: str, view: OrderView, why: str) -> Outcome:
    """A replace whose old bet was cancelled (``cancel``, its report) and whose new bet was not placed
    (``place_code``: lapsed, off the ladder, refused for funds, or not placed for another's sake):
    ``CANCELLED_NOT_PLACED``, API-NG's "bet cancelled but replacement bet was not placed", as Betfair's replace,
    which cancels first and does not take the cancel back. A cancel that found nothing left to cancel is the
    replace's error instead."""
    code = "CANCELLED_NOT_PLACED" if cancel["status"] == "SUCCESS" else cancel["errorCode"]
    report = {"status": "FAILURE", "errorCode": code, "cancelInstructionReport": cancel,
              "placeInstructionReport": {"status": "FAILURE", "errorCode": place_code, "instruction": _new_bet(view)}}
    return Outcome(report, code, why)


def _refused_with_the_call(instruction: JsonDict) -> JsonDict:
    """What a replace's report holds when its call is refused whole (:func:`exchange.server.betting.refused_whole`):
    its cancel and its new bet failed with the call."""
    return {"cancelInstructionReport": {"status": "FAILURE", "errorCode": "ERROR_IN_ORDER",
                                        "instruction": {"betId": instruction["betId"]}},
            "placeInstructionReport": {"status": "FAILURE", "errorCode": "ERROR_IN_ORDER"}}


def _replace_failure(instruction: JsonDict, view: OrderView | None, code: str, message: str) -> Outcome:
    """A replace refused before anything was done. Of a bet the caller does not have (``view`` None: unknown, or
    another account's) the new bet has no runner or side to name, so its place report is the bare failure
    (``status`` and ``errorCode`` are all a ``PlaceInstructionReport`` must hold), not one with invented values."""
    place: JsonDict = {"status": "FAILURE", "errorCode": "RELATED_ACTION_FAILED"}
    if view is not None:
        place["instruction"] = _new_bet(view)
    shown = "ERROR_IN_ORDER" if code in CALL_ONLY else code
    report = {
        "status": "FAILURE",
        "errorCode": shown,
        "cancelInstructionReport": {"status": "FAILURE", "errorCode": shown,
                                    "instruction": {"betId": instruction["betId"]}},
        "placeInstructionReport": place,
    }
    return Outcome(report, code, message)
