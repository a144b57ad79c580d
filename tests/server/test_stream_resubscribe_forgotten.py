"""A stream client away for longer than the exchange keeps closed markets still learns how the markets it held
ended, and can list their settled bets: the server remembers how as many markets again ended as the exchange
keeps (``ended_markets``).

betfairlightweight and flumine keep their caches across a reconnect; a market forgotten while the client was
away, were it left out of the resubscription's image, would stay open in the cache for good, with its bets
executable (flumine counts them in its exposure and never asks for their cleared orders). Told it closed,
flumine asks ``listClearedOrders`` for its settled bets, again and again until it has them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from betfairlightweight.streaming.listener import StreamListener

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.recovery import take_snapshot
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, login, place, rpc, serving
from tests.server.test_stream import MS, OS, authenticated, receive

MARKET = "holdem.0"
GAME_MS = 4 * (WINDOW_MS + PLAYING_MS)


async def test_a_resubscription_learns_how_a_market_forgotten_while_it_was_away_ended(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    markets, orders = StreamListener(max_latency=None), StreamListener(max_latency=None)
    markets.register_stream(2, MS)
    orders.register_stream(3, OS)
    async with serving(tmp_path / "ex.db", clock, keep_closed_markets=2) as client:
        async with client.ws_connect("/stream") as ws:
            token = await authenticated(client, ws)
            placed = await rpc(client, token, "placeOrders", place(MARKET, 1, "BACK", 1000, 2))  # rests, lapses
            bet_id = placed["result"]["instructionReports"][0]["betId"]
            await ws.send_json({"op": MS, "id": 2, "marketFilter": {}})
            markets.on_data(json.dumps(await receive(ws, "mcm", ct="SUB_IMAGE")))
            await ws.send_json({"op": OS, "id": 3})
            orders.on_data(json.dumps(await receive(ws, "ocm", ct="SUB_IMAGE")))
        assert [(b.market_id, b.status) for b in markets.snap()] == [(MARKET, "OPEN")]
        assert [o.status for o in orders.snap()[0].orders] == ["EXECUTABLE"]
        clock.run(until_ms=START_MS + GAME_MS + 100)  # holdem.0 closes: kept
        closed_version = client.app[keys.SERVICE].stream_snapshot(MARKET).version
        assert closed_version > 1
        clock.run(until_ms=START_MS + 4 * GAME_MS + 100)  # four games end: the exchange keeps the last two
        assert client.app[keys.SERVICE].stream_snapshot(MARKET).version == closed_version  # remembered with it
        exchange = client.app[keys.SERVICE].exchange
        assert exchange.market_status(MARKET) is None and MARKET not in exchange.forgotten
        async with client.ws_connect("/stream") as ws:
            await authenticated(client, ws)
            await ws.send_json({"op": MS, "id": 2, "marketFilter": {}, "initialClk": markets.initial_clk,
                                "clk": markets.clk})
            image = await receive(ws, "mcm", ct="SUB_IMAGE")
            markets.on_data(json.dumps(image))
            await ws.send_json({"op": OS, "id": 3, "initialClk": orders.initial_clk, "clk": orders.clk})
            order_image = await receive(ws, "ocm", ct="SUB_IMAGE")
            orders.on_data(json.dumps(order_image))
    (ended,) = [mc for mc in image["mc"] if mc["id"] == MARKET]
    assert ended["img"] is True and ended["marketDefinition"]["status"] == "CLOSED"
    assert ended["marketDefinition"]["version"] == closed_version  # not counted again from 1
    assert {b.market_id: b.status for b in markets.snap()}[MARKET] == "CLOSED"
    (market,) = [oc for oc in order_image["oc"] if oc["id"] == MARKET]
    assert market["closed"] is True
    (record,) = market["orc"][0]["uo"]
    assert (record["id"], record["status"], record["sl"]) == (bet_id, "EC", 2.0)
    held = [(o.bet_id, o.status) for book in orders.snap() for o in book.orders if o.market_id == MARKET]
    assert held == [(bet_id, "EXECUTION_COMPLETE")]


async def test_the_server_remembers_as_many_forgotten_markets_as_the_exchange_keeps(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, keep_closed_markets=1) as client:
        async with client.ws_connect("/stream") as ws:
            await authenticated(client, ws)
            await ws.send_json({"op": MS, "id": 2, "marketFilter": {}})
            first = await receive(ws, "mcm", ct="SUB_IMAGE")
        clock.run(until_ms=START_MS + 4 * GAME_MS + 100)  # four games end: one kept, one remembered
        async with client.ws_connect("/stream") as ws:
            await authenticated(client, ws)
            await ws.send_json({"op": MS, "id": 2, "marketFilter": {}, "initialClk": first["initialClk"],
                                "clk": first["clk"]})
            again = await receive(ws, "mcm", ct="SUB_IMAGE")
    shown = [(mc["id"], mc["marketDefinition"]["status"]) for mc in again["mc"]]
    assert shown == [("holdem.2", "CLOSED"), ("holdem.3", "CLOSED"), ("holdem.4", "OPEN")]


async def test_listed_cleared_orders_of_a_market_forgotten_are_what_they_were_while_it_was_kept(
        tmp_path: Path) -> None:
    """flumine, told a market closed, asks ``listClearedOrders`` for its settled bets until it has them: on a market
    the exchange has forgotten but the server remembers, every listing answers as it did while the market was
    kept (the bets, their profit, the commission)."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, keep_closed_markets=2) as client:
        alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
        for token, side in ((alice, "LAY"), (bob, "BACK")):  # matched: one of them wins and pays commission
            await rpc(client, token, "placeOrders", place(MARKET, 1, side, 3.5, 10))

        async def listings() -> list[Any]:
            answers = []
            for token in (alice, bob):
                for group in ("BET", "MARKET", "SIDE"):
                    params = {"betStatus": "SETTLED", "marketIds": [MARKET], "groupBy": group,
                              "includeItemDescription": True}
                    answers.append((await rpc(client, token, "listClearedOrders", params))["result"])
            return answers

        clock.run(until_ms=START_MS + GAME_MS + 100)  # holdem.0 settles and is kept
        kept = await listings()
        assert all(answer["clearedOrders"] for answer in kept)
        assert any(float(row["commission"]) > 0 for answer in kept for row in answer["clearedOrders"]
                   if "commission" in row)
        clock.run(until_ms=START_MS + 4 * GAME_MS + 100)  # three more games: the exchange forgets holdem.0
        assert client.app[keys.SERVICE].exchange.market_status(MARKET) is None
        assert await listings() == kept


async def test_with_no_closed_market_kept_subscribers_are_shown_the_close_at_its_version(tmp_path: Path) -> None:
    """With ``keep_closed_markets=0`` a market is forgotten in the very step that closes it, before the stream's
    next flush reads it: that flush still shows it CLOSED at the version it closed with (its notes are gone by
    then; read from them it was version 0)."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, keep_closed_markets=0) as client, client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": MS, "id": 2, "marketFilter": {"marketIds": [MARKET]}})
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
        versions = [mc["marketDefinition"]["version"] for mc in image["mc"]]
        definitions: list[dict[str, Any]] = []
        clock.run(until_ms=START_MS + GAME_MS + 100)  # holdem.0 closes and is forgotten at once
        while not definitions or definitions[-1]["status"] != "CLOSED":
            message = await receive(ws, "mcm")
            definitions += [mc["marketDefinition"] for mc in message.get("mc", ()) if "marketDefinition" in mc]
    assert client.app[keys.SERVICE].exchange.market_status(MARKET) is None
    versions += [definition["version"] for definition in definitions]
    assert versions == sorted(versions) and versions[-1] > versions[0], versions


@pytest.mark.parametrize("snapshot", [False, True], ids=["full replay", "from a snapshot"])
async def test_a_restart_remembers_how_the_markets_forgotten_before_it_ended(tmp_path: Path, snapshot: bool) -> None:
    """The server journals each market it remembers, and a snapshot stores them: after a restart (from the whole
    journal or from a snapshot the taker folded), a client that comes back is still shown how a market forgotten
    before the restart ended, and lists its bets there as it did."""
    clock = VirtualClock(start_ms=START_MS)
    params = {"betStatus": "SETTLED", "marketIds": [MARKET], "groupBy": "BET"}
    async with serving(tmp_path / "ex.db", clock, keep_closed_markets=2) as client:
        alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
        for token, side in ((alice, "LAY"), (bob, "BACK")):
            await rpc(client, token, "placeOrders", place(MARKET, 1, side, 3.5, 10))
        async with client.ws_connect("/stream") as ws:
            await authenticated(client, ws)
            await ws.send_json({"op": MS, "id": 2, "marketFilter": {}})
            first = await receive(ws, "mcm", ct="SUB_IMAGE")
        service = client.app[keys.SERVICE]
        clock.run(until_ms=START_MS + GAME_MS + 100)  # holdem.0 closes
        closed_version = service.stream_snapshot(MARKET).version
        clock.run(until_ms=START_MS + 3 * GAME_MS + 100)  # two more: the exchange forgets holdem.0
        assert service.exchange.market_status(MARKET) is None and service.ended.get(MARKET) is not None
        listed = (await rpc(client, alice, "listClearedOrders", params))["result"]
        assert listed["clearedOrders"]
        await service.durable()
        if snapshot:
            journal = client.app[keys.JOURNAL]
            saved, _ = take_snapshot(journal, service.exchange.config, service.results.keep)
            assert saved is not None and saved.seq == journal.last_seq
    # The restart voids holdem.3, left open: the exchange forgets holdem.1, which joins holdem.0 in memory.
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=clock.now() + 1_000), keep_closed_markets=2,
                       accounts=()) as client:
        service = client.app[keys.SERVICE]
        assert service.recovered_voids == ["holdem.3"]
        assert (service.journal.snapshot_seq > 0) is snapshot
        assert list(service.ended.by_id) == [MARKET, "holdem.1"]
        alice = await login(client, "alice", "pw-alice")
        assert (await rpc(client, alice, "listClearedOrders", params))["result"] == listed
        async with client.ws_connect("/stream") as ws:
            await authenticated(client, ws)
            await ws.send_json({"op": MS, "id": 2, "marketFilter": {}, "initialClk": first["initialClk"],
                                "clk": first["clk"]})
            image = await receive(ws, "mcm", ct="SUB_IMAGE")
    (ended,) = [mc for mc in image["mc"] if mc["id"] == MARKET]
    assert ended["marketDefinition"]["status"] == "CLOSED"
    assert ended["marketDefinition"]["version"] == closed_version
