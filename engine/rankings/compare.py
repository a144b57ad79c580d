"""Check that two rankings order the same hands the same way.

Rather than comparing random pairs one by one, sort the hands by one ranking and
walk the sorted list: two total preorders agree on *every* pair of ``n`` hands
exactly when they agree on each neighbouring pair of that list. So ``n`` hands
check ``n * (n - 1) / 2`` pairs in ``O(n log n)``.

>>> order_mismatches([1, 2, 2, 5], ["a", "b", "b", "c"])
[]
>>> order_mismatches([1, 2, 3], [(0,), (2,), (1,)])
[(1, 2)]
>>> order_mismatches([1, 2, 3], [0, 1, 1], refines=True)
[]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any


def order_mismatches(keys: Sequence[Any], reference: Sequence[Any], *, refines: bool = False) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)`` where ``keys`` and ``reference`` order hands differently.

    Both sequences give each hand a comparable value (greater is better). With
    ``refines=True``, ``keys`` may separate hands that ``reference`` calls equal
    (it must never reverse them, nor call equal what the reference separates).
    Returns neighbouring pairs of the list sorted by ``keys``; empty means agreement
    on all pairs.
    """
    if len(keys) != len(reference):
        raise ValueError(f"{len(keys)} keys but {len(reference)} reference values")
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    bad: list[tuple[int, int]] = []
    for i, j in itertools.pairwise(order):
        if keys[i] == keys[j]:
            ok = reference[i] == reference[j]
        elif refines:
            ok = reference[i] <= reference[j]
        else:
            ok = reference[i] < reference[j]
        if not ok:
            bad.append((i, j))
    return bad
