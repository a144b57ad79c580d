"""API-NG ``listMarketProfitAndLoss``: the caller's P&L on each open market if each selection wins.

For every matched bet at its exact average price ``p`` and matched stake ``s``:
a back wins ``s × (p - 1)`` if its selection wins and loses ``s`` otherwise; a
lay the reverse. ``ifWin`` of a selection is the sum over the account's bets on
the market, assuming that selection wins alone (a dead heat would share it).

* ``includeSettledBets`` (default false): also count the bets on selections
  already settled (a hand that can no longer win is settled early, as a loser),
  each at the result it was settled at, whichever selection wins: its own
  selection can no longer win it anything.
* ``includeBspBets``: no market here is a BSP market, so there are none to add.
* ``netOfCommission`` (default false): less the commission settlement would
  charge if that selection won, ``floor(net × rate)`` on the account's positive
  net over the *whole* market, settled bets included whether shown or not
  (:func:`exchange.core.settlement.commission`), with ``commissionApplied``.

Markets that are closed, unknown, or where the account has no bet are left out,
as Betfair does. Values are rounded to the penny as settlement rounds an account's exact result (an exact
half penny down), so ``ifWin`` is what the account is paid if that selection wins alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from exchange.betfair import apiformat
from exchange.core.market import SelectionStatus
from exchange.core.settlement import commission, round_half_down
from exchange.core.side import Side
from exchange.server.auth import Session
from exchange.server.errors import invalid_input
from exchange.server.limits import PROFIT_AND_LOSS_WEIGHT, check_weight
from exchange.server.params import get_bool, get_str_list
from exchange.server.service import ExchangeService

JsonDict = dict[str, Any]


def if_win(bets: list[tuple[int, Side, Fraction, int]], selection_ids: tuple[int, ...]) -> dict[int, Fraction]:
    """Exact P&L (minor units) per winning selection from ``(selection, side, average price, matched)`` bets.

    >>> if_win([(1, Side.BACK, Fraction(3), 200), (2, Side.LAY, Fraction(5, 2), 100)], (1, 2))
    {1: Fraction(500, 1), 2: Fraction(-350, 1)}
    """
    out = dict.fromkeys(selection_ids, Fraction(0))
    for selection, side, price, matched in bets:
        win, lose = matched * (price - 1), Fraction(matched)
        if side is Side.LAY:
            win, lose = -win, -lose
        for sid in selection_ids:
            out[sid] += win if sid == selection else -lose
    return out


def settled_result(side: Side, matched: int) -> int:
    """The fixed result of a bet on a selection settled early, which lost: a back loses its stake, a lay wins it.

    >>> settled_result(Side.BACK, 500), settled_result(Side.LAY, 500)
    (-500, 500)
    """
    return -matched if side is Side.BACK else matched


def _pennies(value: Fraction) -> int:
    """Round to the penny as settlement rounds an account's result on a market: to the nearest, a half down.

    >>> _pennies(Fraction(5, 2)), _pennies(Fraction(-5, 2)), _pennies(Fraction(7, 3))
    (2, -3, 2)
    """
    return round_half_down(value.numerator, value.denominator)


async def list_market_profit_and_loss(service: ExchangeService, session: Session, params: Mapping[str, Any]
                                      ) -> list[JsonDict]:
    market_ids = get_str_list(params, "marketIds", max_items=None)  # the weight bounds them: TOO_MUCH_DATA
    if not market_ids:
        raise invalid_input("marketIds is required (a list of market ids)")
    check_weight("listMarketProfitAndLoss", PROFIT_AND_LOSS_WEIGHT, len(set(market_ids)), "")
    include_settled = get_bool(params, "includeSettledBets", default=False)
    get_bool(params, "includeBspBets", default=False)  # there are no BSP bets to include
    net = get_bool(params, "netOfCommission", default=False)
    out = []
    for market_id in dict.fromkeys(market_ids):
        statuses = service.exchange.selection_statuses(market_id)
        market = service.exchange.open_markets.get(market_id)
        if statuses is None or market is None:
            continue
        mine = service.exchange.current_orders(session.account, market_id)
        if not mine:
            continue
        settled = {sid for sid, status in zip(market.selection_ids, statuses, strict=True)
                   if status is not SelectionStatus.IN_PLAY}
        in_play = [(o.selection_id, o.side, o.average_price_matched or Fraction(0), o.size_matched) for o in mine
                   if o.size_matched and o.selection_id not in settled]
        fixed = sum(settled_result(o.side, o.size_matched) for o in mine if o.selection_id in settled)
        open_part = {sid: _pennies(value) for sid, value in if_win(in_play, market.selection_ids).items()}
        whole = {sid: value + fixed for sid, value in open_part.items()}
        pnl = whole if include_settled else open_part
        if net:
            pnl = {sid: value - commission(whole[sid], market.commission_bps) for sid, value in pnl.items()}
        entry: JsonDict = {"marketId": market_id, "profitAndLosses": [
            {"selectionId": sid, "ifWin": apiformat.money(value)} for sid, value in pnl.items()]}
        if net:
            entry["commissionApplied"] = market.commission_bps / 100
        out.append(entry)
    return out
