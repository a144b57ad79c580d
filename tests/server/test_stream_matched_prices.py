"""The order stream's ``mb``/``ml``/``smc`` are the matched amounts by distinct *fill* price, as Betfair defines
them, for orders that fill at several prices: in the image, in the deltas, after a void, and once the market has
closed, as betfairlightweight's order cache reads them.

The expected position is summed here from the journal's ``Matched`` and ``MatchVoided`` events and the account's
``listCurrentOrders`` (which bets are hers, their sides and strategy refs), sharing no code with the server's.
Game ``holdem.1`` of the in-process server (``conftest.py``) deals a premature flop halfway through its Pre-flop
window, noticed a second later: what matched after it is voided.
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from engine.irregularities import Irregularity, Kind
from exchange.clock import VirtualClock
from exchange.core.ladder import PRICES
from exchange.game.irregular import IrregularityPlan
from tests.server.helpers import WINDOW_MS, journal_matches, login, place_one, rpc
from tests.server.test_irregularities import GAME_1, ROUND_MS, inject
from tests.server.test_stream import authenticated, flush, receive

MARKET = "holdem.1"
RUNNER = 1
Position = dict[str, Any]  # {"mb": [[price, size]], "ml": ..., "smc": {ref: {"mb": ..., "ml": ...}}}


async def _order(client: TestClient, token: str, side: str, price: float, size: float, ref: str | None = None,
                 matched: float | None = None) -> None:
    await place_one(client, token, MARKET, RUNNER, side, price, size, ref=ref, matched=matched)


async def _expected(client: TestClient, token: str, mine: dict[int, tuple[str, str]]) -> Position:
    """The runner's position from the journal's matches, voided ones taken out, over the bets of ``mine``
    (bet id -> side, strategy ref), which this adds to from ``listCurrentOrders`` while the market is open."""
    answer = await rpc(client, token, "listCurrentOrders", {"marketIds": [MARKET]})
    for o in answer["result"]["currentOrders"]:
        mine[int(o["betId"])] = (o["side"], o.get("customerStrategyRef", ""))
    sums: dict[tuple[str, str], dict[Decimal, int]] = defaultdict(lambda: defaultdict(int))
    for match in journal_matches(client, MARKET, RUNNER):
        price = PRICES[match["tick"]]
        for bet_id in (match["back_bet_id"], match["lay_bet_id"]):
            if bet_id in mine:
                side, ref = mine[bet_id]
                sums["", side][price] += match["size"]
                if ref:
                    sums[ref, side][price] += match["size"]

    def ladder(key: tuple[str, str]) -> list[list[float]]:
        return [[float(p), float(Decimal(s) / 100)] for p, s in sorted(sums[key].items())]

    refs = sorted({ref for ref, _ in sums if ref})
    return {"mb": ladder(("", "BACK")), "ml": ladder(("", "LAY")),
            "smc": {ref: {"mb": ladder((ref, "BACK")), "ml": ladder((ref, "LAY"))} for ref in refs}}


def _position(message: dict[str, Any]) -> tuple[Position, bool]:
    (market,) = message["oc"]
    (orc,) = market["orc"]
    assert market["id"] == MARKET and orc["id"] == RUNNER
    return {k: orc[k] for k in ("mb", "ml", "smc")}, market["closed"]


async def _next_orders(ws: ClientWebSocketResponse, listener: StreamListener) -> tuple[Position, bool]:
    """The next order change (heartbeats skipped), also fed to betfairlightweight's listener."""
    while True:
        message = await receive(ws, "ocm")
        if message.get("ct") != "HEARTBEAT":
            listener.on_data(json.dumps(message))
            return _position(message)


def _cached(listener: StreamListener) -> tuple[list[dict[str, float]], list[dict[str, float]], dict[str, Any]]:
    runner = listener.stream._caches[MARKET].runners[(RUNNER, 0)]
    matches = runner.serialise_matches()
    return matches["matchedBacks"], matches["matchedLays"], runner.strategy_matches


async def test_orders_filled_at_several_prices_show_each_fill_price(client: TestClient, clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP), at_permille=500, notice_ms=1_000))
    preflop_opens = GAME_1 + ROUND_MS
    exposure = preflop_opens + WINDOW_MS // 2
    clock.run(until_ms=preflop_opens + 10)
    async with client.ws_connect("/stream") as ws:
        alice = await authenticated(client, ws)
        bob = await login(client, "bob", "pw-bob")
        for side, price, size in (("LAY", 3.2, 2), ("LAY", 3.0, 2), ("LAY", 2.8, 3), ("BACK", 4.0, 2),
                                  ("BACK", 4.2, 3)):
            await _order(client, bob, side, price, size, matched=0.0)
        await _order(client, alice, "BACK", 2.8, 5, "s1", matched=5.0)  # 2 at 3.2, 2 at 3.0, 1 at 2.8
        await _order(client, alice, "LAY", 4.4, 4, matched=4.0)  # 2 at 4.0, 2 at 4.2; no strategy
        mine: dict[int, tuple[str, str]] = {}

        await ws.send_json({"op": "orderSubscription", "id": 1, "orderFilter": {}})  # no smc asked for
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        (market,) = (await receive(ws, "ocm", ct="SUB_IMAGE"))["oc"]
        (orc,) = market["orc"]
        overall = await _expected(client, alice, mine)
        assert "smc" not in orc and (orc["mb"], orc["ml"]) == (overall["mb"], overall["ml"])

        listener = StreamListener(max_latency=None)
        listener.register_stream(2, "orderSubscription")
        await ws.send_json({"op": "orderSubscription", "id": 2, "orderFilter": {"partitionMatchedByStrategyRef": True}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image, closed = await _next_orders(ws, listener)
        assert image == await _expected(client, alice, mine) and not closed
        assert image["mb"] == [[2.8, 1.0], [3.0, 2.0], [3.2, 2.0]] and image["ml"] == [[4.0, 2.0], [4.2, 2.0]]
        assert image["smc"] == {"s1": {"mb": [[2.8, 1.0], [3.0, 2.0], [3.2, 2.0]], "ml": []}}

        await _order(client, alice, "BACK", 2.8, 2, "s2", matched=2.0)  # the rest of bob's 2.8
        flush(client, clock)
        delta, _ = await _next_orders(ws, listener)
        assert delta == await _expected(client, alice, mine)
        assert delta["mb"] == [[2.8, 3.0], [3.0, 2.0], [3.2, 2.0]] and delta["smc"]["s2"]["mb"] == [[2.8, 2.0]]

        clock.run(until_ms=exposure + 10)  # the flop is out: matches from now on will be voided on notice
        await _order(client, bob, "LAY", 3.5, 2, matched=0.0)
        await _order(client, alice, "BACK", 3.4, 3, "s1", matched=2.0)  # 2 at 3.5; 1 left unmatched
        flush(client, clock)
        delta, _ = await _next_orders(ws, listener)
        assert delta == await _expected(client, alice, mine)
        assert delta["smc"]["s1"]["mb"] == [[2.8, 1.0], [3.0, 2.0], [3.2, 2.0], [3.5, 2.0]]

        clock.run(until_ms=exposure + 1_000 + 10)  # noticed: the 3.5 match is voided, the market suspended
        flush(client, clock)
        voided, _ = await _next_orders(ws, listener)
        assert voided == await _expected(client, alice, mine)
        assert [p for p, _ in voided["mb"]] == [2.8, 3.0, 3.2] and voided["smc"]["s1"]["mb"][-1] == [3.2, 2.0]

        clock.run(until_ms=GAME_1 + 4 * ROUND_MS)  # game 1 plays out and settles: its orders are cleared
        final, closed = await _next_orders(ws, listener)
        while not closed:
            final, closed = await _next_orders(ws, listener)
        assert final == voided == await _expected(client, alice, mine)
        backs, lays, by_strategy = _cached(listener)
        assert listener.stream._caches[MARKET].closed is True
    assert backs == [{"price": p, "size": s} for p, s in final["mb"]]
    assert lays == [{"price": p, "size": s} for p, s in final["ml"]]
    assert by_strategy == final["smc"]
