"""Positions that exercise each step of the dead-hand check, judged by playing out every deal.

:func:`exchange.game.deadcheck.high_losers` looks, for each completion of a hand, for disjoint completions of
its rivals that leave it best. Random positions rarely need more than the hand's best completion, or make two
rivals want the same card; these do, on purpose, with most of the pack out of play so that every deal can be
shown down (:func:`engine.showdown.showdown`, the Python rankings: nothing shared with the check's kernels).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest

from engine.cards import Card, parse_cards
from engine.showdown import showdown
from engine.variants import get_variant
from exchange.game.deadcheck import high_losers


def deals(pool: Sequence[Card], missing: Sequence[int]) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """Every way to give each hand its ``missing`` cards from ``pool``, no card twice."""
    if not missing:
        yield ()
        return
    for extra in combinations(pool, missing[0]):
        rest = [c for c in pool if c not in extra]
        for others in deals(rest, missing[1:]):
            yield (extra, *others)


def never_win_or_tie(variant: str, hands: Sequence[tuple[Card, ...]], pool: Sequence[Card]) -> tuple[int, ...]:
    """The hands (from 1) that win or tie on no deal of ``pool`` (a game with no board)."""
    game = get_variant(variant)
    scored: set[int] = set()
    for dealt in deals(pool, [game.hole_cards - len(h) for h in hands]):
        result = showdown(variant, [(*h, *extra) for h, extra in zip(hands, dealt, strict=True)])
        scored.update(w + 1 for w in result.high.winners)
    return tuple(i for i in range(1, len(hands) + 1) if i not in scored)


def out_of_play(variant: str, hands: Sequence[tuple[Card, ...]], pool: Sequence[Card]) -> tuple[Card, ...]:
    """Every card of the pack neither held nor in ``pool``: seen and out of play."""
    kept = {c for h in hands for c in h} | set(pool)
    return tuple(c for c in get_variant(variant).deck.cards() if c not in kept)


POSITIONS = [
    pytest.param(  # hand 1's best completion, 8d 8s (sevens full), loses to any two clubs for hand 2 (a flush
        # beats a full house in Americana); it wins only by taking two of the clubs itself and staying trips.
        "americana", ("7h 7c 7d", "8c Tc Qc"), "Kc 8d Ac 8s Jc", (), id="only-a-lesser-completion-wins"),
    pytest.param(  # hand 3's best completion, a club flush (2c 6c), leaves hand 1 a full house whatever it is
        # dealt; its straight (2c and a five) wins, with hand 1 on trips (6c Qd) and hand 2 on sevens.
        "stud7", ("9h 9s 9d 5d 7c", "Jc 4h 8h Ts 7h", "3s 3c Ac Qc 4d"), "2c 5s 5h 6c 7s Qd", (),
        id="a-lesser-completion-against-two-rivals"),
    pytest.param(  # hand 3's flush (8d) is beaten unless hand 1 stays trips (Kh: 2c makes fours full) and hand 2
        # stays two pair (Kh: 2c makes an ace-high flush): both rivals need the one Kh.
        "stud7", ("4h 4s 4d 2d 3s 8h", "Jc Kc 3c As Ac Td", "5h 7d Jd 6d 6c Kd"), "2c Kh 8d", (3,),
        id="two-rivals-need-one-card"),
]


@pytest.mark.parametrize(("variant", "hands", "pool", "dead"), POSITIONS)
def test_the_check_names_exactly_the_hands_no_deal_lets_win_or_tie(
        variant: str, hands: tuple[str, ...], pool: str, dead: tuple[int, ...]) -> None:
    held = [parse_cards(h) for h in hands]
    unseen = parse_cards(pool)
    assert never_win_or_tie(variant, held, unseen) == dead  # the position is what its comment says
    assert high_losers(variant, held, (), out_of_play(variant, held, unseen)) == dead
