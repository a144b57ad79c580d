"""The settlements in the Parquet equal those recomputed from the fills: dead-heat rule, rounding, commission."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from backtest_support import Run

from exchange.core.ladder import PRICE_X100
from exchange.game.channels import get_channel


def recompute(fills: list[dict], games: list[dict], bps: int) -> dict[tuple[str, str], tuple[int, int]]:
    """``(market, account) -> (gross, commission)`` from first principles.

    A back of stake S at decimal odds O on a winner among n tied hands wins
    S·(O/n − 1); on a loser it loses S; a lay is the mirror. Each account's
    exact market total is floored to the penny; commission is the floor of
    ``rate × max(0, total)``.
    """
    winners = {g["market_id"]: {int(w) for w in g["winners"].split(",")} for g in games}
    exact: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
    for f in fills:
        if f["voided"]:
            continue
        tied = winners[f["market_id"]]
        odds = Fraction(PRICE_X100[f["tick"]], 100)
        size = f["size"]
        back = size * (odds / len(tied) - 1) if f["selection_id"] in tied else Fraction(-size)
        exact[(f["market_id"], f["back_account"])] += back
        exact[(f["market_id"], f["lay_account"])] -= back
    out = {}
    for key, value in exact.items():
        gross = value.numerator // value.denominator
        out[key] = (gross, max(gross, 0) * bps // 10_000)
    return out


def test_settlement_rows_match_a_recomputation_from_the_fills(small_run: Run) -> None:
    tables = small_run.result.tables
    fills, games = tables["fills"].to_pylist(), tables["games"].to_pylist()
    expected = recompute(fills, games, get_channel("holdem").commission_bps)
    seen = 0
    for row in tables["settlements"].to_pylist():
        gross, commission = expected.get((row["market_id"], row["account"]), (0, 0))
        assert (row["gross_profit"], row["commission"]) == (gross, commission), row
        assert row["net_profit"] == row["gross_profit"] - row["commission"]
        seen += (row["market_id"], row["account"]) in expected
    assert seen == len(expected)
    dead_heat_markets = {g["market_id"] for g in games if g["dead_heat"]}
    assert any(f["market_id"] in dead_heat_markets for f in fills), "no fill in a dead-heat market"


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
