"""Backtests side by side (``exchange-poker compare DIR DIR ...``): each run's figures, then each against the first,
game by game.

A backtest deals game ``N`` from its seed and ``N`` alone, whatever its strategy does, so two backtests with the
same channel, seed and irregularity rate play their strategies over the same deals. Their difference is best
measured game by game then (a paired comparison): the luck of the cards, which dominates either run's own P&L,
cancels out, and the standard error of the mean difference per game is a fraction of either run's. Runs dealt
differently are compared on their means alone, the two standard errors combined.

The difference is taken over the games both runs played: a session its strategy ended early leaves the games it
did not play out of it (the count of deals says how many), though each run's own line counts all its games. The
standard errors treat games as independent, as one-game worlds are; the games of one session (``--sessions``)
share a bankroll and the strategy's memory, so there they are a guide, not a bound.

Money stays in whole pennies: each game's net P&L (after commission; a hi/lo game's two markets together) and
the sums are integers, and a mean is shown to the penny, an exact half up, as the backtest's summary shows
them. The standard errors, statistics of those pennies, are floats.

>>> standard_error([100, -100, 100, -100])
57.735026918962575
>>> standard_error([5])  # one game tells nothing of the spread
nan
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.provenance import FILE_NAME
from exchange.backtest.runner import read_for_summary
from exchange.backtest.summary import Summary, half_up, summarise
from exchange.core.money import format_minor
from exchange.game.channels import parse_market_id
from exchange.tables.outputs import read_table

#: What deals a backtest's games besides a game's number (``backtest.json``'s fields): runs that differ in one
#: of these were dealt differently.
DEALT_BY = ("channel", "seed", "irregularity_rate")
#: What a strategy's P&L depends on besides itself and its deals (``backtest.json``'s fields): a difference in one
#: of these is said beside the comparison, as it is not the strategies'. A latency not recorded (``null``: a run
#: from before the record held the strategy's own, or sessions played at several) differs from nothing.
PLAYED_BY = ("latency_ms", "balance", "games_per_session")


class CompareError(ValueError):
    """A folder that cannot be compared (not a backtest's output), or too few of them."""


@dataclass(frozen=True)
class Run:
    """One backtest's output: what made it (``backtest.json``), its summary, and its strategy's net P&L in each
    game (minor units) by the game's number."""

    folder: Path
    record: dict[str, Any]
    summary: Summary
    pnl: dict[int, int]

    @property
    def strategy(self) -> str:
        """The strategy as the command line named it, with its parameters if it had any."""
        params = self.record.get("params") or {}
        return f"{self.record['strategy']} {json.dumps(params, sort_keys=True)}" if params else self.record["strategy"]

    @property
    def mean(self) -> Fraction:
        """The mean net P&L per game."""
        return Fraction(sum(self.pnl.values()), len(self.pnl)) if self.pnl else Fraction(0)

    @property
    def stderr(self) -> float:
        return standard_error(list(self.pnl.values()))


@dataclass(frozen=True)
class Difference:
    """A run against the first: the mean difference of net P&L per game (the run's less the first's) and its
    standard error; ``paired``, the games compared one by one (0 when the runs were dealt differently, said
    by ``unpaired``), and ``left_out``, the games of the first run and of this one that the other did not play
    (a paired difference leaves them out)."""

    mean: Fraction
    stderr: float
    paired: int
    unpaired: str | None = None
    played_differently: tuple[str, ...] = ()
    left_out: tuple[int, int] = (0, 0)


def read_run(folder: Path) -> Run:
    """The run whose output is ``folder``; :class:`CompareError` if it is not a backtest's."""
    path = folder / FILE_NAME
    if not path.is_file():
        raise CompareError(f"{folder} has no {FILE_NAME}: compare reads backtests' output folders ('exchange-poker "
                           "backtest --out DIR'; a server's recording has no strategy to compare)")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompareError(f"{path} is not a backtest's record of its run: {exc}") from None
    if not isinstance(record, dict) or not isinstance(record.get("strategy"), str):
        raise CompareError(f"{path} is not a backtest's record of its run (an object naming its strategy)")
    try:
        games = read_table(folder, "games", ["market_id"])["market_id"].to_pylist()
        settled = read_table(folder, "settlements", ["account", "market_id", "net_profit"]).to_pylist()
        summary = summarise(read_for_summary(folder, STRATEGY_ACCOUNT), STRATEGY_ACCOUNT)
    except FileNotFoundError as exc:
        raise CompareError(f"{folder} has its {FILE_NAME} but not its tables: {exc.filename or exc} is missing (a "
                           "backtest's output folder holds both; run the backtest again)") from None
    pnl = {_number(market_id): 0 for market_id in games}
    for row in settled:
        if row["account"] == STRATEGY_ACCOUNT:  # a hi/lo game's Low market's row adds to its game's
            pnl[_number(row["market_id"])] += row["net_profit"]
    return Run(folder, record, summary, pnl)


def _number(market_id: str) -> int:
    parsed = parse_market_id(market_id)
    if parsed is None:
        raise CompareError(f"a game's market id {market_id!r} names no game number")
    return parsed[1]


def against(first: Run, run: Run) -> Difference:
    """``run`` against ``first``: game by game over the games both played if they were dealt alike, else on the
    means alone."""
    differ, played = _differing(first, run, DEALT_BY), _differing(first, run, PLAYED_BY, both_set=True)
    both = sorted(first.pnl.keys() & run.pnl.keys())
    if differ or not both:
        return Difference(run.mean - first.mean, math.hypot(first.stderr, run.stderr), 0,
                          "dealt differently: " + ", ".join(differ) if differ else "no game in common", played)
    differences = [run.pnl[n] - first.pnl[n] for n in both]
    return Difference(Fraction(sum(differences), len(both)), standard_error(differences), len(both),
                      played_differently=played, left_out=(len(first.pnl) - len(both), len(run.pnl) - len(both)))


def _differing(first: Run, run: Run, names: Sequence[str], *, both_set: bool = False) -> tuple[str, ...]:
    """The settings of ``names`` (``backtest.json``'s) in which the two runs differ, as a line says each;
    ``both_set``: only those both runs hold (``None`` is a value the record does not know)."""
    differing = []
    for name in names:
        ours, theirs = first.record.get(name), run.record.get(name)
        if ours != theirs and not (both_set and None in (ours, theirs)):
            differing.append(f"{name} {_shown(name, ours)} against {_shown(name, theirs)}")
    return tuple(differing)


#: The settings of ``backtest.json`` that are money, in minor units: shown in pounds, as the command lines take them.
MONEY = frozenset({"balance"})


def _shown(name: str, value: object) -> str:
    """A setting of ``backtest.json`` as a line shows it (``None``: a value the record does not hold).

    >>> _shown("balance", 1_000_000), _shown("seed", 7), _shown("latency_ms", None)
    ('10000.00', '7', 'not set')
    """
    if value is None:
        return "not set"
    return format_minor(value) if name in MONEY and isinstance(value, int) else repr(value)


def standard_error(values: Sequence[int]) -> float:
    """The standard error of the mean of ``values`` (the sample's standard deviation over the root of its size);
    NaN for fewer than two values."""
    n = len(values)
    if n < 2:
        return math.nan
    mean = Fraction(sum(values), n)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


def compare(folders: Sequence[Path]) -> tuple[list[Run], list[Difference]]:
    """The runs of ``folders`` and each but the first against the first."""
    if len(folders) < 2:
        raise CompareError("give two backtests' output folders or more: the first is the one the others are "
                           "measured against")
    runs = [read_run(folder) for folder in folders]
    return runs, [against(runs[0], run) for run in runs[1:]]


def report(runs: Sequence[Run], differences: Sequence[Difference]) -> str:
    """The comparison as text: a line per run, then each run against the first."""
    lines = ["run  games  matched volume    net P&L      ROI   per game (± s.e.)  strategy (folder)"]
    for label, run in zip(_labels(len(runs)), runs, strict=True):
        figures = (f"{len(run.pnl):>5} {format_minor(run.summary.matched_volume):>15} "
                   f"{format_minor(run.summary.net_profit):>10} {run.summary.roi_text:>8}")
        lines.append(f"{label:<4} {figures}   {_per_game(run.mean, run.stderr):<17}  {run.strategy} ({run.folder})")
    lines.append("")
    first, *labels = _labels(len(runs))
    lines.append(f"against {first}, net P&L per game (± s.e.):")
    for label, difference in zip(labels, differences, strict=True):
        how = (f"paired: the same {difference.paired} deals" if difference.paired
               else f"unpaired: {difference.unpaired}")
        how += "".join(f"; {of}'s other {n} game{'s' if n > 1 else ''} left out"
                       for of, n in zip((first, label), difference.left_out, strict=True) if n)
        if difference.played_differently:  # not the strategies' difference alone
            how += "; played differently: " + ", ".join(difference.played_differently)
        lines.append(f"{label:<4} {_per_game(difference.mean, difference.stderr, signed=True)}  ({how})")
    return "\n".join(lines)


def _labels(count: int) -> list[str]:
    """A, B, ..., Z, then A2, B2, ...: a short name for each run."""
    return [chr(ord("A") + i % 26) + (str(i // 26 + 1) if i >= 26 else "") for i in range(count)]


def _per_game(mean: Fraction, stderr: float, signed: bool = False) -> str:
    """A mean per game to the penny (an exact half up) with its standard error."""
    shown = format_minor(half_up(mean))
    if signed and not shown.startswith("-"):
        shown = "+" + shown
    spread = "n/a" if math.isnan(stderr) else f"{stderr / 100:.2f}"
    return f"{shown} ± {spread}"
