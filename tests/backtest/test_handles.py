"""An order goes to the market of the handle it is placed through, whatever hook it is placed from.

A strategy trades through a handle per market; a handle kept from an earlier hook is still that market's. In a
session, a handle of an ended game placed on the next game's market (and matched there): its orders were sent to
the market of the hook being run. A hi/lo game's Low handle used in a hook of the High market places on the Low
market.
"""

from __future__ import annotations

from pathlib import Path

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.tables.outputs import read_table

KEPT = """
from exchange.backtest.strategy import ALL_MARKETS, Strategy
from exchange.core.side import Side


class Kept(Strategy):
    markets = ALL_MARKETS

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.kept = {}

    def on_market_open(self, market):
        earlier = self.kept.get(market.kind)
        if earlier is not None and earlier.market_id != market.market_id:  # an ended game's handle
            earlier.place_order(1, Side.BACK, "3.0", 200, customer_ref="from-an-ended-game")
        self.kept[market.kind] = market

    def on_window_open(self, market, round):
        low = self.kept.get("low")
        if market.kind == "high" and low is not None and low.market_id.startswith(market.market_id):
            low.place_order(5, Side.BACK, "3.0", 200, customer_ref="on-no-low")  # 5: "No low", on the Low market only
"""


def _orders(tmp_path: Path, channel: str, games: int) -> list[dict[str, object]]:
    """The strategy's rows of one session of ``games`` games on ``channel``."""
    source = tmp_path / "kept.py"
    source.write_text(KEPT)
    config = BacktestConfig(strategy=StrategySpec.parse(f"{source}:Kept", "{}"), games=games, seed=3, channel=channel,
                            games_per_session=games, record_streams=False)
    with InlineExecutor() as executor:
        run_backtest(config, executor, tmp_path / "out")
    orders = read_table(tmp_path / "out", "orders").to_pylist()
    return [row for row in orders if row["account"] == "strategy"]


def test_a_handle_of_an_ended_game_places_on_its_own_market(tmp_path: Path) -> None:
    sent = [row for row in _orders(tmp_path, "holdem", 3) if row["customer_ref"] == "from-an-ended-game"]
    assert [(row["market_id"], row["status"], row["error_code"]) for row in sent] == [
        (market, "REJECTED", "MARKET_NOT_OPEN_FOR_BETTING") for market in ("holdem.0", "holdem.1")]


def test_a_hi_lo_game_s_low_handle_places_on_the_low_market_from_a_high_hook(tmp_path: Path) -> None:
    sent = [row for row in _orders(tmp_path, "omaha-hilo", 2) if row["customer_ref"] == "on-no-low"]
    assert sent and all(str(row["market_id"]).endswith("-low") and row["selection_id"] == 5 for row in sent), sent
    assert not any(row["error_code"] == "INVALID_RUNNER" for row in sent), sent
