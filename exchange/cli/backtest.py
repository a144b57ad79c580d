"""``exchange-poker backtest``: run a strategy over many games on the virtual clock.

    exchange-poker backtest --strategy scripts/value_backer.py:ValueBacker --params '{"margin": 0.05}' \\
        --channel holdem --games 1000 --seed 7 --workers 2 --out out/value

    exchange-poker backtest --strategy scripts/fixed_fraction.py:FixedFraction --sessions 200 \\
        --games-per-session 100 --balance 100 --seed 7 --workers 2 --out out/fraction

Writes ``games.parquet``, ``orders.parquet``, ``fills.parquet``,
``settlements.parquet``, ``equities.parquet``, ``irregularities.parquet`` and
``streams/<marketId>`` (Betfair stream format, every market of each game) in
``--out``, shows a progress bar on stderr and prints a summary. By default
every game is its own world (a fresh account and strategy instance); with
``--sessions K --games-per-session G`` each of K sessions is one strategy
instance and one account whose balance carries over G consecutive games. The
output depends only on the strategy, its parameters, the channel, the games
(or sessions), ``--balance`` and ``--seed`` — not on ``--workers`` or
``--scheduler``.
"""

from __future__ import annotations

import argparse
import tempfile
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from exchange.cli.commands import SUMMARIES
from exchange.cli.importing import current_folder_importable
from exchange.cli.options import (
    fail,
    help_text,
    one_line_errors,
    out_folder,
    positive,
    progress_bar_wanted,
    share,
    whole_number,
)
from exchange.cli.stopping import terminated_as_interrupted
from exchange.core.money import to_minor
from exchange.game.channels import CHANNELS, get_channel
from exchange.server.params import plain_decimal

if TYPE_CHECKING:  # (the backtester loads when a run starts: --help stays quick)
    from exchange.backtest.runner import BacktestConfig, BacktestResult
    from exchange.backtest.workers import Executor


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "backtest",
        help=SUMMARIES["backtest"],
        description=help_text(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--strategy", required=True, metavar="REF", help="module:Class or path/to/file.py:Class")
    parser.add_argument("--params", default="{}", metavar="JSON", help="keyword arguments for the strategy (JSON)")
    parser.add_argument("--channel", default="holdem", choices=sorted(CHANNELS), help="channel (default holdem)")
    parser.add_argument("--games", type=positive, default=None, metavar="N",
                        help="number of games, each its own world (or give --sessions and --games-per-session)")
    parser.add_argument("--sessions", type=positive, default=None, metavar="K",
                        help="number of sessions: one strategy instance and account each, its balance carried over")
    parser.add_argument("--games-per-session", type=positive, default=None, metavar="G",
                        help="consecutive games of each session")
    parser.add_argument("--balance", type=_money, default=None, metavar="AMOUNT",
                        help="the strategy account's starting balance in each world or session, in pounds as "
                             "every amount on the command line (1000 or 25.50; default 10000: 1,000,000 pennies "
                             "in the tables)")
    parser.add_argument("--seed", type=whole_number, required=True, metavar="S",
                        help="seed, any whole number; game i is dealt from (S, i)")
    parser.add_argument("--workers", type=positive, default=None, metavar="K",
                        help="local worker processes (default 1)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run on a Dask cluster instead (its workers: not with --workers)")
    parser.add_argument("--out", required=True, type=out_folder, metavar="DIR", help="output directory")
    parser.add_argument("--latency-ms", type=_non_negative, default=None, metavar="MS",
                        help="decision-to-exchange latency (default: the strategy's, 100 ms)")
    parser.add_argument("--chunk-size", type=positive, default=None, metavar="N",
                        help="sessions (or games) per work item (default: chosen from their number and workers)")
    parser.add_argument("--no-streams", action="store_true", help="do not write the Betfair stream files")
    parser.add_argument("--irregularity-rate", type=share, default=0.0, metavar="P",
                        help="share of games dealt with a dealer's irregularity, 0 to 1 (default 0)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--debug", action="store_true",
                        help="a strategy that raises shows its traceback (default: one line naming the hook and game)")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def _money(text: str) -> int:
    if not plain_decimal(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount like 1000 or 25.50")
    try:
        value = to_minor(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}; give an amount like 1000 or 25.50") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    from exchange.backtest.runner import MAX_BALANCE

    if value > MAX_BALANCE:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_BALANCE // 100:,}, not {text}")
    return value


def _games(args: argparse.Namespace) -> tuple[int, int]:
    """``(games, games per session)`` from ``--games`` or ``--sessions`` with ``--games-per-session``."""
    sessions = args.sessions is not None or args.games_per_session is not None
    if sessions and args.games is not None:
        raise ValueError("give either --games or --sessions with --games-per-session, not both")
    if not sessions:
        if args.games is None:
            raise ValueError("give --games N, or --sessions K with --games-per-session G")
        return args.games, 1
    if args.sessions is None or args.games_per_session is None:
        raise ValueError("--sessions and --games-per-session go together")
    return args.sessions * args.games_per_session, args.games_per_session


def _non_negative(text: str) -> int:
    """A latency: a whole number of milliseconds, 0 or more."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number of ms, 0 or more, not {text}")
    return int(text)


def _prepare_out(out: Path, record_streams: bool) -> list[Path]:
    """Make ``out`` and prove it writable, with nothing in the way of the files the run puts there, so a bad
    ``--out`` fails before the games run. Returns the folders made (``out`` and the parents it lacked), deepest
    first: a run that fails takes them away again (:func:`~exchange.backtest.runner.take_away`)."""
    from exchange.backtest.runner import check_out, folders_made

    made = folders_made(out)
    with tempfile.TemporaryFile(dir=out):
        pass
    check_out(out, record_streams)
    return made


def run(args: argparse.Namespace) -> int:
    # module:Class beside the user, as python -m finds it; SIGTERM removes the unfinished output as Ctrl-C does
    with current_folder_importable(), terminated_as_interrupted():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from exchange.backtest.agent import traded_markets
    from exchange.backtest.loading import StrategyLoadError, StrategySpec
    from exchange.backtest.runner import DEFAULT_BALANCE, BacktestConfig, check_latency
    from exchange.backtest.strategy import Strategy

    stage = "as its file loaded"  # where the strategy's own code runs, for a line that says where it raised
    try:
        if args.workers is not None and args.scheduler is not None:
            raise ValueError("give --workers (local processes) or --scheduler (a Dask cluster's workers), not both")
        games, games_per_session = _games(args)
        spec = StrategySpec.parse(args.strategy, args.params)
        # fail here, before any worker starts, if the class, its params or the markets it trades are wrong
        spec.strategy_class()
        stage = "as its class was built"
        strategy = spec.build()
        if not isinstance(strategy, Strategy):
            raise StrategyLoadError(f"{args.strategy} is not a subclass of exchange.backtest.strategy.Strategy")
        stage = "as it named the markets it trades"
        traded_markets(strategy, get_channel(args.channel))
        if args.latency_ms is None:  # the option's is checked with the rest of the run's settings
            check_latency(strategy.latency_ms, args.channel, " (the strategy's own; --latency-ms sets another)")
        config = BacktestConfig(
            strategy=spec,
            channel=args.channel,
            games=games,
            games_per_session=games_per_session,
            seed=args.seed,
            latency_ms=args.latency_ms,
            record_streams=not args.no_streams,
            irregularity_rate=args.irregularity_rate,
            balance=args.balance or DEFAULT_BALANCE,
            session_figures=args.sessions is not None,
        )
    except (StrategyLoadError, ValueError) as exc:
        fail(str(exc))
    except (SyntaxError, ImportError) as exc:  # a strategy file that cannot run, or a module a strategy needs
        fail(f"strategy {args.strategy!r}: {exc}")
    except Exception as exc:  # the strategy's own code, run as its file loads or its class is built
        if args.debug:
            raise
        fail(f"strategy {args.strategy!r} raised {type(exc).__name__}: {exc} {stage} (--debug shows the traceback)")
    result = _into_out(args, config)
    print(result.summary.text())
    print(f"wrote {', '.join(str(p) for p in result.paths)}")
    return 0


def _into_out(args: argparse.Namespace, config: BacktestConfig) -> BacktestResult:
    """The backtest played on the workers asked for into ``--out``, made for it and taken away again if the run
    fails; what goes wrong is said on one line."""
    from exchange.backtest.workers import make_executor

    try:
        executor = make_executor(args.workers or 1, args.scheduler)
    except (OSError, RuntimeError, ValueError) as exc:  # no cluster extra; no scheduler there; a malformed address
        fail(f"cannot use the Dask scheduler {args.scheduler}: {exc}")
    with executor:
        try:
            made = _prepare_out(args.out, not args.no_streams)
        except OSError as exc:
            reason = "it is a file, not a folder" if args.out.is_file() else exc.strerror or str(exc)
            fail(f"cannot write the output folder --out {args.out}: {reason}")
        try:
            return _played(args, config, executor)
        except BaseException:  # a failure, Ctrl-C included: the folder is left as it was, not made
            from exchange.backtest.runner import take_away

            take_away(made)
            raise


def _played(args: argparse.Namespace, config: BacktestConfig, executor: Executor) -> BacktestResult:
    """The backtest run into ``--out``; a failure is said on one line (:func:`fail`) but the backtester's own."""
    from exchange.backtest.runner import OutputBlocked, run_backtest

    try:
        return run_backtest(config, executor, args.out, progress=progress_bar_wanted(args), chunk_size=args.chunk_size)
    except OutputBlocked as exc:  # another backtest writing into the folder
        fail(f"cannot write the output folder --out {args.out}: {exc}")
    except BrokenProcessPool:
        fail("a worker process ended abruptly (killed, out of memory, or the strategy ended its process); "
             "nothing was written to --out")
    except Exception as exc:
        _strategy_raised(args, exc)


def _strategy_raised(args: argparse.Namespace, exc: Exception) -> NoReturn:
    """The run stopped on ``exc``: the strategy's own error on one line (but with ``--debug``), else re-raised."""
    from exchange.backtest.strategy_errors import other_notes, raising_hook
    from exchange.backtest.workers import WorkerError

    hook = raising_hook(exc)
    if hook is None or args.debug:  # the backtester's own error, or asked for: the traceback
        raise exc
    where = "; ".join(other_notes(exc))
    said = str(exc) if isinstance(exc, WorkerError) else f"{type(exc).__name__}: {exc}"  # its class named already
    fail(f"strategy {args.strategy!r}: {hook} raised {said}, {where}; nothing was written to --out (--debug shows the "
         "traceback)")
