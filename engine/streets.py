"""Where a deal can stand when equity is asked: between streets, as the deal leaves it.

Each street deals every seat alike (``spec/variants.md``), so between streets every
hand holds as many cards as the others, and that number and the board's are ones a
street leaves them at (:attr:`engine.variants.Variant.between_streets`; no cards at
all before the deal). Anything else cannot happen in the game, and equity refuses
it rather than price it.

>>> from engine.cards import parse_cards
>>> check_board_size("omaha", (0, 3, 4, 5), parse_cards("5h 6h"))
Traceback (most recent call last):
...
engine._errors.EngineInputError: board has 2 cards (5h 6h); omaha equity needs 0, 3, 4 or 5 board cards

This module stays light (no numpy or numba): Hold'em's equity imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine._errors import EngineInputError
from engine.cards import Card, format_cards
from engine.wording import counted, or_list, with_article

if TYPE_CHECKING:
    from engine.variants import Variant


def check_board_size(game: str, sizes: Sequence[int], board: Sequence[Card]) -> None:
    """Refuse a board whose size is not one of ``sizes`` (those the streets of ``game`` leave it at)."""
    if len(board) not in sizes:
        raise EngineInputError(
            f"board has {counted(len(board), 'card')} ({format_cards(board)}); "
            f"{game} equity needs {or_list(sizes)} board cards"
        )


def check_between_streets(variant: Variant, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> None:
    """Refuse hands and a board that no street of ``variant`` leaves: hands of different sizes, or a size the
    streets never deal (with a board this size). ``hands`` holds at least one hand."""
    states = variant.between_streets
    check_board_size(variant.name, sorted({shared for _, shared in states}), board)
    first = len(hands[0])
    for number, hand in enumerate(hands[1:], 2):
        if len(hand) != first:
            raise EngineInputError(
                f"hand {number} has {counted(len(hand), 'card')}, hand 1 has {first}; {variant.title} deals every "
                "hand alike, so between streets all hold as many cards"
            )
    sizes = [own for own, shared in states if shared == len(board)]
    if first not in sizes:
        where = f"with {counted(len(board), 'board card')}" if board else "between streets"
        raise EngineInputError(
            f"the hands have {counted(first, 'card')} each; {where} {with_article(variant.title)} hand has "
            f"{or_list(sizes)} cards"
        )
