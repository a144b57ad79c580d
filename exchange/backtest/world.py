"""One backtest session in a world of its own: clock, exchange, channel, house liquidity, the strategy.

A *session* is one strategy instance on one account playing ``games_per_session``
consecutive games of one channel on one virtual clock: the balance, the
strategy's memory, the house market maker and the noise traders all carry on
from game to game. The default backtest is sessions of one game each — every
game its own world, as before. :func:`play_session` builds everything fresh for
session ``s`` — so its result depends on nothing but the configuration and
``s`` — seats the house market maker, the noise traders and the strategy
(through :class:`~exchange.backtest.agent.StrategyAgent`, at its latency) at a
:class:`~exchange.game.channel.Channel`, runs the virtual clock until the
session is over, and leaves behind its games' table rows and stream recordings.

* session ``s`` of ``G`` games deals games ``s·G`` … ``s·G + G − 1``: game *i* is
  :func:`~exchange.game.deal.seeded_decks` of the backtest seed at *i* (the same
  deal whoever plays it, in whatever session length), with market id
  ``<channel>.<i>``; the session's clock starts at ``start_ms + s·G × game length``
  and each next game starts one playing window after the last ended;
* every other random draw (noise traders, the strategy's ``market.rng``) is
  seeded from ``(seed, session, role)``;
* the house accounts and the strategy's are funded once, at the session's start;
* a strategy that calls :meth:`~exchange.backtest.strategy.Strategy.end_session`
  ends the session after the game it is in: the games left are not dealt.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from exchange.agents import host
from exchange.agents.house import (
    MAKER_ACCOUNT,
    NOISE_ACCOUNT,
    MakerConfig,
    NoiseConfig,
    seat_house_makers,
    seat_noise_traders,
)
from exchange.backtest.agent import attach_strategy
from exchange.backtest.instructions import InstructionLog, Sent
from exchange.backtest.strategy import Strategy, check_latency_ms
from exchange.backtest.workers import report_progress
from exchange.clock import VirtualClock
from exchange.core.events import OrderRejected
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.game.channel import Channel
from exchange.game.channels import ChannelConfig, get_channel
from exchange.game.deal import seeded_decks
from exchange.game.equities import game_equities
from exchange.game.events import GameEnded, GameStarted, Stamped
from exchange.game.irregular import seeded_irregularities
from exchange.game.table import EquityFn
from exchange.tables.collector import Collector
from exchange.tables.outputs import Table
from exchange.tables.streams import StreamFeed

#: Settled markets the exchange of a session keeps (the newest): enough for every late read, and a
#: long session's exchange stays the size of a short one's.
KEEP_CLOSED_MARKETS = 8


#: The backtest's default noise: stakes up to 150.00, more than one house level (100.00), so a
#: noise trade sometimes sweeps a level and leaves its remainder resting *through* the fair
#: price — the kind of mispricing a value strategy exists to catch.
BACKTEST_NOISE = NoiseConfig(trades_per_window=4, min_size=200, max_size=15_000, size_step=100)


@dataclass(frozen=True, slots=True)
class HouseSpec:
    """The house liquidity in every session: a market maker and ``noise_traders`` noise traders on every market.

    Balances in minor units; each house account is funded afresh at every session's start.
    """

    maker: MakerConfig = field(default_factory=MakerConfig)
    maker_balance: int = 100_000_000
    noise_traders: int = 1
    noise: NoiseConfig = BACKTEST_NOISE
    noise_balance: int = 10_000_000


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What :func:`play_session` needs besides the session number (a ``BacktestConfig`` fits)."""

    channel: str
    seed: int
    account: str
    balance: int
    start_ms: int
    latency_ms: int | None
    record_streams: bool
    house: HouseSpec
    equities: EquityFn | None
    games_per_session: int = 1
    irregularity_rate: float = 0.0


def accounts_of(setup: GameSetup) -> tuple[str, ...]:
    """Every account of a session's world, in settlement-row order (the exchange's house account last)."""
    noise = tuple(f"{NOISE_ACCOUNT}-{k + 1}" for k in range(setup.house.noise_traders))
    return (setup.account, MAKER_ACCOUNT, *noise, ExchangeConfig().house_account_id)


@dataclass(slots=True)
class GameRecord:
    """What one game of a session leaves behind: its rows (the collector) and each market's recording (the main
    market first; none without streams)."""

    market_id: str
    collector: Collector
    feeds: tuple[StreamFeed, ...] = ()

    @property
    def feed(self) -> StreamFeed | None:
        """The main market's recording."""
        return self.feeds[0] if self.feeds else None


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """How a session went: the games it dealt, the strategy's reason if it ended the session early, and the
    latency the strategy played at (``--latency-ms``, or its own)."""

    session: int
    games: int
    ended_by: str | None
    latency_ms: int


class World:
    """One session's world, built and seated but not yet run (tests look inside; :func:`play_session` runs it).

    One listener on the channel routes each event to its game's record, made when the game starts.
    """

    def __init__(self, setup: GameSetup, session: int, config: ChannelConfig, clock: VirtualClock,
                 exchange: Exchange) -> None:  # fmt: skip
        self.setup = setup
        self.session = session
        self.first_game = session * setup.games_per_session
        self.clock = clock
        self.exchange = exchange
        self.channel = Channel(
            config,
            clock,
            exchange,
            decks=seeded_decks(setup.seed),
            first_game=self.first_game,
            equities=setup.equities or game_equities,
            irregularities=seeded_irregularities(setup.seed, setup.irregularity_rate, hole_cards=config.first_deal)
            if setup.irregularity_rate else None,
        )
        self.accounts = accounts_of(setup)
        self.records: list[GameRecord] = []
        self.ended_by: str | None = None
        #: The strategy's instructions on their way (set when it is seated): its refused ones' rows say what it asked.
        self.instructions: InstructionLog | None = None
        self.latency_ms = 0  # the strategy's, once seated
        self._by_market: dict[str, GameRecord] = {}
        self.channel.subscribe(self._route)

    @property
    def market_id(self) -> str:
        """The market of the session's latest game (before the first starts: the first's)."""
        return self.records[-1].market_id if self.records else self.channel.config.market_id(self.first_game)

    @property
    def collector(self) -> Collector:
        """The latest game's collector."""
        return self.records[-1].collector

    @property
    def feed(self) -> StreamFeed | None:
        """The latest game's stream recording (``None`` without streams)."""
        return self.records[-1].feed if self.records else None

    def run(self) -> None:
        """Deal the session's games and run the clock until nothing is left to do."""
        self.channel.start(games=self.setup.games_per_session)
        self.clock.run()

    def end_session(self, reason: str) -> None:
        """The strategy wants no further game: the one scheduled next is not dealt."""
        self.ended_by = reason
        self.channel.halt()

    def write(self, tables: dict[str, Table]) -> list[tuple[str, str]]:
        """Append every game's rows to ``tables`` in game order; return ``(market id, stream text)`` of each of
        their markets."""
        streams = []
        for record in self.records:
            record.collector.write(tables)
            streams += [(feed.market_id, feed.text()) for feed in record.feeds]
        return streams

    def where(self) -> str:
        """Where the session is: its number, its latest game and the clock (for an error raised while it runs)."""
        game = self.first_game + max(len(self.records) - 1, 0)
        return (f"in backtest session {self.session}, game {game} ({self.market_id}) of channel "
                f"{self.setup.channel}, seed {self.setup.seed}, at {self.clock.now()} ms on its clock")

    def outcome(self) -> SessionOutcome:
        return SessionOutcome(self.session, len(self.records), self.ended_by, self.latency_ms)

    def _route(self, stamped: Stamped) -> None:
        event = stamped.event
        market_id = stamped.market_id
        if market_id is None:  # a game is always stamped with its market: this is a refusal naming none
            if type(event) is OrderRejected:
                self._refused_without_market(event)
            return
        record = self._by_market.get(market_id)
        if record is None:
            if type(event) is not GameStarted:
                return
            record = self._start_record(market_id, stamped.at_ms, event)
        record.collector(stamped)
        for feed in record.feeds:
            feed.on_event(stamped)
        if type(event) is GameEnded:
            report_progress(1)  # for the command's progress bar, as each game ends

    def _refused_without_market(self, rejection: OrderRejected) -> None:
        """A refused cancel or replace names no market (only the bet id it was given): its row goes to the game
        whose market holds that bet of the account, else to the game of the market it was sent through (a bet id
        the strategy never had), else to the latest game."""
        holder = next((r for r in reversed(self.records)
                       if r.collector.holds_bet(rejection.account_id, rejection.bet_id)), None)  # fmt: skip
        if holder is None:
            asked = self._asked(rejection)
            holder = None if asked is None else self._by_market.get(asked.market_id)
        if holder is None and self.records:
            holder = self.records[-1]
        if holder is not None:
            holder.collector.refused_without_market(rejection)

    def _asked(self, rejection: OrderRejected) -> Sent | None:
        """The strategy's instruction ``rejection`` refused (``None`` for another account's)."""
        if self.instructions is None or rejection.account_id != self.setup.account:
            return None
        return self.instructions.asked(rejection)

    def _start_record(self, market_id: str, at_ms: int, started: GameStarted) -> GameRecord:
        number = started.game_number
        exchange = self.exchange

        def balance(account: str) -> int:
            funds = exchange.funds(account)
            return 0 if funds is None else funds.balance

        config = self.channel.config
        market_ids = config.market_ids(number)  # a hi/lo game's High and Low markets share the record
        collector = Collector(number, market_ids, self.accounts, session=self.session,
                              session_game=number - self.first_game, balance=balance, asked=self._asked,
                              min_stake=config.min_stake)  # fmt: skip
        feeds: tuple[StreamFeed, ...] = ()
        if self.setup.record_streams:  # one recording per market, as Betfair's historical files are
            feeds = tuple(StreamFeed(self.clock, each, config, at_ms, kind)
                          for each, kind in zip(market_ids, config.markets, strict=True))  # fmt: skip
        record = GameRecord(market_id, collector, feeds)
        for each in market_ids:
            self._by_market[each] = record
        self.records.append(record)
        return record


def build_world(setup: GameSetup, session: int, strategy: Strategy, *, clock: VirtualClock | None = None) -> World:
    """Session ``session``'s world: clock, exchange, channel, the house and the strategy seated.

    ``clock``: the session's own by default; a test may give one that keeps time otherwise (set to the start).
    """
    base = get_channel(setup.channel)
    first = session * setup.games_per_session
    if clock is None:
        clock = VirtualClock(start_ms=setup.start_ms + first * base.game_ms)
    exchange = Exchange(ExchangeConfig(min_stake=base.min_stake, commission_bps=base.commission_bps,
                                       keep_closed_markets=KEEP_CLOSED_MARKETS))  # fmt: skip
    world = World(setup, session, base, clock, exchange)
    try:
        _seat(world, strategy)
    except BaseException:
        host.release(world.channel)  # the agents seated so far: the registry would keep the world alive
        raise
    return world


def _seat(world: World, strategy: Strategy) -> None:
    """Fund and seat the house market makers, the noise traders and the strategy at the world's channel."""
    setup, session, channel = world.setup, world.session, world.channel
    channel.open_account(MAKER_ACCOUNT, setup.house.maker_balance)
    seat_house_makers(channel, MAKER_ACCOUNT, setup.house.maker)
    for k in range(setup.house.noise_traders):  # one noise trader per market of each game, one account
        account = f"{NOISE_ACCOUNT}-{k + 1}"
        channel.open_account(account, setup.house.noise_balance)
        seat_noise_traders(channel, account, f"{setup.seed}/{session}/{k}", setup.house.noise)
    channel.open_account(setup.account, setup.balance)
    if setup.latency_ms is not None:
        strategy.latency_ms = setup.latency_ms
    check_latency_ms(strategy.latency_ms)  # as Strategy.__init__ did, for a subclass that set its own since
    world.latency_ms = strategy.latency_ms
    rng = random.Random(f"{setup.seed}/{session}/strategy")
    seated = attach_strategy(channel, strategy, setup.account, rng=rng, on_session_end=world.end_session,
                             ref_prefix=f"{setup.account}-{session}")  # unique over the backtest's sessions
    world.instructions = seated.instructions


def play_session(setup: GameSetup, session: int, strategy: Strategy,
                 tables: dict[str, Table]) -> tuple[SessionOutcome, list[tuple[str, str]]]:  # fmt: skip
    """Play session ``session`` to its end; append its rows to ``tables``; return its outcome and recordings."""
    world = build_world(setup, session, strategy)
    try:
        world.run()
    except Exception as exc:  # a strategy's bug (or ours): say where, for a run of thousands of games
        exc.add_note(world.where())
        raise
    finally:
        host.release(world.channel)  # else the agents' registry keeps every session's world alive
    streams = world.write(tables)
    return world.outcome(), streams
