"""A window's close as a strategy hears it: the orders it lapsed first (``process_orders``), then
``on_window_close`` with every order of the market, also where the close settles the market (the last window; a
hi/lo game's Low market settled once its result is certain), whose orders are then no longer the account's
current ones. There ``on_window_close`` saw no order, and heard of the lapse only after it.

Three ``omaha-hilo`` games from seed 3 (game 0's Low market and game 2's High market settle at the turn), a
strategy resting one back at 1000 (nobody lays it) on hand 1 of each market in every window.
"""

from __future__ import annotations

from collections.abc import Sequence

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.runner import DEFAULT_BALANCE, EPOCH_MS
from exchange.backtest.strategy import ALL_MARKETS, MarketHandle, Settlement, Strategy
from exchange.backtest.world import GameSetup, HouseSpec, play_session
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.rounds import Round
from exchange.tables.outputs import empty_tables

SETUP = GameSetup(channel="omaha-hilo", seed=3, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE, start_ms=EPOCH_MS,
                  latency_ms=None, record_streams=False, house=HouseSpec(), equities=None, games_per_session=3)


class Rester(Strategy):
    markets = ALL_MARKETS

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, str, tuple[int, ...]]] = []  # (what, market, bet ids)

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        market.place_order(1, Side.BACK, "1000", 200)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.log += [("seen", market.market_id, (o.bet_id,)) for o in orders]
        self.log += [("lapsed", market.market_id, (o.bet_id,)) for o in orders if o.size_lapsed]

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        self.log.append(("close", market.market_id, tuple(o.bet_id for o in market.orders)))

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        self.log.append(("settled", market.market_id, tuple(o.bet_id for o in market.orders)))


def test_each_close_hears_its_lapse_first_and_sees_every_order_of_the_market() -> None:
    strategy = Rester()
    play_session(SETUP, 0, strategy, empty_tables())
    seen: dict[str, set[int]] = {}
    lapsed: dict[str, list[int]] = {}
    closes: dict[str, int] = {}
    settled = []
    for what, market_id, bets in strategy.log:
        if what in ("seen", "lapsed"):
            (seen.setdefault(market_id, set()).update if what == "seen" else lapsed.setdefault(market_id, []).extend)(
                bets)
        else:  # every bet placed so far (one a window, but where hand 1 had lost already) lapsed, and was told so
            # before the close; the close and the settlement list every bet of the market
            assert bets == tuple(lapsed.get(market_id, ())) == tuple(sorted(seen.get(market_id, ()))), (
                market_id, bets, strategy.log)
            if what == "close":
                closes[market_id] = closes.get(market_id, 0) + 1
            else:
                settled.append(market_id)
    assert len(settled) == 6  # both markets of three games
    # game 0's Low market and game 2's High market settled with the turn's close: the close that settles them
    assert sorted(closes.values()) == [3, 3, 4, 4, 4, 4]
    assert all(bets for what, _, bets in strategy.log if what == "settled")  # none listed empty, as before


class Quiet(Strategy):
    """Rests a back at 1000 in every window and reads its orders only as each window closes and at settlement: it
    is woken for no fill nor update, so the backtester sees its orders only through the handle."""

    markets = ALL_MARKETS

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, str, tuple[int, ...]]] = []

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        market.place_order(1, Side.BACK, "1000", 200)

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        self.log.append(("close", market.market_id, tuple(o.bet_id for o in market.orders if o.size_lapsed)))

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        self.log.append(("settled", market.market_id, tuple(o.bet_id for o in market.orders)))


def test_a_strategy_woken_for_nothing_else_sees_every_order_as_the_market_ends() -> None:
    """Its last window's bet is in ``market.orders`` at the close that settles the market and at the settlement: the
    orders of a market over are read from the exchange, not from what the strategy was shown before (which left out
    the bets it was never shown)."""
    strategy, tables = Quiet(), empty_tables()
    play_session(SETUP, 0, strategy, tables)
    placed: dict[str, list[int]] = {}
    for row in tables["orders"].to_arrow().to_pylist():
        if row["account"] == STRATEGY_ACCOUNT and row["status"] != "REJECTED":
            placed.setdefault(row["market_id"], []).append(row["bet_id"])
    last_close = {market_id: bets for what, market_id, bets in strategy.log if what == "close"}
    settled = {market_id: bets for what, market_id, bets in strategy.log if what == "settled"}
    assert len(placed) == 6
    for market_id, bets in placed.items():  # every bet lapsed (nobody lays at 1000), the last one too
        assert last_close[market_id] == settled[market_id] == tuple(sorted(bets)), (market_id, strategy.log)
