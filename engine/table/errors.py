"""The table's errors: an action the rules do not allow now, and a table set up wrongly."""

from __future__ import annotations

from engine._errors import EngineInputError


class TableError(EngineInputError):
    """A table that cannot be played: wrong seat count, stacks or stakes."""


class IllegalActionError(EngineInputError):
    """An action the rules do not allow at this point of the hand; the message says why."""
