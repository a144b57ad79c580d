"""Prospects from the engine: :func:`game_equities` for the cards face up, in every game.

The game calls it at every reveal with each hand's cards (every card dealt to
it: bettors see them all), the board turned so far (Telesina's vela), and in
draw games the discards seen, the draws left and the stock. It returns one
:class:`Prospects` per market of the game: the one market, or High and Low.

Hold'em and Omaha are enumerated exactly, as ever. The other games are exact
where every remaining deal can be enumerated within :data:`EXACT_DEALS`;
beyond that a Monte Carlo of :data:`SAMPLES` deals, seeded from the cards (so a
replay prices alike), gives the equities with their standard errors, and
nothing is settled from its counts: the hands the cards prove unable to win or
tie are settled even then (:mod:`exchange.game.deadcheck`, draw games before
their last draw included; a hi/lo game's Low market from :mod:`exchange.game.lowcheck`). Draw games
price the replacement cards under the published policy
(:func:`engine.draw_equity.draw_equity`).

Burn cards are *not* passed as dead: no bettor has seen them, so the fair price
a bettor can compute counts them among the unseen cards, and so must the house.
A card everyone *has* seen and that is out of play is: the discards of a draw,
and a card a dealer's error showed and then made the burn card
(``irregularities.md`` rules 1 and 5; :attr:`engine.irregularities.IrregularDeal.dead`).
Every game passes those as ``dead``, so every count, price and early settlement
is over the deals that can still happen.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Protocol

from engine.cards import Card, format_cards
from engine.equity import EquityResult, HandEquity, HiLoEquityResult, HiLoHandEquity
from engine.equity import equity as engine_equity
from exchange.game.layouts import LAYOUTS
from exchange.game.lowcheck import low_losers
from exchange.game.prospects import Prospects

#: Exact enumeration up to this many remaining deals (about 40 ms of kernel time), else a Monte Carlo.
EXACT_DEALS = 50_000
#: Where every hand lacks at most one card (stud's last window), each hand's keys are computed once and
#: the deals only look them up (:mod:`engine.last_card`): exact up to this many deals (about 25 ms).
LAST_CARD_DEALS = 1_500_000
LAST_CARD_FROM = 2_000
#: Deals sampled where enumeration is too dear (standard error at most 0.92 % of the pot; the house
#: widens its quotes by two of them).
SAMPLES = 3_000
#: Deals sampled for a hi/lo game's opening Low price (the chance of "No low" before any card is seen): once a
#: process, at the warm-up (cached: about 0.3 s for Omaha Hi/Lo), so every game opens on it; a standard error near
#: 0.16 % where SAMPLES' 0.9 % would be the same error in every game. A deal with cards seen at the deal samples
#: SAMPLES, as a reveal does.
OPENING_SAMPLES = 100_000
#: Deals sampled in the draw games: compiled for 5-Card Draw and 2-7, played through the policy table in
#: Python for 32-Card Draw (its reshuffle is common).
DRAW_SAMPLES = MappingProxyType({"draw5": 6_000, "triple-draw-27": 10_000, "draw32": 2_000})
#: Exact enumeration of one draw's replacements up to this many deals: compiled for 5-Card Draw, in Python
#: (about 10 us a deal) for the other two.
DRAW_EXACT = MappingProxyType({"draw5": EXACT_DEALS, "triple-draw-27": 2_000, "draw32": 2_000})
EXACT_GAMES = frozenset({"holdem", "omaha"})

GameProspects = tuple[Prospects, ...]


def game_equities(
    variant: str,
    hands: Sequence[Sequence[Card]],
    board: Sequence[Card],
    *,
    dead: Sequence[Card] = (),
    draws_left: int = 0,
    stock: int | None = None,
) -> GameProspects:
    """Every market's prospects for the cards face up (see the module docstring).

    >>> from engine.cards import parse_cards
    >>> (p,) = game_equities("stud7", [parse_cards("As Ad Kc Kd 2h 3h"), parse_cards("9c Tc Jc Qc 2c 4d")], [])
    >>> p.exact, p.boards, [h.win for h in p.hands]
    (True, 1560, [152, 1408])
    """
    hand_cards = [tuple(h) for h in hands]
    out = tuple(dead)
    layout = LAYOUTS[variant]
    if layout.draws:
        from engine.draw_equity import draw_equity  # the engine's rankings (numba): when first needed, not at import
        from exchange.game.deadcheck import draw_losers  # numpy: on the worker thread, not at the server's start

        result = draw_equity(variant, hand_cards, out, draws_left=draws_left, stock=stock,
                             seed=_seed(hand_cards, board), exact_limit=DRAW_EXACT[variant],
                             fallback_samples=DRAW_SAMPLES[variant])
        known = () if result.exact else draw_losers(variant, hand_cards, out, draws_left=draws_left, stock=stock,
                                                    scored=scored_hands(result))
        return (prospects_of(result, known),)
    if variant in EXACT_GAMES:
        return (prospects_of(engine_equity(variant, hand_cards, tuple(board), out)),)
    from engine.last_card import last_card_applies, last_card_equity
    from engine.variant_equity import deal_count, variant_equity  # numba: only when needed
    from engine.variants import get_variant
    from exchange.game.deadcheck import eight_low_losers, high_losers  # numpy, as above

    deals = deal_count(get_variant(variant), hand_cards, tuple(board), out)
    if not out and LAST_CARD_FROM <= deals <= LAST_CARD_DEALS and last_card_applies(variant, hand_cards, board):
        result = last_card_equity(variant, hand_cards, tuple(board))
    else:
        samples = None if deals <= EXACT_DEALS else SAMPLES
        result = variant_equity(variant, hand_cards, tuple(board), out, samples=samples,
                                seed=_seed(hand_cards, board, out))
    # A sampled equity settles nothing from its counts: the hands the cards prove dead are settled all the same.
    high = () if result.exact else high_losers(variant, hand_cards, tuple(board), out, scored=scored_hands(result))
    if isinstance(result, HiLoEquityResult):
        low, made = low_losers(variant, hand_cards, tuple(board), out)
        if not result.exact:  # and those only card removal kills, where the search can tell
            low = tuple(sorted({*low, *eight_low_losers(variant, hand_cards, tuple(board), out,
                                                        scored=scored_hands(result, low=True))}))
        return hilo_prospects(result, (low, made), high)
    return (prospects_of(result, high),)


def exact_equities(
    variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card], *, dead: Sequence[Card] = ()
) -> Prospects:
    """The one market's prospects (the High market's in hi/lo games); exact in Hold'em and Omaha.

    >>> from engine.cards import parse_cards
    >>> p = exact_equities("holdem", [parse_cards("AsKs"), parse_cards("QdQc")], parse_cards("Ah7c2sTd"))
    >>> p.boards, [h.win for h in p.hands], p.equity(2)
    (44, [42, 2], Fraction(1, 22))
    >>> p = exact_equities("holdem", [parse_cards("AsKs"), parse_cards("QdQc")], parse_cards("Ah7c2sTd"),
    ...                    dead=parse_cards("Qs"))   # one of Qd Qc's two outs is out of play
    >>> p.boards, [h.win for h in p.hands]
    (43, [42, 1])
    """
    return game_equities(variant, hands, board, dead=dead)[0]


def _seed(hands: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card] = ()) -> int:
    """A Monte Carlo seed that is a function of the cards: the same reveal is priced the same in a replay."""
    text = "|".join(format_cards(h) for h in hands) + "/" + format_cards(board)
    if dead:  # (a deal without dead cards keeps the seed it always had)
        text += "/" + format_cards(dead)
    return zlib.crc32(text.encode())


def scored_hands(result: EquityResult, *, low: bool = False) -> tuple[int, ...]:
    """The hands (from 1) that won or tied (the high, in a hi/lo game; its low with ``low``) on some deal counted:
    alive for certain.

    >>> scored_hands(engine_equity("holdem", ["AsAd", "KsKd"], "AhAcKh2c"))
    (1,)
    """
    def scored(h: HandEquity) -> int:
        if isinstance(h, HiLoHandEquity):
            return h.low_wins + h.low_ties if low else h.high_wins + h.high_ties
        return h.wins + h.ties

    return tuple(i for i, h in enumerate(result.results, start=1) if scored(h) > 0)


def prospects_of(result: EquityResult, known_losers: Sequence[int] = ()) -> Prospects:
    """Read an :class:`engine.EquityResult` into :class:`Prospects` (integer counts, Fraction equities).

    ``known_losers``: hands proven unable to win or tie (:func:`~exchange.game.deadcheck.high_losers`).
    """
    return Prospects.from_counts(
        result.boards,
        [h.wins for h in result.results],
        [h.ties for h in result.results],
        [h.share for h in result.results],
        exact=result.exact,
        known_losers=known_losers,
    )


def hilo_prospects(result: HiLoEquityResult, low_known: tuple[tuple[int, ...], bool],
                   high_known: Sequence[int] = ()) -> GameProspects:
    """High and Low markets from a hi/lo result; Low's last selection is "No low".

    ``low_known``: hands proven unable to win the low, and whether some hand holds
    a made low (then "No low" has lost), from :func:`~exchange.game.lowcheck.low_losers`.
    ``high_known``: hands proven unable to win or tie the high (:func:`~exchange.game.deadcheck.high_losers`).
    """
    hands = [h for h in result.results if isinstance(h, HiLoHandEquity)]
    n = len(hands)
    high = Prospects.from_counts(
        result.boards, [h.high_wins for h in hands], [h.high_ties for h in hands],
        [h.high_halves for h in hands], exact=result.exact, known_losers=high_known,
    )  # fmt: skip
    losers, made = low_known
    low = Prospects.from_counts(
        result.boards,
        [*(h.low_wins for h in hands), result.no_low_deals],
        [*(h.low_ties for h in hands), 0],
        [*(h.low_halves for h in hands), result.no_low_deals],
        exact=result.exact,
        known_losers=(*losers, n + 1) if made else losers,
    )
    return high, low


@lru_cache(maxsize=64)
def opening_prospects(variant: str, hands: int, dead: tuple[Card, ...] = ()) -> GameProspects:
    """Prospects before any hand's card is seen: 1/n each by symmetry; a Low market's from a seeded sample.

    The sample gives the chance of "No low"; the hands, still alike, share the
    rest equally (:func:`alike`), whatever their own sampled counts drew.
    ``dead``: cards seen and out of play before the hands are turned (a dealer's
    error at the deal). The hands stay alike, so each still has 1/n of a win (or
    of the high); only the chance of "No low" moves, and the Low sample counts it.
    """
    uniform = Prospects.uniform(hands)
    if not LAYOUTS[variant].hilo:
        return (uniform,)
    from engine.variant_equity import variant_equity

    seed = hands if not dead else _seed([()] * hands, (), dead)
    samples = SAMPLES if dead else OPENING_SAMPLES
    result = variant_equity(variant, [()] * hands, (), dead, samples=samples, seed=seed)
    if not isinstance(result, HiLoEquityResult):
        raise TypeError(f"{variant} is a hi/lo game but its equity has no low half")
    _, low = hilo_prospects(result, ((), False))
    return uniform, alike(low)


def alike(low: Prospects) -> Prospects:
    """A Low market's prospects with its hands made alike: each gets the hands' mean share of the sampled deals
    (so ``(1 - P(no low)) / n``), and the mean of their win and win-or-tie counts, rounded outwards so that the
    counts still bound the equity; "No low" keeps its own.

    >>> p = Prospects.from_counts(10, (2, 1, 6), (1, 1, 0), (Fraction(5, 2), Fraction(3, 2), 6), exact=False)
    >>> [(h.win, h.tie, h.equity) for h in alike(p).hands]   # two hands (one tie between them), then No low
    [(1, 2, Fraction(1, 5)), (1, 2, Fraction(1, 5)), (6, 0, Fraction(3, 5))]
    """
    *hands, no_low = low.hands
    n = len(hands)
    wins = sum(h.win for h in hands)
    scored = sum(h.win + h.tie for h in hands)
    win = wins // n
    tie = -(-scored // n) - win
    share = sum((h.equity for h in hands), Fraction(0)) * low.boards / n
    return Prospects.from_counts(low.boards, [*(win,) * n, no_low.win], [*(tie,) * n, no_low.tie],
                                 [*(share,) * n, no_low.equity * low.boards], exact=low.exact,
                                 known_losers=low.known_losers)


Job = Callable[[], GameProspects]


class EquityRunner(Protocol):
    """Runs a reveal's equity ``job`` and hands its result to ``deliver`` (or its exception to ``fail``).

    :func:`run_inline` does it at once, on the caller's stack: backtests and
    tests stay deterministic. The live server passes one that computes off the
    event loop and delivers on it later (:mod:`exchange.server.offload`); the
    game opens its next window when the result is in, and closes it on time.
    """

    def __call__(self, job: Job, deliver: Callable[[GameProspects], None],
                 fail: Callable[[BaseException], None]) -> None: ...


def run_inline(job: Job, deliver: Callable[[GameProspects], None], fail: Callable[[BaseException], None]) -> None:
    """Compute now and deliver now; an exception propagates to the caller, as a direct call would.

    >>> seen = []
    >>> run_inline(lambda: (Prospects.uniform(2),), seen.append, print)
    >>> seen[0][0].boards
    0
    """
    deliver(job())


def warm_up(variants: Sequence[str]) -> None:
    """Price one seeded deal at every reveal of each variant: the engine's tables and kernels are then ready.

    The first call of a fresh install builds the tables and compiles the numba
    kernels (seconds); later starts load both from their caches (a few hundred
    ms). Either way the cost is paid here, not at a game's first reveal.
    """
    import random

    from engine.dealer import Dealer
    from engine.variants import get_variant
    from exchange.game.deal import GameDeal

    for variant in dict.fromkeys(variants):
        pack = get_variant(variant).deck.cards()
        deal = GameDeal(Dealer.shuffled(random.Random(f"warm-up/{variant}"), pack), hands=4, layout=LAYOUTS[variant])
        opening_prospects(variant, 4)
        deal.turn_hole_cards()
        while True:
            public = deal.public
            if deal.layout.draws:
                game_equities(variant, public.visible_hands(), public.board, dead=public.dead,
                              draws_left=deal.layout.draws_after(deal.steps_done), stock=deal.stock)
            else:
                game_equities(variant, public.visible_hands(), public.board)
            if deal.steps_done == len(deal.layout.steps):
                break
            deal.deal_next()
