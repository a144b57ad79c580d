"""API-NG ``updateOrders``: change an unmatched bet's persistence type.

This exchange offers one persistence: every unmatched bet lapses when its
betting window closes (``LAPSE``). So an update to ``LAPSE`` of a live bet has
nothing to do (``NO_ACTION_REQUIRED``), ``PERSIST`` and ``MARKET_ON_CLOSE`` are
refused with ``INVALID_PERSISTENCE_TYPE``, a bet that is not the caller's on
that market with ``INVALID_BET_ID`` (``INVALID_MARKET_ID`` if there is no such
market), and one with nothing unmatched left with ``BET_TAKEN_OR_LAPSED`` — each
per instruction, as Betfair reports them. Nothing changes, so nothing is
journaled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exchange.server.auth import Session
from exchange.server.betting import (
    MAX_CHANGE_INSTRUCTIONS,
    Outcome,
    execution_report,
    failed,
    no_such_bet,
    order_call,
    parse_bet_id,
    unknown_market,
)
from exchange.server.errors import invalid_input
from exchange.server.params import get_enum
from exchange.server.service import ExchangeService

PERSISTENCE = ("LAPSE", "PERSIST", "MARKET_ON_CLOSE")


def _update_one(service: ExchangeService, session: Session, market_id: str, raw: Any, i: int) -> Outcome:
    if not isinstance(raw, dict):
        raise invalid_input(f"instructions[{i}] must be an object")
    where = f"instructions[{i}]."
    bet_id = parse_bet_id(raw, where)
    persistence = get_enum(raw, "newPersistenceType", PERSISTENCE, where=where)
    base = {"instruction": {"betId": str(raw["betId"]), "newPersistenceType": persistence}}
    refusal = unknown_market(service, market_id, base)
    if refusal is not None:
        return refusal
    view = service.order(session.account, bet_id) if bet_id is not None else None
    if view is None or view.market_id != market_id:
        return failed(base, "INVALID_BET_ID", no_such_bet(raw["betId"], bet_id, f"market {market_id}"))
    if not view.size_remaining:
        return failed(base, "BET_TAKEN_OR_LAPSED", f"bet {view.bet_id} has nothing unmatched to update")
    if persistence != "LAPSE":
        return failed(base, "INVALID_PERSISTENCE_TYPE",
                       f"{persistence} is not offered: unmatched bets lapse when the window closes (LAPSE)")
    return failed(base, "NO_ACTION_REQUIRED", f"bet {view.bet_id} is already LAPSE")


async def update_orders(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> dict[str, Any]:
    market_id, customer_ref, raw, too_many_report = order_call(params, MAX_CHANGE_INSTRUCTIONS)
    if too_many_report is not None:
        return too_many_report
    outcomes = [_update_one(service, session, market_id, item, i) for i, item in enumerate(raw)]
    return execution_report(market_id, customer_ref, outcomes, dependent=False)
