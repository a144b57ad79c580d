"""A client that reconnects with its ``clk`` learns how the markets it followed ended while it was away.

betfairlightweight keeps its market cache across a reconnect and flumine resubscribes with the listener's
``initialClk`` and ``clk``. Were the new image only the markets open now, a market that settled (or was
voided by a restart) while the client was away would stay open in its cache for good, with its orders:
flumine would never close it nor ask for its cleared orders. A resubscription therefore also images the
markets that closed since its clock, and an order resubscription their orders' final records and, on the
markets still open, the orders that are no longer executable. A clock the
server cannot read (an older version's, Betfair's, one from ahead) is imaged as a fresh subscription: open markets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.limits import Limits
from exchange.server.stream_connection import IMAGE_RECORDS
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, place, rpc, serving, until
from tests.server.test_stream import MS, OS, authenticated, receive

GAME_0_CLOSED = START_MS + 4 * (WINDOW_MS + PLAYING_MS) + 10
MARKET = "holdem.0"


async def _subscribe(client: TestClient, op: str, extra: dict[str, Any], ct: str = "SUB_IMAGE") -> dict[str, Any]:
    async with client.ws_connect("/stream") as ws:
        await authenticated(client, ws)
        await ws.send_json({"op": op, "id": 2, **extra})
        status = await receive(ws, "status")
        if status["statusCode"] != "SUCCESS":
            return status
        return await receive(ws, "mcm" if op == MS else "ocm", ct=ct)


async def test_a_market_resubscription_images_the_markets_that_closed_since_its_clock(
        client: TestClient, clock: VirtualClock) -> None:
    listener = StreamListener(max_latency=None)
    listener.register_stream(2, MS)
    first = await _subscribe(client, MS, {"marketFilter": {}})
    listener.on_data(json.dumps(first))
    assert [book.status for book in listener.snap()] == ["OPEN"]
    clock.run(until_ms=GAME_0_CLOSED)  # holdem.0 settles while the client is away; holdem.1 opens
    again = await _subscribe(client, MS, {"marketFilter": {}, "initialClk": first["initialClk"],
                                          "clk": first["clk"]})
    assert sorted((mc["id"], mc["marketDefinition"]["status"]) for mc in again["mc"]) == [
        (MARKET, "CLOSED"), ("holdem.1", "OPEN")]
    listener.on_data(json.dumps(again))
    assert {book.market_id: book.status for book in listener.snap()} == {MARKET: "CLOSED", "holdem.1": "OPEN"}
    fresh = await _subscribe(client, MS, {"marketFilter": {}})
    assert [mc["id"] for mc in fresh["mc"]] == ["holdem.1"]  # a new subscriber is shown the open markets only


async def _a_resting_bet_and_the_order_image(client: TestClient, ws: Any) -> tuple[str, dict[str, Any]]:
    """Log in on ``ws``, back hand 1 at 1000 for 2.00 (it rests), subscribe to orders: the bet id and the image."""
    token = await authenticated(client, ws)
    placed = await rpc(client, token, "placeOrders", place(MARKET, 1, "BACK", 1000, 2))
    await ws.send_json({"op": OS, "id": 2})
    return placed["result"]["instructionReports"][0]["betId"], await receive(ws, "ocm", ct="SUB_IMAGE")


async def test_an_order_resubscription_shows_the_final_records_of_orders_on_markets_that_closed(
        client: TestClient, clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        bet_id, first = await _a_resting_bet_and_the_order_image(client, ws)
    assert [uo["status"] for uo in first["oc"][0]["orc"][0]["uo"]] == ["E"]
    clock.run(until_ms=GAME_0_CLOSED)  # the bet lapses at the window's close; the market settles
    again = await _subscribe(client, OS, {"initialClk": first["initialClk"], "clk": first["clk"]})
    (market,) = again["oc"]
    assert market["id"] == MARKET and market["closed"] is True
    (record,) = market["orc"][0]["uo"]
    assert (record["id"], record["status"], record["sl"]) == (bet_id, "EC", 2.0)
    assert (await _subscribe(client, OS, {}))["oc"] == []  # a fresh subscription: open markets only


async def test_an_order_resubscription_shows_orders_that_ended_on_markets_still_open(
        client: TestClient, clock: VirtualClock) -> None:
    """betfairlightweight keeps its order cache across a resubscription: an order that lapsed at a window's close
    while the client was away, on a market still open, must not stay executable there."""
    listener = StreamListener(max_latency=None)
    listener.register_stream(2, OS)
    async with client.ws_connect("/stream") as ws:
        bet_id, first = await _a_resting_bet_and_the_order_image(client, ws)
    listener.on_data(json.dumps(first))
    assert [o.status for o in listener.snap()[0].orders] == ["EXECUTABLE"]
    clock.run(until_ms=START_MS + WINDOW_MS + 10)  # the Deal window closes: the bet lapses; the game goes on
    again = await _subscribe(client, OS, {"initialClk": first["initialClk"], "clk": first["clk"]})
    listener.stream.unique_id = 2  # as betfairlightweight resubscribes: the same cache, the request's id
    listener.on_data(json.dumps(again))
    ((order,),) = [book.orders for book in listener.snap()]
    assert (order.bet_id, order.status, order.size_lapsed, order.size_remaining) == (
        bet_id, "EXECUTION_COMPLETE", 2.0, 0.0)
    assert (await _subscribe(client, OS, {}))["oc"] == []  # a fresh subscription: the executable orders only


async def test_a_clock_the_server_cannot_read_is_answered_with_a_fresh_image(
        client: TestClient, clock: VirtualClock) -> None:
    # flumine resubscribes with its listener's clk after every reconnect and keeps it after a refusal, which does
    # not close the connection: refused, it would sit unsubscribed, be closed by the idle timeout and come back
    # with the same clk, for good. So a clk from an older version of this server (a bare counter), Betfair's, or
    # one from ahead of this server's clock is answered as a fresh subscription was before clocks were read.
    clock.run(until_ms=GAME_0_CLOSED)
    for clk in ("AAAAAAAAAAAAAA==", "7", f"1:{clock.now() + 60_000}"):  # Betfair's, an old one, one from ahead
        image = await _subscribe(client, MS, {"marketFilter": {}, "initialClk": clk, "clk": clk})
        assert image["ct"] == "SUB_IMAGE" and [mc["id"] for mc in image["mc"]] == ["holdem.1"], clk
        listener = StreamListener(max_latency=None)
        listener.register_stream(2, MS)
        listener.on_data(json.dumps(image))
        assert [book.market_id for book in listener.snap()] == ["holdem.1"]
    image = await _subscribe(client, OS, {"initialClk": "3", "clk": "nonsense"})
    assert image["ct"] == "SUB_IMAGE" and image["oc"] == []


async def test_a_closed_market_s_image_is_built_once_and_shown_the_same_to_every_resubscription(
        client: TestClient, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resubscription images every market closed since its clock: a closed market's image never changes, so it
    is built once (a client resubscribing in a loop rebuilt hundreds a time, on the loop every client shares)."""
    first = await _subscribe(client, MS, {"marketFilter": {}})
    clock.run(until_ms=GAME_0_CLOSED)
    service = client.app[keys.SERVICE]
    read: list[str] = []
    snapshot_of = service.stream_snapshot

    def reading(market_id: str) -> Any:
        read.append(market_id)
        return snapshot_of(market_id)

    monkeypatch.setattr(service, "stream_snapshot", reading)
    resume = {"marketFilter": {}, "initialClk": first["initialClk"], "clk": first["clk"]}
    again = await _subscribe(client, MS, resume)
    assert MARKET in read
    read.clear()
    once_more = await _subscribe(client, MS, resume)
    assert MARKET not in read and "holdem.1" in read  # the open market is read afresh
    assert [mc for mc in once_more["mc"] if mc["id"] == MARKET] == [mc for mc in again["mc"] if mc["id"] == MARKET]
    assert [mc["marketDefinition"]["status"] for mc in again["mc"] if mc["id"] == MARKET] == ["CLOSED"]


async def test_subscription_images_count_against_the_account_s_read_rate(tmp_path: Path) -> None:
    """Each market imaged counts as IMAGE_RECORDS list records: past the rate, the next subscription waits on the
    server's clock for the time owed, as a list call does (answered, not refused), and its connection is not
    closed as idle meanwhile, though the wait passes the idle timeout."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, limits=Limits(read_rows_per_second=1)) as client:
        first = await _subscribe(client, MS, {"marketFilter": {}})
        clock.run(until_ms=GAME_0_CLOSED)
        resume = {"marketFilter": {}, "initialClk": first["initialClk"], "clk": first["clk"]}
        again = await _subscribe(client, MS, resume)
        assert len(again["mc"]) == 2  # the closed market and the open one
        owed_ms = (2 * IMAGE_RECORDS - 1) * 1000  # their records at one a second, less the second the rate allows
        idle_ms = client.app[keys.HUB].idle_ms
        assert owed_ms > idle_ms + 1_000
        async with client.ws_connect("/stream") as ws:
            await authenticated(client, ws)
            scheduled = clock.pending
            await ws.send_json({"op": MS, "id": 2, **resume})
            await until(lambda: clock.pending == scheduled + 1, "the subscription waiting on the server's clock")
            clock.advance(idle_ms + 1_000)
            clock.advance(owed_ms - idle_ms - 1_000 - 1)
            with pytest.raises(TimeoutError):  # a millisecond short: still waiting, and not closed as idle
                await receive(ws, "status", timeout=0.2)
            clock.advance(1)
            assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
            assert (await receive(ws, "mcm", ct="SUB_IMAGE"))["mc"]
