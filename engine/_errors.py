"""The engine's input error (re-exported as :class:`engine.EngineInputError`)."""

from __future__ import annotations


class EngineInputError(ValueError):
    """Input the engine cannot work with: wrong card counts, unknown variant, bad sample size.

    Card problems (malformed, unknown or duplicated cards) raise
    :class:`engine.cards.CardError` instead; both are ``ValueError``.
    """
