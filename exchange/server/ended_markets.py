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
as many markets again as the exchange keeps, oldest forgotten first.

A restart remembers them too: the server journals each as one record of kind
:data:`ENDED_KIND` (:meth:`EndedMarket.to_dict`) when the exchange forgets the
market; recovery folds those records as it folds the results of games, and each
snapshot stores the markets remembered (:meth:`EndedMarkets.to_snapshot`).

>>> from exchange.betfair.stream import BetfairMarketStatus
>>> info = MarketInfo("holdem.7", "1", "Hold'em 7", "Hold'em", 0, 0, 9_000, ("Hand 1", "Hand 2"), channel="holdem")
>>> ended = EndedMarket(info, MarketSnapshot(BetfairMarketStatus.CLOSED, True, (), 0, 12, 9_500), {}, {"al": 5})
>>> EndedMarket.from_dict(ended.to_dict()) == ended
True
>>> remembered = EndedMarkets(keep=1)
>>> remembered.add("holdem.7", ended), remembered.closed_since(9_000)
([], ['holdem.7'])
>>> EndedMarkets.from_snapshot(remembered.to_snapshot()) == remembered
True
>>> EndedMarkets.from_snapshot(remembered.to_json()) == remembered  # a snapshot's of before 2026-12-06
True
"""

from __future__ import annotations

import functools
import pickle
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from exchange.betfair.stream import MarketSnapshot
from exchange.core.gc_pause import collections_paused
from exchange.core.orders import ClearedOrder
from exchange.core.records import layout
from exchange.server import journal_kinds, jsoncodec
from exchange.server.jsoncodec import whole_number
from exchange.server.market_infos import MarketInfo

#: The journal record kind of a market the exchange forgot, as the server remembers it.
ENDED_KIND = journal_kinds.ENDED
#: The start of a snapshot's markets remembered (:meth:`EndedMarkets.to_snapshot`); a snapshot taken before
#: 2026-12-06 holds their JSON (:meth:`EndedMarkets.to_json`), which starts otherwise.
SNAPSHOT_MAGIC = b"EXENDED1"


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

    def to_dict(self) -> dict[str, Any]:
        """JSON types: the journal's record of it, and its entry in a snapshot."""
        return {"info": self.info.to_dict(), "snapshot": self.snapshot.to_dict(),
                "cleared": {account: [o.to_dict() for o in orders] for account, orders in self.cleared.items()},
                "commission": dict(self.commission)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EndedMarket:
        """What :meth:`to_dict` wrote (``KeyError``, ``TypeError`` or ``ValueError`` if it is not that)."""
        cleared = {account: tuple(ClearedOrder.from_dict(o) for o in orders)
                   for account, orders in data["cleared"].items()}
        commission = {account: whole_number(amount) for account, amount in data["commission"].items()}
        return cls(MarketInfo.from_dict(data["info"]), MarketSnapshot.from_dict(data["snapshot"]), cleared,
                   commission)


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

    def drop_kept(self, kept: Iterable[str]) -> list[str]:
        """Forget the markets among ``kept`` (those the exchange holds itself), which ones, oldest first.

        A start that keeps more closed markets than the run that wrote the journal (a larger
        ``keep_closed_markets``) folds the journal into an exchange that still holds markets the run forgot
        and journaled as ended: the exchange's own record of them is the one to keep, or their bets are listed
        twice."""
        held = set(kept)
        dropped = [market_id for market_id in self.by_id if market_id in held]
        for market_id in dropped:
            del self.by_id[market_id]
        return dropped

    def get(self, market_id: str) -> EndedMarket | None:
        return self.by_id.get(market_id)

    def restore(self, other: EndedMarkets) -> None:
        """Remember what ``other`` remembers (a restart's), in its order, and no more than this keeps."""
        self.by_id.clear()
        for market_id, ended in other.by_id.items():
            self.add(market_id, ended)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EndedMarkets):
            return NotImplemented
        return self.keep == other.keep and list(self.by_id.items()) == list(other.by_id.items())

    __hash__ = None  # type: ignore[assignment]  # mutable

    def to_json(self) -> bytes:
        """A snapshot's form before 2026-12-06: ``{"keep": K, "markets": [...]}``, oldest first, each
        :meth:`EndedMarket.to_dict`."""
        return jsoncodec.dumps({"keep": self.keep, "markets": [ended.to_dict() for ended in self.by_id.values()]})

    def to_snapshot(self) -> bytes:
        """A snapshot's form: :data:`SNAPSHOT_MAGIC`, then a pickle of ``(layout, keep, (market, ...))``, oldest
        first, where ``layout`` is the field names of the records it holds (:func:`~exchange.core.records.layout`).

        A restart loads it in about a third of the time the same markets take as JSON (23-27 ms against 80-90 for
        the soak's thousand). The bytes come only from the server's own database, checksummed (see
        :mod:`exchange.core.snapshot` on pickle)."""
        with collections_paused():
            return SNAPSHOT_MAGIC + pickle.dumps((_layout(), self.keep, tuple(self.by_id.values())), protocol=5)

    @classmethod
    def from_snapshot(cls, data: bytes) -> EndedMarkets:
        """The markets :meth:`to_snapshot` wrote, or :meth:`to_json` (a snapshot of before it); ``ValueError`` if
        ``data`` is neither (a newer version's form, ``EXENDED2`` say, is named as such), or was pickled under another
        layout of the records (a field added since would take the next one's value)."""
        if data.startswith(SNAPSHOT_MAGIC[:-1]) and not data.startswith(SNAPSHOT_MAGIC):
            raise ValueError(f"the markets remembered are in a newer version's form "
                             f"({bytes(data[:len(SNAPSHOT_MAGIC)])!r}); this code reads {SNAPSHOT_MAGIC!r} and JSON")
        if not data.startswith(SNAPSHOT_MAGIC):
            return cls.from_json(data)
        try:
            with collections_paused():
                layout, keep, markets = pickle.loads(memoryview(data)[len(SNAPSHOT_MAGIC):])
            if layout != _layout():
                changed = sorted(dict(set(layout) ^ set(_layout())))
                raise ValueError(f"pickled under another layout of the records (changed since: {', '.join(changed)})")
            if not all(isinstance(ended, EndedMarket) for ended in markets):
                raise TypeError("not every one is an EndedMarket")
            return cls._remembering(keep, markets)
        except Exception as exc:  # a damaged pickle can fail in any of a dozen ways; all mean "not loadable"
            raise ValueError(f"the markets remembered do not unpickle: {type(exc).__name__}: {exc}") from None

    @classmethod
    def from_json(cls, data: bytes) -> EndedMarkets:
        """The markets :meth:`to_json` wrote; ``ValueError`` if ``data`` is not that shape."""
        try:
            with collections_paused():  # tens of thousands of small objects at a restart, none of them garbage
                raw = orjson.loads(data)  # the server's own bytes (see KeptResults.from_json)
                return cls._remembering(raw["keep"], [EndedMarket.from_dict(entry) for entry in raw["markets"]])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the markets remembered do not decode: {type(exc).__name__}: {exc}") from None

    @classmethod
    def _remembering(cls, keep: object, markets: Iterable[EndedMarket]) -> EndedMarkets:
        """``keep`` (``TypeError`` unless a whole number) remembering ``markets``, oldest first."""
        remembered = cls(whole_number(keep))
        for ended in markets:
            remembered.add(ended.info.market_id, ended)
        return remembered

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


@functools.cache
def _layout() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The layout of the records a snapshot's markets remembered hold (worked out once: it reads type hints)."""
    return layout(EndedMarket)
