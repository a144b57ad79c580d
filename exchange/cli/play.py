"""``exchange-poker play``: hands of any of the eleven games between bots, written out.

    exchange-poker play --variant stud7 --seats 5 --hands 1000 --seed 1 --out out/stud
    exchange-poker play --variant holdem --structure no-limit --seats 3 --bots random calling scripts/my_bot.py:MyBot

Each hand is dealt from ``(seed, hand number)`` with every player's stack reset to
``--stack``; the players move one seat each hand, so the button goes round. Bots are
``random`` (a random legal move), ``calling`` (checks and calls to the end) or your own
class, ``module:Class`` or ``path/to/file.py:Class``, with a ``decide(view)`` method
(see :mod:`engine.table.bots`). One bot name is used for every player; else give one
per player.

Writes ``DIR/hands/NNNNNN.phh`` (one PHH hand history per hand) and
``DIR/results.parquet`` (one row per player and hand: seat, bot, stacks, net result in
chips, whether the hand reached a showdown), and prints each player's total. They are written once
the run has succeeded and replace an earlier run's: every ``.phh`` in ``DIR/hands`` goes. Of two runs into one
``DIR`` at once, the later to finish is refused and writes nothing (:mod:`exchange.cli.play_out` says why).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.wording import counted
from exchange.cli.commands import SUMMARIES
from exchange.cli.importing import current_folder_importable
from exchange.cli.options import fail, one_line_errors, out_folder, positive, progress_bar_wanted, whole_number
from exchange.cli.play_out import OutError, Staging, check_out
from exchange.cli.stopping import terminated_as_interrupted

if TYPE_CHECKING:
    from engine.table.bots import Bot, Decision, SeatView

MAX_CHIPS = 10**12
"""The largest --stack and --seed: the Parquet columns are 64-bit."""
HANDS_PER_SEED = 1_000_000
"""Hand h (from 0) of seed s is dealt from s x HANDS_PER_SEED + h: more hands would be another seed's deals."""
NAMES = "holdem, omaha, omaha-hilo, soko, stud7, stud7-hilo, draw5, triple-draw-27, americana, telesina, draw32"


def register(subparsers: Any) -> None:
    """Add the ``play`` subcommand."""
    parser = subparsers.add_parser(
        "play",
        help=SUMMARIES["play"],
        description="Play hands of any game between bots and write their hand histories and results.",
    )
    parser.add_argument("--variant", default="holdem", help=f"the game (default holdem): {NAMES}")
    parser.add_argument("--structure", default="fixed-limit", choices=("fixed-limit", "pot-limit", "no-limit"),
                        help="the betting structure (default fixed-limit; the stakes are engine.table.Stakes.default: "
                             "blinds 1/2 with bets 2/4, or ante 1, bring-in 2 and bets 4/8)")
    parser.add_argument("--seats", type=whole_number, default=2,
                        help="players at the table, 2 to the game's most (default 2)")
    parser.add_argument("--hands", type=positive, default=100,
                        help=f"hands to play, 1 to {HANDS_PER_SEED} (default 100)")
    parser.add_argument("--seed", type=whole_number, default=0,
                        help=f"seed of the deals and the random bots, 0 to {MAX_CHIPS} (default 0)")
    parser.add_argument("--stack", type=positive, default=200,
                        help="every player's chips at the start of a hand (default 200)")
    parser.add_argument(
        "--bots", nargs="+", default=["random"], metavar="BOT", help="random, calling, module:Class or file.py:Class"
    )
    parser.add_argument("--out", required=True, type=out_folder,
                        help="directory for hands/*.phh and results.parquet (an earlier run's there are replaced)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--debug", action="store_true",
                        help="a bot that raises shows its traceback (default: one line naming the bot, seat and hand)")
    one_line_errors(parser)
    parser.set_defaults(run=run)


class BotRaisedError(Exception):
    """A bot's own code raised in ``decide``: the seat it played (its exception is the ``__cause__``)."""

    def __init__(self, seat: int, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.seat = seat


class _Watched:
    """A bot whose errors name the seat it plays (``play_hand`` passes a bot's error on as it came)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def decide(self, view: SeatView) -> Decision:
        try:
            return self.bot.decide(view)
        except Exception as error:  # the bot's own code: reported on one line by the caller
            raise BotRaisedError(view.seat, error) from error


def _bots(names: list[str], players: int, seed: int, debug: bool) -> list[Bot]:
    from engine.table.bots import CallingBot, RandomBot
    from exchange.backtest.loading import StrategyLoadError, StrategySpec

    if len(names) not in (1, players):
        fail(f"--bots names one bot for every player or one per player ({players}), not {len(names)}")
    out: list[Bot] = []
    for player in range(players):
        name = names[0] if len(names) == 1 else names[player]
        if name == "random":
            out.append(RandomBot(seed * 1_000 + player))
        elif name == "calling":
            out.append(CallingBot())
        else:
            if ":" not in name:  # a mistyped built-in, most likely: not a reference to a class
                fail(f"bot {name!r} is not one: give random or calling (built in), or your own as module:Class "
                     "or path/to/file.py:Class")
            try:
                bot = StrategySpec.parse(name).build()
            except (StrategyLoadError, OSError, SyntaxError, ImportError) as error:
                fail(f"bot {name!r}: {error}")
            except Exception as error:  # the bot's own code, run as its file loads or its class is built
                if debug:
                    raise
                fail(f"player {player + 1}'s bot {name!r} raised {type(error).__name__}: {error} (--debug shows the "
                     "traceback)")
            if not callable(getattr(bot, "decide", None)):
                fail(f"bot {name!r} has no decide(view) method")
            out.append(bot if debug else _Watched(bot))
    return out


def run(args: argparse.Namespace) -> int:
    # module:Class beside the user, as python -m finds it; SIGTERM removes the unfinished output as Ctrl-C does
    with current_folder_importable(), terminated_as_interrupted():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from engine.table import IllegalActionError, Structure, TableError
    from engine.variants import UnknownVariantError, get_variant

    try:
        variant = get_variant(args.variant)
    except UnknownVariantError as error:
        fail(str(error))
    if not 2 <= args.seats <= variant.max_seats:
        fail(f"--seats must be 2 to {variant.max_seats} for {variant.title}, not {args.seats}")
    if args.hands > HANDS_PER_SEED:
        fail(f"--hands must be 1 to {HANDS_PER_SEED}, not {args.hands}: hand h of seed s (h counted from 0) is "
             f"dealt from s x {HANDS_PER_SEED:,} + h, so more would repeat the deals of seed s + 1")
    if args.stack > MAX_CHIPS:
        fail(f"--stack must be at most {MAX_CHIPS} (the results table holds 64-bit chip counts)")
    if not 0 <= args.seed <= MAX_CHIPS:
        fail(f"--seed must be 0 to {MAX_CHIPS}, not {args.seed} (each hand's seed is seed x {HANDS_PER_SEED:,} + "
             "the hand's number counted from 0" + (", and a negative one would deal as the same number without its "
                                                  "sign)" if args.seed < 0 else ", which must fit in 64 bits)"))
    try:
        check_out(args.out)
    except OutError as error:
        fail(str(error))
    bots = _bots(args.bots, args.seats, args.seed, args.debug)
    names = [args.bots[0] if len(args.bots) == 1 else args.bots[p] for p in range(args.seats)]
    try:
        with Staging(args.out) as staging:  # nothing of a failed run reaches --out
            try:
                rows = _play(args, staging.path, variant.name, Structure(args.structure), bots, names)
            except _Refused as refused:
                fail(str(refused))
            except (IllegalActionError, TableError) as error:
                fail(f"a bot made an illegal move: {error}")
            _write_results(staging.path, rows)
            staging.publish()
    except OutError as error:
        fail(str(error))
    except OSError as error:
        fail(f"--out {args.out}: cannot write the hands there ({error.strerror or error})")
    totals = [sum(r["net"] for r in rows if r["player"] == p + 1) for p in range(args.seats)]
    print(f"{counted(args.hands, 'hand')} of {variant.title} ({args.structure}) written to {args.out}")
    for player, total in enumerate(totals):
        print(f"player {player + 1} ({names[player]}): {total:+d} chip{'' if abs(total) == 1 else 's'}")
    return 0


def _play(
    args: argparse.Namespace, staging: Path, variant: str, structure: Any, bots: list[Bot], names: list[str]
) -> list[dict[str, Any]]:
    from tqdm import tqdm

    rows: list[dict[str, Any]] = []
    progress = tqdm(total=args.hands, unit="hand", file=sys.stderr, disable=not progress_bar_wanted(args),
                    mininterval=0.5)
    try:
        for hand in range(args.hands):
            rows += _play_one(args, staging, hand, variant, structure, bots, names)
            progress.update(1)
    except BaseException:
        progress.leave = False  # the bar is cleared, so the error that follows is a line of its own
        raise
    finally:
        progress.close()
    return rows


class _Refused(Exception):
    """A hand a bot could not finish: the one line that says who and why (said once the progress bar is gone)."""


def _play_one(
    args: argparse.Namespace, staging: Path, hand: int, variant: str, structure: Any, bots: list[Bot],
    names: list[str],
) -> list[dict[str, Any]]:
    """Play hand ``hand`` (from 0), write its history, and return its rows of the results table."""
    from engine.table import actions as A
    from engine.table.bots import BotMoveError, play_hand
    from engine.table.phh import dumps

    n = args.seats
    players = [(seat + hand) % n for seat in range(n)]  # the player in each seat
    seed = args.seed * HANDS_PER_SEED + hand
    try:
        state = play_hand(variant, [args.stack] * n, [bots[p] for p in players], seed=seed, structure=structure)
    except (BotMoveError, BotRaisedError) as error:
        player = players[error.seat]
        what = (f"made an illegal move: {error.reason}" if isinstance(error, BotMoveError)
                else f"raised {error} (--debug shows the traceback)")
        who = f"hand {hand + 1}: player {player + 1} ({names[player]}), in seat {error.seat}"
        raise _Refused(f"{who}, {what}") from None
    labels = [f"player {p + 1}" for p in players]
    (staging / "hands" / f"{hand + 1:06d}.phh").write_text(dumps(state, hand=hand + 1, players=labels, _seed=seed))
    showdown = any(isinstance(r, A.Show) for r in state.log)
    return [
        {
            "hand": hand + 1,
            "variant": variant,
            "structure": str(structure),
            "seed": seed,
            "player": player + 1,  # as the summary and the hand histories name the players: from 1, as hands
            "bot": names[player],
            "seat": seat,
            "starting_stack": state.starting[seat],
            "final_stack": state.stacks[seat],
            "net": state.stacks[seat] - state.starting[seat],
            "folded": not state.live[seat],
            "showdown": showdown and state.live[seat],
        }
        for seat, player in enumerate(players)
    ]


def _write_results(out: Path, rows: list[dict[str, Any]]) -> None:
    import pandas as pd

    pd.DataFrame(rows).to_parquet(out / "results.parquet", index=False)
