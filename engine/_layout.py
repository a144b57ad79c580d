"""The bit layout of card keys and hand values, shared by the table builder, the kernels and the scalar path.

Plain integer constants and nothing else (no numpy, no numba), so every side
can import them: :mod:`engine._tables` builds the arrays with them,
:mod:`engine._kernels` and :mod:`engine._equity_kernels` read the arrays with
them, and :mod:`engine.evaluator` reads them in pure Python. Keeping them out
of :mod:`engine._tables` lets the table builder call the kernel that builds
its hash without the kernels importing the builder back.

A hand of 5, 6 or 7 cards is split into two independent questions:

* **Ranks.** Each rank has an integer *rank key* (:data:`RANK_KEYS`) chosen so
  that the sum over any multiset of at most seven ranks (at most four of each)
  is unique. The sum identifies the rank multiset, hence the best non-flush
  hand; a row-displacement perfect hash (:data:`HASH_SHIFT`) maps the sparse
  sums (up to 18 million) onto a table of about 140 thousand values.
* **Suits.** Each card also adds one to a 4-bit counter for its suit, packed
  at bit :data:`SUIT_SHIFT` and pre-loaded with 3 (:data:`SUIT_OFFSET`), so a
  suit holding five or more cards sets the top bit of its counter: "is there a
  flush" is one mask test (:data:`FLUSH_BITS`). Then the 13-bit mask of that
  suit's ranks indexes :attr:`engine._tables.Tables.flush_values`, which
  also knows straight flushes.

A card's *key* is its rank key plus its suit-counter unit, so a hand's key is
the plain sum of its cards' keys plus :data:`SUIT_OFFSET` — boards can be
accumulated incrementally.

**Value encoding** (shared by every evaluator in this package)::

    value = category << VALUE_SHIFT | index

``category`` is the :class:`~engine.evaluator.Category` (0 high card .. 8
straight flush) and ``index`` the position of the hand among the distinct
hands of that category, 0 for the weakest (e.g. ``7 5 4 3 2`` is high card
index 0, ``A K Q J 9`` high card index 1276). Higher value = better hand;
equal values tie. There are exactly 7,462 distinct values.
"""

from __future__ import annotations

from typing import Final

# Found by :func:`engine._kernels.search_rank_keys` (greedy: each key is the
# smallest integer keeping every sum over multisets of <= 7 ranks, <= 4 of each, distinct).
RANK_KEYS: Final = (1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 3453520)

SUIT_SHIFT: Final = 32
SUIT_OFFSET: Final = 0x3333 << SUIT_SHIFT
FLUSH_BITS: Final = 0x8888 << SUIT_SHIFT
RANK_KEY_MASK: Final = (1 << SUIT_SHIFT) - 1
HASH_SHIFT: Final = 10
HASH_COLUMN_MASK: Final = (1 << HASH_SHIFT) - 1
VALUE_SHIFT: Final = 12

# Category numbers as plain ints (engine.evaluator.Category mirrors them).
HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = range(9)
