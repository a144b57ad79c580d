"""One game's world: the strategy hooks, latency, visibility, and the stream book against the exchange's own."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy
import pytest

from exchange.agents import host
from exchange.agents.trader import Agent, Trader
from exchange.agents.view import BettorView
from exchange.backtest.strategy import MarketHandle, Settlement, Strategy
from exchange.backtest.strategy_errors import other_notes, raising_hook
from exchange.backtest.world import build_world, play_session
from exchange.betfair.stream import snapshot_of
from exchange.core import ladder
from exchange.core.errors import ErrorCode
from exchange.core.events import OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.market import MarketBook
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round
from exchange.tables.outputs import empty_tables
from tests.backtest.backtest_support import small_config


class Probe(Strategy):
    """Records what it is shown and when; places one good order and one off-ladder order."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls: list[str] = []
        self.seen: list[tuple[Round, int, int]] = []
        self.decided_ms: int | None = None
        self.orders: dict[int, OrderView] = {}
        self.rejections: list[OrderRejected] = []
        self.settlement: Settlement | None = None
        self.bad_sent = False

    def on_market_open(self, market: MarketHandle) -> None:
        self.calls.append("open")
        assert market.hands == (None, None, None, None) and market.board == ()

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        self.calls.append(f"window {int(round)}")
        visible = sum(cards is not None for cards in market.hands)
        self.seen.append((round, visible, len(market.board)))
        assert sum(market.equities) == 1
        if round is Round.PREFLOP and not self.bad_sent:
            market.place_order(1, Side.BACK, "2.03", 200)
            self.bad_sent = True

    def process_market_book(self, market: MarketHandle) -> None:
        if market.round is Round.PREFLOP and self.decided_ms is None:
            hand = market.view.hand(2)
            if hand.best_to_back is not None:
                book = market.market_book
                assert book.market_id == market.market_id and len(book.runners) == 4
                self.decided_ms = market.now_ms
                market.place_order(2, Side.BACK, ladder.price(hand.best_to_back), 500)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        for order in orders:
            self.orders[order.bet_id] = order

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        self.rejections.append(rejection)

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        self.calls.append(f"close {int(round)}")

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        self.calls.append("settled")
        self.settlement = settlement


def run_probe(latency_ms: int | None) -> tuple[Probe, dict]:
    config = replace(small_config(), latency_ms=latency_ms)
    probe = Probe()
    tables = empty_tables()
    play_session(config.setup(), 1, probe, tables)
    return probe, {name: t.to_arrow().to_pylist() for name, t in tables.items()}


def test_hooks_run_in_game_order_and_show_only_the_cards_face_up() -> None:
    probe, _ = run_probe(None)
    assert probe.calls[:3] == ["open", "window 1", "close 1"]
    assert probe.calls[-1] == "settled"
    windows = [c for c in probe.calls if c.startswith("window")]
    assert [c for c in probe.calls if c.startswith("close")] == [w.replace("window", "close") for w in windows]
    expected = {Round.DEAL: (0, 0), Round.PREFLOP: (4, 0), Round.FLOP: (4, 3), Round.TURN: (4, 4)}
    assert [(visible, board) for rnd, visible, board in probe.seen] == [expected[rnd] for rnd, _, _ in probe.seen]


def test_orders_arrive_after_the_latency_and_off_ladder_prices_come_back_rejected() -> None:
    for latency, expected in ((None, 100), (250, 250)):
        probe, tables = run_probe(latency)
        assert probe.latency_ms == expected
        assert probe.decided_ms is not None
        mine = [o for o in tables["orders"] if o["account"] == "strategy" and o["status"] != "REJECTED"]
        assert [o["placed_ms"] for o in mine] == [probe.decided_ms + expected]
        assert [o.placed_ts for o in probe.orders.values()] == [probe.decided_ms + expected]
        assert [r.error_code for r in probe.rejections] == [ErrorCode.INVALID_ODDS]
        assert "2.02, 2.04" in probe.rejections[0].message


class Watcher(Agent):
    """Keeps the clock and the exchange's book at each market update it is given; trades nothing."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.seen: list[tuple[int, MarketBook | None]] = []

    def on_market_update(self, view: BettorView, trader: Trader) -> None:
        self.seen.append((view.now_ms, self.exchange.market_book(view.market_id, None)))


def test_market_updates_show_each_book_an_instant_went_through_the_last_as_it_left_it() -> None:
    """A noise trade and the house's requote answering it at the same millisecond: an agent is shown the book
    after the trade, then after the requote (as the docs say: the last update of an instant is the book as the
    instant left it, the one message a stream subscriber sees); no book change goes unshown."""
    config = small_config()
    world = build_world(config.setup(), 0, config.strategy.build())
    world.channel.open_account("watcher", 100)
    watcher = Watcher(world.exchange)
    host.seat(world.channel, watcher, "watcher")
    world.channel.start(games=1)
    left: dict[int, MarketBook | None] = {}  # each instant's book once nothing more was due at it
    while world.clock.step():
        if world.clock.next_due() != world.clock.now():
            left[world.clock.now()] = world.exchange.market_book("holdem.0", None)
    last: dict[int, MarketBook | None] = {}
    for ms, book in watcher.seen:
        last[ms] = book
    assert len(last) > 20 and all(book == left[ms] for ms, book in last.items())
    assert any(book != last[ms] for ms, book in watcher.seen), "the book between a trade and the house's requote"


def test_settlement_hook_agrees_with_the_settlements_table() -> None:
    probe, tables = run_probe(None)
    row = next(r for r in tables["settlements"] if r["account"] == "strategy")
    assert probe.settlement is not None
    assert (probe.settlement.profit, probe.settlement.commission) == (row["gross_profit"], row["commission"])
    assert probe.settlement.net_profit == row["net_profit"]
    game = tables["games"][0]
    assert ",".join(map(str, probe.settlement.winners)) == game["winners"]
    assert sum(b.profit for b in probe.settlement.bets) == row["gross_profit"]


def test_the_recorded_book_equals_the_exchanges_book_after_every_step() -> None:
    config = small_config()
    world = build_world(config.setup(), 0, config.strategy.build())
    world.channel.start(games=1)
    steps = compared = 0
    while world.clock.step():
        steps += 1
        book = world.exchange.market_book(world.market_id, None)
        if book is not None:
            assert world.feed is not None, "the game's recording starts with the game"
            expected = snapshot_of(book, world.feed.book.in_play, world.feed.book.version)
            assert world.feed.book.snapshot() == expected, f"after step {steps}"
            compared += 1
    assert compared > 50
    assert world.collector.ended


def test_a_voided_game_is_recorded_as_void_with_refunds() -> None:
    config = small_config()
    world = build_world(config.setup(), 2, config.strategy.build())
    game = world.channel.start(games=1)
    flop_open = game.windows[2].opens_ms
    world.clock.run(until_ms=flop_open + 5_000)  # matched bets in the Deal, Pre-flop and Flop windows
    game.void("dealer fault")
    world.clock.run()
    tables = empty_tables()
    world.collector.write(tables)
    rows = {name: t.to_arrow().to_pylist() for name, t in tables.items()}
    assert rows["games"][0]["status"] == "VOID" and rows["games"][0]["winners"] == ""
    assert rows["fills"] and all(f["voided"] for f in rows["fills"])
    for row in rows["settlements"]:
        assert row["status"] == "VOID"
        assert (row["gross_profit"], row["commission"], row["net_profit"]) == (0, 0, 0), row
    assert all(o["size_matched"] == 0 and o["status"] in ("VOIDED", "CANCELLED", "LAPSED") for o in rows["orders"])
    assert world.feed is not None
    final = world.feed.book.snapshot()
    assert final.status.value == "CLOSED" and {r.status.value for r in final.runners} == {"REMOVED"}
    assert final.tv == 0


class Careless(Strategy):
    """Places with a side given as text and with a price that is no number, in the Pre-flop window; keeps what the
    handle said."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[Exception] = []

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is not Round.PREFLOP:
            return
        for side, price in (("BACK", "2.5"), (Side.BACK, "two")):
            try:
                market.place_order(1, side, price, 200)  # type: ignore[arg-type]  # a str side, on purpose
            except (TypeError, ValueError) as exc:
                self.errors.append(exc)


def test_a_side_that_is_no_side_and_a_price_that_is_no_number_are_refused_at_the_call() -> None:
    """Refused where the strategy made the mistake, saying what is allowed: not later inside the exchange, where a
    text side stopped the whole backtest, nor with the decimal module's bare ``ConversionSyntax``."""
    strategy = Careless()
    tables = empty_tables()
    play_session(small_config().setup(), 0, strategy, tables)
    assert [type(e) for e in strategy.errors] == [TypeError, ValueError]
    side, price = (str(e) for e in strategy.errors)
    assert "'BACK'" in side and "Side.BACK or Side.LAY" in side
    assert "'two'" in price and "decimal odds" in price
    assert tables["games"].to_arrow().column("status").to_pylist() == ["SETTLED"]


#: Instructions with an argument of the wrong type, and what the error at the call must name.
WRONG_TYPES: list[tuple[str, Callable[[MarketHandle], object], str]] = [
    ("hand as text", lambda m: m.place_order("1", Side.BACK, "2.5", 200), "hand '1'"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("size as text", lambda m: m.place_order(1, Side.BACK, "2.5", "200"), "size '200'"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("size in currency", lambda m: m.place_order(1, Side.BACK, "2.5", 2.5), "size 2.5"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("size as a flag", lambda m: m.place_order(1, Side.BACK, "2.5", True), "size True"),
    ("no price", lambda m: m.place_order(1, Side.BACK, None, 200), "price None"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("price as a tuple", lambda m: m.place_order(1, Side.BACK, (0, (2,), 0), 200), "price (0, (2,), 0)"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("reference a number", lambda m: m.place_order(1, Side.BACK, "2.5", 200, customer_ref=7), "customer_ref 7"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("bet id as text", lambda m: m.cancel_order("5"), "bet id '5'"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("reduction in currency", lambda m: m.cancel_order(5, 2.5), "size_reduction 2.5"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("replace bet id as text", lambda m: m.replace_order("5", "3.0"), "bet id '5'"),  # type: ignore[arg-type]  # a wrong type, on purpose
    ("replace to no price", lambda m: m.replace_order(5, None), "price None"),  # type: ignore[arg-type]  # a wrong type, on purpose
]


class WrongTypes(Strategy):
    """Makes each mistake of :data:`WRONG_TYPES` once, in the Pre-flop window, and keeps what was raised."""

    def __init__(self) -> None:
        super().__init__()
        self.raised: dict[str, Exception] = {}

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is not Round.PREFLOP:
            return
        for name, mistake, _ in WRONG_TYPES:
            try:
                mistake(market)
            except (TypeError, ValueError) as exc:
                self.raised[name] = exc
        market.place_order(numpy.int64(2), Side.BACK, "900", numpy.int64(300))  # type: ignore[arg-type]  # numpy ints, which count as ints
        for hand, price in ((1, numpy.float64(950.0)), (3, numpy.float32(2.1)), (4, numpy.int64(800))):
            market.place_order(hand, Side.BACK, price, 200)  # type: ignore[arg-type]  # numpy's numbers, as they print


def test_an_argument_of_the_wrong_type_is_refused_at_the_call_naming_it() -> None:
    """A hand, size, bet id or reference that is not an int (or text), a price that is no number: a ``TypeError``
    at the strategy's own line naming the argument, not a row that says 2 for 2.5 (the tables' integer columns
    truncate) nor an ``ArrowInvalid`` once the whole session has been played; the session plays on. Any integer
    type is an int (numpy's, from a strategy that reads pandas), and numpy's numbers are prices as they print
    (``float64`` once stopped the decimal module with its bare ``ConversionSyntax``)."""
    strategy = WrongTypes()
    tables = empty_tables()
    play_session(small_config().setup(), 0, strategy, tables)
    assert {name: type(exc) for name, exc in strategy.raised.items()} == {name: TypeError for name, _, _ in WRONG_TYPES}
    for name, _, named in WRONG_TYPES:
        assert named in str(strategy.raised[name]), (name, str(strategy.raised[name]))
    sent = {r["selection_id"]: r for r in tables["orders"].to_arrow().to_pylist() if r["account"] == "strategy"}
    assert (sent[2]["size"], sent[2]["status"]) == (300, "LAPSED"), "numpy's integers are ints"
    assert {hand: r["price"] for hand, r in sent.items()} == {1: 950, 2: 900, 3: 2.1, 4: 800}
    assert "REJECTED" not in {r["status"] for r in sent.values()}


class RaisesInGame(Strategy):
    """Raises in the Flop window of one game of its session."""

    def __init__(self, game: int) -> None:
        super().__init__()
        self.game = game

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.FLOP and market.market_id == f"holdem.{self.game}":
            raise ZeroDivisionError("a strategy's own bug")


def test_an_error_in_a_strategy_names_the_session_and_game_it_happened_in() -> None:
    """The strategy's own exception comes out as it is, with notes saying which hook raised it and where: the
    session, the game and the clock, so that a run of thousands of games can be taken back to the one game."""
    config = replace(small_config(), games=6, games_per_session=3)
    with pytest.raises(ZeroDivisionError, match="a strategy's own bug") as raised:
        play_session(config.setup(), 1, RaisesInGame(4), empty_tables())
    assert raising_hook(raised.value) == "on_window_open"
    notes = other_notes(raised.value)
    assert len(notes) == 1 and "session 1" in notes[0] and "game 4 (holdem.4)" in notes[0], notes



class Remembers(Strategy):
    """Keeps a weak reference to every market handle it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.handles: list[weakref.ref[MarketHandle]] = []

    def on_market_open(self, market: MarketHandle) -> None:
        self.handles.append(weakref.ref(market))


def test_a_played_session_leaves_nothing_behind() -> None:
    """Once a session has written its rows its world (channel, exchange, agents, collectors) is freed: a process
    that plays thousands of sessions (a worker, or the command on one process) does not keep every one of them."""
    config = replace(small_config(), games=2, games_per_session=2, record_streams=False)
    strategy = Remembers()
    play_session(config.setup(), 0, strategy, empty_tables())
    gc.collect()
    assert len(strategy.handles) == 2
    assert [ref() for ref in strategy.handles] == [None, None]


class LowOnly(Strategy):
    markets = (MarketKind.LOW,)


def test_a_session_that_cannot_seat_its_strategy_leaves_nothing_behind() -> None:
    """A strategy the channel refuses (it trades Low markets; Hold'em has none) is refused with the ``ValueError``
    the README promises, and the world built for it so far (the house already seated) is not kept by the agents'
    registry: a notebook or a service that tries strategy after strategy does not keep every world."""
    from exchange.agents import host

    before = set(host._HOSTS.keys())
    with pytest.raises(ValueError, match="trades low markets; channel holdem has a win market only"):
        play_session(small_config().setup(), 0, LowOnly(), empty_tables())
    gc.collect()
    assert set(host._HOSTS.keys()) == before
