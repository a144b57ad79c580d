"""A market: N selections, one order book each, and its lifecycle.

Lifecycle (driven by the game through commands)::

    create ──► SUSPENDED ──open──► ACTIVE ──suspend──► SUSPENDED ──► … ──► SETTLED
                    │                 │                                     ▲
                    └────── void ─────┴──────────────► VOID   settle / last selection standing

A new market starts SUSPENDED at round 0; each open starts the next round, and
a resume (an operator's, after a suspend inside a window) makes it ACTIVE again
in the same round.
Selections start IN_PLAY; one settled early becomes LOSER (it drops out of
exposure and takes no more bets); at the result the winners become WINNER
(or TIED_DEAD_HEAT when several tie) and the rest LOSER.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from operator import itemgetter
from typing import TYPE_CHECKING

from exchange.core.book import PriceSize, SelectionBook
from exchange.core.errors import require
from exchange.core.ladder import TICK_COUNT
from exchange.core.orders import MatchedByTick
from exchange.core.records import Record

if TYPE_CHECKING:
    from exchange.core.positions import Position

#: A match as a market records it: ``(match_id, ts, sel, tick, size, back_bet_id, lay_bet_id)`` with
#: ``sel`` the selection's index.
Fill = tuple[int, int, int, int, int, int, int]


def matched_by_tick(fills: Iterable[Fill], bet_ids: Container[int] | None = None) -> dict[int, MatchedByTick]:
    """Each bet's matched stake in ``fills`` summed per tick it matched at.

    Every fill given counts: pass a market's :meth:`Market.standing_fills` to leave voided
    matches out.  ``bet_ids`` limits the answer to those bets (``None``: every bet in
    ``fills``); a bet with no fill is absent.  O(len(fills)).

    >>> fills = [(0, 1, 0, 109, 200, 7, 8), (1, 2, 0, 99, 200, 7, 9), (2, 3, 0, 109, 150, 7, 8)]
    >>> matched_by_tick(fills)  # bet 7: 2.00 matched at tick 99, 3.50 at 109 (two fills)
    {7: ((99, 200), (109, 350)), 8: ((109, 350),), 9: ((99, 200),)}
    >>> matched_by_tick(fills, bet_ids={8, 9})
    {8: ((109, 350),), 9: ((99, 200),)}
    """
    sums: dict[int, dict[int, int]] = {}
    for _, _, _, tick, size, back_id, lay_id in fills:
        for bet_id in (back_id, lay_id):
            if bet_ids is None or bet_id in bet_ids:
                by_tick = sums.setdefault(bet_id, {})
                by_tick[tick] = by_tick.get(tick, 0) + size
    return {bet_id: tuple(sorted(by_tick.items())) for bet_id, by_tick in sums.items()}


class MarketStatus(StrEnum):
    ACTIVE = "ACTIVE"
    SUSPENDED = "SUSPENDED"
    SETTLED = "SETTLED"
    VOID = "VOID"


class SelectionStatus(StrEnum):
    IN_PLAY = "IN_PLAY"
    WINNER = "WINNER"
    LOSER = "LOSER"
    TIED_DEAD_HEAT = "TIED_DEAD_HEAT"


@dataclass(frozen=True, slots=True)
class RunnerBook(Record):
    """One selection in a market view (API-NG ``Runner`` with ``ex``)."""

    selection_id: int
    status: SelectionStatus
    last_traded_tick: int | None
    total_matched: int
    available_to_back: tuple[PriceSize, ...]
    available_to_lay: tuple[PriceSize, ...]
    traded_volume: tuple[PriceSize, ...]


@dataclass(frozen=True, slots=True)
class MarketBook(Record):
    """A market view (API-NG ``MarketBook``): status, round, totals and each runner's ladder."""

    market_id: str
    status: MarketStatus
    round: int
    total_matched: int
    runners: tuple[RunnerBook, ...]


class Market:
    """State of one market.  Changed only by the core's state changes, the ``apply_*`` functions of
    :mod:`exchange.core.state` and what they call (and by :func:`~exchange.core.trading.check_places`,
    which takes back its tentative orders before it returns)."""

    __slots__ = (
        "books",
        "commission_bps",
        "fills",
        "index",
        "live",
        "market_id",
        "min_stake",
        "positions",
        "round",
        "selection_ids",
        "selection_settled_ts",
        "selection_status",
        "settled_ts",
        "status",
        "voided_matches",
    )

    def __init__(self, market_id: str, selection_ids: tuple[int, ...], min_stake: int, commission_bps: int) -> None:
        self.market_id = market_id
        self.selection_ids = selection_ids
        #: selection id -> index 0..N-1
        self.index = {sid: i for i, sid in enumerate(selection_ids)}
        self.min_stake = min_stake
        self.commission_bps = commission_bps
        self.status = MarketStatus.SUSPENDED
        self.round = 0
        self.selection_status = [SelectionStatus.IN_PLAY] * len(selection_ids)
        #: Indices of selections still IN_PLAY (the outcomes exposure ranges over).
        self.live: list[int] = list(range(len(selection_ids)))
        self.books = [SelectionBook(sid) for sid in selection_ids]
        #: Every match in time order (voided ones too).
        self.fills: list[Fill] = []
        self.voided_matches: set[int] = set()
        #: account id -> that account's position on this market
        self.positions: dict[str, Position] = {}
        self.settled_ts: int | None = None
        #: per selection index, when it was settled early (LOSER before the market's end), else None
        self.selection_settled_ts: list[int | None] = [None] * len(selection_ids)

    @property
    def is_open(self) -> bool:
        """Not yet settled or voided."""
        return self.status is MarketStatus.ACTIVE or self.status is MarketStatus.SUSPENDED

    @property
    def total_matched(self) -> int:
        return sum(b.total_matched for b in self.books)

    def standing_fills(self, newest_first: bool = False) -> Iterator[Fill]:
        """The fills that still stand: every match in :attr:`fills` whose id is not in
        :attr:`voided_matches`, in fill order (or newest first).

        The one place that decides whether a match counts; readers that want less (one
        account's bets, a time window) filter what this yields.  Lazy: a match voided while
        the iterator runs is left out if not yet reached.  O(1) per fill read.

        >>> from exchange.core.commands import *
        >>> from exchange.core.exchange import Exchange
        >>> ex = Exchange()
        >>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 5000), OpenAccount(0, "bo"), Deposit(0, "bo", 5000),
        ...             CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
        ...             PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 200),
        ...             PlaceOrder(1, "al", "1.1", 1, Side.BACK, Decimal("3"), 200),
        ...             PlaceOrder(2, "bo", "1.1", 2, Side.LAY, Decimal("2"), 300),
        ...             PlaceOrder(2, "al", "1.1", 2, Side.BACK, Decimal("2"), 300),
        ...             PlaceOrder(3, "bo", "1.1", 1, Side.LAY, Decimal("3"), 400),
        ...             PlaceOrder(3, "al", "1.1", 1, Side.BACK, Decimal("3"), 400), VoidMatchedSince(4, "1.1", 3)):
        ...     _ = ex.execute(cmd)
        >>> m = ex.markets["1.1"]
        >>> [(match_id, ts, size) for match_id, ts, _, _, size, _, _ in m.fills]  # every match, voided ones too
        [(1, 1, 200), (2, 2, 300), (3, 3, 400)]
        >>> sorted(m.voided_matches), [f[0] for f in m.standing_fills()], [f[0] for f in m.standing_fills(True)]
        ([3], [1, 2], [2, 1])
        """
        voided = self.voided_matches
        return (f for f in (reversed(self.fills) if newest_first else self.fills) if f[0] not in voided)

    def standing_fill(self, match_id: int) -> Fill | None:
        """The fill of match ``match_id`` if it is this market's and still stands, else ``None``. O(log fills):
        :attr:`fills` is in match id order."""
        fills = self.fills
        i = bisect_left(fills, match_id, key=itemgetter(0))
        if i == len(fills) or fills[i][0] != match_id or match_id in self.voided_matches:
            return None
        return fills[i]

    def last_traded_tick(self, sel: int) -> int | None:
        """The last standing trade's tick on selection index ``sel`` (scans back through fills)."""
        return next((tick for _, _, i, tick, _, _, _ in self.standing_fills(newest_first=True) if i == sel), None)

    def matched_by_tick(self, bet_ids: Container[int] | None = None) -> dict[int, MatchedByTick]:
        """:func:`matched_by_tick` of this market's standing fills (of ``bet_ids`` only, if given)."""
        return matched_by_tick(self.standing_fills(), bet_ids)

    def close(self, status: MarketStatus, ts: int) -> ClosedMarket:
        """The market's closed record (books empty by now): its final view and statuses."""
        self.status = status
        self.settled_ts = ts
        return ClosedMarket(
            self.market_id, status, self.selection_ids, tuple(self.selection_status), ts, self.view(None)
        )

    def view(self, depth: int | None = 3) -> MarketBook:
        """The market as ``listMarketBook`` shows it, ``depth`` levels per side (all if None)."""
        runners = tuple(
            RunnerBook(
                selection_id=sid,
                status=self.selection_status[i],
                last_traded_tick=book.last_tick,
                total_matched=book.total_matched,
                available_to_back=book.available_to_back(depth),
                available_to_lay=book.available_to_lay(depth),
                traded_volume=book.traded_volume(),
            )
            for i, (sid, book) in enumerate(zip(self.selection_ids, self.books, strict=True))
        )
        return MarketBook(self.market_id, self.status, self.round, self.total_matched, runners)

    def _check(self) -> None:
        """Raise :class:`LedgerError` unless the books, statuses and traded volumes agree with the fill record."""
        name = f"market {self.market_id}"
        require(len(set(self.selection_ids)) == len(self.selection_ids) >= 2, f"{name}: selection ids")
        in_play = [i for i, s in enumerate(self.selection_status) if s is SelectionStatus.IN_PLAY]
        require(self.live == in_play, f"{name}: live {self.live} but in play {in_play}")
        require(self.is_open and len(self.live) >= 2, f"{name}: an open market has two live selections or more")
        volume = [[0] * TICK_COUNT for _ in self.selection_ids]
        last: list[int | None] = [None] * len(self.selection_ids)
        for match_id, _, _, _, size, _, _ in self.fills:
            require(size > 0, f"{name}: match {match_id} of size {size}")
        for _, _, i, tick, size, _, _ in self.standing_fills():
            volume[i][tick] += size
            last[i] = tick
        for i, book in enumerate(self.books):
            book._check()
            # Back and lay stakes matched at each price are equal by construction (one record per
            # match carries both bet ids); the book's per-tick volume must equal that record.
            require(book.volume == volume[i], f"{name}: traded volume of selection index {i} disagrees with fills")
            require(book.last_tick == last[i], f"{name}: last traded tick {book.last_tick}, fills say {last[i]}")
        for account_id, pos in self.positions.items():
            require(pos.account_id == account_id and pos.market is self, f"{name}: position of {account_id!r}")


@dataclass(frozen=True, slots=True)
class ClosedMarket(Record):
    """What is kept of a market once it is settled or voided: its final book and when it closed.

    Its orders are compacted into their accounts' cleared orders (those
    matched at several prices keep their stake at each); books, positions
    and the match record are released.
    """

    market_id: str
    status: MarketStatus
    selection_ids: tuple[int, ...]
    selection_status: tuple[SelectionStatus, ...]
    settled_ts: int
    book: MarketBook

    @property
    def is_open(self) -> bool:
        return False

    @property
    def round(self) -> int:
        return self.book.round
