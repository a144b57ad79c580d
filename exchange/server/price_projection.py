"""API-NG's ``PriceProjection`` for listMarketBook and listRunnerBook: every field read, checked, honoured or
refused by name.

* ``priceData``: ``EX_BEST_OFFERS``, ``EX_ALL_OFFERS``, ``EX_TRADED`` (``SP_AVAILABLE`` and ``SP_TRADED`` are
  accepted and give nothing: no market here is a BSP market).
* ``exBestOffersOverrides`` (applies to ``EX_BEST_OFFERS``, as Betfair's): ``bestPricesDepth`` (a positive
  integer, default 3) limits the levels of ``availableToBack`` and ``availableToLay``; ``rollupModel`` ``STAKE``
  rolls the levels up so that none shows less than ``rollupLimit`` (a positive integer in pounds; default the
  minimum stake): from the best price on, levels are added up until their sum reaches the limit, and the sum is
  shown at the last (worst) price added, the price at which that stake would be matched in full; levels
  beyond the last such sum (together under the limit) are not shown. ``NONE`` shows every level as it is (the
  same as no ``rollupModel``). ``PAYOUT`` and ``MANAGED_LIABILITY``, and their ``rollupLiabilityThreshold`` and
  ``rollupLiabilityFactor``, are not offered and refused. The depth is counted after the rollup.
* ``virtualise``: a boolean; no market here cross-matches, so there are no virtual prices and the answer is
  the same either way.
* ``rolloverStakes``: a boolean; ``true`` (cumulative sizes) is not offered (Betfair does not support it
  either) and refused; ``false`` is the one behaviour.

Anything else is ``INVALID_INPUT_DATA`` naming the field and what is allowed.

>>> p = parse_price_projection({"priceProjection": {"priceData": ["EX_BEST_OFFERS"], "exBestOffersOverrides": {
...     "bestPricesDepth": 2, "rollupModel": "STAKE", "rollupLimit": 5}}}, min_stake=200)
>>> p.depth, p.rollup_limit
(2, 500)
>>> [(level.tick, level.size) for level in rolled_up((PriceSize(10, 200), PriceSize(9, 400), PriceSize(8, 100)), 500)]
[(9, 600)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from exchange.core.book import PriceSize
from exchange.core.money import MINOR_PER_MAJOR
from exchange.server.errors import invalid_input
from exchange.server.params import get_bool, get_int, get_object, get_str_list

PRICE_DATA = ("EX_BEST_OFFERS", "EX_ALL_OFFERS", "EX_TRADED", "SP_AVAILABLE", "SP_TRADED")
ROLLUP_MODELS = ("STAKE", "NONE")
NOT_OFFERED_MODELS = ("PAYOUT", "MANAGED_LIABILITY")
DEFAULT_DEPTH = 3
_KEYS = frozenset({"priceData", "exBestOffersOverrides", "virtualise", "rolloverStakes"})
_OVERRIDE_KEYS = frozenset({"bestPricesDepth", "rollupModel", "rollupLimit", "rollupLiabilityThreshold",
                            "rollupLiabilityFactor"})
_WHERE = "priceProjection."
_OVERRIDES = "priceProjection.exBestOffersOverrides."


@dataclass(frozen=True, slots=True)
class PriceProjection:
    """A checked ``priceProjection``.

    ``depth``: the levels of best offers to show (``None``: all, as ``EX_ALL_OFFERS`` asks); ``rollup_limit``: the
    smallest size a best-offers level may show, in minor units (``None``: no rollup).
    """

    price_data: frozenset[str]
    depth: int | None
    rollup_limit: int | None

    @property
    def with_prices(self) -> bool:
        return bool(self.price_data & {"EX_BEST_OFFERS", "EX_ALL_OFFERS"})

    @property
    def traded(self) -> bool:
        return "EX_TRADED" in self.price_data

    def offers(self, levels: tuple[PriceSize, ...]) -> tuple[PriceSize, ...]:
        """One side's levels (best first) as this projection shows them: rolled up, then cut to its depth."""
        if self.rollup_limit is not None:
            levels = rolled_up(levels, self.rollup_limit)
        return levels if self.depth is None else levels[: self.depth]


def rolled_up(levels: Sequence[PriceSize], limit: int) -> tuple[PriceSize, ...]:
    """``levels`` (best price first) rolled up by stake: each shown level the sum of the levels from the one after
    the previous shown level down to the first price where the sum reaches ``limit`` (minor units), at that price.

    >>> [(l.tick, l.size) for l in rolled_up((PriceSize(5, 300), PriceSize(4, 100), PriceSize(3, 150)), 200)]
    [(5, 300), (3, 250)]
    """
    out: list[PriceSize] = []
    total = 0
    for level in levels:
        total += level.size
        if total >= limit:
            out.append(PriceSize(level.tick, total))
            total = 0
    return tuple(out)


def parse_price_projection(params: Mapping[str, Any], *, min_stake: int) -> PriceProjection:
    """The ``priceProjection`` of a listMarketBook call, checked; ``min_stake`` (minor units): STAKE's default limit."""
    raw = get_object(params, "priceProjection", required=False)
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise invalid_input(f"priceProjection has unknown keys {unknown}; a PriceProjection has {sorted(_KEYS)}")
    price_data = frozenset(get_str_list(raw, "priceData", where=_WHERE))
    if not price_data <= set(PRICE_DATA):
        raise invalid_input(f"priceProjection.priceData has unknown values {sorted(price_data - set(PRICE_DATA))}; "
                            f"allowed: {', '.join(PRICE_DATA)}")
    get_bool(raw, "virtualise", default=False, where=_WHERE)  # no cross-matching here: no virtual prices to add
    if get_bool(raw, "rolloverStakes", default=False, where=_WHERE):
        raise invalid_input("priceProjection.rolloverStakes true (cumulative sizes) is not offered; "
                            "leave it out or send false")
    overrides = get_object(raw, "exBestOffersOverrides", required=False, where=_WHERE)
    unknown = sorted(set(overrides) - _OVERRIDE_KEYS)
    if unknown:
        raise invalid_input(f"priceProjection.exBestOffersOverrides has unknown keys {unknown}; "
                            f"allowed: {sorted(_OVERRIDE_KEYS)}")
    depth = get_int(overrides, "bestPricesDepth", default=DEFAULT_DEPTH, where=_OVERRIDES)
    if depth <= 0:
        raise invalid_input(f"{_OVERRIDES}bestPricesDepth must be a positive integer, not {depth}")
    limit = _rollup_limit(overrides, min_stake)
    if "EX_ALL_OFFERS" in price_data:
        return PriceProjection(price_data, None, None)  # the overrides are of the best offers only
    return PriceProjection(price_data, depth, limit)


def _rollup_limit(overrides: Mapping[str, Any], min_stake: int) -> int | None:
    """The STAKE rollup's limit in minor units, ``None`` for no rollup; the models not offered are refused."""
    for key in ("rollupLiabilityThreshold", "rollupLiabilityFactor"):
        if overrides.get(key) is not None:
            raise invalid_input(f"{_OVERRIDES}{key} belongs to the MANAGED_LIABILITY rollup, which is not offered; "
                                f"rollupModel may be {' or '.join(ROLLUP_MODELS)}")
    model = overrides.get("rollupModel")
    if model is not None and model not in ROLLUP_MODELS:
        offered = "is not offered" if model in NOT_OFFERED_MODELS else "is not a RollupModel"
        raise invalid_input(f"{_OVERRIDES}rollupModel {model!r:.40} {offered}; "
                            f"allowed: {', '.join(ROLLUP_MODELS)}")
    if overrides.get("rollupLimit") is None:
        return min_stake if model == "STAKE" else None
    limit = get_int(overrides, "rollupLimit", where=_OVERRIDES)
    if model != "STAKE":
        raise invalid_input(f"{_OVERRIDES}rollupLimit needs rollupModel STAKE, not {model or 'none'}")
    if limit <= 0:
        raise invalid_input(f"{_OVERRIDES}rollupLimit must be a positive whole number of pounds, not {limit}")
    return limit * MINOR_PER_MAJOR
