"""A market: N selections, one order book each, and its lifecycle.

Lifecycle (driven by the game through commands)::

    create ──► SUSPENDED ──open──► ACTIVE ──suspend──► SUSPENDED ──► … ──► SETTLED
                    │                 │                                     ▲
                    └────── void ─────┴──────────────► VOID   settle / last selection standing

A new market starts SUSPENDED at round 0; each open starts the next round.
Selections start IN_PLAY; one settled early becomes LOSER (it drops out of
exposure and takes no more bets); at the result the winners become WINNER
(or TIED_DEAD_HEAT when several tie) and the rest LOSER.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from exchange.core.book import PriceSize, SelectionBook
from exchange.core.ladder import TICK_COUNT
from exchange.core.records import Record

if TYPE_CHECKING:
    from exchange.core.accounts import Position

#: A match as a market reports it: ``(ts, sel, tick, size, back_bet_id, lay_bet_id)`` with ``sel`` the
#: selection's index (see :meth:`Market.matches`).
Fill = tuple[int, int, int, int, int, int]
FILL_TS, FILL_SEL, FILL_TICK, FILL_SIZE, FILL_BACK, FILL_LAY = range(6)
#: How many ints :attr:`Market.fills` keeps per match: the match id, then a :data:`Fill`.
FILL_WIDTH = 7


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
    """State of one market.  Mutated only by :class:`exchange.core.exchange.Exchange`."""

    __slots__ = (
        "all_live",
        "betting",
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
        "voided_stakes",
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
        #: Whether every selection is still IN_PLAY (a fast path for exposure).
        self.all_live = True
        #: Selection id -> index of the selections taking bets now: IN_PLAY ones while the market is
        #: ACTIVE, none otherwise (one lookup on the hot path answers all three questions).
        self.betting: dict[int, int] = {}
        self.books = [SelectionBook(sid) for sid in selection_ids]
        #: Every match in time order (voided ones too), flat: ``FILL_WIDTH`` ints each, the match id
        #: then its :data:`Fill`.  One list of ints rather than an object (or a tuple) per match: the
        #: matching loop appends with one ``extend``, and the garbage collector has one object to
        #: skip in young collections instead of one more per fill.  Read it with :meth:`matches`.
        self.fills: list[int] = []
        self.voided_matches: set[int] = set()
        #: bet id -> the stake of its voided matches (rare: kept here, not in a slot of every order)
        self.voided_stakes: dict[int, int] = {}
        #: account id -> that account's position on this market
        self.positions: dict[str, Position] = {}
        self.settled_ts: int | None = None
        #: per selection index, when it was settled early (LOSER before the market's end), else None
        self.selection_settled_ts: list[int | None] = [None] * len(selection_ids)

    def sync_betting(self) -> None:
        """Recompute :attr:`betting` after the market's or a selection's status changed."""
        ids = self.selection_ids
        self.betting = {ids[i]: i for i in self.live} if self.status is MarketStatus.ACTIVE else {}

    @property
    def is_open(self) -> bool:
        """Not yet settled or voided."""
        return self.status is MarketStatus.ACTIVE or self.status is MarketStatus.SUSPENDED

    @property
    def total_matched(self) -> int:
        return sum(b.total_matched for b in self.books)

    def matches(self) -> Iterator[tuple[int, Fill]]:
        """``(match id, fill)`` for every match, in time order (voided ones too)."""
        fills = self.fills
        for i in range(0, len(fills), FILL_WIDTH):
            yield fills[i], (fills[i + 1], fills[i + 2], fills[i + 3], fills[i + 4], fills[i + 5], fills[i + 6])

    def add_match(self, match_id: int, fill: Fill) -> None:
        """Record a match (the matching loop extends :attr:`fills` itself)."""
        self.fills.append(match_id)
        self.fills.extend(fill)

    def last_traded_tick(self, sel: int) -> int | None:
        """The last non-voided trade's tick on selection index ``sel`` (scans back through fills)."""
        voided = self.voided_matches
        fills = self.fills
        for i in range(len(fills) - FILL_WIDTH, -1, -FILL_WIDTH):
            if fills[i + 1 + FILL_SEL] == sel and fills[i] not in voided:
                return fills[i + 1 + FILL_TICK]
        return None

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
        """Assert the market's invariants: books, statuses, and matched stakes from the fill record."""
        assert len(set(self.selection_ids)) == len(self.selection_ids) >= 2
        assert self.live == [i for i, s in enumerate(self.selection_status) if s is SelectionStatus.IN_PLAY]
        assert self.all_live == (len(self.live) == len(self.selection_ids))
        active = self.status is MarketStatus.ACTIVE
        assert self.betting == {sid: i for i, sid in enumerate(self.selection_ids) if active and i in self.live}
        if self.status is MarketStatus.SETTLED:
            assert not self.live
            assert any(s is not SelectionStatus.LOSER for s in self.selection_status)
        elif self.is_open:
            assert len(self.live) >= 2
        volume = [[0] * TICK_COUNT for _ in self.selection_ids]
        last: list[int | None] = [None] * len(self.selection_ids)
        assert len(self.fills) % FILL_WIDTH == 0
        voided: dict[int, int] = {}
        for match_id, (_, i, tick, size, back_id, lay_id) in self.matches():
            assert size > 0, match_id
            if match_id in self.voided_matches:
                voided[back_id] = voided.get(back_id, 0) + size
                voided[lay_id] = voided.get(lay_id, 0) + size
                continue
            volume[i][tick] += size
            last[i] = tick
        assert voided == self.voided_stakes, (voided, self.voided_stakes)
        for i, book in enumerate(self.books):
            if self.is_open:
                book._check()
            else:  # a closed market's books are empty; its deep state was checked while it was open
                assert not book.back_mask and not book.lay_mask and not any(book.back_size) and not any(book.lay_size)
            # back and lay stakes matched at each price are equal by construction (one record per
            # match carries both bet ids); the book's per-tick volume must equal that record.
            assert book.volume == volume[i], i
            assert book.last_tick == last[i], (book.last_tick, last[i])
        for account_id, pos in self.positions.items():
            assert pos.account_id == account_id and pos.market is self
