"""A market's public book rebuilt from the exchange's events alone: what the stream recording shows.

:class:`BookProjection` folds the core's events (orders placed, matched,
cancelled, lapsed; matches voided; the market opened, suspended, settled or
voided) into each runner's resting sizes per tick on each side, its traded
volume per tick, last traded price and status — the public book a stream
subscriber maintains — and hands it out as a
:class:`~exchange.betfair.stream.MarketSnapshot`. Every update is O(1), so
recording a market costs little more than reading its events; a test checks
the projection against the exchange's own ``market_book`` after every step.

>>> from exchange.core.events import MarketCreated, MarketOpened, OrderPlaced
>>> from exchange.core.side import Side
>>> p = BookProjection()
>>> p.apply(MarketCreated(0, "m", (1, 2), 200, 250))
>>> p.apply(MarketOpened(0, "m", 1))
>>> p.apply(OrderPlaced(5, 1, "a", "m", 1, Side.LAY, 100, 500, 1))
>>> snap = p.snapshot()
>>> snap.status.value, snap.runners[0].atb, snap.runners[0].atl
('OPEN', ((100, 500),), ())
"""

from __future__ import annotations

from dataclasses import dataclass, field

from exchange.betfair import description
from exchange.betfair.stream import BetfairMarketStatus, MarketSnapshot, RunnerSnapshot, RunnerStatus
from exchange.core.events import (
    MarketCreated,
    MarketOpened,
    MarketSettled,
    MarketSuspended,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    SelectionSettled,
)
from exchange.core.market import SelectionStatus
from exchange.core.side import Side


@dataclass(slots=True)
class _Runner:
    status: RunnerStatus = RunnerStatus.ACTIVE
    to_back: dict[int, int] = field(default_factory=dict)
    to_lay: dict[int, int] = field(default_factory=dict)
    traded: dict[int, int] = field(default_factory=dict)
    fills: list[tuple[int, int]] = field(default_factory=list)
    voided: set[int] = field(default_factory=set)

    def last_tick(self) -> int | None:
        for match_id, tick in reversed(self.fills):
            if match_id not in self.voided:
                return tick
        return None


@dataclass(slots=True)
class _Resting:
    selection_id: int
    side: Side
    tick: int
    remaining: int


def _take(levels: dict[int, int], tick: int, size: int) -> None:
    left = levels[tick] - size
    if left:
        levels[tick] = left
    else:
        del levels[tick]


class BookProjection:
    """One market's public book, maintained from its events (feed it only that market's events)."""

    def __init__(self) -> None:
        self.status = BetfairMarketStatus.SUSPENDED
        self.in_play = False
        self.version = 0  # the market's version, as the server's notes count it (see description.changes_definition)
        self._runners: dict[int, _Runner] = {}
        self._orders: dict[int, _Resting] = {}
        #: Each runner's last snapshot, reused (the same object) until the runner changes.
        self._cache: dict[int, RunnerSnapshot] = {}

    @property
    def created(self) -> bool:
        """Whether the market's creation is in (before it, the book has no runners to show)."""
        return bool(self._runners)

    def apply(self, event: object) -> None:
        """Fold one event in; events this projection does not need are ignored."""
        if description.changes_definition(event):
            self.version += 1
        match event:
            case Matched():
                self._matched(event)
            case OrderPlaced():
                self._placed(event)
            case OrderCancelled() | OrderLapsed():
                self._reduce(event.bet_id, event.size)
            case MarketOpened():
                self.status = BetfairMarketStatus.OPEN
                self.in_play = self.in_play or description.in_play(event.round)
            case MarketSuspended():
                self.status = BetfairMarketStatus.SUSPENDED
            case MarketCreated():
                self._runners = {sid: _Runner() for sid in event.selection_ids}
                self._cache.clear()
            case SelectionSettled():
                self._settle_selection(event)
            case MarketSettled():
                self._settled(event)
            case MarketVoided():
                self.status = BetfairMarketStatus.CLOSED
                for sid, runner in self._runners.items():
                    if runner.status is RunnerStatus.ACTIVE:
                        self._touch(sid).status = RunnerStatus.REMOVED
            case MatchVoided():
                self._match_voided(event)

    def snapshot(self) -> MarketSnapshot:
        """The book now, as the recorder takes it. A runner that has not changed is the same object as before."""
        cache = self._cache
        runners = []
        for sid, r in self._runners.items():
            snap = cache.get(sid)
            if snap is None:
                snap = cache[sid] = RunnerSnapshot(
                    selection_id=sid,
                    status=r.status,
                    atb=tuple(sorted(r.to_back.items(), reverse=True)),
                    atl=tuple(sorted(r.to_lay.items())),
                    trd=tuple(sorted(r.traded.items())),
                    ltp=r.last_tick(),
                    tv=sum(r.traded.values()),
                )
            runners.append(snap)
        return MarketSnapshot(self.status, self.in_play, tuple(runners), sum(r.tv for r in runners), self.version)

    def _touch(self, selection_id: int) -> _Runner:
        self._cache.pop(selection_id, None)
        return self._runners[selection_id]

    # --- folding ---------------------------------------------------------------------------

    def _placed(self, e: OrderPlaced) -> None:
        self._orders[e.bet_id] = _Resting(e.selection_id, e.side, e.tick, e.size)
        runner = self._touch(e.selection_id)
        levels = runner.to_lay if e.side is Side.BACK else runner.to_back
        levels[e.tick] = levels.get(e.tick, 0) + e.size

    def _reduce(self, bet_id: int, size: int) -> None:
        order = self._orders[bet_id]
        order.remaining -= size
        runner = self._touch(order.selection_id)
        _take(runner.to_lay if order.side is Side.BACK else runner.to_back, order.tick, size)
        if not order.remaining:
            del self._orders[bet_id]

    def _matched(self, e: Matched) -> None:
        self._reduce(e.back_bet_id, e.size)
        self._reduce(e.lay_bet_id, e.size)
        runner = self._touch(e.selection_id)
        runner.traded[e.tick] = runner.traded.get(e.tick, 0) + e.size
        runner.fills.append((e.match_id, e.tick))

    def _match_voided(self, e: MatchVoided) -> None:
        runner = self._touch(e.selection_id)
        _take(runner.traded, e.tick, e.size)
        runner.voided.add(e.match_id)

    def _settle_selection(self, e: SelectionSettled) -> None:
        self._touch(e.selection_id).status = (
            RunnerStatus.LOSER if e.status is SelectionStatus.LOSER else RunnerStatus.WINNER
        )

    def _settled(self, e: MarketSettled) -> None:
        self.status = BetfairMarketStatus.CLOSED
        winners = set(e.winners)
        for sid, runner in self._runners.items():
            if runner.status is RunnerStatus.ACTIVE:
                self._touch(sid).status = RunnerStatus.WINNER if sid in winners else RunnerStatus.LOSER
