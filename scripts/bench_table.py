"""Benchmark: hands per second of table play with random bots, ours against pokerkit.

Plays ``--hands`` hands of each game at ``--seats`` seats (fewer where a game seats
fewer) with random-legal bots — a uniform pick among the legal moves (fold only when
facing a bet), a uniform raise amount, a random discard — and prints the rate, min /
median / max over ``--repeats`` runs. For the six games pokerkit plays, pokerkit plays
the same number of hands with the same kind of bot in the same run (its own dealing,
pots and showdown automated), and the ratio of the medians is printed::

    python scripts/bench_table.py                         # 400 hands a run, 6 seats, 5 repeats
    python scripts/bench_table.py --hands 100 --repeats 3 --games holdem stud7

Our hands are played through :func:`engine.table.bots.play_hand` (the log kept, no
``_check``); nothing is written to disk.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pokerkit as pk

from engine.table import Structure
from engine.table.bots import RandomBot, play_hand
from engine.variants import VARIANTS
from exchange.cli.options import positive

AUTOMATED = tuple(pk.Automation)  # pokerkit deals, collects, shows and pays by itself

# Our game and structure, and pokerkit's game for the same (blinds 1/2, limits 2/4; ante 1, bring-in 2, limits 4/8).
POKERKIT: dict[str, tuple[Structure, Callable[[], pk.Poker]]] = {
    "holdem": (Structure.FIXED_LIMIT, lambda: pk.FixedLimitTexasHoldem(AUTOMATED, True, 0, (1, 2), 2, 4)),
    "omaha": (Structure.POT_LIMIT, lambda: pk.PotLimitOmahaHoldem(AUTOMATED, True, 0, (1, 2), 2)),
    "omaha-hilo": (
        Structure.FIXED_LIMIT,
        lambda: pk.FixedLimitOmahaHoldemHighLowSplitEightOrBetter(AUTOMATED, True, 0, (1, 2), 2, 4),
    ),
    "stud7": (Structure.FIXED_LIMIT, lambda: pk.FixedLimitSevenCardStud(AUTOMATED, True, 1, 2, 4, 8)),
    "stud7-hilo": (
        Structure.FIXED_LIMIT,
        lambda: pk.FixedLimitSevenCardStudHighLowSplitEightOrBetter(AUTOMATED, True, 1, 2, 4, 8),
    ),
    "triple-draw-27": (
        Structure.FIXED_LIMIT,
        lambda: pk.FixedLimitDeuceToSevenLowballTripleDraw(AUTOMATED, True, 0, (1, 2), 2, 4),
    ),
}


def ours(variant: str, structure: Structure, seats: int, hands: int, seed: int) -> float:
    """Seconds to play ``hands`` hands with our table and random bots."""
    bots = [RandomBot(seed + s) for s in range(seats)]
    start = time.perf_counter()
    for hand in range(hands):
        play_hand(variant, [200] * seats, bots, seed=seed * 100_000 + hand, structure=structure)
    return time.perf_counter() - start


def _pokerkit_step(state: pk.State, rng: random.Random) -> None:
    if state.stand_patter_or_discarder_index is not None:
        hole = list(state.hole_cards[state.stand_patter_or_discarder_index])
        state.stand_pat_or_discard(rng.sample(hole, rng.randint(0, len(hole))))
        return
    moves = ["call"]
    if state.can_post_bring_in():
        moves = ["bring-in"]
    elif state.checking_or_calling_amount:
        moves.append("fold")
    if state.can_complete_bet_or_raise_to():
        moves.append("raise")
    move = rng.choice(moves)
    if move == "bring-in":
        state.post_bring_in()
    elif move == "fold":
        state.fold()
    elif move == "call":
        state.check_or_call()
    else:
        low, high = state.min_completion_betting_or_raising_to_amount, state.max_completion_betting_or_raising_to_amount
        if low is None or high is None:  # pokerkit gives the range whenever it allows the raise
            raise RuntimeError(f"pokerkit allowed a raise but gave no range: {low} to {high}")
        state.complete_bet_or_raise_to(rng.randint(low, high))


def theirs(variant: str, seats: int, hands: int, seed: int) -> float:
    """Seconds to play ``hands`` hands with pokerkit and the same kind of random bot."""
    game = POKERKIT[variant][1]()
    game.mode = pk.Mode.CASH_GAME
    rng = random.Random(seed)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(hands):
            state = game([200] * seats, seats)
            while state.status:
                _pokerkit_step(state, rng)
    return time.perf_counter() - start


def _rates(run: Callable[[], float], hands: int, repeats: int) -> list[float]:
    return [hands / run() for _ in range(repeats)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=positive, default=400)
    parser.add_argument("--seats", type=_seats, default=6, help="seats a table (fewer where a game seats fewer)")
    parser.add_argument("--repeats", type=positive, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args(argv)
    ours("holdem", Structure.FIXED_LIMIT, 2, 20, 0)  # warm the rankings' compiled kernels
    print(f"hands/s, {args.hands} hands a run, min / median / max of {args.repeats} runs")
    print(f"{'game':16} {'seats':>5} {'ours':>26} {'pokerkit':>26} {'ratio':>6}")
    for variant in args.games:
        seats = min(args.seats, VARIANTS[variant].max_seats)
        structure = POKERKIT[variant][0] if variant in POKERKIT else Structure.FIXED_LIMIT
        mine = _rates(partial(ours, variant, structure, seats, args.hands, args.seed), args.hands, args.repeats)
        line = f"{variant:16} {seats:5} {_fmt(mine):>26}"
        if variant in POKERKIT:
            peer = _rates(partial(theirs, variant, seats, args.hands, args.seed), args.hands, args.repeats)
            ratio = statistics.median(mine) / statistics.median(peer)
            line += f" {_fmt(peer):>26} {ratio:6.2f}"
        print(line, flush=True)
    return 0


def _seats(text: str) -> int:
    """``--seats``: every game seats at least two."""
    if not (text.strip().isdigit() and int(text) >= 2):
        raise argparse.ArgumentTypeError(f"must be a whole number of seats from 2, not {text}")
    return int(text)


def _fmt(rates: list[float]) -> str:
    return f"{min(rates):6.0f} / {statistics.median(rates):6.0f} / {max(rates):6.0f}"


if __name__ == "__main__":
    sys.exit(main())
