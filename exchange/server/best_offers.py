"""Betfair's ``EX_BEST_OFFERS`` view of a runner's ladder: the best N levels, keyed by level.

``EX_ALL_OFFERS`` sends ``atb``/``atl`` keyed by *price* (``[[price, size], ...]``,
size 0 removes the price). ``EX_BEST_OFFERS`` sends ``batb``/``batl`` keyed by
*level*: ``[[level, price, size], ...]`` for the best ``ladderLevels`` levels,
level 0 the best (the highest price to back at, the lowest to lay at). When
the content of a level changes — its size, or its price because a better price
arrived or the best one went — the level is re-sent whole; a level that is now
empty is sent as ``[level, 0, 0]`` (size 0 removes it, as betfairlightweight's
``Available(batb, 2)`` cache reads it). An image sends every non-empty level.

>>> from exchange.core.ladder import parse_price
>>> t = parse_price
>>> levels_delta(None, ((t("3.0"), 600), (t("2.98"), 250)), back=True, depth=3)
[[0, 3.0, 6.0], [1, 2.98, 2.5]]
>>> levels_delta(((t("3.0"), 600), (t("2.98"), 250)), ((t("2.98"), 250),), back=True, depth=3)
[[0, 2.98, 2.5], [1, 0, 0]]
>>> levels_delta(None, ((t("3.0"), 600), (t("2.98"), 250)), back=False, depth=1)
[[0, 2.98, 2.5]]
"""

from __future__ import annotations

from exchange.betfair.stream import PriceLevels, stream_price, stream_size


def best_levels(levels: PriceLevels, *, back: bool, depth: int) -> PriceLevels:
    """The best ``depth`` ``(tick, size)`` levels, best first: highest price first on the back side.

    >>> best_levels(((5, 100), (9, 200), (7, 300)), back=True, depth=2)
    ((9, 200), (7, 300))
    >>> best_levels(((5, 100), (9, 200), (7, 300)), back=False, depth=2)
    ((5, 100), (7, 300))
    """
    return tuple(sorted(levels, reverse=back)[:depth])


def levels_delta(before: PriceLevels | None, after: PriceLevels, *, back: bool, depth: int) -> list[list[float]]:
    """``[[level, price, size], ...]`` for each of the best ``depth`` levels whose content changed.

    ``before`` is the ladder the client was last shown (``None`` for an image:
    then every non-empty level is sent). ``back`` is the ``atb`` side (available
    to back: best is the highest price); otherwise ``atl`` (best is the lowest).
    """
    old = best_levels(before or (), back=back, depth=depth)
    new = best_levels(after, back=back, depth=depth)
    out: list[list[float]] = []
    for level in range(max(len(old), len(new))):
        now = new[level] if level < len(new) else None
        if now != (old[level] if level < len(old) else None):
            out.append([level, 0, 0] if now is None else [level, stream_price(now[0]), stream_size(now[1])])
    return out
