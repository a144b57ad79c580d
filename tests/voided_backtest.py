"""Backtest folders in which the strategy's matches are voided mid-game, for the replay's tests.

One game of Hold'em from seed 1, the example market maker quoting every window, and one
scripted irregularity: the turn is turned early, at the start of the Flop window, and
the exchange notices it only when the window closes (a long ``notice_ms``), so every match
of the Flop window, the strategy's among them, is voided then, while the game goes on.
:func:`write_market_voided_backtest`: one game of Omaha Hi/Lo from seed 3, the same strategy,
and an operator voiding the game a second into its last (Turn) window: the Low market,
settled when the turn was turned, stays settled; the High market is voided whole, but for
the matches on the hands it had already settled as losers, which stand.

:func:`write_exposed_backtest`: one game of Hold'em from seed 1, the same strategy, the
third hole card exposed at the deal (rule 1: it becomes the burn card, out of play, and
the deal goes on), and an operator voiding the game a second into its Turn window.

Each folder is what ``exchange-poker backtest --out`` writes; the game's own event log
(the journal's record) comes back with it, and the cards the live game showed as exposed
and as dead (its ``public`` cards, what the live snapshot sends) each time they changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from engine.irregularities import Irregularity, Kind
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig
from exchange.backtest.world import World, build_world
from exchange.betfair.stream import write_stream
from exchange.game.events import EventLog, Stamped
from exchange.game.irregular import IrregularityPlan, scripted
from exchange.game.rounds import Round
from exchange.tables.outputs import empty_tables, write_tables

ROOT = Path(__file__).resolve().parents[1]
#: The turn seen at the Flop window's opening and noticed only at its close: the whole window's matches voided.
PLAN = IrregularityPlan(Irregularity(Kind.PREMATURE_TURN), at_permille=0, notice_ms=10**9)


#: The third hole card exposed at the deal: burned, out of play for the rest of the game.
EXPOSED_PLAN = IrregularityPlan(Irregularity(Kind.EXPOSED_HOLE_CARDS, (2,)))

Cards = tuple[str, ...]
Row = dict[str, Any]


@dataclass(frozen=True)
class VoidedBacktest:
    out: Path
    log: EventLog
    #: ``(at_ms, exposed, dead)`` each time the live game's exposed or dead cards changed (none: never).
    exposed: list[tuple[int, Cards, Cards]] = field(default_factory=list)


def rows(out: Path, name: str) -> list[Row]:
    """The rows of one of the folder's Parquet tables."""
    table: list[Row] = pq.read_table(out / f"{name}.parquet").to_pylist()
    return table


def pennies(amount: float) -> int:
    """A float amount of the tables (pounds) in minor units."""
    return round(amount * 100)


def write_voided_backtest(out: Path) -> VoidedBacktest:
    """Play the game, write its tables and stream files to ``out``; return them with the game's event log."""
    world = _world("holdem", 1)
    world.channel.irregularities = scripted({0: PLAN})
    return _write(world, out)


#: When the operator voids the hi/lo game: this long after its Turn window opens.
OPERATOR_VOID_AFTER_MS = 1_000


def write_market_voided_backtest(out: Path) -> VoidedBacktest:
    """Play the hi/lo game an operator voids in its Turn window, write it to ``out``; return it with its event log."""
    world = _world("omaha-hilo", 3)
    _void_in_the_last_window(world)
    return _write(world, out)


def write_exposed_backtest(out: Path, operator_says: str = "a test") -> VoidedBacktest:
    """Play the Hold'em game dealt with an exposed hole card and voided in its Turn window (the operator's reason
    ``operator_says``); write it to ``out``."""
    world = _world("holdem", 1)
    world.channel.irregularities = scripted({0: EXPOSED_PLAN})
    _void_in_the_last_window(world, operator_says)
    return _write(world, out)


def _void_in_the_last_window(world: World, operator_says: str = "a test") -> None:
    channel = world.channel

    def void_in_the_last_window(stamped: Stamped) -> None:
        game = channel.game(stamped.market_id)
        if stamped.type == "WindowOpened" and game is not None and game.round is Round.TURN:
            world.clock.call_later(OPERATOR_VOID_AFTER_MS, lambda: game.operator_void(operator_says))

    channel.subscribe(void_in_the_last_window)


def _world(channel: str, seed: int) -> World:
    config = BacktestConfig(strategy=StrategySpec.parse(f"{ROOT}/scripts/market_maker.py:MarketMaker"), games=1,
                            seed=seed, channel=channel)
    return build_world(config.setup(), 0, config.strategy.build())


def _write(world: World, out: Path) -> VoidedBacktest:
    log = EventLog.attach(world.channel.bus)
    channel = world.channel
    exposed: list[tuple[int, Cards, Cards]] = []

    def watch(stamped: Stamped) -> None:
        game = channel.game(stamped.market_id)
        if game is None:
            return
        public = game.public
        seen = (tuple(str(c) for c in public.exposed), tuple(str(c) for c in public.out_of_play))
        if (exposed[-1][1:] if exposed else ((), ())) != seen:
            exposed.append((stamped.at_ms, *seen))

    channel.subscribe(watch)
    world.run()
    tables = empty_tables()
    streams = world.write(tables)
    write_tables(out, {name: table.to_arrow() for name, table in tables.items()})
    for market_id, text in streams:
        write_stream(out / "streams", market_id, text)
    return VoidedBacktest(out, log, exposed)
