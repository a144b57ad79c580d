"""listMarketBook's ``lastMatchTime`` is the time of the market's last match that stands: a voided match does not
count (as its stake leaves ``totalMatched``), and a market whose every match was voided shows none. It says so
after a restart too (the notes come back from a snapshot and the journal's tail).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.betfair import apiformat
from exchange.clock import VirtualClock
from exchange.core.commands import (
    CreateMarket,
    OpenMarket,
    PlaceOrder,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
)
from exchange.core.side import Side
from exchange.server import keys
from exchange.server.service import ExchangeService
from tests.server.helpers import START_MS, login, rpc, serving


def _match(service: ExchangeService, market_id: str, selection: int) -> int:
    """bob lays and alice backs 2.00 at 3 on ``selection``: one match, now; its time."""
    service.execute(PlaceOrder(service.now(), "bob", market_id, selection, Side.LAY, Decimal(3), 200))
    service.execute(PlaceOrder(service.now(), "alice", market_id, selection, Side.BACK, Decimal(3), 200))
    return service.now()


async def _book(client: TestClient, token: str, market_id: str) -> dict[str, object]:
    (book,) = (await rpc(client, token, "listMarketBook", {"marketIds": [market_id]}))["result"]
    return dict(book)


def _open(service: ExchangeService, market_id: str) -> None:
    service.execute(CreateMarket(service.now(), market_id, (1, 2, 3, 4)))
    service.execute(OpenMarket(service.now(), market_id))


async def test_voided_matches_leave_the_last_match_time(client: TestClient, clock: VirtualClock) -> None:
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")

    _open(service, "void.all")  # every match voided with the market
    _match(service, "void.all", 1)
    clock.advance(10)
    last = _match(service, "void.all", 2)
    assert (await _book(client, alice, "void.all"))["lastMatchTime"] == apiformat.iso(last)
    service.execute(VoidMarket(service.now(), "void.all", "test"))
    book = await _book(client, alice, "void.all")
    assert book["totalMatched"] == 0.0 and "lastMatchTime" not in book, book

    _open(service, "void.since")  # the matches since a card's exposure voided, the earlier one stands
    first = _match(service, "void.since", 1)
    clock.advance(10)
    exposed = _match(service, "void.since", 2)
    _match(service, "void.since", 3)
    service.execute(VoidMatchedSince(service.now(), "void.since", exposed))
    book = await _book(client, alice, "void.since")
    assert book["totalMatched"] == 2.0 and book["lastMatchTime"] == apiformat.iso(first), book

    _open(service, "void.early")  # a selection settled early keeps its match through the market's void
    kept = _match(service, "void.early", 1)
    clock.advance(10)
    _match(service, "void.early", 2)
    service.execute(SuspendMarket(service.now(), "void.early"))
    service.execute(SettleSelection(service.now(), "void.early", 1))
    service.execute(VoidMarket(service.now(), "void.early", "test"))
    book = await _book(client, alice, "void.early")
    assert book["totalMatched"] == 2.0 and book["lastMatchTime"] == apiformat.iso(kept), book


async def test_the_last_match_time_survives_a_restart_and_its_void(tmp_path: Path) -> None:
    """A market open at a crash is voided by the restart: its matches go, and so does its lastMatchTime."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock) as client:
        await login(client, "alice", "pw-alice")
        await login(client, "bob", "pw-bob")
        app = client.app
        service: ExchangeService = app[keys.SERVICE]
        (market_id, *_) = service.live_market_ids()
        last = _match(service, market_id, 2)
        await service.durable()
        assert service.last_match_ms(market_id) == last
        journal = app[keys.JOURNAL]  # the restart loads the notes from a snapshot
        journal.save_snapshot(journal.last_seq, service.exchange, service.notes, service.results.kept,
                              service.ended)
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=clock.now() + 1_000), accounts=()) as client:
        alice = await login(client, "alice", "pw-alice")
        book = await _book(client, alice, market_id)
        assert book["status"] == "CLOSED" and book["totalMatched"] == 0.0 and "lastMatchTime" not in book, book


def test_a_void_after_loading_an_older_snapshot_leaves_the_matches_from_before_it() -> None:
    # A snapshot written before standing matches were kept has a market's last match but not its matches. A match
    # made after the load and then voided leaves the older matches standing: the last match is theirs again.
    from exchange.core.events import Matched, MatchVoided
    from exchange.server import jsoncodec
    from exchange.server.notes import MarketNotes

    older = jsoncodec.dumps({"created": {"holdem.0": 1_000}, "versions": {"holdem.0": 2},
                             "lastMatch": {"holdem.0": 5_000}, "numbers": {"holdem": 0}})
    notes = MarketNotes.from_json(older)
    common: dict[str, Any] = {"match_id": 9, "market_id": "holdem.0", "selection_id": 1, "tick": 100, "size": 200,
              "back_bet_id": 3, "lay_bet_id": 4, "back_account_id": "alice", "lay_account_id": "bob"}
    notes.note(Matched(ts=7_000, taker_side=Side.BACK, **common))
    assert notes.last_match["holdem.0"] == 7_000
    notes.note(MatchVoided(ts=8_000, reason="late", **common))
    assert notes.last_match.get("holdem.0") == 5_000
    assert MarketNotes.from_json(notes.to_json()) == notes
