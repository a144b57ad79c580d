"""API-NG betting methods: parse the call, send the core one command per instruction, report.

Each method takes the caller's session and the JSON params and returns the
API-NG result (``PlaceExecutionReport``, ``CancelExecutionReport``, …).
Every answer leaves once the journal holds what it shows (the HTTP edge holds
each one: ``app._rpc`` and ``app._rest``), so every acknowledged order survives
a crash; ``placeOrders``, ``cancelOrders`` and ``replaceOrders`` also wait
themselves before they report (a caller of the method alone gets the same), and
the edge's wait then finds it done.

Refusals come at two levels, as in API-NG: a malformed call (a field of the
wrong type, an unknown enum value) is an ``INVALID_INPUT_DATA``
APINGException; a well-formed instruction the exchange refuses gets a report
with ``status: FAILURE`` and an ``errorCode``. Reports carry a non-standard
``errorMessage`` at the execution level saying what was wrong.

``placeOrders`` is atomic, as API-NG documents it (it never answers
``PROCESSED_WITH_ERRORS``): a call with several instructions is checked whole
first (:meth:`exchange.core.exchange.Exchange.check_places`, each instruction counting
the ones before it as placed), and if any would be refused none is placed; the
others report ``RELATED_ACTION_FAILED``; so is a call holding a back and a lay on one runner that would
match each other (``INVALID_BACK_LAY_COMBINATION``, :func:`_crossed`). ``cancelOrders`` and
``replaceOrders`` carry out each instruction on its own; a ``cancelOrders`` without instructions (every unmatched
bet of a market, or of every market) reports none, as Betfair's.

``marketVersion`` (placeOrders, replaceOrders) is honoured as Betfair documents it: if the market's version
(:mod:`exchange.betfair.description`: it counts the material changes) is past the one given, the bets lapse —
placeOrders places nothing (``BET_TAKEN_OR_LAPSED`` per instruction), replaceOrders cancels the old bets and
places no new ones. ``async: true`` on placeOrders answers as Betfair's asynchronous placement does: each
accepted instruction reports ``orderStatus: PENDING`` with no ``betId``, ``placedDate``, ``sizeMatched`` or
``averagePriceMatched``, and the client learns the bet from the order stream (or listCurrentOrders by its
``customerOrderRef``). The orders are still checked and executed before the answer, so a refused one is
reported as refused either way (:func:`pending`). An asynchronous replaceOrders reports its cancels in full
and its new bets the same way (:func:`pending_replace`). A call holds at most
200 instructions (placeOrders) or 60 (cancelOrders, replaceOrders), Betfair's
limits; more is refused whole with ``TOO_MANY_INSTRUCTIONS``. A placeOrders, cancelOrders or replaceOrders call
repeating the ``customerRef`` of one of the same carried out in the last 60 seconds is refused whole with
``DUPLICATE_TRANSACTION``, as Betfair de-duplicates
re-submissions (:mod:`exchange.server.customer_refs`); a cancelOrders or replaceOrders call that names a bet
twice is refused whole with ``DUPLICATE_BETIDS`` (:func:`named_twice`). replaceOrders is in
:mod:`exchange.server.replace_orders`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from exchange.betfair import apiformat
from exchange.betfair.apiformat import CUSTOMER_REF_MAX
from exchange.core.commands import CancelOrder, PlaceOrder
from exchange.core.events import CancelReason, Matched, OrderCancelled, OrderPlaced, OrderRejected
from exchange.core.ladder import PRICE_X100
from exchange.core.money import to_minor
from exchange.core.records import fast_constructor
from exchange.core.side import Side
from exchange.server.auth import Session
from exchange.server.errors import invalid_input
from exchange.server.params import (
    MARKET_ID_MAX,
    get_bool,
    get_int,
    get_list,
    get_number,
    get_object,
    get_opt_str,
    get_str,
)
from exchange.server.place_instructions import PlaceRequest, parse_place
from exchange.server.service import ExchangeService

MAX_INSTRUCTIONS = 200  # placeOrders, as Betfair
MAX_CHANGE_INSTRUCTIONS = 60  # cancelOrders and replaceOrders, as Betfair
STRATEGY_REF_MAX = 15  # customerStrategyRef, as Betfair
# Instruction-level codes that Betfair also reports as the execution-level errorCode.
EXECUTION_LEVEL = frozenset({"INSUFFICIENT_FUNDS", "MARKET_NOT_OPEN_FOR_BETTING", "INVALID_MARKET_ID"})
# Instruction codes of an instruction carried out in part (a replace's cancel done, its new bet not placed).
PARTLY_DONE = frozenset({"CANCELLED_NOT_PLACED"})

JsonDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one instruction came to: success, or an error code with its explanation."""

    report: JsonDict
    error: str | None = None
    message: str = ""


# exchange.core.records.fast_constructor builds a frozen, slotted dataclass about three times faster than its
# __init__. One of each per instruction.
_new_outcome = fast_constructor(Outcome)


def execution_report(
    market_id: str | None, customer_ref: str | None, outcomes: Sequence[Outcome], *, dependent: bool
) -> JsonDict:
    """An execution report from instruction outcomes; ``dependent``: one failure fails all (placeOrders).

    Of a call whose instructions are carried out one by one (cancel, replace, update), some done (a replace
    whose cancel was done counts, its new bet not placed) and some refused, the status is
    ``PROCESSED_WITH_ERRORS``, as API-NG reports it: not ``FAILURE``, which says nothing was done (replaceOrders
    passes ``dependent`` when it placed no new bet: Betfair reports that ``FAILURE``, its cancels done or not).
    """
    failures = [(i, o) for i, o in enumerate(outcomes) if o.error]
    out: JsonDict = {"status": "SUCCESS"}
    if failures:
        # the cause, not an instruction refused only because another one was
        first = next((o for _, o in failures if o.error != "RELATED_ACTION_FAILED"), failures[0][1])
        assert first.error is not None
        status = "FAILURE"
        done = sum(o.error is None or o.error in PARTLY_DONE for o in outcomes)
        if done and not dependent:
            status = code = "PROCESSED_WITH_ERRORS"
        elif first.error in EXECUTION_LEVEL:
            code = first.error
        else:
            code = "BET_ACTION_ERROR"
        out = {"status": status, "errorCode": code}
        out["errorMessage"] = "; ".join(f"instruction {i}: {o.error}: {o.message}" for i, o in failures)
    if market_id is not None:
        out["marketId"] = market_id
    if customer_ref is not None:
        out["customerRef"] = customer_ref
    out["instructionReports"] = [o.report for o in outcomes]
    return out


def too_many(market_id: str | None, customer_ref: str | None, limit: int, asked: int) -> JsonDict:
    """The execution report refusing a call of more than ``limit`` instructions (none is carried out)."""
    return refused_whole(market_id, customer_ref, "TOO_MANY_INSTRUCTIONS",
                         f"at most {limit} instructions a call, not {asked}")


def order_call(params: Mapping[str, Any], limit: int) -> tuple[str, str | None, list[Any], JsonDict | None]:
    """``(marketId, customerRef, instructions, refusal)`` of a placeOrders, replaceOrders or updateOrders call:
    ``refusal`` is the report refusing the call whole when it holds more than ``limit`` instructions; a call with
    none is malformed (``INVALID_INPUT_DATA``)."""
    market_id = get_str(params, "marketId", max_len=MARKET_ID_MAX)
    customer_ref = get_opt_str(params, "customerRef", max_len=CUSTOMER_REF_MAX, one_line=True)
    raw = get_list(params, "instructions", required=True)
    if len(raw) > limit:
        return market_id, customer_ref, raw, too_many(market_id, customer_ref, limit, len(raw))
    if not raw:
        raise invalid_input("instructions must hold at least one instruction")
    return market_id, customer_ref, raw, None


def refused_whole(market_id: str | None, customer_ref: str | None, code: str, message: str,
                  bases: Iterable[JsonDict] = ()) -> JsonDict:
    """The execution report refusing a whole call with ``code`` before any instruction is carried out.

    Each instruction gets its report, in the call's order, as Betfair answers a call refused whole: ``FAILURE``
    with ``ERROR_IN_ORDER`` ("the action failed because the parent order failed") and what ``bases`` gives it
    (the instruction's echo); a client that pairs its instructions with the reports by position (flumine does)
    learns each one failed. A call refused before its instructions are read (too many of them) has none.

    >>> refused_whole("holdem.1", "r", "DUPLICATE_TRANSACTION", "seen", [{"instruction": {"betId": "7"}}])
    ... # doctest: +NORMALIZE_WHITESPACE
    {'status': 'FAILURE', 'errorCode': 'DUPLICATE_TRANSACTION', 'errorMessage': 'seen', 'marketId': 'holdem.1',
     'customerRef': 'r', 'instructionReports': [{'status': 'FAILURE', 'errorCode': 'ERROR_IN_ORDER',
                                                 'instruction': {'betId': '7'}}]}
    """
    out: JsonDict = {"status": "FAILURE", "errorCode": code, "errorMessage": message}
    if market_id is not None:
        out["marketId"] = market_id
    if customer_ref is not None:
        out["customerRef"] = customer_ref
    out["instructionReports"] = [{"status": "FAILURE", "errorCode": "ERROR_IN_ORDER", **base} for base in bases]
    return out


def repeated_call(service: ExchangeService, session: Session, operation: str, market_id: str | None,
                  customer_ref: str | None, bases: Iterable[JsonDict]) -> JsonDict | None:
    """The report refusing an ``operation`` call whose ``customerRef`` is that of one carried out within the last
    minute (``DUPLICATE_TRANSACTION``, :mod:`exchange.server.customer_refs`; ``bases``: each instruction's echo,
    :func:`refused_whole`), else None."""
    if not customer_ref:
        return None
    why = service.recent_refs.repeated(session.account, customer_ref, service.now(), operation=operation)
    return None if why is None else refused_whole(market_id, customer_ref, "DUPLICATE_TRANSACTION", why, bases)


def remember_call(service: ExchangeService, session: Session, operation: str, customer_ref: str | None,
                  outcomes: Sequence[Outcome]) -> None:
    """Note an ``operation`` call's ``customerRef`` if the call did something, even in part (a repeat of it is then
    refused)."""
    if customer_ref and any(o.error is None or o.error in PARTLY_DONE for o in outcomes):
        service.recent_refs.remember(session.account, customer_ref, service.now(), operation=operation)


def unknown_market(service: ExchangeService, market_id: str | None, base: JsonDict) -> Outcome | None:
    """An instruction's refusal when its call names a market that is not one here (``INVALID_MARKET_ID``: a
    mistyped id says so, rather than that the bet is not on it), else None."""
    if market_id is None or service.knows_market(market_id):
        return None
    return failed(base, "INVALID_MARKET_ID", f"market {market_id!r} does not exist")


def named_twice(market_id: str | None, customer_ref: str | None, bet_ids: Sequence[int | None],
                bases: Iterable[JsonDict]) -> JsonDict | None:
    """The report refusing a cancelOrders or replaceOrders call that names a bet more than once
    (``DUPLICATE_BETIDS``, as API-NG refuses it, nothing carried out; ``bases``: each instruction's echo,
    :func:`refused_whole`), or None.

    >>> named_twice("holdem.1", None, [7, None, 8, None], [])
    >>> named_twice("holdem.1", None, [7, 8, 7], [])["errorCode"]
    'DUPLICATE_BETIDS'
    """
    seen: set[int] = set()
    for bet_id in bet_ids:
        if bet_id is not None and bet_id in seen:
            return refused_whole(market_id, customer_ref, "DUPLICATE_BETIDS",
                                 f"bet {bet_id} is named more than once; name each bet once a call", bases)
        if bet_id is not None:
            seen.add(bet_id)
    return None


#: Codes API-NG has only for a whole call (``ExecutionReportErrorCode``), not for an instruction: an instruction
#: refused with one reports ``ERROR_IN_ORDER`` ("the action failed because the parent order failed") and the call
#: carries the code.
CALL_ONLY = frozenset({"INVALID_MARKET_ID"})


def failed(report_base: JsonDict, code: str, message: str) -> Outcome:
    """An instruction refused with ``code`` (the call's ``errorCode`` comes from it: :func:`execution_report`)."""
    shown = "ERROR_IN_ORDER" if code in CALL_ONLY else code
    return Outcome({"status": "FAILURE", "errorCode": shown, **report_base}, code, message)


# --- placeOrders -----------------------------------------------------------------------------


_new_place_order = fast_constructor(PlaceOrder)


def place_report(events: Sequence[object], echo: JsonDict) -> Outcome:
    """A ``PlaceInstructionReport`` from the events one ``PlaceOrder`` produced."""
    base: JsonDict = {"instruction": echo}
    placed: OrderPlaced | None = None
    matched = matched_x100 = 0
    killed = False
    for event in events:
        if isinstance(event, OrderRejected):
            return failed(base, str(event.error_code), event.message)
        if isinstance(event, OrderCancelled) and event.reason is CancelReason.FILL_OR_KILL:
            killed = True  # (a replace's events begin with its old bet's cancel)
        elif isinstance(event, OrderPlaced) and placed is None:
            placed = event
        elif isinstance(event, Matched) and placed is not None and placed.bet_id in (
            event.back_bet_id,
            event.lay_bet_id,
        ):
            matched += event.size
            matched_x100 += event.size * PRICE_X100[event.tick]
    if placed is None:
        return failed(base, "ERROR_IN_MATCHER", "the exchange produced no order for this instruction")
    report: JsonDict = {
        "status": "SUCCESS",
        "instruction": echo,
        "betId": str(placed.bet_id),
        "placedDate": apiformat.iso(placed.ts),
        "averagePriceMatched": round(matched_x100 / (100 * matched), 4) if matched else 0.0,
        "sizeMatched": apiformat.money(matched),
        "orderStatus": ("EXPIRED" if killed and not matched
                        else "EXECUTION_COMPLETE" if matched == placed.size or killed else "EXECUTABLE"),
    }
    return _new_outcome(report)


async def place_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    market_id, customer_ref, raw, too_many_report = order_call(params, MAX_INSTRUCTIONS)
    if too_many_report is not None:
        return too_many_report
    strategy_ref = get_opt_str(params, "customerStrategyRef", max_len=STRATEGY_REF_MAX, one_line=True) or None
    requests = _crossed([parse_place(item, i) for i, item in enumerate(raw)])
    asynchronous = get_bool(params, "async", default=False)
    repeated = repeated_call(service, session, "placeOrders", market_id, customer_ref,
                             ({"instruction": r.echo} for r in requests))
    if repeated is not None:
        return repeated
    stale = stale_version(service, market_id, params)
    if stale is not None:
        return execution_report(market_id, customer_ref, [failed({"instruction": r.echo}, "BET_TAKEN_OR_LAPSED", stale)
                                                          for r in requests], dependent=True)
    if [r for r in requests if r.problem is not None]:
        outcomes = [
            failed({"instruction": r.echo}, *r.problem)
            if r.problem
            else failed({"instruction": r.echo}, "RELATED_ACTION_FAILED", "another instruction failed")
            for r in requests
        ]
        return execution_report(market_id, customer_ref, outcomes, dependent=True)
    commands = []
    for r in requests:
        assert r.price is not None and r.size is not None
        commands.append(
            _new_place_order(
                ts=service.now(),
                account_id=session.account,
                market_id=market_id,
                selection_id=r.selection_id,
                side=r.side,
                price=r.price,
                size=r.size,
                customer_ref=r.customer_ref,
                strategy_ref=strategy_ref,
                fill_or_kill=r.fill_or_kill,
            )
        )
    refusal = _refused_atomically(service, requests, commands)
    if refusal is not None:
        return execution_report(market_id, customer_ref, refusal, dependent=True)
    outcomes = [
        place_report(service.execute(command), r.echo) for r, command in zip(requests, commands, strict=True)
    ]
    remember_call(service, session, "placeOrders", customer_ref, outcomes)
    if asynchronous:
        outcomes = [pending(o) for o in outcomes]
    return execution_report(market_id, customer_ref, outcomes, dependent=True)


def _crossed(requests: list[PlaceRequest]) -> list[PlaceRequest]:
    """``requests`` with ``INVALID_BACK_LAY_COMBINATION`` as the problem of each instruction that would match an
    earlier one of the same call: a lay on its runner at or above a back's price, or a back at or below a lay's
    (API-NG refuses such a call rather than match an account's bets with each other).

    >>> back = PlaceRequest({}, 1, Side.BACK, Decimal("3"), 200, None, None)
    >>> [r.problem for r in _crossed([back, dataclasses.replace(back, side=Side.LAY, price=Decimal("2.5"))])]
    [None, None]
    >>> _crossed([back, dataclasses.replace(back, side=Side.LAY, price=Decimal("4"))])[1].problem[0]
    'INVALID_BACK_LAY_COMBINATION'
    """
    lowest_back: dict[int, tuple[Decimal, int]] = {}  # per selection: the lowest back price so far, and where
    highest_lay: dict[int, tuple[Decimal, int]] = {}
    out: list[PlaceRequest] = []
    for i, r in enumerate(requests):
        price = r.price
        if price is not None:
            mine, theirs = (lowest_back, highest_lay) if r.side is Side.BACK else (highest_lay, lowest_back)
            crossing = theirs.get(r.selection_id)
            if crossing is not None and r.problem is None and (
                    crossing[0] >= price if r.side is Side.BACK else crossing[0] <= price):
                message = (f"instructions {crossing[1]} and {i} back and lay selection {r.selection_id} at "
                           f"overlapping prices: they would match each other")
                r = dataclasses.replace(r, problem=("INVALID_BACK_LAY_COMBINATION", message))
            best = mine.get(r.selection_id)
            if best is None or (price < best[0] if r.side is Side.BACK else price > best[0]):
                mine[r.selection_id] = (price, i)
        out.append(r)
    return out


def _refused_atomically(service: ExchangeService, requests: Sequence[PlaceRequest], commands: Sequence[PlaceOrder]
                        ) -> list[Outcome] | None:
    """Every instruction's outcome if the exchange would refuse one of several, else None.

    placeOrders is atomic in API-NG: if the exchange would refuse one instruction (counting the ones before it
    as placed), none is placed. A single instruction needs no separate check.
    """
    if len(commands) < 2:
        return None
    checks = service.exchange.check_places(commands)
    if all(rejection is None for rejection in checks):
        return None
    return [
        failed({"instruction": r.echo}, "RELATED_ACTION_FAILED", "another instruction failed")
        if rejection is None
        else failed({"instruction": r.echo}, rejection.code.value, rejection.message)
        for r, rejection in zip(requests, checks, strict=True)
    ]


#: What an asynchronous placement's report leaves out: Betfair gives no bet id and no match with it.
_NOT_YET_KNOWN = frozenset({"betId", "placedDate", "averagePriceMatched", "sizeMatched"})


def pending(outcome: Outcome) -> Outcome:
    """The report of an accepted instruction as an asynchronous ``placeOrders`` answers it: ``PENDING``, and no
    bet id nor match (both come on the order stream); a refused instruction's report is as it was.

    >>> pending(Outcome({"status": "SUCCESS", "betId": "7", "sizeMatched": 2.0, "orderStatus": "EXECUTABLE"})).report
    {'status': 'SUCCESS', 'orderStatus': 'PENDING'}
    """
    if outcome.error is not None:
        return outcome
    report = {k: v for k, v in outcome.report.items() if k not in _NOT_YET_KNOWN}
    return _new_outcome({**report, "orderStatus": "PENDING"})


def stale_version(service: ExchangeService, market_id: str, params: Mapping[str, Any]) -> str | None:
    """Why the orders lapse, if ``marketVersion.version`` is older than the market's version; else None.

    The version counts the market's material changes (each window opened or closed, a selection settled), so
    an order sent against a book of an earlier window lapses instead of meeting a market it did not see.
    """
    if params.get("marketVersion") is None:
        return None
    # an integer, or its digits as text (Betfair's own example sends it so)
    value = get_int(get_object(params, "marketVersion"), "version", where="marketVersion.")
    if value < 0:
        raise invalid_input(f"marketVersion.version must be a version listMarketBook gave, 0 or more, not {value}")
    current = service.market_version(market_id)
    if current > value:
        return f"the market is at version {current}, past the marketVersion {value} given: the order lapses"
    return None


# --- cancelOrders ----------------------------------------------------------------------------

#: The longest betId a call may give (ours are at most 18 digits; a marketId may be 64 characters).
MAX_BET_ID_LENGTH = 64


def parse_bet_id(raw: Mapping[str, Any], where: str) -> int | None:
    """A betId as API-NG sends it (a string of digits); None if it cannot be one of ours (its instruction fails
    with ``INVALID_BET_ID``). One longer than :data:`MAX_BET_ID_LENGTH` refuses the call: every report echoes it."""
    value = raw.get("betId")
    if value is None:
        raise invalid_input(f"{where}betId is required: the bet's id, a string of digits")
    if isinstance(value, bool) or not isinstance(value, str | int):  # (a whole number is read as its digits)
        raise invalid_input(f"{where}betId must be a string of digits, not {value!r:.40}")
    text = str(value)
    if len(text) > MAX_BET_ID_LENGTH:
        raise invalid_input(f"{where}betId is {len(text)} characters; a bet id is a string of digits, at most "
                            f"{MAX_BET_ID_LENGTH} characters")
    if not (text.isascii() and text.isdigit()) or len(text) > 18:  # "²" and "١" are digits to str.isdigit
        return None
    return int(text)


def no_such_bet(given: object, bet_id: int | None, where: str) -> str:
    """Why an instruction naming bet ``given`` (:func:`parse_bet_id`: ``bet_id``) fails ``INVALID_BET_ID``: it is no
    bet id at all, or none of the account's on the market (``where``)."""
    text = str(given)
    if bet_id is None and not (text.isascii() and text.isdigit()):
        return f"betId {text!r:.40} is not a bet id: a string of digits (as placeOrders gave it)"
    return f"no bet {text} of yours on {where}"


def cancel_report(instruction: JsonDict, events: Sequence[object]) -> Outcome:
    base: JsonDict = {"instruction": instruction}
    cancelled = 0
    when: int | None = None
    for event in events:
        if isinstance(event, OrderRejected):
            return failed(base, str(event.error_code), event.message)
        if isinstance(event, OrderCancelled):
            cancelled += event.size
            when = event.ts
    return Outcome(
        {"status": "SUCCESS", **base, "sizeCancelled": apiformat.money(cancelled), "cancelledDate": apiformat.iso(when)}
    )


def _cancel_one(service: ExchangeService, session: Session, market_id: str | None, bet_id: int | None,
                reduction: int | None, instruction: JsonDict) -> Outcome:
    base: JsonDict = {"instruction": instruction}
    refusal = unknown_market(service, market_id, base)
    if refusal is not None:
        return refusal
    if bet_id is None:  # no bet id of ours at all
        return failed(base, "INVALID_BET_ID", no_such_bet(instruction.get("betId"), bet_id, "this market"))
    # the exchange refuses a bet not the account's on the market (a recording files one it never had under it)
    command = CancelOrder(ts=service.now(), account_id=session.account, bet_id=bet_id, size_reduction=reduction,
                          market_id=market_id)
    return cancel_report(instruction, service.execute(command))


def _parse_cancel(item: Any, i: int) -> tuple[int | None, JsonDict, int | None, Outcome | None]:
    """``(bet id, instruction echo, sizeReduction, refusal)`` of one ``CancelInstruction``; a wrong type raises."""
    where = f"instructions[{i}]."
    if not isinstance(item, dict):
        raise invalid_input(f"instructions[{i}] must be an object")
    bet_id = parse_bet_id(item, where)
    instruction: JsonDict = {"betId": str(item["betId"])}
    if item.get("sizeReduction") is None:
        return bet_id, instruction, None, None
    raw_reduction = get_number(item, "sizeReduction", where=where)
    instruction["sizeReduction"] = raw_reduction
    try:
        reduction = to_minor(raw_reduction)
        if reduction <= 0:
            raise ValueError(f"sizeReduction {raw_reduction} must be positive")
    except ValueError as exc:
        return bet_id, instruction, None, failed({"instruction": instruction}, "INVALID_BET_SIZE", str(exc))
    return bet_id, instruction, reduction, None


async def cancel_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> JsonDict:
    market_id = get_opt_str(params, "marketId", max_len=MARKET_ID_MAX)
    customer_ref = get_opt_str(params, "customerRef", max_len=CUSTOMER_REF_MAX, one_line=True)
    raw = get_list(params, "instructions")
    if len(raw) > MAX_CHANGE_INSTRUCTIONS:
        return too_many(market_id, customer_ref, MAX_CHANGE_INSTRUCTIONS, len(raw))
    if not raw and params.get("instructions") is not None:  # an empty list is a bot's slip, not "cancel them all"
        raise invalid_input("instructions must hold at least one instruction; leave instructions out to cancel "
                            "every unmatched bet (of marketId, or of every market without it)")
    if raw and market_id is None:
        raise invalid_input("marketId is required when instructions are given")
    if not raw and market_id is not None and not service.knows_market(market_id):
        return refused_whole(market_id, customer_ref, "INVALID_MARKET_ID", f"market {market_id!r} does not exist")
    outcomes: list[Outcome] = []
    # every instruction is read before any is carried out: a malformed one refuses the call and changes nothing
    parsed = [_parse_cancel(item, i) for i, item in enumerate(raw)]
    echoes = [{"instruction": instruction} for _, instruction, *_ in parsed]
    twice = named_twice(market_id, customer_ref, [bet_id for bet_id, *_ in parsed], echoes)
    if twice is not None:
        return twice
    repeated = repeated_call(service, session, "cancelOrders", market_id, customer_ref, echoes)
    if repeated is not None:
        return repeated
    for bet_id, instruction, reduction, refusal in parsed:
        outcomes.append(refusal or _cancel_one(service, session, market_id, bet_id, reduction, instruction))
    if not raw:
        for view in service.orders(session.account):
            if view.size_remaining and (market_id is None or view.market_id == market_id):
                instruction = {"betId": str(view.bet_id)}
                outcomes.append(_cancel_one(service, session, view.market_id, view.bet_id, None, instruction))
    remember_call(service, session, "cancelOrders", customer_ref, outcomes)
    report = execution_report(market_id, customer_ref, outcomes, dependent=False)
    if not raw:  # as Betfair's: "the CancelInstruction report won't be returned for marketId level cancel instructions"
        report["instructionReports"] = []
    return report


