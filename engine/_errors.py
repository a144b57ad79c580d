"""The engine's errors: bad input, and a broken invariant (re-exported from :mod:`engine`)."""

from __future__ import annotations


class EngineInputError(ValueError):
    """Input the engine cannot work with: wrong card counts, unknown variant, bad sample size.

    Every refusal of input is one: card problems (malformed, unknown or duplicated
    cards) raise its subclass :class:`engine.cards.CardError`, so one
    ``except EngineInputError`` catches them all (and it is a ``ValueError``).
    """


class InvariantError(AssertionError):
    """A structure's ``_check()`` found one of its invariants broken: a bug, not bad input.

    ``_check()`` raises it explicitly (not with ``assert``) so the checks still run
    under ``python -O``; the message names the invariant and the values that break it.
    """
