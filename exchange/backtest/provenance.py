"""What made a backtest's output: ``backtest.json`` beside its tables, so a folder can be told apart and rerun.

A rerun into the same ``--out`` replaces the tables, so the folder is the only
record of its run. The record holds everything the result depends on (the
fields of :class:`~exchange.backtest.runner.BacktestConfig` a user chooses:
strategy, its parameters, channel, games and sessions, seed, irregularity
rate, starting balance, whether streams were recorded), the latency the
strategy played at (``--latency-ms``, or the strategy's own), the
SHA-256 of a strategy file's source (a file edited since gives another), and
the version of this package. Nothing it must not depend on: no worker count,
scheduler, path or time, so two runs that give the same tables give the same
record, byte for byte. ``exchange-poker backtest`` with the record's values
deals and plays the same games again.

>>> from exchange.backtest.loading import StrategySpec
>>> from exchange.backtest.runner import BacktestConfig
>>> spec = StrategySpec.parse("mystrategies:Idle", {"stake": 200})
>>> record = run_record(BacktestConfig(strategy=spec, games=4, seed=7, games_per_session=2), {100})
>>> record["strategy"], record["params"], record["games"], record["sessions"], record["seed"], record["balance"]
('mystrategies:Idle', {'stake': 200}, 4, 2, 7, 1000000)
>>> record["latency_ms"], run_record(BacktestConfig(strategy=spec, games=4, seed=7), {100, 250})["latency_ms"]
(100, None)
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from exchange.backtest.runner import BacktestConfig

#: The record's file name in ``--out``.
FILE_NAME = "backtest.json"
#: The distribution whose version the record names.
DISTRIBUTION = "exchange-poker-sim"


def run_record(config: BacktestConfig, latencies: set[int]) -> dict[str, Any]:
    """The record of a backtest run with ``config`` (plain JSON values; money in minor units) whose sessions
    played at ``latencies`` (one, unless the strategy chose its own and chose differently; then ``null``)."""
    spec = config.strategy
    source = None if spec.source is None else hashlib.sha256(spec.source.encode("utf-8")).hexdigest()
    return {
        "strategy": spec.reference,
        "params": json.loads(spec.params_json),
        "strategy_source_sha256": source,
        "channel": config.channel,
        "games": config.games,
        "sessions": config.sessions,
        "games_per_session": config.games_per_session,
        "seed": config.seed,
        "latency_ms": next(iter(latencies)) if len(latencies) == 1 else None,
        "irregularity_rate": config.irregularity_rate,
        "balance": config.balance,
        "record_streams": config.record_streams,
        "version": installed_version(),
    }


def write_run_record(folder: Path, config: BacktestConfig, latencies: set[int]) -> Path:
    """Write :func:`run_record` into ``folder`` as :data:`FILE_NAME`; its path."""
    path = folder / FILE_NAME
    path.write_text(json.dumps(run_record(config, latencies), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def installed_version() -> str | None:
    """The installed distribution's version (``exchange-poker --version`` says it too); None from a checkout never
    installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a checkout never installed
        return None
