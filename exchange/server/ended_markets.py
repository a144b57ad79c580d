"""How markets the exchange no longer keeps ended, for stream clients that come back after a long time away.

The exchange keeps the newest ``keep_closed_markets`` closed markets and forgets
older ones (:class:`~exchange.core.state.ExchangeConfig`). A stream client that
resubscribes with its clock is shown every market that closed since, so that
its cache (betfairlightweight's, flumine's) learns how each ended and stops
showing it open with executable orders. A client away for longer than the
exchange keeps closed markets would miss the ones forgotten meanwhile and hold
them open for good. So when the exchange forgets a market the server keeps, in
an :class:`EndedMarkets`, what such a client needs: the market's description,
its last stream view and each trader's cleared orders there (not the house's:
no client reads them). That is a few kilobytes a market, for as many markets
again as the exchange keeps, oldest forgotten first. It is not in the snapshots
nor rebuilt from the journal: after a restart only the markets forgotten since
are remembered.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from exchange.betfair.stream import MarketInfo, MarketSnapshot
from exchange.core.orders import ClearedOrder


@dataclass(frozen=True, slots=True)
class EndedMarket:
    """A forgotten market as a stream client is shown it: its description, its last view (closed, so with its
    ``settled_ms``), the traders' cleared orders there (by account)."""

    info: MarketInfo
    snapshot: MarketSnapshot
    cleared: Mapping[str, tuple[ClearedOrder, ...]]

    @property
    def closed_ms(self) -> int:
        return self.snapshot.settled_ms or 0


class EndedMarkets:
    """The last ``keep`` markets forgotten (0: none), oldest first."""

    def __init__(self, keep: int) -> None:
        if keep < 0:
            raise ValueError(f"ended markets kept must not be negative, not {keep}")
        self.keep = keep
        self.by_id: OrderedDict[str, EndedMarket] = OrderedDict()

    def add(self, market_id: str, ended: EndedMarket) -> None:
        if self.keep == 0:
            return
        self.by_id[market_id] = ended
        while len(self.by_id) > self.keep:
            self.by_id.popitem(last=False)

    def get(self, market_id: str) -> EndedMarket | None:
        return self.by_id.get(market_id)

    def closed_since(self, since_ms: int) -> list[str]:
        """The markets remembered that closed at or after ``since_ms``. O(markets remembered)."""
        return [market_id for market_id, ended in self.by_id.items() if ended.closed_ms >= since_ms]
