"""One backtest game in a world of its own: clock, exchange, channel, house liquidity, the strategy.

:func:`play_game` builds everything fresh for game ``index`` — so the game's
result depends on nothing but the configuration and the index — seats the
house market maker, the noise traders and the strategy (through
:class:`~exchange.backtest.agent.StrategyAgent`, at its latency) at a
:class:`~exchange.game.channel.Channel`, runs the virtual clock until the game
is over, and leaves behind its table rows and its stream recording.

* the deck is :func:`~exchange.game.deal.seeded_decks` of the backtest seed at
  game ``index``: game *i* of seed *S* is the same deal whoever plays it;
* the market id is ``<channel>.<index>``, the clock starts at
  ``start_ms + index × game length``;
* every other random draw (noise traders, the strategy's ``market.rng``) is
  seeded from ``(seed, index, role)``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from exchange.agents.host import seat
from exchange.agents.house import MakerConfig, MarketMaker, NoiseConfig, NoiseTrader
from exchange.backtest.agent import attach_strategy
from exchange.backtest.collector import Collector
from exchange.backtest.outputs import Table
from exchange.backtest.projection import BookProjection
from exchange.backtest.strategy import Strategy
from exchange.betfair.stream import (
    MarketInfo,
    MarketRecorder,
)
from exchange.clock import VirtualClock
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.game.channel import Channel
from exchange.game.channels import ChannelConfig, get_channel
from exchange.game.deal import seeded_decks
from exchange.game.equities import exact_equities
from exchange.game.events import HoleCardsTurned, Stamped
from exchange.game.table import EquityFn

MAKER_ACCOUNT = "house-maker"
NOISE_ACCOUNT = "house-noise"


#: The backtest's default noise: stakes up to 150.00, more than one house level (100.00), so a
#: noise trade sometimes sweeps a level and leaves its remainder resting *through* the fair
#: price — the kind of mispricing a value strategy exists to catch.
BACKTEST_NOISE = NoiseConfig(trades_per_window=4, min_size=200, max_size=15_000, size_step=100)


@dataclass(frozen=True, slots=True)
class HouseSpec:
    """The house liquidity in every game: one market maker and ``noise_traders`` noise traders.

    Balances in minor units; each house account is funded afresh every game.
    """

    maker: MakerConfig = field(default_factory=MakerConfig)
    maker_balance: int = 100_000_000
    noise_traders: int = 1
    noise: NoiseConfig = BACKTEST_NOISE
    noise_balance: int = 10_000_000


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What :func:`play_game` needs besides the index (a :class:`~exchange.backtest.runner.BacktestConfig` fits)."""

    channel: str
    seed: int
    account: str
    balance: int
    start_ms: int
    latency_ms: int | None
    record_streams: bool
    house: HouseSpec
    equities: EquityFn | None


def accounts_of(setup: GameSetup) -> tuple[str, ...]:
    """Every account of a game's world, in settlement-row order (the exchange's house account last)."""
    noise = tuple(f"{NOISE_ACCOUNT}-{k + 1}" for k in range(setup.house.noise_traders))
    return (setup.account, MAKER_ACCOUNT, *noise, ExchangeConfig().house_account_id)


@dataclass(slots=True)
class World:
    """One game's world, built and seated but not yet run (tests look inside; :func:`play_game` runs it)."""

    market_id: str
    clock: VirtualClock
    exchange: Exchange
    channel: Channel
    collector: Collector
    feed: StreamFeed | None

    def run(self) -> None:
        """Deal the game and run the clock until nothing is left to do."""
        self.channel.start(games=1)
        self.clock.run()


def build_world(setup: GameSetup, index: int, strategy: Strategy) -> World:
    """Game ``index``'s world: clock, exchange, channel, collector, recorder, the house and the strategy seated."""
    base = get_channel(setup.channel)
    market_id = base.market_id(index)
    clock = VirtualClock(start_ms=setup.start_ms + index * base.game_ms)
    exchange = Exchange(ExchangeConfig(min_stake=base.min_stake, commission_bps=base.commission_bps))
    channel = Channel(
        base,
        clock,
        exchange,
        decks=seeded_decks(setup.seed),
        first_game=index,
        equities=setup.equities or exact_equities,
    )
    collector = Collector(index, market_id, accounts_of(setup))
    channel.subscribe(collector)
    feed = StreamFeed(channel, market_id, base) if setup.record_streams else None

    channel.open_account(MAKER_ACCOUNT, setup.house.maker_balance)
    seat(channel, MarketMaker(setup.house.maker), MAKER_ACCOUNT)
    for k in range(setup.house.noise_traders):
        account = f"{NOISE_ACCOUNT}-{k + 1}"
        channel.open_account(account, setup.house.noise_balance)
        seat(channel, NoiseTrader(f"{setup.seed}/{index}/{k}", setup.house.noise), account)
    channel.open_account(setup.account, setup.balance)
    if setup.latency_ms is not None:
        strategy.latency_ms = setup.latency_ms
    attach_strategy(channel, strategy, setup.account, rng=random.Random(f"{setup.seed}/{index}/strategy"))
    return World(market_id, clock, exchange, channel, collector, feed)


def play_game(setup: GameSetup, index: int, strategy: Strategy, tables: dict[str, Table]) -> tuple[str, str] | None:
    """Play game ``index`` to its end; append its rows to ``tables``; return ``(market id, stream text)``."""
    world = build_world(setup, index, strategy)
    world.run()
    world.collector.write(tables)
    if world.feed is None:
        return None
    return world.market_id, world.feed.recorder.text()


class StreamFeed:
    """Records the market after every clock instant at which one of its events happened.

    The book comes from :class:`~exchange.backtest.projection.BookProjection`, a
    fold over the market's events, not from the exchange's internals.
    """

    def __init__(self, channel: Channel, market_id: str, config: ChannelConfig) -> None:
        clock = channel.clock
        start = clock.now()
        windows_end = start + 3 * config.round_ms + config.betting_window_ms
        self.recorder = MarketRecorder(
            MarketInfo(
                market_id=market_id,
                event_id=market_id,
                event_name=config.title,
                market_name=f"{config.title} {market_id}",
                open_ms=start,
                market_time_ms=start,
                suspend_ms=windows_end,
                runner_names=tuple(f"Hand {h}" for h in range(1, config.hands + 1)),
                commission_percent=str(config.commission_bps / 100),
            )
        )
        self.book = BookProjection()
        self._clock = clock
        self._market_id = market_id
        self._pending = False
        channel.subscribe(self._on_event)

    def _on_event(self, stamped: Stamped) -> None:
        if stamped.market_id != self._market_id:
            return
        event = stamped.event
        if isinstance(event, HoleCardsTurned):
            self.book.in_play = True
        self.book.apply(event)
        if not self._pending:
            self._pending = True
            self._clock.call_later(0, self._flush)

    def _flush(self) -> None:
        self._pending = False
        self.recorder.update(self.book.snapshot(), self._clock.now())
