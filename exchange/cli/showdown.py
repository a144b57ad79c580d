"""``exchange-poker showdown``: who wins the pot, for any of the eleven games.

    exchange-poker showdown --variant telesina --hands "Ah Qc 9d 8s 7h" "Ad Kc 9h 8c 7d" --board Jh
    exchange-poker showdown --variant omaha-hilo --hands AsKs2d3c QdQh9c8d --board 4h5s6dKcJd --json

``--hands`` are each seat's cards at the showdown (hole cards in board games, all
of a stud hand's cards, Telesina's own five); ``--board`` the community cards or
Telesina's vela. Bad input exits with status 2 and one line on stderr naming the
problem and what is allowed.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from exchange.cli.commands import SUMMARIES
from exchange.cli.options import fail, one_line_errors, refuse_a_game_as_a_hand

if TYPE_CHECKING:
    from engine.showdown import PotHalf, ShowdownResult

NAMES = (
    "holdem, omaha, omaha-hilo, soko, stud7, stud7-hilo, draw5, triple-draw-27, americana, telesina, draw32"
)


def register(subparsers: Any) -> None:
    """Add the ``showdown`` subcommand."""
    parser = subparsers.add_parser(
        "showdown",
        help=SUMMARIES["showdown"],
        description="Decide a showdown: the winners of the pot (both halves in hi/lo games) and each hand played.",
    )
    parser.add_argument("--variant", default="holdem", help=f"the game (default holdem): {NAMES}")
    parser.add_argument(
        "--hands", nargs="+", required=True, metavar="HAND", help='each seat\'s cards, e.g. "Ah Qc 9d 8s 7h" or AhQc'
    )
    parser.add_argument("--board", default="", help="community cards, or Telesina's vela, e.g. Jh")
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON (its winners counted from 0: the text's hand 1 is 0)")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from engine.showdown import showdown

    refuse_a_game_as_a_hand(args.hands, NAMES.split(", "))
    try:
        result = showdown(args.variant, args.hands, args.board)
    except ValueError as error:
        fail(str(error))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_result(result, args.board))
    return 0


def _who(winners: tuple[int, ...]) -> str:
    if len(winners) == 1:
        return f"hand {winners[0] + 1} wins"
    return "dead heat: hands " + ", ".join(str(w + 1) for w in winners) + " split"


def _played(half: PotHalf | None, i: int) -> str:
    if half is None or half.hands[i] is None:
        return "no low"
    return str(half.hands[i])


def format_result(result: ShowdownResult, board: str) -> str:
    """A readable verdict: a header, one line per hand (what it plays, ``*`` on winners), the outcome.

    >>> from engine.showdown import showdown
    >>> print(format_result(showdown("telesina", ["Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d"], "Jh"), "Jh"))
    telesina showdown, vela Jh
    hand 1: high card (Ah Qc Jh 9d 8s) *
    hand 2: high card (Ad Kc Jh 9h 8c)
    hand 1 wins
    """
    from engine.cards import format_cards, parse_cards
    from engine.variants import get_variant

    game = get_variant(result.variant)
    where = "vela" if game.name == "telesina" else "board"
    lines = [f"{result.variant} showdown" + (f", {where} {format_cards(parse_cards(board))}" if board else "")]
    for i, high in enumerate(result.high.hands):
        line = f"hand {i + 1}: {high}" + (" *" if i in result.high.winners else "")
        if game.is_hilo:
            low = _played(result.low, i)
            line += f" | low: {low}" + (" *" if result.low and i in result.low.winners else "")
        lines.append(line)
    if not game.is_hilo:
        lines.append(_who(result.high.winners) + (f" ({result.high.rule})" if result.high.rule else ""))
    elif result.low is None:
        lines.append(f"high: {_who(result.high.winners)}; no qualifying low, so high takes the whole pot")
    else:
        lines.append(f"high: {_who(result.high.winners)}; low: {_who(result.low.winners)}")
    return "\n".join(lines)
