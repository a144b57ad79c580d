"""The two sides of a bet on an exchange."""

from __future__ import annotations

from enum import StrEnum


class Side(StrEnum):
    """BACK (for a selection to win) or LAY (against it).

    >>> Side.BACK.opposite
    <Side.LAY: 'LAY'>
    >>> Side("LAY") is Side.LAY
    True
    """

    BACK = "BACK"
    LAY = "LAY"

    @property
    def opposite(self) -> Side:
        return Side.LAY if self is Side.BACK else Side.BACK
