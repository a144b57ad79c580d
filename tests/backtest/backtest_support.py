"""Shared helpers of the backtester's tests (fixtures live in conftest.py)."""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import engine
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, BacktestResult
from exchange.tables.outputs import TABLES, read_tables

ROOT = Path(__file__).resolve().parents[2]
#: Seed 1 deals dead heats in games 0, 4 and 8: the dead-heat rule is exercised in every run.
SEED = 1
GAMES = 10


@dataclass(frozen=True)
class Run:
    config: BacktestConfig
    result: BacktestResult
    out: Path


#: A strategy's source (class ``BothMarkets``) that trades every market of a game, a hi/lo game's Low market too:
#: a back of 3.00 at each live hand's fair odds as each window opens, and a lay beside it unless ``lay`` is false.
BOTH_MARKETS = """
from exchange.backtest.strategy import ALL_MARKETS, Strategy
from exchange.core import ladder
from exchange.core.side import Side


class BothMarkets(Strategy):
    markets = ALL_MARKETS

    def __init__(self, *, lay=True, **kwargs):
        super().__init__(**kwargs)
        self.lay = lay

    def on_window_open(self, market, round):
        for hand in market.view.live_hands:
            if hand.fair_odds is not None and (tick := ladder.tick_at_or_above(hand.fair_odds)) is not None:
                market.place_order(hand.hand, Side.BACK, ladder.price(tick), 300)
                if self.lay:
                    market.place_order(hand.hand, Side.LAY, ladder.price(tick), 300)
"""


def small_config(reference: str = "scripts/market_maker.py:MarketMaker", params: str = "{}") -> BacktestConfig:
    path, name = reference.split(":")
    return BacktestConfig(strategy=StrategySpec.parse(f"{ROOT / path}:{name}", params), games=GAMES, seed=SEED)


#: The session backtest: three sessions of five games of the fixed-fraction example from 100.00, staking
#: a tenth of its bankroll; with seed 1 session 1 hits its 25 % drawdown limit after four games.
SESSIONS, GAMES_PER_SESSION, SESSION_BALANCE = 3, 5, 10_000
FRACTION_PARAMS = '{"fraction": "0.1", "max_drawdown": "0.25"}'


def session_config(reference: str = "scripts/fixed_fraction.py:FixedFraction", params: str = FRACTION_PARAMS,
                   **changes: Any) -> BacktestConfig:  # fmt: skip
    path, name = reference.split(":")
    settings: dict[str, Any] = {"games": SESSIONS * GAMES_PER_SESSION, "games_per_session": GAMES_PER_SESSION,
                                "seed": SEED, "balance": SESSION_BALANCE, **changes}  # fmt: skip
    return BacktestConfig(strategy=StrategySpec.parse(f"{ROOT / path}:{name}", params), **settings)


def assert_same_outputs(a: Path, b: Path) -> None:
    """Two backtest output directories hold the same tables and stream files, byte for byte."""
    left, right = read_tables(a), read_tables(b)
    for name in TABLES:
        assert left[name].num_rows > 0 or name == "irregularities", name  # the small run deals cleanly
        assert left[name].equals(right[name]), f"{name}.parquet differs"
        assert (a / TABLES[name].file_name).read_bytes() == (b / TABLES[name].file_name).read_bytes(), name
    streams_a = sorted(p.name for p in (a / "streams").iterdir())
    assert streams_a == sorted(p.name for p in (b / "streams").iterdir())
    for name in streams_a:
        assert (a / "streams" / name).read_bytes() == (b / "streams" / name).read_bytes(), name


def market_books(path: Path) -> list[Any]:
    """The market books betfairlightweight's historical stream rebuilds from the stream file at ``path``."""
    betfairlightweight = pytest.importorskip("betfairlightweight")
    trading = betfairlightweight.APIClient("username", "password", app_key="app-key")
    listener = betfairlightweight.StreamListener(max_latency=None)
    stream = trading.streaming.create_historical_generator_stream(file_path=str(path), listener=listener)
    return [book for books in stream.get_generator()() for book in books]


def flumine_backs_the_winners(games: dict[str, dict[str, Any]], files: list[str]) -> list[int]:
    """Back the first winner of each game's market (``games``: rows by market id) in a flumine simulation over the
    stream ``files`` (:func:`flumine_replay`, in a spawned process: importing flumine patches betfairlightweight
    for the whole process); each market must close with its bet a winner, paid by the dead-heat rule to the
    penny. Returns, per bet matched, how many hands won its market."""
    first_winner = {market_id: int(g["winners"].split(",")[0]) for market_id, g in games.items()}
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        books, closed = pool.submit(flumine_replay, files, first_winner).result(timeout=120)
    assert books > len(files) * 4 and set(closed) == set(games)
    tied_of_matched = []
    for market_id, orders in closed.items():
        tied = len(games[market_id]["winners"].split(","))
        for _, matched, price, profit, status in orders:
            assert status == "WINNER"
            if matched:
                exact = Fraction(str(matched)) * (Fraction(str(price)) / tied - 1)
                assert abs(Fraction(str(profit)) - exact) < Fraction(1, 100)
                tied_of_matched.append(tied)
    return tied_of_matched


def flumine_replay(files: list[str], back: dict[str, int]) -> tuple[int, dict[str, list[tuple[Any, ...]]]]:
    """Run a flumine ``FlumineSimulation`` over stream files, backing hand ``back[market]`` at the first price.

    Returns how many market books the strategy saw and, per closed market, its orders as
    ``(selection, size matched, average price, simulated profit, runner status)``. Meant to run in a
    spawned process: importing flumine patches betfairlightweight for the whole process.
    """
    import flumine
    from flumine.order.ordertype import LimitOrder
    from flumine.order.trade import Trade
    from flumine.streams.betfairhistoricalstream import BetfairHistoricalStream

    class BackOne(flumine.BaseStrategy):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.books = 0
            self.closed: dict[str, list[tuple[Any, ...]]] = {}

        def check_market_book(self, market: Any, market_book: Any) -> bool:
            self.books += 1
            return bool(market_book.status == "OPEN")

        def process_market_book(self, market: Any, market_book: Any) -> None:
            if market.blotter.strategy_orders(self):
                return
            runner = next(r for r in market_book.runners if r.selection_id == back[market.market_id])
            if runner.status == "ACTIVE" and runner.ex.available_to_back:
                price = runner.ex.available_to_back[0]["price"]
                trade = Trade(market_book.market_id, runner.selection_id, runner.handicap, self)
                market.place_order(trade.create_order(side="BACK", order_type=LimitOrder(price, 2.0)))

        def process_closed_market(self, market: Any, market_book: Any) -> None:
            self.closed[market.market_id] = [
                (o.selection_id, o.size_matched, o.average_price_matched, o.simulated.profit, o.runner_status)
                for o in market.blotter
            ]

    framework = flumine.FlumineSimulation(client=flumine.clients.SimulatedClient())
    strategy = BackOne(
        streams=[BetfairHistoricalStream(file_path=f) for f in files],
        max_order_exposure=100,
        max_selection_exposure=100,
    )
    framework.add_strategy(strategy)
    framework.run()
    return strategy.books, strategy.closed


#: A Hi/Lo game's Low market: selection 5 is "No low".
NO_LOW = 5


def judged_low(channel: str, game: dict[str, Any]) -> tuple[int, ...]:
    """A Hi/Lo game's Low winners by the engine's showdown of its final cards (a ``games`` row); No low: 5."""
    result = engine.showdown(channel, final_hands(game), board="".join(str(game["board"]).split()))
    return (NO_LOW,) if result.low is None else tuple(i + 1 for i in result.low.winners)


def judged_high(channel: str, game: dict[str, Any]) -> tuple[int, ...]:
    """A game's (High) winners by the engine's showdown of its final cards (a ``games`` row)."""
    result = engine.showdown(channel, final_hands(game), board="".join(str(game["board"]).split()))
    return tuple(i + 1 for i in result.high.winners)


def final_hands(game: dict[str, Any]) -> list[str]:
    return ["".join(str(game[f"hand_{i}"]).split()) for i in range(1, 5)]


def round_half_down(x: Fraction) -> int:
    return math.ceil(x - Fraction(1, 2))


def expected_gross(fills: Sequence[dict[str, Any]], winners: tuple[int, ...]) -> int:
    """An account's gross result on a market from its (back) fills: losers ``-S`` exactly, winners at ``O/n``,
    rounded once in all (nearest penny, a half down). A fill needs ``size``, ``selection_id`` and
    ``tick_price_x100`` (its price times 100)."""
    lost = sum(-f["size"] for f in fills if f["selection_id"] not in winners)
    won = sum(Fraction(f["size"]) * (Fraction(f["tick_price_x100"], 100) / len(winners) - 1)
              for f in fills if f["selection_id"] in winners)  # fmt: skip
    return lost + round_half_down(Fraction(won))


def run_notebook(out: Path | str, monkeypatch: pytest.MonkeyPatch, *, account: str | None = None,
                 folder: Path = ROOT) -> tuple[str, int]:
    """Execute the notebook on the backtest folder ``out`` (``account``'s results; the kernel run in ``folder``):
    its printed text and tables, and how many figures it drew."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("BACKTEST_DIR", str(out))
    if account is not None:
        monkeypatch.setenv("BACKTEST_ACCOUNT", account)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend keeps the figures
    notebook = nbformat.read(ROOT / "notebooks" / "settlements.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )
    client.execute(env=dict(os.environ))
    outputs = "".join(  # printed text and the tables shown (their plain-text form)
        out.get("text", "") + out.get("data", {}).get("text/plain", "")
        for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    )
    images = sum("image/png" in out.get("data", {}) for cell in notebook.cells for out in cell.get("outputs", []))
    return outputs, images
