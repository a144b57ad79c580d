"""Where a hand is: the kind of decision it waits for."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    BETTING = "betting"
    DRAWING = "drawing"
    SPLIT = "split offer"
    DONE = "done"
