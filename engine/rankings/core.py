"""What every ranking shares: categories, the packed key, the hand value, the ranking record.

A *ranking* maps five cards to an integer **key**; a greater key is a better hand,
for every ranking, lows included (a low ranking inverts its order inside the key, so
``max`` always finds the winner). ``NO_HAND`` (-1) is the key of five cards that do
not make a hand at all: an eight-or-better low that does not qualify.

The key is packed so that comparing integers compares the rule-book tuples:

* bits 54..57: the category's index in :attr:`Ranking.categories` (worst first);
* bits 30..53: up to six 4-bit *fields* (ranks 2..14, or suit strengths 0..3),
  most significant first: the tie-breaks the rules list, in their order;
* bits 0..29: an *extension* of five 6-bit card codes, used by the rankings whose
  rules order single cards by suit (Telesina's high card, 32-Card Draw).

Inside a category every hand has the same number of fields, so the integers
compare exactly as the tuples ``(category, field0, field1, ..., extension)`` do.

The key functions are written in plain Python over card ids and compiled with
numba: the same code is the readable reference and the hot path of the equity
kernels (``fn.py_func`` is the uncompiled original).

>>> pack(2, 0x5E, 0)  # category 2, fields (5, 14), no extension
36028897950695424
>>> category_index(pack(2, 0x5E, 0)), fields_of(pack(2, 0x5E, 0))
(2, 94)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from itertools import combinations

from numba import njit

from engine.cards import Card, CardError, CardLike, Rank, Suit, check_distinct, format_cards, parse_cards

CAT_SHIFT = 54
FIELD_SHIFT = 30
FIELD_MASK = (1 << 24) - 1
EXT_MASK = (1 << 30) - 1
NO_HAND = -1

# Rank masks are 13-bit: bit (rank - 2). A2345 and A789T as masks.
WHEEL_MASK = (1 << 12) | 0b1111
SHORT_WHEEL_MASK = (1 << 12) | (0b1111 << 5)


class HandCategory(StrEnum):
    """The name of a made hand, as shown to people (and in ``to_dict``)."""

    HIGH_CARD = "high card"
    ONE_PAIR = "one pair"
    FOUR_STRAIGHT = "four-straight"
    FOUR_FLUSH = "four-flush"
    TWO_PAIR = "two pair"
    THREE_OF_A_KIND = "three of a kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full house"
    FOUR_OF_A_KIND = "four of a kind"
    STRAIGHT_FLUSH = "straight flush"
    ROYAL_FLUSH = "royal flush"
    EIGHT_LOW = "eight low"
    SEVEN_LOW = "seven low"
    SIX_LOW = "six low"
    FIVE_LOW = "five low"


class DeckSize(IntEnum):
    """The pack a ranking (and a variant) is played with."""

    FULL = 52
    SHORT = 32

    def cards(self) -> tuple[Card, ...]:
        """All the cards of this pack, in id order."""
        lowest = 0 if self is DeckSize.FULL else 4 * (Rank.SEVEN - 2)
        return tuple(Card(i) for i in range(lowest, 52))

    def check(self, cards: Iterable[Card]) -> None:
        """Raise :class:`CardError` naming the first card that is not in this pack.

        >>> DeckSize.SHORT.check(Card.parse(c) for c in ("As", "2c"))
        Traceback (most recent call last):
        ...
        engine.cards.CardError: card 2c is not in the 32-card deck; it holds ranks 7 8 9 T J Q K A only
        """
        if self is DeckSize.FULL:
            return
        for card in cards:
            if card.rank < Rank.SEVEN:
                raise CardError(f"card {card} is not in the 32-card deck; it holds ranks 7 8 9 T J Q K A only")


# ---------------------------------------------------------------- numba helpers


@njit(cache=True)
def pack(category: int, fields: int, ext: int) -> int:
    """The key of a hand: category, packed 4-bit fields, 30-bit extension."""
    return (category << CAT_SHIFT) | (fields << FIELD_SHIFT) | ext


def category_index(key: int) -> int:
    """The category index stored in ``key`` (``NO_HAND`` has none)."""
    return key >> CAT_SHIFT


def fields_of(key: int) -> int:
    """The packed tie-break fields of ``key``."""
    return (key >> FIELD_SHIFT) & FIELD_MASK


@njit(cache=True)
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def rank_masks(c0: int, c1: int, c2: int, c3: int, c4: int) -> tuple[int, int, int, int]:
    """Rank bit masks (bit rank-2) of ranks seen at least once, twice, three and four times."""
    m1 = 0
    m2 = 0
    m3 = 0
    m4 = 0
    for c in (c0, c1, c2, c3, c4):
        b = 1 << (c >> 2)
        m4 |= m3 & b
        m3 |= m2 & b
        m2 |= m1 & b
        m1 |= b
    return m1, m2, m3, m4


@njit(cache=True)
def push_desc(acc: int, mask: int) -> int:
    """Append the ranks of ``mask``, highest first, as 4-bit fields to ``acc``."""
    b = 12
    while mask:
        if (mask >> b) & 1:
            acc = (acc << 4) | (b + 2)
            mask ^= 1 << b
        b -= 1
    return acc


@njit(cache=True)
def grouped_fields(m1: int, m2: int, m3: int, m4: int) -> int:
    """Ranks ordered by multiplicity then rank, highest first: the standard kicker order."""
    acc = push_desc(0, m4)
    acc = push_desc(acc, m3 & ~m4)
    acc = push_desc(acc, m2 & ~m3)
    return push_desc(acc, m1 & ~m2)


@njit(cache=True)
def is_flush(c0: int, c1: int, c2: int, c3: int, c4: int) -> bool:
    s = c0 & 3
    return (c1 & 3) == s and (c2 & 3) == s and (c3 & 3) == s and (c4 & 3) == s


@njit(cache=True)
def straight_top(distinct: int, ace_low_mask: int) -> int:
    """Top rank of the straight made by five distinct ranks, or 0.

    ``ace_low_mask`` is the ace-low straight of the pack: A2345 (top 5) for 52
    cards, A789T (top 10) for 32 cards, 0 where the ace plays high only.
    """
    low = distinct & -distinct
    if distinct == low * 31:
        b = 0
        while low > 1:
            low >>= 1
            b += 1
        return b + 6
    if ace_low_mask and distinct == ace_low_mask:
        return 5 if ace_low_mask == WHEEL_MASK else 10
    return 0


@njit(cache=True)
def telesina_suit(card: int) -> int:
    """Suit strength with hearts > diamonds > clubs > spades (3, 2, 1, 0)."""
    return (0x39 >> ((card & 3) << 1)) & 3


@njit(cache=True)
def card_code(card: int) -> int:
    """A 6-bit code ordering single cards by rank, then suit (hearts > diamonds > clubs > spades)."""
    return ((card >> 2) + 2) * 4 + telesina_suit(card)


@njit(cache=True)
def codes_desc(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """The five card codes sorted highest first, packed into 30 bits: a total order on hands."""
    a = card_code(c0)
    b = card_code(c1)
    c = card_code(c2)
    d = card_code(c3)
    e = card_code(c4)
    # a five-element sorting network, descending
    if a < b:
        a, b = b, a
    if d < e:
        d, e = e, d
    if c < e:
        c, e = e, c
    if c < d:
        c, d = d, c
    if b < e:
        b, e = e, b
    if a < d:
        a, d = d, a
    if a < c:
        a, c = c, a
    if b < d:
        b, d = d, b
    if b < c:
        b, c = c, b
    return (((((a << 6) | b) << 6 | c) << 6 | d) << 6) | e


@njit(cache=True)
def best_suit_of_rank(rank: int, c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """The highest suit strength (Telesina order) among the cards of ``rank``."""
    best = -1
    for c in (c0, c1, c2, c3, c4):
        if (c >> 2) + 2 == rank:
            s = telesina_suit(c)
            if s > best:
                best = s
    return best


@njit(cache=True)
def highest_rank(mask: int) -> int:
    b = 12
    while b >= 0 and not (mask >> b) & 1:
        b -= 1
    return b + 2


# ---------------------------------------------------------------- Python side

Key5 = Callable[[int, int, int, int, int], int]
HeadsUpRule = Callable[[Sequence[int], Sequence[Sequence[Card]]], "tuple[int, tuple[Card, ...]] | None"]


@dataclass(frozen=True, order=True)
class HandValue:
    """A made hand: its key (compare these), category and the five cards it plays.

    Values of one ranking order by key alone; greater is better, for lows too.
    """

    key: int
    category: HandCategory = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)

    def __str__(self) -> str:
        return f"{self.category} ({format_cards(self.cards)})"

    def to_dict(self) -> dict[str, object]:
        return {"category": str(self.category), "cards": [str(c) for c in self.cards]}


def arrange_by_groups(cards: tuple[Card, ...], category: HandCategory) -> tuple[Card, ...]:
    """Reading order: bigger groups first, then higher ranks; an ace that plays low goes last.

    >>> from engine.cards import parse_cards
    >>> format_cards(arrange_by_groups(parse_cards("7h Kd 7s Ac Kc"), HandCategory.TWO_PAIR))
    'Kd Kc 7s 7h Ac'
    >>> format_cards(arrange_by_groups(parse_cards("Ah 2c 3d 4s 5h"), HandCategory.STRAIGHT))
    '5h 4s 3d 2c Ah'
    """
    counts: dict[Rank, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    ordered = sorted(cards, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True)
    ranks = {c.rank for c in cards}
    straightish = category in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH)
    plays_low = Rank.TWO in ranks or (Rank.SEVEN in ranks and Rank.KING not in ranks)
    ace_low = straightish and Rank.ACE in ranks and plays_low
    if ace_low:
        ordered = ordered[1:] + ordered[:1]
    return tuple(ordered)


@dataclass(frozen=True)
class Ranking:
    """A ranking as data: its pack, its categories (worst first) and its five-card key.

    ``code`` names the ranking inside the numba kernels (:mod:`engine.rankings.fast`).
    ``low`` says the ranking is a low (for display; keys are still higher-is-better).
    ``arrange`` puts the five played cards in reading order. ``heads_up``, where a
    ranking has one, overrides the order when exactly two hands meet: given the two
    best keys and the cards each may play from, it returns the winner and the five
    cards it plays, or ``None`` when the usual order stands.
    """

    name: str
    title: str
    code: int
    deck: DeckSize
    categories: tuple[HandCategory, ...]
    key5: Key5
    low: bool = False
    arrange: Callable[[tuple[Card, ...], HandCategory], tuple[Card, ...]] = field(default=arrange_by_groups, repr=False)
    heads_up: HeadsUpRule | None = field(default=None, repr=False)

    def category(self, key: int) -> HandCategory:
        """The category of a key this ranking produced."""
        if key < 0:
            raise ValueError("NO_HAND has no category: the cards do not make a hand in this ranking")
        return self.categories[key >> CAT_SHIFT]

    def key(self, cards: Sequence[Card]) -> int:
        """The key of exactly five cards (``NO_HAND`` if they make no hand here)."""
        if len(cards) != 5:
            raise CardError(f"a {self.title} hand is exactly 5 cards, got {len(cards)}")
        a, b, c, d, e = (card.id for card in cards)
        return int(self.key5(a, b, c, d, e))

    def evaluate(self, cards: str | Iterable[CardLike]) -> HandValue | None:
        """Rank exactly five different cards (``"As Ks Qs Js Ts"`` or card-likes); ``None`` when they make no hand
        (a non-qualifying low)."""
        five = parse_cards(cards)
        self.deck.check(five)
        check_distinct(five)
        key = self.key(five)
        if key == NO_HAND:
            return None
        category = self.category(key)
        return HandValue(key, category, self.arrange(five, category))

    def best(self, cards: str | Iterable[CardLike]) -> HandValue | None:
        """The best hand of any five of ``cards`` (five or more cards).

        Among five-card choices with equal keys, the one with the highest cards
        (by rank, then suit id) is shown, so the result is deterministic.
        """
        pool = parse_cards(cards)
        if len(pool) < 5:
            raise CardError(f"a {self.title} hand needs at least 5 cards, got {len(pool)}")
        check_distinct(pool)
        return self._best_of(combinations(pool, 5))

    def best_omaha(self, hole: str | Iterable[CardLike], board: str | Iterable[CardLike]) -> HandValue | None:
        """The best hand of exactly two of ``hole`` and exactly three of ``board``."""
        hole, board = parse_cards(hole), parse_cards(board)
        if len(hole) < 2 or len(board) < 3:
            raise CardError("an Omaha hand needs at least 2 hole cards and 3 board cards")
        check_distinct(hole, board)
        return self._best_of(h + b for h in combinations(hole, 2) for b in combinations(board, 3))

    def _best_of(self, choices: Iterable[tuple[Card, ...]]) -> HandValue | None:
        best: tuple[int, tuple[int, ...]] | None = None
        best_five: tuple[Card, ...] = ()
        for five in choices:
            self.deck.check(five)
            rank = (self.key(five), tuple(sorted((c.id for c in five), reverse=True)))
            if best is None or rank > best:
                best, best_five = rank, five
        if best is None or best[0] == NO_HAND:
            return None
        category = self.category(best[0])
        return HandValue(best[0], category, self.arrange(best_five, category))


def suit_strength_telesina(suit: Suit) -> int:
    """Hearts 3, diamonds 2, clubs 1, spades 0 (Telesina and 32-Card Draw)."""
    return {Suit.HEARTS: 3, Suit.DIAMONDS: 2, Suit.CLUBS: 1, Suit.SPADES: 0}[suit]
