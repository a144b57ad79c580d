"""Dead heats of every size on markets of two to five selections (a Low market has five: Hand 1-4 and No low),
odd-penny stakes, selections settled early, accounts that win on one selection and lose on another: settlement
against an exact oracle in ``Fraction`` that shares no code with it.

For every account: its net is its exact dead-heat P&L over the whole market rounded once to the nearest penny
(an exact half down); its bets' profits add up to it; commission is ``floor(rate × net)`` on a positive net;
its balance moves by net less commission. The house takes every commission and the rounding residue, so the
market conserves money to the penny. A void instead refunds every bet not settled early, to the penny.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st

from exchange.core import ladder
from exchange.core.commands import (
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
)
from exchange.core.events import MarketSettled, MarketVoided
from exchange.core.exchange import Exchange
from exchange.core.side import Side

ACCOUNTS = ("a", "b", "c")
HOUSE = "HOUSE"
BPS = 250
START = 10**9  # covers eight lays at 1000 of the largest stake (about 4 * 10**7 of liability)

bet = st.tuples(st.integers(0, 4), st.integers(0, 2), st.integers(0, 2), st.integers(0, len(ladder.PRICES) - 1),
                st.integers(200, 5_001))


def _exact(price: Fraction, stake: int, back: bool, won: bool, n: int) -> Fraction:
    """A bet's exact P&L: at odds ``price / n`` on a tied winner, the stake lost (or won, laying) otherwise."""
    pnl = stake * (price / n - 1) if won else Fraction(-stake)
    return pnl if back else -pnl


def _round_half_down(value: Fraction) -> int:
    return math.ceil(value - Fraction(1, 2))


def _market(selections: int, bets: list[tuple[int, int, int, int, int]]) -> tuple[Exchange, list[tuple[str, int,
                                                                                                         bool, Fraction,
                                                                                                         int]]]:
    """An exchange with one open market of ``selections`` and the matched bets ``(account, selection, back, price,
    stake)``: each a back of one account against a lay of another at one price."""
    ex = Exchange()
    for name in ACCOUNTS:
        ex.execute(OpenAccount(0, name))
        ex.execute(Deposit(0, name, START))
    ex.execute(CreateMarket(0, "m", tuple(range(1, selections + 1)), None, BPS))
    ex.execute(OpenMarket(0, "m"))
    matched = []
    for sel, backer, layer, tick, stake in bets:
        if backer == layer:
            layer = (layer + 1) % len(ACCOUNTS)
        selection = 1 + sel % selections
        price = ladder.PRICES[tick]
        ex.execute(PlaceOrder(1, ACCOUNTS[layer], "m", selection, Side.LAY, price, stake))
        ex.execute(PlaceOrder(1, ACCOUNTS[backer], "m", selection, Side.BACK, price, stake))
        for o in ex.current_orders(ACCOUNTS[backer], "m"):
            assert o.size_remaining == 0, "every back is matched in full against its lay"
        exact_price = Fraction(price)
        matched += [(ACCOUNTS[backer], selection, True, exact_price, stake),
                    (ACCOUNTS[layer], selection, False, exact_price, stake)]
    ex._check()
    return ex, matched


@settings(max_examples=120, deadline=None)
@given(selections=st.integers(2, 5), bets=st.lists(bet, min_size=1, max_size=8), early=st.integers(0, 3),
       winners_mask=st.integers(1, 31), void=st.booleans())
@example(selections=2, bets=[(0, 0, 1, len(ladder.PRICES) - 1, 5_001)] * 8, early=0, winners_mask=2, void=False)
def test_dead_heats_round_once_charge_commission_on_net_and_conserve_money(
        selections: int, bets: list[tuple[int, int, int, int, int]], early: int, winners_mask: int, void: bool) -> None:
    ex, matched = _market(selections, bets)
    ex.execute(SuspendMarket(2, "m"))
    losers = list(range(1, selections + 1))[: min(early, selections - 2)]  # settled early, two left at least
    for selection in losers:
        ex.execute(SettleSelection(3, "m", selection))
    live = [s for s in range(1, selections + 1) if s not in losers]
    winners = tuple(s for i, s in enumerate(live) if winners_mask >> i & 1) or (live[0],)
    before = {name: ex.accounts[name].balance for name in (*ACCOUNTS, HOUSE)}
    events = ex.execute(VoidMarket(4, "m") if void else SettleMarket(4, "m", winners))
    ex._check()
    final = events[-1]
    assert isinstance(final, MarketVoided if void else MarketSettled)
    n = len(winners)
    for name in ACCOUNTS:
        if void:  # only the bets on the selections settled early count
            exact = sum((_exact(p, s, back, False, 1) for who, sel, back, p, s in matched
                         if who == name and sel in losers), Fraction(0))
        else:
            exact = sum((_exact(p, s, back, sel in winners, n) for who, sel, back, p, s in matched if who == name),
                        Fraction(0))
        net = _round_half_down(exact)
        commission = net * BPS // 10_000 if net > 0 else 0
        result = {a.account_id: a for a in final.accounts}.get(name)
        got = (result.profit, result.commission) if result is not None else (0, 0)
        assert got == (net, commission), (name, exact)
        assert ex.accounts[name].balance - before[name] == net - commission, name
        assert ex.accounts[name].exposure() == 0, name
        cleared = ex.cleared_orders(name, "m")
        assert sum(o.profit for o in cleared) == net, name  # the bets' profits add up to the account's net
    total = sum(ex.accounts[name].balance - before[name] for name in (*ACCOUNTS, HOUSE))
    assert total == 0, "money is conserved to the penny"
    commissions = sum(a.commission for a in final.accounts)
    rounding = final.rounding if isinstance(final, MarketSettled) else 0
    assert ex.accounts[HOUSE].balance - before[HOUSE] == commissions + rounding
