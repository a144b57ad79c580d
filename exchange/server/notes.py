"""What the server keeps per market beside the core, folded from the same events: creation time, version, last match.

:class:`~exchange.server.service.ExchangeService` notes every event it
journals here; recovery folds the journal's events here too, so these facts
come back after a restart exactly as a full replay would give them, and a
snapshot stores them beside the exchange (:meth:`MarketNotes.to_json`).
They are *facts from events*, not the catalogue itself: the catalogue's names
and times also depend on the channels' settings, which the service applies
when it reads them.

They are kept for the markets the exchange keeps: when the core forgets a
closed market (``ExchangeConfig.keep_closed_markets``), :meth:`MarketNotes.forget`
drops its notes too. One fact outlives the markets: per channel (a market
id's part before its last dot), the highest game number ever created, so a
restart numbers the next game after it even when every market of that channel
has been forgotten (a market id is never reused).

>>> from exchange.core.events import MarketCreated
>>> notes = MarketNotes()
>>> notes.note(MarketCreated(ts=5, market_id="holdem.0", selection_ids=(1, 2), min_stake=200, commission_bps=250))
'holdem.0'
>>> notes.created, notes.versions, notes.numbers
({'holdem.0': 5}, {'holdem.0': 1}, {'holdem': 0})
>>> MarketNotes.from_json(notes.to_json()) == notes
True
>>> notes.forget("holdem.0")
>>> notes.created, notes.versions, notes.numbers
({}, {}, {'holdem': 0})
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from exchange.betfair.description import changes_definition
from exchange.core.events import Event, MarketCreated, MarketSettled, MarketVoided, Matched, MatchVoided
from exchange.server import jsoncodec

#: The key, in a market's standing matches, of the matches noted before they were kept (match ids start at 1).
_EARLIER = -1


@dataclass(slots=True)
class MarketNotes:
    """Per market id: when it was created (ms), its version (bumped by each change of its definition, as the stream's
    ``marketDefinition.version``: :func:`exchange.betfair.description.changes_definition`: every window opening and
    closing, so every reveal, settlements and voids; never orders), its last match that stands (ms: a voided
    match does not count, and a market whose matches were all voided has none).

    ``standing``: per open market, the time of each match not voided (match id -> ms, in match order), so that a
    void can find the last match left; dropped when the market closes, as no match can be voided after.

    ``numbers``: per channel, the highest game number of a market created (``holdem.17`` is game 17 of
    ``holdem``); never forgotten.

    ``voided``: per open market, the time of each bet's last voided match (bet id -> ms; listCurrentOrders'
    ``BY_VOID_TIME``); dropped when the market closes, as its orders are then no longer current. Not in snapshots,
    nor compared: a restart voids every market that was open, so none of it is read after one.
    """

    created: dict[str, int] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    last_match: dict[str, int] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    standing: dict[str, dict[int, int]] = field(default_factory=dict)
    voided: dict[str, dict[int, int]] = field(default_factory=dict, compare=False)

    def note(self, event: Event) -> str | None:
        """Fold one event in; returns its market id (None if it has none)."""
        market_id = getattr(event, "market_id", None)
        if market_id is None:
            return None
        if isinstance(event, MarketCreated):
            self.created.setdefault(market_id, event.ts)
            channel, _, number = market_id.rpartition(".")
            if channel and number.isdigit():
                self.numbers[channel] = max(int(number), self.numbers.get(channel, -1))
        if isinstance(event, Matched):
            self._standing(market_id)[event.match_id] = event.ts
            self.last_match[market_id] = event.ts
        elif isinstance(event, MatchVoided):
            self._unmatch(market_id, event.match_id)
            self.voided.setdefault(market_id, {}).update({event.back_bet_id: event.ts, event.lay_bet_id: event.ts})
        elif isinstance(event, MarketSettled | MarketVoided):
            self.standing.pop(market_id, None)
            self.voided.pop(market_id, None)
        if changes_definition(event):
            self.versions[market_id] = self.versions.get(market_id, 0) + 1
        return market_id

    def _standing(self, market_id: str) -> dict[int, int]:
        """The standing matches of ``market_id``; for a market noted before they were kept (an older snapshot), its
        last match until then stands for those earlier ones, under :data:`_EARLIER`."""
        standing = self.standing.get(market_id)
        if standing is None:
            earlier = self.last_match.get(market_id)
            standing = self.standing[market_id] = {} if earlier is None else {_EARLIER: earlier}
        return standing

    def _unmatch(self, market_id: str, match_id: int) -> None:
        """A match was voided: the last match is now the last one left (O(1) but for voids of the newest ones)."""
        standing = self.standing.get(market_id)
        if standing is None:  # noted before standing matches were kept (an older snapshot): left as it was
            return
        standing.pop(match_id, None)
        last = next(reversed(standing.values()), None)
        if last is None:
            self.last_match.pop(market_id, None)
        else:
            self.last_match[market_id] = last

    def forget(self, market_id: str) -> None:
        """Drop what is noted of ``market_id`` (the exchange no longer keeps it); its game number stays counted."""
        self.created.pop(market_id, None)
        self.versions.pop(market_id, None)
        self.last_match.pop(market_id, None)
        self.standing.pop(market_id, None)
        self.voided.pop(market_id, None)

    def keep_only(self, market_ids: Collection[str]) -> None:
        """Forget every market not in ``market_ids`` (the markets the exchange keeps)."""
        for market_id in [m for m in self.versions if m not in market_ids]:
            self.forget(market_id)

    def to_json(self) -> bytes:
        return jsoncodec.dumps({"created": self.created, "versions": self.versions, "lastMatch": self.last_match,
                                "numbers": self.numbers,
                                "standing": {m: list(matches.items()) for m, matches in self.standing.items()}})

    @classmethod
    def from_json(cls, data: bytes) -> MarketNotes:
        """The notes :meth:`to_json` wrote; ``ValueError`` if ``data`` is not that shape."""
        try:
            raw = jsoncodec.loads(data)
            # "numbers" is absent from snapshots written before it was noted: those kept every market; "standing"
            # likewise (a void of a match noted before then leaves the last match time as it was).
            parts = [raw["created"], raw["versions"], raw["lastMatch"], raw.get("numbers", {})]
            standing = {m: {match_id: ts for match_id, ts in pairs} for m, pairs in raw.get("standing", {}).items()}
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"market notes are not readable: {exc}") from None
        for part, key in (*((p, str) for p in parts), *((s, int) for s in standing.values())):
            if not isinstance(part, dict) or not all(type(k) is key and type(v) is int for k, v in part.items()):
                raise ValueError("market notes must map market ids (and match ids) to integers")
        created, versions, last_match, numbers = parts
        return cls(created, versions, last_match, numbers, standing)
