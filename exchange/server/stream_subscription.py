"""One stream subscription: what a client asked for, and each change cut to it.

A :class:`Subscription` is one connection's market or order subscription: its
request id, its clock, its heartbeat and its filters. The hub diffs each market
once per flush (a :class:`MarketDelta`) and each subscription takes from it
only the fields it asked for, its best offers at its own ladder depth
(:meth:`Subscription.filter_change`); order changes are cut the same way to its
``orderFilter`` (:meth:`Subscription.filter_orders`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from exchange.betfair.stream import RunnerSnapshot
from exchange.server.best_offers import levels_delta
from exchange.server.stream_params import DEFAULT_FIELDS, DEFAULT_LADDER_LEVELS, MarketParams

JsonDict = dict[str, Any]
_RC_FIELD = {"atb": "EX_ALL_OFFERS", "atl": "EX_ALL_OFFERS", "trd": "EX_TRADED", "tv": "EX_TRADED_VOL",
             "ltp": "EX_LTP"}
_MC_FIELD = {"marketDefinition": "EX_MARKET_DEF", "tv": "EX_TRADED_VOL"}
#: The level-keyed views: the field that asks for one, and its back and lay keys.
_BEST_OFFERS = (("EX_BEST_OFFERS", "batb", "batl"), ("EX_BEST_OFFERS_DISP", "bdatb", "bdatl"))


@dataclass(frozen=True, slots=True)
class MarketDelta:
    """One market's change as the recorder wrote it, and its runners before and after.

    ``change`` is the recorder's ``mc`` entry (the full ladder as price-keyed
    ``atb``/``atl``); ``before`` is what subscribers were last shown (empty for
    an image), ``after`` the runners now: each subscription derives its
    level-keyed best offers from the two at its own ``ladderLevels``.
    """

    change: JsonDict
    before: Mapping[int, RunnerSnapshot]
    after: Mapping[int, RunnerSnapshot]


@dataclass
class Subscription:
    """One market or order subscription of a connection: its request id, clock and filters."""

    id: int
    heartbeat_ms: int
    market_ids: frozenset[str] | None = None
    params: MarketParams | None = None  # a market subscription's marketFilter
    fields: frozenset[str] = DEFAULT_FIELDS
    ladder_levels: int = DEFAULT_LADDER_LEVELS
    overall_position: bool = True
    strategy_refs: frozenset[str] | None = None
    partition_by_strategy: bool = False  # orderFilter.partitionMatchedByStrategyRef: send smc
    clk: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    last_sent_ms: int = 0

    @property
    def heartbeat_due_ms(self) -> int:
        """When the subscription is sent a heartbeat if nothing else is sent it before."""
        return self.last_sent_ms + self.heartbeat_ms

    def wants(self, market_id: str) -> bool:
        if self.params is not None:
            return self.params.wants(market_id)
        return self.market_ids is None or market_id in self.market_ids

    def filter_change(self, delta: MarketDelta) -> JsonDict:
        """A market change with only the fields this subscription asked for, best offers at its ladder depth."""
        change = delta.change
        image = bool(change.get("img"))
        out: JsonDict = {}
        for key, value in change.items():
            if key == "rc":
                rcs = [rc for rc in (self._runner_change(rc, delta, image) for rc in value) if rc]
                if rcs:
                    out["rc"] = rcs
            elif key not in _MC_FIELD or _MC_FIELD[key] in self.fields:
                out[key] = value
        return out

    def _runner_change(self, rc: JsonDict, delta: MarketDelta, image: bool) -> JsonDict:
        kept = {k: v for k, v in rc.items() if k == "id" or _RC_FIELD.get(k) in self.fields}
        before, after = delta.before.get(rc["id"]), delta.after.get(rc["id"])
        for name, back_key, lay_key in _BEST_OFFERS:
            if name in self.fields and after is not None:
                for key, back in ((back_key, True), (lay_key, False)):
                    old = None if before is None else (before.atb if back else before.atl)
                    levels = levels_delta(old, after.atb if back else after.atl, back=back, depth=self.ladder_levels)
                    if levels or image:
                        kept[key] = levels
        return kept if len(kept) > 1 or image else {}

    def filter_orders(self, changes: list[JsonDict]) -> list[JsonDict]:
        """Order changes as ``orderFilter`` asked: ``mb``/``ml`` only with the overall position, ``smc`` only
        when partitioned by strategy, and of the orders and strategy matches only the refs asked for (the
        overall position is not filtered by ref, as Betfair's is not). A delta's runner left with nothing to
        say is dropped, and a market left with no runner and not closing."""
        if self.overall_position and self.partition_by_strategy and self.strategy_refs is None:
            return changes  # everything asked for: as built
        out = []
        for market in changes:
            orcs = [orc for orc in (self._runner_orders(orc) for orc in market["orc"])
                    if orc.get("fullImage") or len(orc) > 1]
            if orcs or market.get("closed"):
                out.append({**market, "orc": orcs})
        return out

    def _runner_orders(self, orc: JsonDict) -> JsonDict:
        orc = {k: v for k, v in orc.items() if (self.overall_position or k not in ("mb", "ml"))
               and (self.partition_by_strategy or k != "smc")}
        refs = self.strategy_refs
        if refs is not None:
            uo = [uo for uo in orc.pop("uo", ()) if uo.get("rfs") in refs]
            if uo:
                orc["uo"] = uo
            if "smc" in orc:
                smc = {ref: m for ref, m in orc.pop("smc").items() if ref in refs}
                if smc:
                    orc["smc"] = smc
        return orc
