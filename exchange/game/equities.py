"""Exact prospects from the engine: :func:`exact_equities` for the cards face up.

The game calls it at every reveal with the hole cards (all face up from the
Pre-flop window on) and the board turned so far; the engine enumerates every
remaining board exactly. Burn cards are *not* passed as dead: no bettor has
seen them, so the fair price a bettor can compute counts them among the
unseen cards, and so must the house.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from engine.cards import Card
from engine.equity import EquityResult
from engine.equity import equity as engine_equity
from exchange.game.prospects import Prospects


def exact_equities(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Prospects:
    """Every hand's exact win/tie counts and dead-heat equity over all remaining boards.

    >>> from engine.cards import parse_cards
    >>> p = exact_equities("holdem", [parse_cards("AsKs"), parse_cards("QdQc")], parse_cards("Ah7c2sTd"))
    >>> p.boards, [h.win for h in p.hands], p.equity(2)
    (44, [42, 2], Fraction(1, 22))
    """
    result = engine_equity(variant, [tuple(h) for h in hands], tuple(board))
    return prospects_of(result)


def prospects_of(result: EquityResult) -> Prospects:
    """Read an exact :class:`engine.EquityResult` into :class:`Prospects` (integer counts, Fraction equities)."""
    if not result.exact:
        raise ValueError("the game publishes exact equities only; got a Monte Carlo estimate")
    return Prospects.from_counts(
        result.boards,
        [h.wins for h in result.results],
        [h.ties for h in result.results],
        [h.share for h in result.results],
    )


Job = Callable[[], Prospects]


class EquityRunner(Protocol):
    """Runs a reveal's equity ``job`` and hands its result to ``deliver`` (or its exception to ``fail``).

    :func:`run_inline` does it at once, on the caller's stack: backtests and
    tests stay deterministic. The live server passes one that computes off the
    event loop and delivers on it later (:mod:`exchange.server.offload`); the
    game opens its next window when the result is in, and closes it on time.
    """

    def __call__(self, job: Job, deliver: Callable[[Prospects], None],
                 fail: Callable[[BaseException], None]) -> None: ...


def run_inline(job: Job, deliver: Callable[[Prospects], None], fail: Callable[[BaseException], None]) -> None:
    """Compute now and deliver now; an exception propagates to the caller, as a direct call would.

    >>> seen = []
    >>> run_inline(lambda: Prospects.uniform(2), seen.append, print)
    >>> seen[0].boards
    0
    """
    deliver(job())


def warm_up(variants: Sequence[str]) -> None:
    """Compute one deal's equities at every street of each variant: the engine's tables and kernels are then ready.

    The first call of a fresh install builds the tables and compiles the numba
    kernels (seconds); later starts load both from their caches (a few hundred
    ms). Either way the cost is paid here, not at a game's first reveal.
    """
    from engine.cards import parse_cards

    deals = {
        "holdem": (["AsKs", "QdQc", "7h6h", "2c2d"], "Ah7c2sTd9h"),
        "omaha": (["AsKsQsJs", "AdKdQdJd", "2c3c4c5c", "6h7h8h9h"], "Tc9c2hTd3s"),
    }
    for variant in dict.fromkeys(variants):
        hands, board = deals.get(variant, deals["holdem"])
        hand_cards = [parse_cards(h) for h in hands]
        board_cards = parse_cards(board)
        for shown in (0, 3, 4, 5):
            exact_equities(variant, hand_cards, board_cards[:shown])
