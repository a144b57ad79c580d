"""Telesina: 32 cards (7 to ace), best five of six (the player's five and the vela).

Straight flush, four of a kind, flush, full house, straight, three of a kind, two
pair, pair, high card; suit order hearts > diamonds > clubs > spades. Ties:

* straight flush: higher top card, then higher suit;
* four of a kind, full house, three of a kind: higher rank of the set (nothing else:
  two such hands cannot share a set rank in one deal, so this never splits a pot);
* flush: the higher suit wins, ranks are not compared;
* straight: higher top card, then the suit of the top card;
* two pair: top pair, second pair, kicker rank, then the suit of the highest card
  of the top pair. The rules give that last step for a shared vela kicker; we apply
  it whenever the kicker ranks are equal (two different kickers of one rank are the
  only other case, and the rules are silent on it);
* pair: pair rank, kickers high to low, then the suit of the highest kicker;
* high card: cards ordered by rank then suit (A♥ > A♦ > A♣ > A♠ > K♥ ...), compared
  card by card from the highest.

>>> from engine.cards import parse_cards
>>> ah_qc = TELESINA.evaluate(parse_cards("Ah Qc 9d 8s Jh"))
>>> ad_kc = TELESINA.evaluate(parse_cards("Ad Kc 9h 8c Jd"))
>>> ah_qc > ad_kc
True

**Heads-up rule** (:func:`heads_up_winner`). With exactly two hands at the
showdown, the lowest straight flush ``A♠ 7♠ 8♠ 9♠ T♠`` beats the highest
``T♥ J♥ Q♥ K♥ A♥``. Our reading: the rule names exactly those two hands, so it
changes only that one comparison, and only heads-up; with three or more hands
the order above holds. A player whose six cards contain ``A789T♠`` may play it
(the player chooses any five), so against the hearts royal they win even if their
usual best is a higher spade straight flush such as ``789TJ♠``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from engine.cards import Card, parse_cards
from engine.rankings.core import (
    SHORT_WHEEL_MASK,
    DeckSize,
    Ranking,
    best_suit_of_rank,
    codes_desc,
    pack,
    telesina_suit,
)
from engine.rankings.high import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    high_parts,
)
from engine.rankings.short import (
    SHORT_CATEGORIES,
    T_FLUSH,
    T_FULL_HOUSE,
    T_HIGH,
    T_PAIR,
    T_QUADS,
    T_STRAIGHT,
    T_STRAIGHT_FLUSH,
    T_TRIPS,
    T_TWO_PAIR,
)


@njit(cache=True)
def telesina_key5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Key of five cards under the Telesina ranking (greater is better)."""
    category, fields = high_parts(c0, c1, c2, c3, c4, SHORT_WHEEL_MASK)
    if category == STRAIGHT_FLUSH:
        return pack(T_STRAIGHT_FLUSH, (fields << 4) | telesina_suit(c0), 0)
    if category == QUADS:
        return pack(T_QUADS, fields >> 4, 0)
    if category == FLUSH:
        return pack(T_FLUSH, telesina_suit(c0), 0)
    if category == FULL_HOUSE:
        return pack(T_FULL_HOUSE, fields >> 4, 0)
    if category == STRAIGHT:
        return pack(T_STRAIGHT, (fields << 4) | best_suit_of_rank(fields, c0, c1, c2, c3, c4), 0)
    if category == TRIPS:
        return pack(T_TRIPS, fields >> 8, 0)
    if category == ONE_PAIR:
        kicker = (fields >> 8) & 15
        return pack(T_PAIR, (fields << 4) | best_suit_of_rank(kicker, c0, c1, c2, c3, c4), 0)
    if category == HIGH_CARD:
        return pack(T_HIGH, 0, codes_desc(c0, c1, c2, c3, c4))
    top_pair = fields >> 8
    return pack(T_TWO_PAIR, (fields << 4) | best_suit_of_rank(top_pair, c0, c1, c2, c3, c4), 0)


LOW_SPADE_STRAIGHT_FLUSH = parse_cards("Ts 9s 8s 7s As")
HEARTS_ROYAL_FLUSH = parse_cards("Ah Kh Qh Jh Th")
LOW_SPADES_MASK = sum(1 << c.id for c in LOW_SPADE_STRAIGHT_FLUSH)
HEARTS_ROYAL_KEY = pack(T_STRAIGHT_FLUSH, (14 << 4) | 3, 0)


@njit(cache=True)
def heads_up_override(key_a: int, mask_a: int, key_b: int, mask_b: int) -> int:
    """0 or 1: the hand the heads-up rule makes win; -1 when the rule does not apply.

    ``key_x`` is a hand's best key, ``mask_x`` the bit mask (bit = card id) of all the
    cards it may play from.
    """
    if key_b == HEARTS_ROYAL_KEY and mask_a & LOW_SPADES_MASK == LOW_SPADES_MASK:
        return 0
    if key_a == HEARTS_ROYAL_KEY and mask_b & LOW_SPADES_MASK == LOW_SPADES_MASK:
        return 1
    return -1


def heads_up_winner(best_keys: Sequence[int], pools: Sequence[Sequence[Card]]) -> tuple[int, tuple[Card, ...]] | None:
    """The winner under the heads-up rule and the five cards it plays, or ``None``.

    ``best_keys`` are the hands' best Telesina keys and ``pools`` the cards each hand
    plays from (own five and the vela). Applies to exactly two hands only.

    >>> own_spades = parse_cards("As 7s 8s 9s Ts")
    >>> own_hearts = parse_cards("Th Jh Qh Kh Ah")
    >>> vela = parse_cards("Js")
    >>> keys = [TELESINA.best(own_spades + vela).key, TELESINA.best(own_hearts + vela).key]
    >>> keys[0] < keys[1]  # 789TJ of spades: the usual order puts it below the hearts royal
    True
    >>> winner, played = heads_up_winner(keys, [own_spades + vela, own_hearts + vela])
    >>> winner, " ".join(map(str, played))
    (0, 'Ts 9s 8s 7s As')
    """
    if len(best_keys) != 2:
        return None
    masks = [sum(1 << c.id for c in pool) for pool in pools]
    winner = heads_up_override(best_keys[0], masks[0], best_keys[1], masks[1])
    return None if winner < 0 else (int(winner), LOW_SPADE_STRAIGHT_FLUSH)


@njit(cache=True)
def telesina_best(cards: np.ndarray, n: int) -> int:
    """The best Telesina key of any five of ``cards[:n]`` (five or six cards)."""
    best = telesina_key5(cards[0], cards[1], cards[2], cards[3], cards[4])
    if n == 6:
        c = cards
        for skip in range(5):
            # the five cards other than cards[skip]: cards[5] stands in for it
            k = telesina_key5(
                c[5] if skip == 0 else c[0],
                c[5] if skip == 1 else c[1],
                c[5] if skip == 2 else c[2],
                c[5] if skip == 3 else c[3],
                c[5] if skip == 4 else c[4],
            )
            if k > best:
                best = k
    return best


TELESINA = Ranking(
    name="telesina",
    title="Telesina",
    code=5,
    deck=DeckSize.SHORT,
    categories=SHORT_CATEGORIES,
    key5=telesina_key5,
    heads_up=heads_up_winner,
)
