"""Each market as a Betfair Exchange Stream recording: one JSON ``mcm`` line per change.

The recorder is a projection of the market's successive states: give it a
:class:`MarketSnapshot` (status, each runner's ladder and trades) whenever the
market may have changed, and it emits the *difference* from the last one as a
market change message, exactly as Betfair's stream API and its historical data
files do::

    {"op":"mcm","clk":"3","pt":1767225633100,
     "mc":[{"id":"holdem.7","marketDefinition":{...},"rc":[{"id":1,"atb":[[4.1,100.0]],...}],"img":true}]}

* the first message is a full image (``"img": true``) with the complete
  ``marketDefinition``; later ones carry only changed price levels (size ``0``
  removes a level), changed traded volumes (``trd``: cumulative per price),
  ``ltp`` and ``tv`` when they moved (``ltp`` ``null`` once voided matches leave a runner with no trade, as
  betfairlightweight's cache reads it), and the full ``marketDefinition`` again
  (with ``version`` + 1) whenever a status changed;
* market status maps to Betfair's ``OPEN`` (window open), ``SUSPENDED``
  (between windows) and ``CLOSED`` (settled or void); runner status to
  ``ACTIVE``, ``LOSER``, ``WINNER`` and — for a void market — ``REMOVED``. A dead heat
  is shown the Betfair way: every tied hand ``WINNER`` with ``numberOfWinners: 1``,
  which is how betfairlightweight and flumine recognise one;
* prices are the ladder's decimal odds, sizes major currency units (the wire
  format's floats; inside the simulator they are ticks and integer pennies).

The field names and which of them betfairlightweight requires were checked
against its ``MarketDefinition`` and ``MarketDefinitionRunner`` classes.

>>> info = MarketInfo("holdem.0", event_id="holdem", event_name="Exchange Hold'em", market_name="Game 0",
...                   open_ms=0, market_time_ms=0, suspend_ms=129_000, runner_names=("Hand 1", "Hand 2"),
...                   commission_percent="2.5")
>>> rec = MarketRecorder(info)
>>> r1 = RunnerSnapshot(1, RunnerStatus.ACTIVE, atb=((100, 500),), atl=(), trd=(), ltp=None, tv=0)
>>> r2 = RunnerSnapshot(2, RunnerStatus.ACTIVE, atb=(), atl=(), trd=(), ltp=None, tv=0)
>>> line = rec.update(MarketSnapshot(BetfairMarketStatus.OPEN, False, (r1, r2), 0), publish_ms=1_000)
>>> import json; mc = json.loads(line)["mc"][0]
>>> mc["img"], mc["marketDefinition"]["status"], mc["rc"][0]["atb"]
(True, 'OPEN', [[2.02, 5.0]])
>>> r1b = RunnerSnapshot(1, RunnerStatus.ACTIVE, atb=((100, 200),), atl=(), trd=((100, 300),), ltp=100, tv=300)
>>> json.loads(rec.update(MarketSnapshot(BetfairMarketStatus.OPEN, False, (r1b, r2), 300), publish_ms=1_100))["mc"]
[{'id': 'holdem.0', 'rc': [{'id': 1, 'atb': [[2.02, 2.0]], 'trd': [[2.02, 3.0]], 'ltp': 2.02, 'tv': 3.0}], 'tv': 3.0}]
>>> rec.update(MarketSnapshot(BetfairMarketStatus.OPEN, False, (r1b, r2), 300), publish_ms=1_200) is None
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from exchange.core.ladder import PRICE_X100
from exchange.core.market import MarketBook, MarketStatus, SelectionStatus
from exchange.core.records import Record

#: The event type of every market, in the stream's market definitions and in every API-NG answer. Betfair's ids
#: are numeric strings; this one is ours, chosen so as not to collide with a real sport.
EVENT_TYPE_ID = "990001"
EVENT_TYPE_NAME = "Exchange Poker"

PriceLevels = tuple[tuple[int, int], ...]
"""``(tick, size in minor units)`` pairs; order does not matter."""


class BetfairMarketStatus(StrEnum):
    """Market status as the Exchange Stream API names it."""

    OPEN = "OPEN"
    SUSPENDED = "SUSPENDED"
    CLOSED = "CLOSED"


class RunnerStatus(StrEnum):
    """Runner status as the Exchange Stream API names it (the subset an exchange game uses)."""

    ACTIVE = "ACTIVE"
    WINNER = "WINNER"
    LOSER = "LOSER"
    REMOVED = "REMOVED"


@dataclass(frozen=True, slots=True)
class MarketInfo(Record):
    """What does not change during a market: ids, names, times (epoch ms) and the commission rate.

    ``commission_percent`` is a decimal string (``"2.5"``): Betfair's ``marketBaseRate``; ``market_type`` the
    market's type code (``WIN``; ``LOW`` for a hi/lo game's Low market: see
    :func:`exchange.betfair.description.market_type_of`).
    """

    market_id: str
    event_id: str
    event_name: str
    market_name: str
    open_ms: int
    market_time_ms: int
    suspend_ms: int
    runner_names: tuple[str, ...]
    commission_percent: str = "2.5"
    market_type: str = "WIN"


@dataclass(frozen=True, slots=True)
class RunnerSnapshot(Record):
    """One runner now: its status, resting sizes per tick on each side, cumulative traded volume per tick."""

    selection_id: int
    status: RunnerStatus
    atb: PriceLevels
    atl: PriceLevels
    trd: PriceLevels
    ltp: int | None
    tv: int


@dataclass(frozen=True, slots=True)
class MarketSnapshot(Record):
    """The market now, as the stream shows it. ``tv`` is the market's total matched (minor units).

    ``version``: the market's version where the source keeps one (the server: the same number as
    ``listMarketBook``); ``None`` lets the recorder count definition changes itself.
    """

    status: BetfairMarketStatus
    in_play: bool
    runners: tuple[RunnerSnapshot, ...]
    tv: int
    #: The market's version (:func:`exchange.betfair.description.changes_definition` counts it); 0: the recorder
    #: counts its definition changes itself.
    version: int = 0
    #: When the market closed (epoch ms), where the source knows it: the definition's ``settledTime``, the same in
    #: every image of the closed market; ``None``: the time of the first snapshot that shows it closed.
    settled_ms: int | None = None


_MARKET_STATUS = {
    MarketStatus.ACTIVE: BetfairMarketStatus.OPEN,
    MarketStatus.SUSPENDED: BetfairMarketStatus.SUSPENDED,
    MarketStatus.SETTLED: BetfairMarketStatus.CLOSED,
    MarketStatus.VOID: BetfairMarketStatus.CLOSED,
}
_RUNNER_STATUS = {
    SelectionStatus.IN_PLAY: RunnerStatus.ACTIVE,
    SelectionStatus.WINNER: RunnerStatus.WINNER,
    SelectionStatus.TIED_DEAD_HEAT: RunnerStatus.WINNER,
    SelectionStatus.LOSER: RunnerStatus.LOSER,
}


def market_status(market: MarketStatus) -> BetfairMarketStatus:
    """A core market status as Betfair names it (API-NG and the stream alike): settled and void are both CLOSED."""
    return _MARKET_STATUS[market]


def runner_status(market: MarketStatus, selection: SelectionStatus) -> RunnerStatus:
    """A selection's status as Betfair names it (API-NG and the stream alike), given its market's status.

    A hand still in play when its market was voided had its bets refunded: ``REMOVED``, as a
    non-runner's are. One settled before the void keeps its result (the spec: "selections already
    settled stay settled"); a dead heat is ``WINNER``, as Betfair shows one.

    >>> runner_status(MarketStatus.VOID, SelectionStatus.IN_PLAY), runner_status(MarketStatus.VOID,
    ...                                                                           SelectionStatus.LOSER)
    (<RunnerStatus.REMOVED: 'REMOVED'>, <RunnerStatus.LOSER: 'LOSER'>)
    """
    if market is MarketStatus.VOID and selection is SelectionStatus.IN_PLAY:
        return RunnerStatus.REMOVED
    return _RUNNER_STATUS[selection]


def snapshot_of(book: MarketBook, in_play: bool, version: int = 0, settled_ms: int | None = None) -> MarketSnapshot:
    """The stream's view of a core market book (every level, not just the best three); the in-play flag, the
    version and the closing time are the source's, not the book's, so the caller gives them."""
    runners = tuple(
        RunnerSnapshot(
            selection_id=r.selection_id,
            status=runner_status(book.status, r.status),
            atb=tuple((p.tick, p.size) for p in r.available_to_back),
            atl=tuple((p.tick, p.size) for p in r.available_to_lay),
            trd=tuple((p.tick, p.size) for p in r.traded_volume),
            ltp=r.last_traded_tick,
            tv=r.total_matched,
        )
        for r in book.runners
    )
    return MarketSnapshot(market_status(book.status), in_play, runners, book.total_matched, version, settled_ms)


def iso_ms(epoch_ms: int) -> str:
    """Epoch milliseconds as the stream's UTC timestamp text.

    >>> iso_ms(1_767_225_600_000)
    '2026-01-01T00:00:00.000Z'
    """
    moment = datetime.fromtimestamp(epoch_ms // 1000, tz=UTC)
    return f"{moment.strftime('%Y-%m-%dT%H:%M:%S')}.{epoch_ms % 1000:03d}Z"


def stream_price(tick: int) -> float:
    """A tick as the stream's JSON number (``2.5``): Betfair's stream sends prices as numbers."""
    return PRICE_X100[tick] / 100


def stream_size(minor: int) -> float:
    """Minor units as the stream's JSON number in major units (``2.5`` for 250)."""
    return minor / 100


def _ladder_delta(old: Mapping[int, int], new: Mapping[int, int]) -> list[list[float]]:
    """Levels whose size changed, ascending by price; a removed level has size 0."""
    ticks = sorted(old.keys() | new.keys())
    return [[stream_price(t), stream_size(new.get(t, 0))] for t in ticks if old.get(t, 0) != new.get(t, 0)]


class MarketRecorder:
    """The stream lines of one market, built from successive snapshots."""

    def __init__(self, info: MarketInfo) -> None:
        self.info = info
        self.lines: list[str] = []
        self._clk = 0
        self._version = 0
        self._definition_key: tuple[object, ...] | None = None
        self._runners: dict[int, RunnerSnapshot] = {}
        self._tv: int | None = None
        self._settled_ms: int | None = None

    def update(self, snapshot: MarketSnapshot, publish_ms: int) -> str | None:
        """Record ``snapshot`` as of ``publish_ms``; return the new line, or ``None`` if nothing changed."""
        image = self._definition_key is None
        change: dict[str, object] = {"id": self.info.market_id}
        key = (snapshot.status, snapshot.in_play, tuple((r.selection_id, r.status) for r in snapshot.runners),
               snapshot.version)
        if key != self._definition_key:
            self._version = snapshot.version or self._version + 1
            self._definition_key = key
            if snapshot.status is BetfairMarketStatus.CLOSED and self._settled_ms is None:
                self._settled_ms = publish_ms if snapshot.settled_ms is None else snapshot.settled_ms
            change["marketDefinition"] = self._definition(snapshot)
        runner_changes = [rc for rc in (self._runner_change(r, image) for r in snapshot.runners) if rc]
        if runner_changes:
            change["rc"] = runner_changes
        if image or snapshot.tv != self._tv:
            change["tv"] = stream_size(snapshot.tv)
            self._tv = snapshot.tv
        if len(change) == 1:
            return None
        if image:
            change["img"] = True
        self._clk += 1
        line = json.dumps(
            {"op": "mcm", "clk": str(self._clk), "pt": publish_ms, "mc": [change]},
            separators=(",", ":"),
        )
        self.lines.append(line)
        return line

    def text(self) -> str:
        """Every line so far, newline-terminated: the content of the market's stream file."""
        return "".join(line + "\n" for line in self.lines)

    def _runner_change(self, runner: RunnerSnapshot, image: bool) -> dict[str, object]:
        old = self._runners.get(runner.selection_id)
        if old is runner and not image:
            return {}
        self._runners[runner.selection_id] = runner
        change: dict[str, object] = {"id": runner.selection_id}
        for name in ("atb", "atl", "trd"):
            before: Mapping[int, int] = {} if old is None else dict(getattr(old, name))
            delta = _ladder_delta(before, dict(getattr(runner, name)))
            if delta or (image and name != "trd"):
                change[name] = delta
        if old is None or old.ltp != runner.ltp:  # voided matches can take it back to none: sent as null
            if runner.ltp is not None:
                change["ltp"] = stream_price(runner.ltp)
            elif old is not None:
                change["ltp"] = None
        if old is None or old.tv != runner.tv:
            change["tv"] = stream_size(runner.tv)
        return change if (len(change) > 1 or image) else {}

    def _definition(self, snapshot: MarketSnapshot) -> dict[str, object]:
        info = self.info
        names = dict(zip(range(len(info.runner_names)), info.runner_names, strict=True))
        runners = [
            {
                "id": r.selection_id,
                "sortPriority": i + 1,
                "status": r.status.value,
                "name": names.get(i, f"Hand {r.selection_id}"),
            }
            for i, r in enumerate(snapshot.runners)
        ]
        definition: dict[str, object] = {
            "bspMarket": False,
            "turnInPlayEnabled": True,
            "persistenceEnabled": False,
            "marketBaseRate": float(info.commission_percent),
            "eventId": info.event_id,
            "eventTypeId": EVENT_TYPE_ID,
            "numberOfWinners": 1,
            "bettingType": "ODDS",
            "marketType": info.market_type,
            "marketTime": iso_ms(info.market_time_ms),
            "suspendTime": iso_ms(info.suspend_ms),
            "bspReconciled": False,
            "complete": True,
            "inPlay": snapshot.in_play,
            "crossMatching": False,
            "runnersVoidable": False,
            "numberOfActiveRunners": sum(r.status is RunnerStatus.ACTIVE for r in snapshot.runners),
            "betDelay": 0,
            "status": snapshot.status.value,
            "runners": runners,
            "regulators": ["MR_INT"],
            "countryCode": "GB",
            "discountAllowed": False,
            "timezone": "UTC",
            "openDate": iso_ms(info.open_ms),
            "version": self._version,
            "name": info.market_name,
            "eventName": info.event_name,
            "priceLadderDefinition": {"type": "CLASSIC"},
        }
        if self._settled_ms is not None:
            definition["settledTime"] = iso_ms(self._settled_ms)
        return definition


def write_stream(directory: Path, market_id: str, text: str) -> Path:
    """Write one market's recording as ``directory/<market_id>`` (Betfair's historical file naming)."""
    if "/" in market_id or market_id in ("", ".", ".."):
        raise ValueError(f"market id {market_id!r} cannot be a file name")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / market_id
    path.write_text(text, encoding="utf-8")
    return path


def read_stream(path: Path) -> Iterable[dict[str, object]]:
    """The messages of a recording, parsed (for tests and tools)."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
