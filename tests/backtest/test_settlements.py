"""The settlements in the Parquet equal those recomputed from the fills: dead-heat rule, rounding, commission.

The oracle (:func:`settle_account`) follows the rule written in
:mod:`exchange.core.settlement` with :class:`~fractions.Fraction` arithmetic and
shares no code with it; :func:`test_rounding_pins_the_half_way_and_above_half_cases`
drives an :class:`~exchange.core.exchange.Exchange` through the cases the backtest's
seed does not reach (its fractional totals are all exact halves).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

import pytest

from exchange.core.commands import (
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SuspendMarket,
)
from exchange.core.events import MarketSettled, Matched, OrderPlaced
from exchange.core.exchange import Exchange
from exchange.core.ladder import PRICE_X100
from exchange.core.side import Side
from exchange.game.channels import get_channel
from tests.backtest.backtest_support import Run

HALF = Fraction(1, 2)


def exact_back_profit(size: int, odds: Fraction, won: bool, tied: int) -> Fraction:
    """A back of ``size`` at decimal ``odds``: ``size·(odds/tied − 1)`` on one of ``tied`` winners, else ``−size``."""
    return size * (odds / tied - 1) if won else Fraction(-size)


def round_half_down(x: Fraction) -> int:
    """The integer nearest ``x``, an exact half going down: ``ceil(x − 1/2)``."""
    return math.ceil(x - HALF)


def settle_account(exact: Mapping[int, Fraction]) -> dict[int, int]:
    """One account's bet profits (bet id -> minor units) from their exact P&Ls, settled at once.

    The account's exact total is rounded once, half down; each bet gets the
    floor of its exact P&L, and the units left go one each to the bets with the
    largest fractional parts, ties to the lower bet id.
    """
    profits = {bet: math.floor(x) for bet, x in exact.items()}
    left = round_half_down(sum(exact.values(), Fraction(0))) - sum(profits.values())
    by_remainder = sorted(exact, key=lambda bet: (-(exact[bet] - profits[bet]), bet))
    for bet in by_remainder[:left]:
        profits[bet] += 1
    return profits


def commission(gross: int, bps: int) -> int:
    """``floor(rate × max(0, gross))``."""
    return math.floor(Fraction(max(gross, 0) * bps, 10_000))


class Oracle:
    """Bet profits, account gross and commission, and the house's rounding, per market, from the fills.

    Bets are settled as if all at once at the river.  A bet settled early (its
    hand could no longer win or tie) loses exactly its stake or liability, an
    integer, so it neither moves an account's rounded total nor takes a unit in
    the split: settling it with the rest gives the same numbers.
    """

    def __init__(self, fills: list[dict], games: list[dict], bps: int) -> None:
        winners = {g["market_id"]: {int(w) for w in g["winners"].split(",")} for g in games}
        exact: dict[tuple[str, str], dict[int, Fraction]] = defaultdict(lambda: defaultdict(Fraction))
        for f in fills:
            if f["voided"]:
                continue
            market, tied = f["market_id"], winners[f["market_id"]]
            odds = Fraction(PRICE_X100[f["tick"]], 100)
            back = exact_back_profit(f["size"], odds, f["selection_id"] in tied, len(tied))
            exact[(market, f["back_account"])][f["back_bet_id"]] += back
            exact[(market, f["lay_account"])][f["lay_bet_id"]] -= back
        self.bets: dict[tuple[str, int], int] = {}
        self.accounts: dict[tuple[str, str], tuple[int, int]] = {}
        self.rounding: dict[str, int] = defaultdict(int)
        self.fractional = 0
        for (market, account), bets in exact.items():
            profits = settle_account(bets)
            self.bets.update({(market, bet): p for bet, p in profits.items()})
            gross = sum(profits.values())
            self.accounts[(market, account)] = (gross, commission(gross, bps))
            self.rounding[market] -= gross
            self.fractional += sum(bets.values(), Fraction(0)).denominator != 1


def test_the_oracle_rounds_half_down_and_splits_by_largest_remainder() -> None:
    assert [round_half_down(Fraction(n, 10)) for n in (-16, -15, -14, 14, 15, 16)] == [-2, -2, -1, 1, 1, 2]
    three_halves = {7: Fraction(3, 2), 3: Fraction(3, 2), 5: Fraction(3, 2)}
    assert settle_account(three_halves) == {3: 2, 5: 1, 7: 1}
    assert settle_account({1: Fraction(-3, 2), 2: Fraction(-3, 2)}) == {1: -1, 2: -2}
    assert settle_account({1: Fraction(13, 10), 2: Fraction(17, 10), 3: Fraction(-4)}) == {1: 1, 2: 2, 3: -4}


def test_settlement_rows_match_a_recomputation_from_the_fills(small_run: Run) -> None:
    tables = small_run.result.tables
    fills, games = tables["fills"].to_pylist(), tables["games"].to_pylist()
    assert {g["status"] for g in games} == {"SETTLED"}, "the oracle knows settled markets only"
    oracle = Oracle(fills, games, get_channel("holdem").commission_bps)
    seen = 0
    for row in tables["settlements"].to_pylist():
        key = (row["market_id"], row["account"])
        assert (row["gross_profit"], row["commission"]) == oracle.accounts.get(key, (0, 0)), row
        assert row["net_profit"] == row["gross_profit"] - row["commission"]
        if row["account"] == "HOUSE":
            assert row["rounding_received"] == oracle.rounding[row["market_id"]], row
        seen += key in oracle.accounts
    assert seen == len(oracle.accounts)
    dead_heat_markets = {g["market_id"] for g in games if g["dead_heat"]}
    assert any(f["market_id"] in dead_heat_markets for f in fills), "no fill in a dead-heat market"
    assert oracle.fractional, "no account's exact total has a fraction of a penny: rounding is not exercised"


def test_bet_profits_match_the_oracles_split(small_run: Run) -> None:
    tables = small_run.result.tables
    oracle = Oracle(tables["fills"].to_pylist(), tables["games"].to_pylist(), get_channel("holdem").commission_bps)
    profits = {(o["market_id"], o["bet_id"]): o["profit"] for o in tables["orders"].to_pylist() if o["size_matched"]}
    assert profits == oracle.bets


def _dead_heat(backs: list[int]) -> MarketSettled:
    """alice backs each stake in ``backs`` at 2.02 on hand 1, bob lays it; hands 1 and 2 dead-heat."""
    ex = Exchange()
    setup = [OpenAccount(0, "alice"), Deposit(0, "alice", 100_000), OpenAccount(0, "bob"), Deposit(0, "bob", 100_000)]
    for cmd in (*setup, CreateMarket(0, "1.1", (1, 2, 3, 4)), OpenMarket(1, "1.1")):
        ex.execute(cmd)
    for ts, stake in enumerate(backs, start=2):
        placed = ex.execute(PlaceOrder(ts, "alice", "1.1", 1, Side.BACK, Decimal("2.02"), stake))
        assert [type(e) for e in placed] == [OrderPlaced], placed
        matched = ex.execute(PlaceOrder(ts, "bob", "1.1", 1, Side.LAY, Decimal("2.02"), stake))
        assert [type(e) for e in matched] == [OrderPlaced, Matched], matched
    ex.execute(SuspendMarket(100, "1.1"))
    settled = [e for e in ex.execute(SettleMarket(101, "1.1", winners=(1, 2))) if isinstance(e, MarketSettled)]
    ex._check()
    return settled[0]


@pytest.mark.parametrize(
    ("stake", "alice", "bob", "house"),
    [
        # 2.50 at 2.02 on one of two winners wins exactly 2.5p: floor and half-down give alice 2,
        # half-up 3; bob's -2.5p goes to -3 (half-up: -2); the house takes the 1p between them.
        (250, 2, -3, 1),
        # 2.60 wins 2.6p: above half, alice gets 3 (floor: 2); bob -3; nothing left over.
        (260, 3, -3, 0),
        # 2.40 wins 2.4p: below half, alice gets 2 (half-up too); bob's -2.4p goes to -2 (floor: -3).
        (240, 2, -2, 0),
    ],
)
def test_rounding_pins_the_half_way_and_above_half_cases(stake: int, alice: int, bob: int, house: int) -> None:
    exact = exact_back_profit(stake, Fraction(202, 100), True, 2)
    assert exact == Fraction(stake, 100)  # x.5, x.6 and x.4 pennies
    settled = _dead_heat([stake])
    assert {a.account_id: a.profit for a in settled.accounts} == {"alice": alice, "bob": bob}
    assert settled.rounding == house
    assert settle_account({1: exact}) == {1: alice}
    assert settle_account({2: -exact}) == {2: bob}


def test_a_rounded_total_is_split_over_bets_by_largest_remainder() -> None:
    # three 2.50 backs at 2.02, 2.5p each: alice's 7.5p rounds to 7 and bob's -7.5p to -8; each bet
    # gets its floor (2 or -3) and the one unit left goes to the lowest bet id of the tied remainders.
    settled = _dead_heat([250, 250, 250])
    by_account: dict[str, dict[int, int]] = defaultdict(dict)
    for bet in settled.bets:
        by_account[bet.account_id][bet.bet_id] = bet.profit
    alice, bob = sorted(by_account["alice"]), sorted(by_account["bob"])
    assert [by_account["alice"][b] for b in alice] == [3, 2, 2]
    assert [by_account["bob"][b] for b in bob] == [-2, -3, -3]
    assert settled.rounding == 1
    assert settle_account(dict.fromkeys(alice, Fraction(5, 2))) == by_account["alice"]
    assert settle_account(dict.fromkeys(bob, Fraction(-5, 2))) == by_account["bob"]


def test_every_account_has_a_row_in_every_market_and_money_is_conserved(small_run: Run) -> None:
    rows = small_run.result.tables["settlements"].to_pylist()
    by_market: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_market[row["market_id"]].append(row)
    accounts = {tuple(sorted(r["account"] for r in market)) for market in by_market.values()}
    assert accounts == {("HOUSE", "house-maker", "house-noise-1", "strategy")}
    for market in by_market.values():
        house = next(r for r in market if r["account"] == "HOUSE")
        assert house["commission_received"] == sum(r["commission"] for r in market)
        # every penny: traders' P&L plus the house's rounding residue is zero
        assert sum(r["gross_profit"] for r in market) + house["rounding_received"] == 0
        assert sum(r["net_profit"] + r["commission_received"] + r["rounding_received"] for r in market) == 0


def test_orders_agree_with_fills(small_run: Run) -> None:
    tables = small_run.result.tables
    matched: dict[tuple[str, int], int] = defaultdict(int)
    for f in tables["fills"].to_pylist():
        if not f["voided"]:
            matched[(f["market_id"], f["back_bet_id"])] += f["size"]
            matched[(f["market_id"], f["lay_bet_id"])] += f["size"]
    for o in tables["orders"].to_pylist():
        if o["status"] == "REJECTED":
            continue
        assert o["size_matched"] == matched.get((o["market_id"], o["bet_id"]), 0), o
        assert o["size_matched"] + o["size_lapsed"] + o["size_cancelled"] + o["size_voided"] == o["size"], o
        if o["size_matched"]:
            assert o["status"] == "SETTLED" and o["profit"] is not None


def test_bet_profits_add_up_to_each_accounts_gross(small_run: Run) -> None:
    tables = small_run.result.tables
    total: dict[tuple[str, str], int] = defaultdict(int)
    for o in tables["orders"].to_pylist():
        if o["profit"] is not None:
            total[(o["market_id"], o["account"])] += o["profit"]
    for row in tables["settlements"].to_pylist():
        assert row["gross_profit"] == total.get((row["market_id"], row["account"]), 0), row
