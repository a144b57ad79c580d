"""When a market's settlement reaches a strategy: as the market settles or is voided, in the order of events.

Three games of ``omaha-hilo`` dealt from seed 3 (as in ``test_low_market.py``): game 0's
Low market settles once the turn is turned (No low certain) while its High market plays on to the
river; game 2's High market settles then too, while its Low market plays on. One
timeline holds the channel's events and the strategy's hooks as they happen, each
hook with the round and the board its view showed, so a hook's place among the
events is what the test reads. The settlements themselves are judged by the engine's
showdown of the final cards and an oracle in ``Fraction`` from the strategy's fills, and
a twin strategy that is never woken when a market settles (its settlements are read at
the game's end) must leave the same tables and the same settlements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from engine.irregularities import Irregularity, Kind
from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.runner import DEFAULT_BALANCE, EPOCH_MS
from exchange.backtest.strategy import ALL_MARKETS, GameEnd, GameStart, MarketHandle, Settlement, Strategy
from exchange.backtest.world import GameSetup, HouseSpec, World, build_world
from exchange.core import ladder
from exchange.core.events import MarketSettled, MarketVoided
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.events import Stamped
from exchange.game.irregular import IrregularityPlan, scripted
from exchange.game.rounds import Round
from exchange.game.table import Phase
from exchange.tables.outputs import empty_tables
from tests.backtest.backtest_support import expected_gross, judged_high, judged_low

CHANNEL, SEED, GAMES = "omaha-hilo", 3, 3
Rows = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Entry:
    """One line of the timeline: an event of the channel or a hook of the strategy, with the game's round and
    board as the event found them or the hook's view showed them."""

    source: str  # "event" or "hook"
    name: str  # the event's type, or the hook's name
    market_id: str
    round: Round | None
    board: int


class Timeline:
    """The channel's events and the strategy's hooks in the one order they happened."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.world: World | None = None

    def listen(self, world: World) -> None:
        self.world = world
        world.channel.subscribe(self.on_event)

    def on_event(self, stamped: Stamped) -> None:
        assert self.world is not None and stamped.market_id is not None
        game = self.world.channel.game(stamped.market_id)
        assert game is not None
        self.entries.append(Entry("event", stamped.type, stamped.market_id, game.round, len(game.public.board)))

    def hook(self, name: str, market: MarketHandle | None, market_id: str = "") -> None:
        if market is None:
            self.entries.append(Entry("hook", name, market_id, None, -1))
        else:
            view = market.view
            self.entries.append(Entry("hook", name, market.market_id, view.round, len(view.board)))


class Trades(Strategy):
    """Backs the last live selection of each market once, in the Pre-flop window ("No low" while it is live)."""

    markets = ALL_MARKETS

    def __init__(self) -> None:
        super().__init__(latency_ms=0)
        self.placed: set[str] = set()
        self.ends: list[GameEnd] = []

    def process_market_book(self, market: MarketHandle) -> None:
        if market.round is not Round.PREFLOP or market.market_id in self.placed:
            return
        hand = market.view.live_hands[-1]
        if hand.best_to_back is not None:
            market.place_order(hand.hand, Side.BACK, ladder.price(hand.best_to_back), 300)
            self.placed.add(market.market_id)

    def on_game_end(self, game: GameEnd) -> None:
        self.ends.append(game)


class Recorder(Trades):
    """Trades as :class:`Trades` and writes every hook into the timeline."""

    def __init__(self, timeline: Timeline) -> None:
        super().__init__()
        self.timeline = timeline
        self.settled: list[Settlement] = []

    def on_game_start(self, game: GameStart) -> None:
        self.timeline.hook("on_game_start", None, game.market_ids[0])

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        self.timeline.hook("on_window_open", market)

    def process_market_book(self, market: MarketHandle) -> None:
        self.timeline.hook("process_market_book", market)
        super().process_market_book(market)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.timeline.hook("process_orders", market)

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        self.timeline.hook("on_window_close", market)

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        assert settlement.market_id == market.market_id
        self.settled.append(settlement)
        self.timeline.hook("on_settlement", market)

    def on_game_end(self, game: GameEnd) -> None:
        super().on_game_end(game)
        self.timeline.hook("on_game_end", None, game.market_ids[0])


@dataclass(frozen=True)
class Played:
    strategy: Any
    tables: Rows
    timeline: Timeline


def play(strategy: Trades, timeline: Timeline, *, games: int = GAMES,
         plan: IrregularityPlan | None = None) -> Played:  # fmt: skip
    setup = GameSetup(channel=CHANNEL, seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                      start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(), equities=None,
                      games_per_session=games)  # fmt: skip
    world = build_world(setup, 0, strategy)
    if plan is not None:
        world.channel.irregularities = scripted({0: plan})
    timeline.listen(world)
    world.run()
    tables = empty_tables()
    world.write(tables)
    assert len(world.records) == games
    return Played(strategy, {name: t.to_arrow().to_pylist() for name, t in tables.items()}, timeline)


@pytest.fixture(scope="module")
def recorded() -> Played:
    timeline = Timeline()
    return play(Recorder(timeline), timeline)


def ends_of(entries: list[Entry]) -> dict[str, int]:
    """Where each market's settlement or void event stands in the timeline."""
    names = {MarketSettled.__name__, MarketVoided.__name__}
    return {e.market_id: i for i, e in enumerate(entries) if e.source == "event" and e.name in names}


def test_a_market_settled_early_is_reported_at_once_before_the_next_reveal(recorded: Played) -> None:
    entries = recorded.timeline.entries
    ends = ends_of(entries)
    assert len(ends) == 2 * GAMES
    early = []
    for market, at in ends.items():
        hooks = [i for i, e in enumerate(entries) if e.name == "on_settlement" and e.market_id == market]
        assert len(hooks) == 1, f"{market}: on_settlement once, not {len(hooks)} times"
        hook = hooks[0]
        game_end = next(i for i in range(at, len(entries)) if entries[i].name == "on_game_end")
        assert at < hook < game_end, market
        event = entries[at]
        if any(e.name == "WindowOpened" for e in entries[at:game_end]):  # the game played on after it
            early.append(market)
            # Between the settlement and its hook only the rest of that clock step (the other market's events)
            # and that step's hooks: nothing of a later step (a window, cards turned, equities) comes first.
            step_ends = next(i for i in range(at, hook + 1) if entries[i].source == "hook")
            assert all(e.source == "hook" for e in entries[step_ends:hook]), market
            # The hook sees the game where the settlement found it: the same round, the same cards up.
            assert (entries[hook].round, entries[hook].board) == (event.round, event.board), market
            assert event.round is not None and event.round < Round.TURN and event.board < 5
    assert f"{CHANNEL}.0-low" in early, "seed 3 settles game 0's Low market early"
    assert f"{CHANNEL}.2" in early, "seed 3 settles game 2's High market early"
    low = f"{CHANNEL}.0-low"
    after = entries[ends[low]:]
    order = [(e.name, e.market_id) for e in after if e.source == "hook" and e.market_id.startswith(f"{CHANNEL}.0")]
    # The Low market's settlement comes before the High market's next window and its own settlement.
    assert order.index(("on_settlement", low)) < order.index(("on_window_open", f"{CHANNEL}.0"))
    assert order.index(("on_settlement", low)) < order.index(("on_settlement", f"{CHANNEL}.0"))


def test_every_market_has_one_result_row_of_equities_last_an_early_one_included(recorded: Played) -> None:
    """equities.parquet's ``round`` is the window the prices are for, null for the result: a market decided early
    (seed 3's game 0 Low and game 2 High) ends with its result under null, not under a window that never opens
    for it, as a market decided at the river does."""
    by_market: dict[str, list[dict[str, Any]]] = {}
    for row in recorded.tables["equities"]:
        by_market.setdefault(row["market_id"], []).append(row)
    assert len(by_market) == 2 * GAMES
    for market, rows in by_market.items():
        last_at = max(r["at_ms"] for r in rows)
        results = [r for r in rows if r["round"] is None]
        assert results and all(r["at_ms"] == last_at for r in results), market
        assert sorted(r["equity"] for r in results)[-1] > 0 and all(r["equity_exact"] is not None for r in results)
        # the windows it had prices for all opened (a WindowOpened of its game came after each, bar the result)
        opened = {e.round for e in recorded.timeline.entries if e.source == "hook" and e.name == "on_window_open"
                  and e.market_id == market}
        assert {r["round"] for r in rows if r["round"] is not None} <= opened, market


def test_the_game_end_comes_once_after_every_settlement_and_repeats_them(recorded: Played) -> None:
    strategy: Recorder = recorded.strategy
    entries = recorded.timeline.entries
    assert [e.market_id for e in entries if e.name == "on_game_end"] == [f"{CHANNEL}.{n}" for n in range(GAMES)]
    by_market = {s.market_id: s for s in strategy.settled}
    assert len(by_market) == len(strategy.settled) == 2 * GAMES
    for end in strategy.ends:
        assert end.market_ids == (f"{CHANNEL}.{end.game_number}", f"{CHANNEL}.{end.game_number}-low")
        assert end.settlements == tuple(by_market[m] for m in end.market_ids)  # the same settlements, in game order


def test_the_settlements_are_what_the_cards_and_the_fills_say(recorded: Played) -> None:
    strategy: Recorder = recorded.strategy
    tables = recorded.tables
    rows = {r["market_id"]: r for r in tables["settlements"] if r["account"] == STRATEGY_ACCOUNT}
    fills: dict[str, list[dict[str, Any]]] = {}
    for f in tables["fills"]:
        if f["back_account"] == STRATEGY_ACCOUNT and not f["voided"]:
            fills.setdefault(f["market_id"], []).append({**f, "tick_price_x100": ladder.PRICE_X100[f["tick"]]})
    settled = {s.market_id: s for s in strategy.settled}
    for game in tables["games"]:
        judged = {game["market_id"]: judged_high(CHANNEL, game), game["low_market_id"]: judged_low(CHANNEL, game)}
        for market, winners in judged.items():
            settlement, row = settled[market], rows[market]
            gross = expected_gross(fills[market], winners)
            assert settlement.status is Phase.FINISHED and settlement.winners == winners, market
            assert settlement.profit == gross == row["gross_profit"], market
            assert settlement.commission == row["commission"], market
            assert sum(b.profit for b in settlement.bets) == gross, market
    assert all(fills[m] for m in settled), "the strategy was matched in every market"


def test_being_told_at_once_changes_no_result(recorded: Played) -> None:
    """A strategy that trades alike but is not woken when a market settles leaves the same files, byte for byte."""
    twin = play(Trades(), Timeline())
    assert twin.tables == recorded.tables
    assert twin.strategy.ends == recorded.strategy.ends


def test_a_voided_game_reports_each_void_once_before_its_end() -> None:
    """A misdeal voids both markets at the deal: each market's void reaches the strategy once, then the game's end."""
    timeline = Timeline()
    played = play(Recorder(timeline), timeline, games=1, plan=IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=2)))
    strategy: Recorder = played.strategy
    entries = timeline.entries
    ends = ends_of(entries)
    assert {entries[i].name for i in ends.values()} == {MarketVoided.__name__}
    assert [(s.market_id, s.status, s.winners) for s in strategy.settled] == [
        (f"{CHANNEL}.0", Phase.VOID, ()), (f"{CHANNEL}.0-low", Phase.VOID, ())]  # fmt: skip
    game_end = next(i for i, e in enumerate(entries) if e.name == "on_game_end")
    for market, at in ends.items():
        hooks = [i for i, e in enumerate(entries) if e.name == "on_settlement" and e.market_id == market]
        assert len(hooks) == 1 and at < hooks[0] < game_end
    assert strategy.ends[0].settlements == tuple(strategy.settled)


def test_a_market_settled_before_its_game_is_voided_stays_settled() -> None:
    """Game 0's Low market settles when the turn is turned; an operator voids the game in the last (Turn) window:
    Low keeps its result (``FINISHED``, its winners), High is ``VOID``, each reported once, as it happened."""
    timeline = Timeline()
    strategy = Recorder(timeline)
    setup = GameSetup(channel=CHANNEL, seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                      start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(), equities=None)
    world = build_world(setup, 0, strategy)
    timeline.listen(world)
    channel = world.channel

    def void_in_the_last_window(stamped: Stamped) -> None:
        game = channel.game(stamped.market_id)
        if stamped.type == "WindowOpened" and game is not None and game.round is Round.TURN:
            world.clock.call_later(1, lambda: game.operator_void("a test"))

    channel.subscribe(void_in_the_last_window)
    world.run()
    high, low = f"{CHANNEL}.0", f"{CHANNEL}.0-low"
    settled = {s.market_id: s for s in strategy.settled}
    assert (settled[low].status, settled[high].status, settled[high].winners) == (Phase.FINISHED, Phase.VOID, ())
    assert settled[low].winners, "the Low market keeps its winners"
    entries = timeline.entries
    names = [(e.name, e.market_id) for e in entries if e.name in ("on_settlement", "GameVoided", "on_game_end")]
    assert names == [("on_settlement", low), ("GameVoided", high), ("on_settlement", high), ("on_game_end", high)]


class RestsEveryWindow(Strategy):
    """Rests a back far from any price in every window, and keeps what ``process_orders`` says of each bet."""

    def __init__(self) -> None:
        super().__init__()
        self.last: dict[str, OrderView] = {}  # customer ref -> the last view heard
        self.void_at: Round | None = None

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        market.place_order(1, Side.BACK, "900", 200, customer_ref=f"{market.market_id}-{int(round)}")

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.last.update((o.customer_ref or "", o) for o in orders)


@pytest.mark.parametrize("voided", [False, True])
def test_the_bets_left_unmatched_when_a_market_ends_are_heard_ended(voided: bool) -> None:
    """Those of a window closed by the market's settlement lapse with it, those of a voided market are cancelled:
    a settled market lists no current orders, and they went unheard (the strategy kept them executable)."""
    strategy = RestsEveryWindow()
    setup = GameSetup(channel="holdem", seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                      start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(), equities=None)
    world = build_world(setup, 0, strategy)
    channel = world.channel
    if voided:
        def void_in_the_last_window(stamped: Stamped) -> None:
            game = channel.game(stamped.market_id)
            if stamped.type == "WindowOpened" and game is not None and game.round is Round.TURN:
                world.clock.call_later(1_000, lambda: game.operator_void("a test"))  # once the bet rests

        channel.subscribe(void_in_the_last_window)
    world.run()
    last = strategy.last.pop("holdem.0-4")  # the Turn's: its window's close is the market's end
    assert (last.status.value, last.size_remaining) == ("EXECUTION_COMPLETE", 0)
    assert (last.size_lapsed, last.size_cancelled) == ((0, 200) if voided else (200, 0))
    assert {(o.status.value, o.size_lapsed) for o in strategy.last.values()} == {("EXECUTION_COMPLETE", 200)}
