"""The Betfair stream recordings: betfairlightweight reads them, flumine backtests over them."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import Run

from exchange.backtest.recorder import EVENT_TYPE_ID


def market_books(path: Path) -> list[Any]:
    betfairlightweight = pytest.importorskip("betfairlightweight")
    trading = betfairlightweight.APIClient("username", "password", app_key="app-key")
    listener = betfairlightweight.StreamListener(max_latency=None)
    stream = trading.streaming.create_historical_generator_stream(file_path=str(path), listener=listener)
    return [book for books in stream.get_generator()() for book in books]


def test_every_line_is_an_mcm_with_clk_pt_and_a_full_first_image(small_run: Run) -> None:
    path = small_run.out / "streams" / "holdem.0"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(m["op"] == "mcm" and isinstance(m["clk"], str) and isinstance(m["pt"], int) for m in lines)
    assert [m["pt"] for m in lines] == sorted(m["pt"] for m in lines)
    first = lines[0]["mc"][0]
    assert first["img"] is True and first["id"] == "holdem.0"
    definition = first["marketDefinition"]
    assert definition["status"] == "OPEN" and definition["bettingType"] == "ODDS"
    assert [r["id"] for r in definition["runners"]] == [1, 2, 3, 4]
    assert {r["sortPriority"] for r in definition["runners"]} == {1, 2, 3, 4}
    assert all({"id", "atb", "atl", "tv"} <= rc.keys() for rc in first["rc"])
    versions = [m["mc"][0]["marketDefinition"]["version"] for m in lines if "marketDefinition" in m["mc"][0]]
    assert versions == list(range(1, len(versions) + 1))
    assert lines[-1]["mc"][0]["marketDefinition"]["status"] == "CLOSED"


def test_betfairlightweight_rebuilds_each_market_as_it_ended(small_run: Run) -> None:
    tables = small_run.result.tables
    traded: dict[tuple[str, int], int] = defaultdict(int)
    for f in tables["fills"].to_pylist():
        traded[(f["market_id"], f["selection_id"])] += f["size"]
    for game in tables["games"].to_pylist():
        books = market_books(small_run.out / "streams" / game["market_id"])
        statuses = [b.status for b in books]
        assert statuses[0] == "OPEN" and statuses[-1] == "CLOSED" and "SUSPENDED" in statuses
        final = books[-1]
        definition = final.market_definition
        assert definition.market_type == "WIN" and definition.number_of_winners == 1
        assert definition.event_type_id == EVENT_TYPE_ID and definition.betting_type == "ODDS"
        winners = {int(w) for w in game["winners"].split(",")}
        for runner in final.runners:
            assert runner.status == ("WINNER" if runner.selection_id in winners else "LOSER")
            expected = traded.get((game["market_id"], runner.selection_id), 0)
            assert round(runner.total_matched * 100) == expected
        assert round(final.total_matched * 100) == game["total_matched"]
        assert any(b.inplay for b in books) and not books[0].inplay


def test_a_flumine_backtest_replays_the_recorded_markets(small_run: Run) -> None:
    """Back one hand in each market through flumine's own simulation; it settles them by our dead-heat rule."""
    flumine = pytest.importorskip("flumine")
    from flumine.order.ordertype import LimitOrder
    from flumine.order.trade import Trade
    from flumine.streams.betfairhistoricalstream import BetfairHistoricalStream

    games = {g["market_id"]: g for g in small_run.result.tables["games"].to_pylist()}

    class BackAWinner(flumine.BaseStrategy):  # type: ignore[misc,name-defined]
        """Back the first listed winner at the first price offered (so dead heats are exercised)."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.books = 0
            self.closed: dict[str, list[tuple[int, float, float, float, str]]] = {}

        def check_market_book(self, market: Any, market_book: Any) -> bool:
            self.books += 1
            return bool(market_book.status == "OPEN")

        def process_market_book(self, market: Any, market_book: Any) -> None:
            if market.blotter.strategy_orders(self):
                return
            hand = int(games[market.market_id]["winners"].split(",")[0])
            runner = next(r for r in market_book.runners if r.selection_id == hand)
            if runner.status == "ACTIVE" and runner.ex.available_to_back:
                price = runner.ex.available_to_back[0]["price"]
                trade = Trade(market_book.market_id, runner.selection_id, runner.handicap, self)
                market.place_order(trade.create_order(side="BACK", order_type=LimitOrder(price, 2.0)))

        def process_closed_market(self, market: Any, market_book: Any) -> None:
            self.closed[market.market_id] = [
                (o.selection_id, o.size_matched, o.average_price_matched, o.simulated.profit, o.runner_status)
                for o in market.blotter
            ]

    files = sorted(str(p) for p in (small_run.out / "streams").iterdir())
    assert len(files) == len(games)
    framework = flumine.FlumineSimulation(client=flumine.clients.SimulatedClient())
    strategy = BackAWinner(
        streams=[BetfairHistoricalStream(file_path=f) for f in files],
        max_order_exposure=100,
        max_selection_exposure=100,
    )
    framework.add_strategy(strategy)
    framework.run()

    assert strategy.books > len(files) * 4
    assert set(strategy.closed) == set(games)
    dead_heats = 0
    for market_id, orders in strategy.closed.items():
        tied = len(games[market_id]["winners"].split(","))
        for _, matched, price, profit, status in orders:
            assert status == "WINNER"
            if matched:
                exact = Fraction(str(matched)) * (Fraction(str(price)) / tied - 1)
                assert abs(Fraction(str(profit)) - exact) < Fraction(1, 100)
                dead_heats += tied > 1
    assert dead_heats, "flumine should have settled at least one dead heat"
