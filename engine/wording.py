"""Counts and names in messages, in plain English: ``1 card`` but ``2 cards``, ``an Omaha hand`` but ``a 7-Card
Stud hand``. Every message a user reads that counts something or puts an article before a game's title uses these,
so none says ``1 cards`` or ``a Omaha``.

>>> counted(1, "card"), counted(0, "card"), counted(3, "hand")
('1 card', '0 cards', '3 hands')
>>> counted(1_000_000, "sample")
'1,000,000 samples'
>>> with_article("Omaha"), with_article("Texas Hold'em"), with_article("7-Card Stud"), with_article("8-Game Mix")
('an Omaha', "a Texas Hold'em", 'a 7-Card Stud', 'an 8-Game Mix')
>>> or_list([0, 3, 4, 5]), or_list([0, 1]), or_list([4])
('0, 3, 4 or 5', '0 or 1', '4')
"""

from __future__ import annotations

from collections.abc import Iterable

_VOWELS = frozenset("AEIOUaeiou")


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural unless the count is exactly one (``plural`` if it is not ``noun + s``);
    the count grouped by thousands as the rest of the output writes counts."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def article(word: str) -> str:
    """``an`` before a vowel sound, else ``a``: by the first letter, and for a number by how it is said (``an 8``,
    ``an 11``, ``an 18``; ``a 7``, ``a 2``)."""
    digits = word[: len(word) - len(word.lstrip("0123456789"))]
    if digits:
        return "an" if digits.startswith("8") or digits in ("11", "18") else "a"
    return "an" if word[:1] in _VOWELS else "a"


def with_article(word: str) -> str:
    """``word`` after its article: ``an Omaha``, ``a Telesina``."""
    return f"{article(word)} {word}"


def or_list(items: Iterable[object]) -> str:
    """The choices a message allows, the last after ``or``: ``0, 3, 4 or 5``; a single one alone."""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
