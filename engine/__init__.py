"""The poker engine: cards, exact hand evaluation and equity.

``import engine`` stays light (no numpy or numba until a table or kernel is
first needed).

>>> from engine import equity
>>> equity("holdem", ["As Ks", "Qd Qc"], board="Ah 7c 2s Td 3h").results[0].win
1.0
"""

from engine._errors import EngineInputError, InvariantError
from engine.cards import Card, CardError, format_cards, parse_cards
from engine.equity import EquityResult, HandEquity, equity
from engine.evaluator import Category, best_five, category, evaluate, evaluate_omaha
from engine.showdown import showdown

__all__ = [
    "Card",
    "CardError",
    "Category",
    "EngineInputError",
    "EquityResult",
    "HandEquity",
    "InvariantError",
    "best_five",
    "category",
    "equity",
    "evaluate",
    "evaluate_omaha",
    "format_cards",
    "parse_cards",
    "showdown",
]
