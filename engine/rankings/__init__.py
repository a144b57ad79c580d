"""Hand rankings, one module per family; every ranking is a :class:`Ranking` record.

======================  ===========================  =====
ranking                 module                       deck
======================  ===========================  =====
``HIGH``                :mod:`.high`                 52
``EIGHT_OR_BETTER``     :mod:`.lowball`              52
``DEUCE_TO_SEVEN``      :mod:`.lowball`              52
``SOKO``                :mod:`.soko`                 52
``AMERICANA``           :mod:`.americana`            32
``TELESINA``            :mod:`.telesina`             32
``DRAW32``              :mod:`.draw32`               32
======================  ===========================  =====

The five-card key functions are compiled by numba with ``cache=True``. numba's
on-disk cache only notices edits to a function's own file: after changing a
ranking, delete ``engine/**/__pycache__/*.nbi`` and ``*.nbc`` so that the code
that calls it (:mod:`.fast`, :mod:`engine.variant_equity`) is compiled afresh.

>>> sorted(RANKINGS)
['americana', 'deuce-to-seven', 'draw32', 'eight-or-better', 'high', 'soko', 'telesina']
"""

from __future__ import annotations

from engine.rankings.americana import AMERICANA
from engine.rankings.core import NO_HAND, DeckSize, HandCategory, HandValue, Ranking
from engine.rankings.draw32 import DRAW32
from engine.rankings.high import HIGH
from engine.rankings.lowball import DEUCE_TO_SEVEN, EIGHT_OR_BETTER
from engine.rankings.soko import SOKO
from engine.rankings.telesina import TELESINA

RANKINGS: dict[str, Ranking] = {
    r.name: r for r in (HIGH, EIGHT_OR_BETTER, DEUCE_TO_SEVEN, SOKO, AMERICANA, TELESINA, DRAW32)
}

__all__ = [
    "AMERICANA",
    "DEUCE_TO_SEVEN",
    "DRAW32",
    "EIGHT_OR_BETTER",
    "HIGH",
    "NO_HAND",
    "RANKINGS",
    "SOKO",
    "TELESINA",
    "DeckSize",
    "HandCategory",
    "HandValue",
    "Ranking",
]
