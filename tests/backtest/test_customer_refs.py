"""The ``customer_ref`` a handle gives a placement that names none: unique over a whole backtest.

Betfair asks nothing of a ``customerOrderRef``'s uniqueness (it is the customer's own label, at most 32
characters); a strategy, flumine's for one, keys its orders by it, and a researcher joins the orders
table's rows on it. So the automatic ones never repeat: not between the markets of a Hi/Lo game, not
from game to game of a session, not between the sessions of one backtest (each its own exchange).
"""

from __future__ import annotations

from collections import Counter

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.strategy import ALL_MARKETS, MarketHandle, Strategy
from exchange.backtest.workers import InlineExecutor
from exchange.core.side import Side
from exchange.game.rounds import Round

CUSTOMER_REF_MAX = 32  # Betfair's limit on a customerOrderRef


class RestingBacker(Strategy):
    """Rests two backs far from any price on every market it trades, in the Pre-flop window, naming no reference."""

    markets = ALL_MARKETS

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, "900", 200)
            market.place_order(2, Side.BACK, "900", 200)


def placed_refs(games: int, games_per_session: int) -> list[str]:
    spec = StrategySpec.parse(f"{__name__}:RestingBacker")
    config = BacktestConfig(strategy=spec, games=games, seed=3, channel="omaha-hilo",
                            games_per_session=games_per_session, record_streams=False)  # fmt: skip
    with InlineExecutor() as executor:
        orders = run_backtest(config, executor, None).tables["orders"].to_pylist()
    return [r["customer_ref"] for r in orders if r["account"] == config.account and r["action"] == "PLACE"]


def test_automatic_references_never_repeat_in_a_backtest() -> None:
    """Two sessions of two Hi/Lo games: 2 sessions x 2 games x 2 markets x 2 backs, 16 refs
    (a refused placement's row has its reference too)."""
    refs = placed_refs(games=4, games_per_session=2)
    assert len(refs) == 16
    repeated = {ref: n for ref, n in Counter(refs).items() if n > 1}
    assert repeated == {}


def test_automatic_references_fit_betfairs_limit() -> None:
    refs = placed_refs(games=2, games_per_session=1)
    assert refs and max(len(r) for r in refs) <= CUSTOMER_REF_MAX
