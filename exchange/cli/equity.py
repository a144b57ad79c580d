"""``exchange-poker equity``: equities of 2 hands up to the game's seats, exact or Monte Carlo.

    exchange-poker equity --variant holdem AsKs QdQc 7h6h 2c2d --board Ah7c2s
    exchange-poker equity --variant omaha AsKsQhJh QdQc9c8d --samples 100000 --seed 7 --json
    exchange-poker equity --variant triple-draw-27 2c3d4h7s9c KcQd9h8s3c --draws 2

A count too large to enumerate (stud and draw games early on) is sampled
instead, and its header says so with the seed, which ``--seed`` takes again.
Draw games are priced over the replacement cards, every hand drawing by the
game's published policy (``engine.draw_policy``); ``--draws`` says how many draws
are still to come (default: all of them), ``--dead`` the discards already seen.

Bad input exits with status 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.wording import counted
from exchange.cli.commands import SUMMARIES
from exchange.cli.options import fail, one_line_errors, refuse_a_game_as_a_hand, whole_number, whole_number_from_to

if TYPE_CHECKING:
    from engine import EquityResult

HILO = ("high_win", "high_tie", "low_win", "low_tie")  # extra columns for hi/lo games

SEED_MAX = 2**64 - 1
"""The largest ``--seed``: the Monte Carlo generator (SplitMix64) takes its seed modulo 2**64, so a larger or a
negative one would give another seed's sample under its own name."""


SEATS = "8; 6 in americana, telesina, draw5 and triple-draw-27; 5 in draw32"
"""Each game's most hands, as ``--help`` gives them (the engine's variants say so too: a test holds them alike; the
engine is not imported to build the parser, as it loads the compiled rankings)."""

DRAW_SAMPLES = 20_000
"""A draw game's deals where the exact count is too large and no ``--samples`` is given, as ``--help`` says: the
engine's default (``engine.draw_equity.DEFAULT_SAMPLES``), said again so that ``--help`` is built without loading
the engine; a test holds them alike."""

MAX_SAMPLES = 10**9
"""The largest ``--samples``: a standard error near 0.002 %, and hours of dealing in the stud games already (the
engine's counters are 64-bit, so a count past them ended in a traceback)."""


def sample_count(text: str) -> int:
    """``--samples``: a whole number from 1 to :data:`MAX_SAMPLES`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number of samples, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"samples must be a positive whole number, not {value}")
    if value > MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SAMPLES:,}, not {value}")
    return value


def register(subparsers: Any) -> None:
    """Add the ``equity`` subcommand."""
    parser = subparsers.add_parser(
        "equity",
        help=SUMMARIES["equity"],
        description=f"Equity of 2 hands up to the game's seats ({SEATS}): exact over every remaining board, or "
        f"Monte Carlo with --samples (and where the exact count is too large: 200,000 deals, {DRAW_SAMPLES:,} in draw "
        "games).",
    )
    parser.add_argument(
        "hands", nargs="+", metavar="HAND", help="hole cards, e.g. AsKs (four for omaha games; stud: the cards so far)"
    )
    parser.add_argument(
        "--variant",
        default="holdem",
        help="holdem (default), omaha, omaha-hilo, soko, stud7, stud7-hilo, americana, telesina, "
        "draw5, triple-draw-27 or draw32",
    )
    parser.add_argument("--board", default="", help="0, 3, 4 or 5 board cards, e.g. Ah7c2s (telesina: the vela)")
    parser.add_argument("--dead", default="", help="cards known to be out of the deck, e.g. 3c4d")
    parser.add_argument("--draws", type=whole_number,
                        help="draw games: draws still to come (default: every draw of the game)")
    parser.add_argument("--samples", type=sample_count,
                        help=f"Monte Carlo over this many random boards instead of exact (at most {MAX_SAMPLES:,})")
    parser.add_argument("--seed", type=whole_number_from_to(0, SEED_MAX),
                        help=f"seed of a Monte Carlo, forced or not (same seed, same boards), 0 to {SEED_MAX} "
                             "(the generator's 64 bits)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    refuse_a_game_as_a_hand(args.hands, _check_variant(args.variant))
    try:
        if args.seed is not None and args.samples is None and _counts_exactly(args):
            fail("--seed needs --samples here: this count is exact (exact equity uses no randomness)")
        with _ctrl_c_ends_at_once():
            result = _compute(args)
    except ValueError as error:
        fail(str(error))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_table(result))
    return 0


def _check_variant(variant: str) -> list[str]:
    """The variants equity prices (the engine's and the draw games'); one not among them is refused, naming them."""
    from engine.draw_policy import POLICIES
    from engine.variant_equity import equity_variants

    known = [*equity_variants(), *POLICIES]
    if variant not in known:
        fail(f"unknown variant {variant!r}; equity knows {', '.join(known)}")
    return known


@contextlib.contextmanager
def _ctrl_c_ends_at_once() -> Iterator[None]:
    """Ctrl-C with its default effect while counting: the counts run in compiled kernels that Python's handler
    cannot break into (a billion samples went on for minutes after it), and nothing is written to leave half done.
    """
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _counts_exactly(args: argparse.Namespace) -> bool:
    """Whether the count asked for, without ``--samples``, is exact: told before anything is counted."""
    from engine.draw_equity import draw_counts_exactly
    from engine.draw_policy import POLICIES
    from engine.equity import EQUITY_VARIANTS
    from engine.variant_equity import counts_exactly

    if args.variant in EQUITY_VARIANTS:
        return True
    if args.variant not in POLICIES:
        return counts_exactly(args.variant, args.hands, args.board, args.dead)
    return draw_counts_exactly(args.variant, args.hands, args.dead, draws_left=_draws(args))


def _draws(args: argparse.Namespace) -> int:
    from engine.variants import get_variant

    return len(get_variant(args.variant).draws) if args.draws is None else args.draws


def _compute(args: argparse.Namespace) -> EquityResult:
    import engine
    from engine.draw_policy import POLICIES
    if args.variant not in POLICIES:
        if args.draws is not None:
            fail(f"--draws is for the draw games ({', '.join(POLICIES)}), not {args.variant}")
        return engine.equity(
            args.variant, args.hands, board=args.board, dead=args.dead, samples=args.samples, seed=args.seed
        )
    from engine.draw_equity import draw_equity

    if args.board:
        fail(f"{args.variant} has no board; give the discards already seen with --dead")
    return draw_equity(args.variant, args.hands, args.dead, draws_left=_draws(args), samples=args.samples,
                       seed=args.seed)


def format_table(result: EquityResult) -> str:
    """A readable table: a header line, then hand, win %, tie %, equity % (and ± stderr for Monte Carlo); a hi/lo
    game's ends with the share of deals with no low (the Low market's "No low")."""
    from engine.equity import HiLoEquityResult
    from engine.variants import get_variant

    if get_variant(result.variant).board_cards:  # what is counted: the boards left, or the deals of a game without
        no_board = "preflop" if result.variant.startswith(("holdem", "omaha")) else "no board yet"
        where = f", board {' '.join(map(str, result.board))}" if result.board else f", {no_board}"
        dealt = "board"
    else:
        where, dealt = "", "deal"
    if result.exact:
        how = f"exact over {counted(result.boards, dealt)}"
    else:
        how = f"Monte Carlo over {counted(result.boards, 'sample')} (seed {result.seed})"
    lines = [f"{result.variant} equity{where}: {how}"]
    labels = [" ".join(map(str, h.cards)) or "(no cards)" for h in result.results]
    width = max(len("hand"), *map(len, labels))
    split = result if isinstance(result, HiLoEquityResult) else None  # a hi/lo pot
    hilo = [f"{100 * getattr(h, k):7.3f}" for h in result.results for k in HILO] if split is not None else []
    win, tie = ("scoop %", "share %") if hilo else ("win %", "tie %")  # a hi/lo pot: whole, or a part of it
    header = f"{'hand':<{width}}  {win:>8}  {tie:>8}  {'equity %':>9}"
    header += "  hi win %  hi tie %  lo win %  lo tie %" if hilo else ""
    lines.append(header + ("  ± stderr %" if not result.exact else ""))
    for i, h in enumerate(result.results):
        row = f"{labels[i]:<{width}}  {100 * h.win:8.3f}  {100 * h.tie:8.3f}  {100 * h.equity:9.3f}"
        if hilo:
            row += "".join(f"  {cell:>8}" for cell in hilo[4 * i : 4 * i + 4])
        if h.stderr is not None:
            row += f"  ± {100 * h.stderr:.3f}"
        lines.append(row)
    if split is not None:
        error = "" if split.no_low_stderr is None else f" ± {100 * split.no_low_stderr:.3f}"
        lines.append(f"no low in {100 * split.no_low:.3f} %{error} of the {dealt}s (the Low market's No low)")
    return "\n".join(lines)

