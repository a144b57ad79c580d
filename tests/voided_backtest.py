"""A backtest folder in which a dealer's error voids some of the strategy's matches, for the replay's tests.

One game of Hold'em from seed 1, the example market maker quoting every window, and one
scripted irregularity: the turn is turned early, at the start of the Flop window, and
the exchange notices it only when the window closes (a long ``notice_ms``), so every match
of the Flop window, the strategy's among them, is voided then, while the game goes on.
The folder is what ``exchange-poker backtest --out`` writes; the game's own event log
(the journal's record) comes back with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.irregularities import Irregularity, Kind
from exchange.backtest.loading import StrategySpec
from exchange.backtest.outputs import empty_tables, write_tables
from exchange.backtest.runner import BacktestConfig
from exchange.backtest.world import build_world
from exchange.betfair.stream import write_stream
from exchange.game.events import EventLog
from exchange.game.irregular import IrregularityPlan, scripted

ROOT = Path(__file__).resolve().parents[1]
#: The turn seen at the Flop window's opening and noticed only at its close: the whole window's matches voided.
PLAN = IrregularityPlan(Irregularity(Kind.PREMATURE_TURN), at_permille=0, notice_ms=10**9)


@dataclass(frozen=True)
class VoidedBacktest:
    out: Path
    log: EventLog


def write_voided_backtest(out: Path) -> VoidedBacktest:
    """Play the game, write its tables and stream files to ``out``; return them with the game's event log."""
    config = BacktestConfig(strategy=StrategySpec.parse(f"{ROOT}/scripts/market_maker.py:MarketMaker"), games=1,
                            seed=1)
    world = build_world(config.setup(), 0, config.strategy.build())
    world.channel.irregularities = scripted({0: PLAN})
    log = EventLog.attach(world.channel.bus)
    world.run()
    tables = empty_tables()
    streams = world.write(tables)
    write_tables(out, {name: table.to_arrow() for name, table in tables.items()})
    for market_id, text in streams:
        write_stream(out / "streams", market_id, text)
    return VoidedBacktest(out, log)
