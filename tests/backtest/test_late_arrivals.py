"""A strategy's instruction that reaches the exchange later than its latency says: its refusal is still its own.

On the backtest's virtual clock an instruction arrives exactly ``latency_ms`` after it was sent; on a live
clock a loaded host fires the delivery late. :class:`LateClock` is such a host, driven like the virtual clock:
every timer set for later fires ``LATE_MS`` late (the game's own steps, set for a time, and the hooks, set for
now, are on time). The refusal of a late instruction must be paired with it all the same: the strategy hears a
refused cancel of a bet id it never had through the market it sent it through, and the orders table's row of
each refusal says what was asked.
"""

from __future__ import annotations

from typing import Any

import pytest

from exchange.backtest.agent import attach_strategy
from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.runner import DEFAULT_BALANCE, EPOCH_MS
from exchange.backtest.strategy import ALL_MARKETS, MarketHandle, Strategy
from exchange.backtest.world import GameSetup, HouseSpec, build_world
from exchange.clock import Callback, VirtualClock
from exchange.core import ladder
from exchange.core.errors import ErrorCode
from exchange.core.events import OrderAction, OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import get_channel
from exchange.game.deal import seeded_decks
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round
from exchange.tables.outputs import empty_tables

CHANNEL, SEED = "omaha-hilo", 3
NO_SUCH_BET = 10**9
LATE_MS = 7


class LateClock(VirtualClock):
    """A live host under load, on virtual time: whatever is set to run later runs ``LATE_MS`` later still."""

    def call_later(self, delay_ms: int, callback: Callback) -> Any:
        return super().call_later(delay_ms + LATE_MS if delay_ms > 0 else delay_ms, callback)


class LowRefusals(Strategy):
    """Trades both markets; in the Low market's Pre-flop window sends three instructions the exchange refuses."""

    markets = ALL_MARKETS

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[MarketKind, OrderAction, int | None, ErrorCode]] = []

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP and market.kind is MarketKind.LOW:
            market.cancel_order(NO_SUCH_BET, 300)
            market.replace_order(NO_SUCH_BET, "3.0")
            market.place_order(1, Side.LAY, "2.03", 300, customer_ref="off-ladder")

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        self.heard.append((market.kind, rejection.action, rejection.bet_id, rejection.error_code))


HEARD = [(MarketKind.LOW, OrderAction.CANCEL, NO_SUCH_BET, ErrorCode.INVALID_BET_ID),
         (MarketKind.LOW, OrderAction.REPLACE, NO_SUCH_BET, ErrorCode.INVALID_BET_ID),
         (MarketKind.LOW, OrderAction.PLACE, None, ErrorCode.INVALID_ODDS)]  # fmt: skip


@pytest.mark.parametrize("clock_type", [VirtualClock, LateClock])
def test_a_refused_cancel_is_heard_through_the_market_it_was_sent_through(clock_type: type[VirtualClock]) -> None:
    clock = clock_type(start_ms=EPOCH_MS)
    channel = Channel(get_channel(CHANNEL), clock, Exchange(), decks=seeded_decks(SEED))
    channel.open_account("me", 100_000)
    strategy = LowRefusals()
    seated = attach_strategy(channel, strategy, "me")
    channel.start(games=1)
    clock.run()
    assert strategy.heard == HEARD
    assert len(seated.instructions) == 0, "nothing kept once the strategy has heard each refusal"


@pytest.mark.parametrize("clock_type", [VirtualClock, LateClock])
def test_the_row_of_a_late_refusal_says_what_was_asked(clock_type: type[VirtualClock]) -> None:
    setup = GameSetup(channel=CHANNEL, seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                      start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(),
                      equities=None)  # fmt: skip
    world = build_world(setup, 0, LowRefusals(), clock=clock_type(start_ms=EPOCH_MS))
    world.run()
    tables = empty_tables()
    world.write(tables)
    rows = [(r["market_id"], r["action"], r["side"], r["price"], r["tick"], r["size"], r["error_code"])
            for r in tables["orders"].to_arrow().to_pylist() if r["status"] == "REJECTED"]  # fmt: skip
    low = f"{CHANNEL}.0-low"
    assert rows == [(low, "CANCEL", None, None, None, 300, ErrorCode.INVALID_BET_ID.value),
                    (low, "REPLACE", None, 3.0, ladder.parse_price("3.0"), None, ErrorCode.INVALID_BET_ID.value),
                    (low, "PLACE", "LAY", 2.03, None, 300, ErrorCode.INVALID_ODDS.value)]  # fmt: skip
