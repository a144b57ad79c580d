"""Backtests on the new channels: a hi/lo game's two markets and a draw game's cards in the Parquet tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.game.channels import CHANNELS
from tests.backtest.backtest_support import ROOT


def backtest(channel: str, games: int, out: Path) -> dict[str, list[dict[str, Any]]]:
    strategy = StrategySpec.parse(f"{ROOT / 'scripts/market_maker.py'}:MarketMaker", "{}")
    config = BacktestConfig(strategy=strategy, games=games, seed=4, channel=channel, record_streams=False)
    with InlineExecutor() as executor:
        run_backtest(config, executor, out)
    return {name: pq.read_table(out / f"{name}.parquet").to_pylist() for name in ("games", "orders", "settlements")}


def test_a_hilo_backtest_writes_both_markets(tmp_path: Path) -> None:
    tables = backtest("stud7-hilo", 3, tmp_path)
    games = tables["games"]
    assert [g["low_market_id"] for g in games] == [f"stud7-hilo.{i}-low" for i in range(3)]
    assert all(g["low_winners"] for g in games)
    assert all(isinstance(g["hand_1"], str) and len(g["hand_1"].split()) == 7 for g in games)
    markets = {g["market_id"] for g in games} | {g["low_market_id"] for g in games}
    rows = tables["settlements"]
    accounts = {r["account"] for r in rows}
    assert {(r["market_id"], r["account"]) for r in rows} == {(m, a) for m in markets for a in accounts}
    for market in markets:
        mine = [r for r in rows if r["market_id"] == market]
        assert sum(r["gross_profit"] + r["rounding_received"] for r in mine) == 0
    assert {o["market_id"] for o in tables["orders"]} == markets  # the house quoted both markets of every game
    # A strategy that names no markets trades the main (High) market only, as it always has.
    assert {o["market_id"] for o in tables["orders"] if o["account"] == "strategy"} == {g["market_id"] for g in games}


def test_a_draw_backtest_writes_the_dealt_discarded_and_drawn_cards(tmp_path: Path) -> None:
    games = backtest("triple-draw-27", 2, tmp_path)["games"]
    for g in games:
        for hand in range(1, CHANNELS["triple-draw-27"].hands + 1):
            dealt, held = str(g[f"dealt_{hand}"]).split(), str(g[f"hand_{hand}"]).split()
            thrown = str(g[f"discarded_{hand}"]).split(" / ")
            drawn = str(g[f"drawn_{hand}"]).split(" / ")
            assert len(dealt) == len(held) == 5 and len(thrown) == len(drawn) == 3
            assert [len(t.split()) for t in thrown if t != "-"] == [len(d.split()) for d in drawn if d != "-"]


def test_the_example_market_maker_never_matches_its_own_quotes(tmp_path: Path) -> None:
    """Fair odds exactly on a tick put its lay and its back at one price, where they matched each other: about a
    quarter of its matched volume was with itself (and counted twice). Its back now goes a tick higher there."""
    backtest("holdem", 40, tmp_path)
    fills = pq.read_table(tmp_path / "fills.parquet").to_pylist()
    mine = [f for f in fills if "strategy" in (f["back_account"], f["lay_account"])]
    assert mine and not [f for f in mine if f["back_account"] == f["lay_account"]]
