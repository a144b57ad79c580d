"""The example ``FlopMover`` hedges with the smallest stake the channel's markets take, not a fixed 2.00.

A channel's markets may take a smaller or a larger minimum stake than 2.00. On a channel of 1.00 a
hedge of 1.50 is a bet like any other; on one of 5.00 a hedge of 4.80 would only be refused
(``INVALID_BET_SIZE``). Four Hold'em games from seed 1, the house market maker quoting.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exchange.agents.house import MAKER_ACCOUNT, seat_house_makers
from exchange.backtest.agent import attach_strategy
from exchange.backtest.loading import StrategySpec
from exchange.backtest.strategy import MarketHandle
from exchange.clock import VirtualClock
from exchange.core.events import OrderRejected
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import get_channel
from exchange.game.deal import seeded_decks
from tests.backtest.backtest_support import ROOT

GAMES, SEED = 4, 1
FlopMover: Any = StrategySpec.parse(f"{ROOT / 'scripts' / 'flop_mover.py'}:FlopMover").strategy_class()


class Watched(FlopMover):  # (a class loaded from the script's file: Any to mypy)
    """FlopMover, noting its orders and the refusals it hears."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.orders: dict[int, OrderView] = {}
        self.refused: list[OrderRejected] = []

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.orders.update((o.bet_id, o) for o in orders)

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        self.refused.append(rejection)


def play(min_stake: int, stake: int) -> Watched:
    config = dataclasses.replace(get_channel("holdem"), min_stake=min_stake)
    clock = VirtualClock()
    exchange = Exchange(ExchangeConfig(min_stake=min_stake, commission_bps=config.commission_bps))
    channel = Channel(config, clock, exchange, decks=seeded_decks(SEED))
    channel.open_account(MAKER_ACCOUNT, 100_000_000)
    seat_house_makers(channel, MAKER_ACCOUNT)
    channel.open_account("mover", 1_000_000)
    strategy = Watched(stake=stake)
    attach_strategy(channel, strategy, "mover")
    channel.start(games=GAMES)
    clock.run()
    return strategy


def test_on_a_channel_of_a_smaller_minimum_stake_it_hedges_under_two_pounds() -> None:
    mover = play(min_stake=100, stake=300)
    assert mover.refused == []
    backs = {o.market_id: o for o in mover.orders.values() if o.side is Side.BACK and o.size_matched}
    lays = [o for o in mover.orders.values() if o.side is Side.LAY]
    assert len(backs) == GAMES
    for lay in lays:
        back = backs[lay.market_id]
        assert back.average_price_matched is not None
        assert lay.size == int(back.size_matched * back.average_price_matched / Fraction(lay.price)) >= 100
    assert [lay.size for lay in lays if lay.size < 200], "a hedge under 2.00 in some game"


def test_on_a_channel_of_a_larger_minimum_stake_it_sends_no_hedge_the_exchange_refuses() -> None:
    mover = play(min_stake=500, stake=500)
    assert [o for o in mover.orders.values() if o.side is Side.BACK and o.size_matched], "it backed"
    assert mover.refused == []
