"""The order stream's messages as Betfair sends them: a first image of the executable orders, then deltas of
what changed, read by betfairlightweight's own order stream cache and compared with the exchange's own view
over HTTP (``listCurrentOrders``, ``listMarketBook`` with ``matchProjection: ROLLED_UP_BY_PRICE``).

The in-process server of ``conftest.py``: game ``holdem.0`` has its Deal window open at the start, and the
clock moves only when a test advances it. :func:`settle` waits for the flush the clock started, then asks the
server for a heartbeat: everything the flush sent comes before that answer, so a test knows it has it all.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient
from betfairlightweight.resources import CurrentOrders
from betfairlightweight.streaming.listener import StreamListener

from exchange.clock import VirtualClock
from exchange.core.commands import SettleMarket, VoidMatchedSince
from exchange.server import keys
from tests.server.helpers import (
    HEARTBEAT_MS,
    PLAYING_MS,
    START_MS,
    WINDOW_MS,
    close_and_forget,
    login,
    place,
    place_one,
    rpc,
    serving,
)
from tests.server.test_stream import MARKET, OS, authenticated, flush, receive

Sizes = tuple[str, float, float, float, float, float]  # status, matched, remaining, lapsed, cancelled, voided


class Mirror:
    """betfairlightweight's order stream listener, fed every order message one connection receives."""

    def __init__(self) -> None:
        self.listener = StreamListener(max_latency=None)
        self.listener.register_stream(2, "orderSubscription")
        self.messages: list[dict[str, Any]] = []
        self._asked = 1000

    async def subscribe(self, ws: ClientWebSocketResponse) -> dict[str, Any]:
        """Subscribe (request id 2) and read the image; returns it."""
        await ws.send_json({"op": OS, "id": 2, "orderFilter": {}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "ocm", ct="SUB_IMAGE")
        self.listener.on_data(json.dumps(image))
        return image

    async def settle(self, client: TestClient, ws: ClientWebSocketResponse) -> list[dict[str, Any]]:
        """The order changes (heartbeats left out) sent by every flush started so far, fed to the cache."""
        hub = client.app[keys.HUB]
        while hub._tasks:
            await asyncio.gather(*list(hub._tasks))
        self._asked += 1
        await ws.send_json({"op": "heartbeat", "id": self._asked})
        out: list[dict[str, Any]] = []
        while True:
            message = json.loads((await ws.receive(timeout=3)).data)
            if message.get("op") == "status" and message.get("id") == self._asked:
                return out
            if message.get("op") == "ocm" and message.get("ct") != "HEARTBEAT":
                self.listener.on_data(json.dumps(message))
                self.messages.append(message)
                out.append(message)

    def cache(self, market_id: str = MARKET) -> Any:
        return self.listener.stream._caches[market_id]

    def runners(self, market_id: str = MARKET) -> list[Any]:
        """The market's runners in the cache (none before a message about it came)."""
        cache = self.listener.stream._caches.get(market_id)
        return [] if cache is None else list(cache.runners.values())

    def orders(self, market_id: str = MARKET) -> dict[str, Sizes]:
        runners = self.runners(market_id)
        return {o.bet_id: (o.status, o.size_matched, o.size_remaining, o.size_lapsed, o.size_cancelled,
                           o.size_voided) for r in runners for o in r.unmatched_orders.values()}

    def matches(self, market_id: str = MARKET) -> dict[int, dict[str, list[list[float]]]]:
        """Per runner with a match, its matched backs and lays as the cache holds them."""
        out = {}
        for runner in self.runners(market_id):
            m = runner.serialise_matches()
            ladders = {"BACK": [[x["price"], x["size"]] for x in m["matchedBacks"]],
                       "LAY": [[x["price"], x["size"]] for x in m["matchedLays"]]}
            if ladders["BACK"] or ladders["LAY"]:
                out[runner.selection_id] = ladders
        return out


async def current(client: TestClient, token: str) -> dict[str, Sizes]:
    """The account's orders on MARKET as ``listCurrentOrders`` shows them."""
    answer = (await rpc(client, token, "listCurrentOrders", {"marketIds": [MARKET]}))["result"]
    return {o["betId"]: ("EC" if o["status"] == "EXECUTION_COMPLETE" else "E", o["sizeMatched"], o["sizeRemaining"],
                         o["sizeLapsed"], o["sizeCancelled"], o["sizeVoided"]) for o in answer["currentOrders"]}


async def booked(client: TestClient, token: str) -> dict[int, dict[str, list[list[float]]]]:
    """Per runner with a match, the account's matched backs and lays as ``listMarketBook`` rolls them up."""
    params = {"marketIds": [MARKET], "orderProjection": "ALL", "matchProjection": "ROLLED_UP_BY_PRICE"}
    answer = await rpc(client, token, "listMarketBook", params)
    out = {}
    for runner in answer["result"][0]["runners"]:
        matches = runner.get("matches") or []
        if matches:
            out[runner["selectionId"]] = {side: [[m["price"], m["size"]] for m in matches if m["side"] == side]
                                          for side in ("BACK", "LAY")}
    return out


async def _bet(client: TestClient, token: str, selection: int, side: str, price: float, size: float,
               matched: float | None = None) -> str:
    return str((await place_one(client, token, MARKET, selection, side, price, size, matched=matched))["betId"])


def _runners(message: dict[str, Any]) -> dict[int, dict[str, Any]]:
    (market,) = message["oc"]
    assert market["id"] == MARKET
    return {orc["id"]: orc for orc in market["orc"]}


async def test_the_image_holds_the_executable_orders_and_the_whole_matched_position(client: TestClient) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        await _bet(client, bob, 1, "LAY", 3.0, 6, matched=0.0)
        filled = await _bet(client, alice, 1, "BACK", 3.0, 4, matched=4.0)  # complete: matched whole
        part = await _bet(client, alice, 1, "BACK", 3.0, 5, matched=2.0)  # 2 matched, 3 rest
        gone = await _bet(client, alice, 2, "LAY", 2.0, 5, matched=0.0)
        await _bet(client, alice, 2, "LAY", 1.5, 5, matched=0.0)  # cancelled below with the other rests
        await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": gone}]})
        await _bet(client, alice, 3, "BACK", 10.0, 2, matched=0.0)
        cancelled = (await rpc(client, alice, "cancelOrders", {"marketId": MARKET}))["result"]  # every rest
        assert cancelled == {"status": "SUCCESS", "marketId": MARKET, "instructionReports": []}  # as Betfair's
        assert (await current(client, alice))[part][:3] == ("EC", 2.0, 0.0)
        again = await _bet(client, alice, 2, "LAY", 1.5, 3, matched=0.0)

        mirror = Mirror()
        image = await mirror.subscribe(ws)
        assert image["ct"] == "SUB_IMAGE"
        runners = _runners(image)
        # runner 1: nothing executable left, 6.00 matched at 3.0 (the filled order and the part of the cancelled
        # one); runner 2: the one resting lay; runner 3: its back was cancelled with nothing matched, so no image
        assert runners.keys() == {1, 2} and runners[1] == {"id": 1, "fullImage": True, "mb": [[3.0, 6.0]]}
        assert runners[2].keys() == {"id", "fullImage", "uo"} and runners[2]["fullImage"] is True
        (uo,) = runners[2]["uo"]
        assert (uo["id"], uo["status"], uo["s"], uo["sr"], uo["side"], uo["p"]) == (again, "E", 3.0, 3.0, "L", 1.5)
        assert filled not in mirror.orders() and mirror.orders() == {again: (await current(client, alice))[again]}
        assert mirror.matches() == await booked(client, alice) == {1: {"BACK": [[3.0, 6.0]], "LAY": []}}


async def test_a_delta_after_one_fill_carries_only_the_orders_it_changed(client: TestClient,
                                                                         clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        maker = await _bet(client, alice, 1, "LAY", 3.0, 10, matched=0.0)
        other_same_runner = await _bet(client, alice, 1, "LAY", 2.5, 4, matched=0.0)
        other_runner = await _bet(client, alice, 2, "BACK", 8.0, 3, matched=0.0)
        mirror = Mirror()
        image = await mirror.subscribe(ws)
        assert {uo["id"] for orc in _runners(image).values() for uo in orc["uo"]} == {
            maker, other_same_runner, other_runner}

        taker = await _bet(client, alice, 1, "BACK", 3.0, 4, matched=4.0)  # alice takes her own lay
        flush(client, clock)
        (delta,) = await mirror.settle(client, ws)
        assert "ct" not in delta
        (orc,) = _runners(delta).values()  # runner 1 only
        assert orc.keys() == {"id", "uo", "mb", "ml"} and orc["id"] == 1  # no fullImage, no smc (not asked)
        assert [(u["id"], u["status"], u["sm"], u["sr"]) for u in orc["uo"]] == [
            (maker, "E", 4.0, 6.0), (taker, "EC", 4.0, 0.0)]
        assert (orc["mb"], orc["ml"]) == ([[3.0, 4.0]], [[3.0, 4.0]])

        await _bet(client, bob, 1, "BACK", 3.0, 2, matched=2.0)  # bob takes 2 more of alice's lay
        flush(client, clock)
        (delta,) = await mirror.settle(client, ws)
        (orc,) = _runners(delta).values()
        assert orc.keys() == {"id", "uo", "ml"} and (orc["id"], orc["ml"]) == (1, [[3.0, 6.0]])
        assert [(u["id"], u["sm"], u["sr"]) for u in orc["uo"]] == [(maker, 6.0, 4.0)]
        assert mirror.orders() == await current(client, alice)
        assert mirror.matches() == await booked(client, alice) == {
            1: {"BACK": [[3.0, 4.0]], "LAY": [[3.0, 6.0]]}}


async def test_orders_that_end_are_sent_once_with_status_ec(client: TestClient, clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        mirror = Mirror()
        await mirror.subscribe(ws)
        filled = await _bet(client, alice, 1, "LAY", 3.0, 5, matched=0.0)
        cancelled = await _bet(client, alice, 1, "LAY", 2.0, 4, matched=0.0)
        lapsing = await _bet(client, alice, 2, "BACK", 6.0, 3, matched=0.0)
        flush(client, clock)
        (placed,) = await mirror.settle(client, ws)
        assert {u["id"]: u["status"] for orc in _runners(placed).values() for u in orc["uo"]} == {
            filled: "E", cancelled: "E", lapsing: "E"}

        await _bet(client, bob, 1, "BACK", 3.0, 5, matched=5.0)
        await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": cancelled}]})
        flush(client, clock)
        (ended,) = await mirror.settle(client, ws)
        assert [(u["id"], u["status"], u["sm"], u["sr"], u["sc"]) for u in _runners(ended)[1]["uo"]] == [
            (filled, "EC", 5.0, 0.0, 0.0), (cancelled, "EC", 0.0, 0.0, 4.0)]
        assert 2 not in _runners(ended)

        clock.advance(WINDOW_MS)  # the Deal window closes: the back lapses
        deltas = await mirror.settle(client, ws)
        lapsed = [u for m in deltas for orc in _runners(m).values() for u in orc.get("uo", ())]
        assert [(u["id"], u["status"], u["sl"], u["sr"]) for u in lapsed] == [(lapsing, "EC", 3.0, 0.0)]
        assert mirror.orders() == await current(client, alice)

        clock.advance(WINDOW_MS + PLAYING_MS)  # no change of alice's: nothing is sent again
        assert await mirror.settle(client, ws) == []


async def test_a_cancel_and_a_lapse_carry_their_dates_and_betfairs_lapse_code(client: TestClient,
                                                                             clock: VirtualClock) -> None:
    """``cd``, ``ld`` and ``lsrc`` on the stream, ``cancelledDate``, ``lapsedDate`` and ``lapseStatusReasonCode`` in
    listCurrentOrders, as betfairlightweight reads them (and flumine, recreating its orders from them)."""
    service = client.app[keys.SERVICE]
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        mirror = Mirror()
        await mirror.subscribe(ws)
        bet = await _bet(client, alice, 2, "BACK", 6.0, 10, matched=0.0)
        clock.advance(100)
        cancelled_ms = service.now()
        await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet,
                                                                                       "sizeReduction": 4}]})
        flush(client, clock)
        await mirror.settle(client, ws)
        (order,) = (o for r in mirror.runners() for o in r.unmatched_orders.values())
        assert (order.cancelled_date, order.lapsed_date, order.lapse_status_reason_code) == (
            _date(cancelled_ms), None, None)

        lapsed_ms = START_MS + WINDOW_MS
        clock.run(until_ms=lapsed_ms)  # the Deal window closes: the rest lapses
        flush(client, clock)
        await mirror.settle(client, ws)
        (order,) = (o for r in mirror.runners() for o in r.unmatched_orders.values())
        assert (order.size_cancelled, order.size_lapsed) == (4, 6)
        assert (order.cancelled_date, order.lapsed_date, order.lapse_status_reason_code) == (
            _date(cancelled_ms), _date(lapsed_ms), "MKT_SUSPENDED")
        answer = (await rpc(client, alice, "listCurrentOrders", {"betIds": [bet]}))["result"]
        (listed,) = CurrentOrders(**answer).orders
        assert (listed.cancelled_date, listed.lapsed_date, listed.lapse_status_reason_code) == (
            _date(cancelled_ms), _date(lapsed_ms), "MKT_SUSPENDED")


def _date(ms: int) -> datetime.datetime:
    """A time as betfairlightweight reads the stream's (milliseconds since the epoch, in UTC)."""
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


async def test_a_voided_match_takes_its_level_out_of_the_clients_ladder(client: TestClient,
                                                                        clock: VirtualClock) -> None:
    service = client.app[keys.SERVICE]
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        mirror = Mirror()
        await mirror.subscribe(ws)
        await _bet(client, bob, 1, "LAY", 3.0, 4, matched=0.0)
        kept = await _bet(client, alice, 1, "BACK", 3.0, 4, matched=4.0)
        flush(client, clock)
        await mirror.settle(client, ws)
        since = clock.now()
        await _bet(client, bob, 1, "LAY", 3.2, 2, matched=0.0)
        voided = await _bet(client, alice, 1, "BACK", 3.2, 3, matched=2.0)  # 2 at 3.2, 1 rests
        flush(client, clock)
        await mirror.settle(client, ws)
        assert mirror.matches() == await booked(client, alice) == {1: {"BACK": [[3.0, 4.0], [3.2, 2.0]], "LAY": []}}

        service.execute(VoidMatchedSince(clock.now(), MARKET, since))  # the 3.2 match goes; 3.0 stands
        flush(client, clock)
        (delta,) = await mirror.settle(client, ws)
        (orc,) = _runners(delta).values()
        assert orc["mb"] == [[3.2, 0.0]] and "ml" not in orc
        assert [(u["id"], u["sm"], u["sv"], u["sr"]) for u in orc["uo"]] == [(voided, 0.0, 2.0, 1.0)]
        assert kept in mirror.orders()
        assert mirror.orders() == await current(client, alice)
        assert mirror.matches() == await booked(client, alice) == {1: {"BACK": [[3.0, 4.0]], "LAY": []}}


async def test_a_second_subscription_gets_a_fresh_image_and_the_same_deltas(client: TestClient,
                                                                             clock: VirtualClock) -> None:
    async with client.ws_connect("/stream") as first, client.ws_connect("/stream") as second:
        alice = await authenticated(client, first)
        await authenticated(client, second)
        bob = await login(client, "bob", "pw-bob")
        early, late = Mirror(), Mirror()
        await early.subscribe(first)
        complete = await _bet(client, alice, 1, "LAY", 3.0, 2, matched=0.0)
        resting = await _bet(client, alice, 1, "LAY", 2.5, 4, matched=0.0)
        await _bet(client, bob, 1, "BACK", 3.0, 2, matched=2.0)
        image = await late.subscribe(second)  # no flush yet: what is pending goes to the first at once, not here
        assert [u["id"] for u in _runners(image)[1]["uo"]] == [resting] and _runners(image)[1]["ml"] == [[3.0, 2.0]]
        flush(client, clock)
        assert await late.settle(client, second) == []
        assert [u["id"] for m in await early.settle(client, first) for u in _runners(m)[1]["uo"]] == [complete,
                                                                                                       resting]
        await _bet(client, bob, 1, "BACK", 2.5, 4, matched=4.0)
        flush(client, clock)
        (to_early,), (to_late,) = await early.settle(client, first), await late.settle(client, second)
        assert to_early["oc"] == to_late["oc"] and [u["id"] for u in _runners(to_late)[1]["uo"]] == [resting]
        now = await current(client, alice)
        assert early.orders() == now and late.orders() == {resting: now[resting]}  # the image left out the other
        assert early.matches() == late.matches() == await booked(client, alice)


# --- a seeded random walk: the client's view equals the exchange's after every flush -----------------------------

PRICES = (2.0, 2.5, 3.0, 3.5)


async def _step(rng: random.Random, client: TestClient, tokens: dict[str, str], clock: VirtualClock,
                placed: dict[str, list[str]], fills: list[int]) -> None:
    """One random instruction: a place by alice or bob (which may fill), a cancel, or a void of recent matches."""
    kind = rng.choices(["alice", "bob", "cancel", "void"], weights=[4, 4, 2, 1])[0]
    if kind in ("alice", "bob"):
        params = place(MARKET, rng.choice([1, 2]), rng.choice(["BACK", "LAY"]), rng.choice(PRICES), rng.randint(2, 6))
        result = (await rpc(client, tokens[kind], "placeOrders", params))["result"]
        if result["status"] == "SUCCESS":
            (report,) = result["instructionReports"]
            placed[kind].append(report["betId"])
            if report["sizeMatched"]:
                fills.append(clock.now())
    elif kind == "cancel" and placed["alice"]:
        bet = rng.choice(placed["alice"])
        await rpc(client, tokens["alice"], "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet}]})
    elif kind == "void" and fills:
        client.app[keys.SERVICE].execute(VoidMatchedSince(clock.now(), MARKET, rng.choice(fills)))
    clock.advance(rng.choice([0, 0, 1]))  # some instructions share a millisecond, and so a void's cut


@pytest.mark.parametrize("seed", [1, 2, 5])  # each walk fills, cancels and voids (asserted)
async def test_image_and_deltas_rebuild_the_exchanges_view_after_every_flush(seed: int, client: TestClient,
                                                                             clock: VirtualClock) -> None:
    rng = random.Random(seed)
    async with client.ws_connect("/stream") as ws:
        tokens = {"alice": await authenticated(client, ws), "bob": await login(client, "bob", "pw-bob")}
        placed: dict[str, list[str]] = {"alice": [], "bob": []}
        fills: list[int] = []
        for _ in range(3):  # some orders before the subscription: the image must carry what they left
            await _step(rng, client, tokens, clock, placed, fills)
        mirror = Mirror()
        await mirror.subscribe(ws)
        before, in_image = set(placed["alice"]), set(mirror.orders())
        for _ in range(12):
            for _ in range(rng.randint(1, 3)):  # conflated: several instructions in one flush
                await _step(rng, client, tokens, clock, placed, fills)
            flush(client, clock)
            await mirror.settle(client, ws)
            now = await current(client, tokens["alice"])
            cached = mirror.orders()
            # every order the client knows is as the exchange has it, and it knows them all but those complete
            # before its image (a fill, a cancel or a void since would have sent them)
            assert {b: now[b] for b in cached} == cached
            missing = now.keys() - cached.keys()
            assert missing <= before - in_image and all(now[b][0] == "EC" for b in missing)
            assert mirror.matches() == await booked(client, tokens["alice"])
        sent = [orc for message in mirror.messages for m in message["oc"] for orc in m["orc"]]
        zeros = [level for orc in sent for key in ("mb", "ml") for level in orc.get(key, ()) if level[1] == 0]
        ended = [u for orc in sent for u in orc.get("uo", ()) if u["status"] == "EC"]
        # the walk did what it is here for: matched, emptied a level by a void, ended orders by a fill, a
        # cancel and a void
        assert fills and zeros and any(u["sc"] for u in ended) and any(u["sv"] for u in ended)
        assert any(u["sm"] == u["s"] for u in ended)
        last = mirror.orders()
        clock.run(until_ms=clock.now() + 5 * (WINDOW_MS + PLAYING_MS))  # the game plays out: its market closes
        await mirror.settle(client, ws)
        closing = [m for message in mirror.messages for m in message["oc"] if m.get("closed")]
        assert [m["id"] for m in closing] == [MARKET] and mirror.cache().closed is True  # told once
        lapsed = {b: ("EC", sm, 0.0, sl + sr, sc, sv) for b, (_, sm, sr, sl, sc, sv) in last.items()}
        assert mirror.orders() == lapsed  # what rested lapsed at the window's close, each sent once as EC


@pytest.fixture(params=[1])
async def forgetful(request: pytest.FixtureRequest, tmp_path: Path, clock: VirtualClock
                    ) -> AsyncIterator[TestClient]:
    """The ``client`` server, keeping one closed market only (``keep_closed_markets=1``; the parameter)."""
    async with serving(tmp_path / "ex.db", clock, heartbeat_ms=HEARTBEAT_MS,
                       keep_closed_markets=request.param) as test_client:
        yield test_client


async def _alice_backs_into_bobs_lay(client: TestClient, ws: ClientWebSocketResponse, *, lay: float,
                                    matched: float) -> tuple[Mirror, str]:
    """Alice, the stream's client (subscribed: her mirror), backs runner 1 for 4.00 at 3.0 into bob's lay of
    ``lay``; returns her mirror and her bet id."""
    alice = await authenticated(client, ws)
    bob = await login(client, "bob", "pw-bob")
    mirror = Mirror()
    await mirror.subscribe(ws)
    await _bet(client, bob, 1, "LAY", 3.0, lay, matched=0.0)
    return mirror, await _bet(client, alice, 1, "BACK", 3.0, 4, matched=matched)


async def test_a_market_forgotten_before_the_flush_still_sends_its_orders_final_records(forgetful: TestClient,
                                                                                        clock: VirtualClock) -> None:
    client, service = forgetful, forgetful.app[keys.SERVICE]
    async with client.ws_connect("/stream") as ws:
        mirror, bet = await _alice_backs_into_bobs_lay(client, ws, lay=4, matched=4.0)
        close_and_forget(service, MARKET, clock.now())
        flush(client, clock)
        (message,) = await mirror.settle(client, ws)
    # the final record and the matched level, read when the market closed: no [3.0, 0] saying the back went
    assert [level for orc in message["oc"][0]["orc"] for level in orc.get("mb", []) + orc.get("ml", [])] == [[3.0, 4.0]]
    assert message["oc"][0]["closed"] is True and mirror.cache().closed is True
    assert mirror.orders() == {bet: ("EC", 4.0, 0.0, 0.0, 0.0, 0.0)}


async def test_an_order_resting_on_a_market_forgotten_before_the_flush_is_told_it_lapsed(forgetful: TestClient,
                                                                                         clock: VirtualClock) -> None:
    """The client's cache held the order executable with 2.00 unmatched; the close lapsed it, and the exchange
    forgot the market before the flush: the client still learns the order ended, with ``closed``."""
    client, service = forgetful, forgetful.app[keys.SERVICE]
    async with client.ws_connect("/stream") as ws:
        mirror, bet = await _alice_backs_into_bobs_lay(client, ws, lay=2, matched=2.0)
        flush(client, clock)
        await mirror.settle(client, ws)
        assert mirror.orders() == {bet: ("E", 2.0, 2.0, 0.0, 0.0, 0.0)}
        close_and_forget(service, MARKET, clock.now())
        flush(client, clock)
        (message,) = await mirror.settle(client, ws)
    assert [entry["id"] for entry in message["oc"]] == [MARKET] and message["oc"][0]["closed"] is True
    assert mirror.orders() == {bet: ("EC", 2.0, 0.0, 2.0, 0.0, 0.0)} and mirror.cache().closed is True


@pytest.mark.parametrize("forgetful", [0], indirect=True)
async def test_a_market_forgotten_as_it_closes_still_sends_its_orders_final_records(forgetful: TestClient,
                                                                                   clock: VirtualClock) -> None:
    """Keeping no closed market (``keep_closed_markets=0``), the exchange forgets a market in the very step
    that closes it: its order subscribers still learn how each of their orders ended."""
    client, service = forgetful, forgetful.app[keys.SERVICE]
    async with client.ws_connect("/stream") as ws:
        mirror, bet = await _alice_backs_into_bobs_lay(client, ws, lay=2, matched=2.0)
        flush(client, clock)
        await mirror.settle(client, ws)
        assert mirror.orders() == {bet: ("E", 2.0, 2.0, 0.0, 0.0, 0.0)}
        service.execute(SettleMarket(clock.now(), MARKET, (1,)))
        assert service.exchange.market_status(MARKET) is None
        flush(client, clock)
        (message,) = await mirror.settle(client, ws)
    (market,) = message["oc"]
    assert market["id"] == MARKET and market["closed"] is True and mirror.cache().closed is True
    assert [(orc["id"], [o["id"] for o in orc["uo"]]) for orc in market["orc"]] == [(1, [bet])]
    assert mirror.orders() == {bet: ("EC", 2.0, 0.0, 2.0, 0.0, 0.0)}  # the rest lapsed at the close
