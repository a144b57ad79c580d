"""Equity of 2 to 8 hands at any street: exact over every remaining board, or Monte Carlo.

For each hand: ``win`` is the share of boards it wins alone, ``tie`` the share
where it ties for best with others, and ``equity`` its dead-heat share of the
pot (a win counts 1, a tie among ``k`` hands counts ``1/k``). The integer
counts behind them are kept (:attr:`HandEquity.wins`, :attr:`HandEquity.splits`),
so :attr:`HandEquity.exact_equity` is an exact :class:`~fractions.Fraction`.

>>> result = equity("holdem", ["As Ks", "Qd Qc"], board="Ah 7c 2s Td")
>>> result.exact, result.boards, [h.wins for h in result.results]
(True, 44, [42, 2])
>>> result.results[1].exact_equity
Fraction(1, 22)
>>> result.to_dict()["hands"][0]
{'cards': 'As Ks', 'win': 0.9545454545454546, 'tie': 0.0, 'equity': 0.9545454545454546}

The counting kernels are callable on their own with card ids, without input
checks (:func:`enumerate_equity_holdem`, :func:`enumerate_equity_omaha`,
:func:`sample_equity_holdem`, :func:`sample_equity_omaha`); they return
:class:`EquityCounts`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine._equity_result import MAX_HANDS, EquityResult, HandEquity, check_samples, check_seed, run_seed
from engine._errors import EngineInputError
from engine._hilo_result import HiLoEquityResult, HiLoHandEquity
from engine.cards import Card, CardError, CardLike, check_distinct, format_cards, group_names, parse_cards
from engine.evaluator import _plain
from engine.showdown import listed_hands
from engine.streets import check_board_size
from engine.wording import counted

if TYPE_CHECKING:
    import numpy as np

    from engine.variants import Variant

__all__ = [
    "EQUITY_VARIANTS",
    "EngineInputError",
    "EquityCounts",
    "EquityResult",
    "EquityVariant",
    "HandEquity",
    "HandRule",
    "HiLoEquityResult",
    "HiLoHandEquity",
    "enumerate_equity_holdem",
    "enumerate_equity_omaha",
    "equity",
    "sample_equity_holdem",
    "sample_equity_omaha",
]

MIN_HANDS = 2
BOARD_CARDS = 5
DECK_CARDS = 52

Cards = str | Iterable[CardLike]


# ============================================================================ variant dispatch
# The one place that says which games equity() knows. It is meant to move to
# the variants registry (engine/variants.py); the kernels below take only a
# HandRule and card ids, so they do not depend on this table.


class HandRule(IntEnum):
    """How a hand is made from hole and board cards (the values are the kernels' rule codes)."""

    BEST_FIVE = 0  # Hold'em: the best five of the hole and board cards
    OMAHA = 1  # exactly two of the hole cards and exactly three board cards


@dataclass(frozen=True, slots=True)
class EquityVariant:
    """What equity() needs to know about a game."""

    name: str
    hole_cards: int
    rule: HandRule
    streets: tuple[int, ...] = (0, 3, 4, 5)  # board sizes at which equity may be asked


EQUITY_VARIANTS: Mapping[str, EquityVariant] = MappingProxyType(
    {
        "holdem": EquityVariant("holdem", hole_cards=2, rule=HandRule.BEST_FIVE),
        "omaha": EquityVariant("omaha", hole_cards=4, rule=HandRule.OMAHA),
    }
)


# ============================================================================ results


@dataclass(frozen=True, slots=True)
class EquityCounts:
    """Integer outcome of a count: ``wins[h]`` boards won alone; ``splits[h][k]`` boards tied among ``k`` hands."""

    boards: int
    wins: tuple[int, ...]
    splits: tuple[tuple[int, ...], ...]


# ============================================================================ the public call


def equity(
    variant: str | Variant,
    hands: Iterable[Cards],
    board: Cards = (),
    dead: Cards = (),
    samples: int | None = None,
    seed: int | None = None,
) -> EquityResult:
    """Equity of each hand: exact over every completion of ``board`` unless ``samples`` is given.

    ``variant`` is a key of :data:`EQUITY_VARIANTS` ("holdem", "omaha");
    ``hands`` 2 to 8 hands of that variant's hole-card count; ``board`` 0, 3,
    4 or 5 cards; ``dead`` cards known to be out of the deck. With
    ``samples=N``, N boards are drawn at random (SplitMix64 seeded by ``seed``;
    a missing seed is drawn from the OS and recorded in the result) and each
    hand gets a standard error.

    Raises :class:`EngineInputError` (its subclass :class:`~engine.cards.CardError`
    for a bad or repeated card), a ``ValueError``, naming the problem.

    The other games dealt without decisions (``omaha-hilo`` and the stud games
    ``soko``, ``stud7``, ``stud7-hilo``, ``americana``, ``telesina``) go to
    :func:`engine.variant_equity.variant_equity`, which returns the same shape;
    a game may be given as its :class:`~engine.variants.Variant` too. A ``seed``
    that is not a whole number is refused, even where the answer is exact.
    """
    if not isinstance(variant, str):
        variant = _by_name(variant)
    if not (isinstance(variant, str) and variant in EQUITY_VARIANTS):  # another game, a Variant of its own, a slip
        from engine.variant_equity import variant_equity  # imports numba: only when asked

        return variant_equity(variant, hands, board, dead, samples, seed)
    spec = EQUITY_VARIANTS[variant]
    hand_cards = _hands(spec, hands)
    board_cards = _cards(board, "board")
    dead_cards = _cards(dead, "dead cards")
    check_board_size(spec.name, spec.streets, board_cards)
    check_distinct(*hand_cards, board_cards, dead_cards, names=group_names(len(hand_cards)))
    _check_deck_left(hand_cards, board_cards, dead_cards)
    check_samples(samples, "boards")
    check_seed(seed)
    seed = None if samples is None else run_seed(seed)  # recorded: the seed that deals the same samples again
    counts = _count(
        spec.rule,
        [[c.id for c in hand] for hand in hand_cards],
        [c.id for c in board_cards],
        [c.id for c in dead_cards],
        samples,
        seed or 0,
    )
    return EquityResult(
        variant=spec.name,
        hands=hand_cards,
        board=board_cards,
        dead=dead_cards,
        exact=samples is None,
        boards=counts.boards,
        results=tuple(_hand_equity(cards, counts, h, samples is not None) for h, cards in enumerate(hand_cards)),
        seed=seed,
    )


def _by_name(variant: object) -> Any:
    """A game of ours given as its :class:`~engine.variants.Variant`, as its name (Hold'em's and Omaha's samples are
    dealt here, so that a seed deals the same boards either way); anything else as it is."""
    from engine.variants import VARIANTS  # the rankings, with numba: only for a Variant

    name = getattr(variant, "name", None)
    return name if isinstance(name, str) and VARIANTS.get(name) == variant else variant


def _check_deck_left(
    hand_cards: Sequence[Sequence[Card]], board_cards: Sequence[Card], dead_cards: Sequence[Card]
) -> None:
    """Refuse a deal whose known cards leave too few in the deck to complete the board."""
    missing = BOARD_CARDS - len(board_cards)
    left = DECK_CARDS - sum(map(len, hand_cards)) - len(board_cards) - len(dead_cards)
    if left < missing:
        raise EngineInputError(
            f"only {counted(left, 'card')} {'is' if left == 1 else 'are'} left in the deck after the hands, board and "
            "dead cards; "
            f"the board needs {missing} more"
        )


def _cards(cards: Cards, what: str) -> tuple[Card, ...]:
    try:
        return parse_cards(_plain(cards))
    except CardError as error:
        raise CardError(f"{what}: {error}") from None


def _hands(spec: EquityVariant, hands: Iterable[Cards]) -> tuple[tuple[Card, ...], ...]:
    listed = listed_hands(hands)
    if not MIN_HANDS <= len(listed) <= MAX_HANDS:
        raise EngineInputError(f"got {counted(len(listed), 'hand')}; equity needs {MIN_HANDS} to {MAX_HANDS} hands")
    parsed = []
    for number, hand in enumerate(listed, 1):
        cards = _cards(hand, f"hand {number}")
        if len(cards) != spec.hole_cards:
            raise EngineInputError(
                f"hand {number} ({format_cards(cards) or 'empty'}) has {counted(len(cards), 'card')}; "
                f"{spec.name} hands have exactly {spec.hole_cards} hole cards"
            )
        parsed.append(cards)
    return tuple(parsed)


def _hand_equity(cards: tuple[Card, ...], counts: EquityCounts, h: int, sampled: bool) -> HandEquity:
    n = counts.boards
    wins = counts.wins[h]
    splits = counts.splits[h]
    ties = sum(splits)
    share = wins + sum(c / k for k, c in enumerate(splits) if c)
    stderr = None
    if sampled:
        # Each board pays 1, 1/k or 0; the standard error of the mean of those payouts.
        square_sum = wins + sum(c / (k * k) for k, c in enumerate(splits) if c)
        mean = share / n
        variance = (square_sum - n * mean * mean) / (n - 1) if n > 1 else math.nan
        stderr = math.sqrt(max(variance, 0.0) / n) if n > 1 else math.nan
    exact_share = wins + sum((Fraction(c, k) for k, c in enumerate(splits) if c), Fraction(0))
    return HandEquity(cards, wins / n, ties / n, float(exact_share / n), wins, ties, splits, n, stderr)


# ============================================================================ counting kernels (card ids, unchecked)


def enumerate_equity_holdem(hole_ids: Any, board_ids: Iterable[int] = (), dead_ids: Iterable[int] = ()) -> EquityCounts:
    """Count every board completion for Hold'em hands ``hole_ids`` (shape (h, 2)); ids must be valid and distinct."""
    return _count(HandRule.BEST_FIVE, hole_ids, board_ids, dead_ids, None, 0)


def enumerate_equity_omaha(hole_ids: Any, board_ids: Iterable[int] = (), dead_ids: Iterable[int] = ()) -> EquityCounts:
    """Count every board completion for Omaha hands ``hole_ids`` (shape (h, 4)); ids must be valid and distinct."""
    return _count(HandRule.OMAHA, hole_ids, board_ids, dead_ids, None, 0)


def sample_equity_holdem(
    hole_ids: Any, board_ids: Iterable[int], dead_ids: Iterable[int], samples: int, seed: int
) -> EquityCounts:
    """Count ``samples`` random board completions (SplitMix64 seeded by ``seed``) for Hold'em hands."""
    return _count(HandRule.BEST_FIVE, hole_ids, board_ids, dead_ids, samples, seed)


def sample_equity_omaha(
    hole_ids: Any, board_ids: Iterable[int], dead_ids: Iterable[int], samples: int, seed: int
) -> EquityCounts:
    """Count ``samples`` random board completions (SplitMix64 seeded by ``seed``) for Omaha hands."""
    return _count(HandRule.OMAHA, hole_ids, board_ids, dead_ids, samples, seed)


def _count(
    rule: HandRule,
    hole_ids: Any,
    board_ids: Iterable[int],
    dead_ids: Iterable[int],
    samples: int | None,
    seed: int,
) -> EquityCounts:
    import numpy as np

    from engine import _equity_kernels as kernels
    from engine.evaluator import tables

    t = tables()
    holes = np.asarray(hole_ids, dtype=np.int64)
    known = np.asarray(list(board_ids), dtype=np.int64)
    dead = np.asarray(list(dead_ids), dtype=np.int64)
    used = np.zeros(DECK_CARDS, dtype=np.bool_)
    for ids in (holes.ravel(), known, dead):
        used[ids] = True
    deck = np.flatnonzero(~used).astype(np.int64)
    missing = BOARD_CARDS - known.size
    multisets, by_rank = _rank_multisets(missing)
    make_rows = kernels.holdem_rows if rule == HandRule.BEST_FIVE else kernels.omaha_rows
    rows = make_rows(holes, known, multisets, t.card_keys, t.hash_rows, t.hash_values)
    hole_bits = np.bitwise_or.reduce(t.card_bits[holes], axis=1)
    known_bits = int(np.bitwise_or.reduce(t.card_bits[known])) if known.size else 0
    known_suits = sum(1 << (4 * (int(c) & 3)) for c in known)
    fixed = BOARD_CARDS - missing
    board = _board_positions(deck, by_rank, fixed)
    wins = np.zeros(holes.shape[0], dtype=np.int64)
    splits = np.zeros((holes.shape[0], MAX_HANDS + 1), dtype=np.int64)
    offsets = _flush_offsets(rule, holes)
    common = (rows, hole_bits, int(rule), known_suits, known_bits, board, fixed, offsets, t.flush_values)
    if samples is None:
        boards = kernels.enumerate_boards(*common, wins, splits)
    else:
        boards = kernels.sample_boards(*common, samples, np.uint64(seed % 2**64), wins, splits)
    return EquityCounts(int(boards), tuple(wins.tolist()), tuple(tuple(row) for row in splits.tolist()))


def _flush_offsets(rule: HandRule, holes: np.ndarray) -> int:
    """Per suit nibble: 8 minus the board cards of that suit with which some hand can make a flush (0: none can).

    Added to a board's suit counts, a nibble's top bit is then set exactly when
    the board may give someone a flush, so flush-free boards are one test.
    Hold'em: a hand holding ``k`` of the suit needs ``5 - k`` on the board.
    Omaha: a hand needs two of the suit and the board three.
    """
    offsets = 0
    for suit in range(4):
        held = int(((holes & 3) == suit).sum(axis=1).max())
        needed = BOARD_CARDS - held if rule == HandRule.BEST_FIVE else (3 if held >= 2 else None)
        offsets |= (8 - needed if needed is not None else 0) << (4 * suit)
    return offsets


def _board_positions(deck: np.ndarray, by_rank: np.ndarray, fixed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per board position: index contribution per level, suit-counter unit, card bit; ``fixed`` zero placeholders first.

    The kernels always loop over five levels; the board's known cards take the
    first ``fixed`` levels as placeholders that add nothing.
    """
    import numpy as np

    size = fixed + deck.size
    contrib = np.zeros((BOARD_CARDS, size), dtype=np.int64)
    contrib[fixed:, fixed:] = by_rank[:, deck >> 2]
    suit_unit = np.zeros(size, dtype=np.int64)
    suit_unit[fixed:] = 1 << (4 * (deck & 3))
    card_bit = np.zeros(size, dtype=np.int64)
    card_bit[fixed:] = 1 << (16 * (deck & 3) + (deck >> 2))
    return contrib, suit_unit, card_bit


@cache
def _rank_multisets(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank multisets of ``size`` cards in row-index order, and ``contrib[level, rank]`` for the index.

    A sorted multiset ``r0 <= r1 <= ...`` has index ``sum(comb(r_j + j, j + 1))``.
    """
    from itertools import combinations_with_replacement

    import numpy as np

    by_rank = np.array([[math.comb(r + j, j + 1) for r in range(13)] for j in range(size)], dtype=np.int64)
    by_rank = by_rank.reshape(size, 13)
    table = np.zeros((math.comb(12 + size, size), size), dtype=np.int64)
    for ranks in combinations_with_replacement(range(13), size):
        table[sum(math.comb(r + j, j + 1) for j, r in enumerate(ranks))] = ranks
    table.setflags(write=False)
    by_rank.setflags(write=False)
    return table, by_rank
