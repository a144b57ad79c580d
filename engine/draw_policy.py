"""How a machine hand draws: the published policy of each draw game, one table per game.

Exchange hands never fold and no one bets at the table, so a draw is the only
decision a hand makes. Each game's policy is a table of rows, read top to bottom:
the first row whose *holding* the five cards make says which cards are *kept*;
the rest are discarded and replaced. The tables are data (:data:`POLICIES`), the
README prints them, and bettors know them, so a price computed under the policy
is fair.

>>> from engine.cards import parse_cards
>>> row, kept = decide("draw5", parse_cards("As Ad 7c 4h 2s"))
>>> row.holding, format_cards(kept)
('one pair', 'As Ad')
>>> format_cards(decide("triple-draw-27", parse_cards("2c 3d 7h 7s Kd"))[1])
'2c 3d 7h'
>>> format_cards(decide("draw32", parse_cards("Kc Qd 9h 8s 7d"))[1])
'Kc'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine._errors import EngineInputError
from engine.cards import Card, format_cards

Keep = Callable[[tuple[Card, ...]], tuple[Card, ...] | None]
"""Given five cards, the cards the row keeps, or ``None`` when the row's holding is not there."""

ACE = 14
LOW_ACE = 1


@dataclass(frozen=True, slots=True)
class PolicyRow:
    """One line of a policy table: the holding it applies to, what it keeps (in words), and the rule."""

    holding: str
    keeps: str
    rule: Keep

    def keep(self, cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
        return self.rule(cards)


# --- shapes of five cards ---------------------------------------------------------------------


def _rank(card: Card) -> int:
    """The rank, ace 14 (plain arithmetic on the id: this runs millions of times in a draw equity)."""
    return card.id // 4 + 2


def _suit(card: Card) -> int:
    return card.id % 4


def _by_rank(cards: Sequence[Card]) -> Counter[int]:
    return Counter(_rank(c) for c in cards)


def _straight_ranks(short: bool) -> tuple[tuple[int, ...], ...]:
    """Every straight's ranks (ace low counted as 1) in a 52-card or a 32-card pack."""
    if short:
        return (LOW_ACE, 7, 8, 9, 10), *(tuple(range(lo, lo + 5)) for lo in range(7, 11))
    return tuple(tuple(range(lo, lo + 5)) for lo in range(1, 11))


_STRAIGHTS = {short: _straight_ranks(short) for short in (False, True)}


def _ranks_with_low_ace(ranks: set[int]) -> set[int]:
    return ranks | {LOW_ACE} if ACE in ranks else ranks


def _is_straight(cards: Sequence[Card], short: bool) -> bool:
    ranks = _ranks_with_low_ace({_rank(c) for c in cards})
    return len({_rank(c) for c in cards}) == 5 and any(set(s) <= ranks for s in _STRAIGHTS[short])


def _is_flush(cards: Sequence[Card]) -> bool:
    return len({_suit(c) for c in cards}) == 1


def _of_ranks(cards: Sequence[Card], ranks: set[int]) -> tuple[Card, ...]:
    return tuple(c for c in cards if _rank(c) in ranks)


def _straight_or_better(short: bool) -> Keep:
    def rule(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
        counts = sorted(_by_rank(cards).values(), reverse=True)
        made = _is_straight(cards, short) or _is_flush(cards) or counts[0] == 4 or counts[:2] == [3, 2]
        return cards if made else None

    return rule


def _sets(size: int, how_many: int) -> Keep:
    """Keep ``how_many`` groups of ``size`` cards of a rank (trips: 3, 1; two pair: 2, 2; a pair: 2, 1)."""

    def rule(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
        ranks = {r for r, n in _by_rank(cards).items() if n == size}
        return _of_ranks(cards, ranks) if len(ranks) == how_many else None

    return rule


def _four_flush(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    suits = Counter(_suit(c) for c in cards)
    suit, count = suits.most_common(1)[0]
    return tuple(c for c in cards if _suit(c) == suit) if count == 4 else None


def _open_four_straight(short: bool) -> Keep:
    """Four cards of a straight that two different ranks would complete."""

    def rule(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
        best: tuple[Card, ...] | None = None
        for odd in cards:
            four = tuple(c for c in cards if c != odd)
            if len({_rank(c) for c in four}) != 4:
                continue
            held = _ranks_with_low_ace({_rank(c) for c in four})
            completing = {r for s in _STRAIGHTS[short] for r in s if len(held & set(s)) == 4 and r not in held}
            completing = {ACE if r == LOW_ACE else r for r in completing}
            if len(completing) >= 2 and (best is None or max(four) > max(best)):
                best = four
        return best

    return rule


def _ace_and_kicker(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    ordered = sorted(cards, reverse=True)
    return tuple(ordered[:2]) if _rank(ordered[0]) == ACE else None


def _highest_card(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    return (max(cards),)


def _deuce_seven_smooth(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """Five different ranks of 8 or under, no straight, no flush: a made low, kept whole."""
    low = {_rank(c) for c in cards if _rank(c) <= 8}
    if len(low) == 5 and not _is_straight(cards, False) and not _is_flush(cards):
        return cards
    return None


def _deuce_seven_broken(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """Five different ranks of 8 or under that make a straight or a flush: break it, keep the four lowest."""
    low = {_rank(c) for c in cards if _rank(c) <= 8}
    return tuple(sorted(cards)[:4]) if len(low) == 5 else None


def _deuce_seven_draw(cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """The lowest card of each rank of 8 or under (an ace is high in 2-7, so never kept)."""
    kept: dict[int, Card] = {}
    for c in sorted(cards):
        if _rank(c) <= 8:
            kept.setdefault(_rank(c), c)
    return tuple(kept.values())


def _high_policy(short: bool) -> tuple[PolicyRow, ...]:
    return (
        PolicyRow("straight or better", "all five (stand pat)", _straight_or_better(short)),
        PolicyRow("three of a kind", "the three", _sets(3, 1)),
        PolicyRow("two pair", "both pairs", _sets(2, 2)),
        PolicyRow("one pair", "the pair", _sets(2, 1)),
        PolicyRow("four to a flush", "the four suited cards", _four_flush),
        PolicyRow("open-ended four-straight", "the four (two ranks complete it)", _open_four_straight(short)),
        PolicyRow("an ace", "the ace and the highest other card", _ace_and_kicker),
        PolicyRow("anything else", "the highest card", _highest_card),
    )


POLICIES: MappingProxyType[str, tuple[PolicyRow, ...]] = MappingProxyType({
    "draw5": _high_policy(short=False),
    "draw32": _high_policy(short=True),
    "triple-draw-27": (
        PolicyRow("a made 8-low (five ranks 8 or under, no straight, no flush)", "all five", _deuce_seven_smooth),
        PolicyRow("five ranks 8 or under making a straight or flush", "the four lowest", _deuce_seven_broken),
        PolicyRow("anything else", "one card of each rank 8 or under (none: draw five)", _deuce_seven_draw),
    ),
})


def decide(variant: str, cards: Sequence[Card]) -> tuple[PolicyRow, tuple[Card, ...]]:
    """The policy row that applies to ``cards`` (five, of a draw game) and the cards it keeps, in hand order."""
    rows = POLICIES.get(variant)
    if rows is None:
        raise EngineInputError(f"{variant!r} has no draw policy; the draw games are {', '.join(POLICIES)}")
    hand = tuple(cards)
    if len(hand) != 5 or len(set(hand)) != 5:
        raise EngineInputError(f"a draw decision needs five different cards, not {format_cards(hand)!r}")
    for row in rows:
        kept = row.keep(hand)
        if kept is not None:
            return row, tuple(c for c in hand if c in kept)
    raise EngineInputError(f"no row of the {variant} policy applies to {format_cards(hand)}")


def discards(variant: str, cards: Sequence[Card]) -> tuple[Card, ...]:
    """The cards the policy throws away from ``cards`` (in hand order)."""
    kept = set(decide(variant, cards)[1])
    return tuple(c for c in cards if c not in kept)


def policy_table(variant: str) -> list[tuple[str, str]]:
    """``(holding, cards kept)`` rows of ``variant``'s policy, first match wins: what the README prints."""
    return [(row.holding, row.keeps) for row in POLICIES[variant]]
