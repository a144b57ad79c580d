"""How markets the exchange no longer keeps ended, for stream clients that come back after a long time away.

The exchange keeps the newest ``keep_closed_markets`` closed markets and forgets
older ones (:class:`~exchange.core.state.ExchangeConfig`). A stream client that
resubscribes with its clock is shown every market that closed since, so that
its cache (betfairlightweight's, flumine's) learns how each ended and stops
showing it open with executable orders, then (flumine) asks ``listClearedOrders``
for the market's settled bets until it has them. A client away for longer than
the exchange keeps closed markets would miss the ones forgotten meanwhile, hold
them open for good, or ask for their bets in vain. So when the exchange forgets
a market the server keeps, in an :class:`EndedMarkets`, what such a client
needs: the market's description, its last stream view, and each trader's
cleared orders there and commission on it (not the house's: no client reads
them), which ``listClearedOrders`` lists beside the kept markets'
(:mod:`~exchange.server.cleared_index`). That is a few kilobytes a market, for
as many markets again as the exchange keeps, oldest forgotten first. It is not
in the snapshots nor rebuilt from the journal: after a restart only the markets
forgotten since are remembered.
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
    ``settled_ms``); and, by trader, the cleared orders there and the commission charged on it."""

    info: MarketInfo
    snapshot: MarketSnapshot
    cleared: Mapping[str, tuple[ClearedOrder, ...]]
    commission: Mapping[str, int]

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

    def add(self, market_id: str, ended: EndedMarket) -> list[str]:
        """Remember ``ended``; the markets no longer remembered (the oldest beyond ``keep``: perhaps this one)."""
        self.by_id[market_id] = ended
        dropped = []
        while len(self.by_id) > self.keep:
            dropped.append(self.by_id.popitem(last=False)[0])
        return dropped

    def get(self, market_id: str) -> EndedMarket | None:
        return self.by_id.get(market_id)

    def cleared_orders(self, account: str, market_id: str) -> tuple[ClearedOrder, ...]:
        """The account's cleared orders on ``market_id`` if it is remembered, by bet id."""
        ended = self.by_id.get(market_id)
        return () if ended is None else tuple(ended.cleared.get(account, ()))

    def all_cleared_orders(self, account: str) -> list[ClearedOrder]:
        """The account's cleared orders on every market remembered, by bet id."""
        return sorted((o for e in self.by_id.values() for o in e.cleared.get(account, ())), key=lambda o: o.bet_id)

    def closed_since(self, since_ms: int) -> list[str]:
        """The markets remembered that closed at or after ``since_ms``. O(markets remembered)."""
        return [market_id for market_id, ended in self.by_id.items() if ended.closed_ms >= since_ms]
