"""The order stream's ``mb``/``ml``/``smc`` are the matched amounts by distinct *fill* price, as Betfair defines
them, for orders that fill at several prices: the whole position in the image, then in each delta only the levels
that moved (a voided one as ``[price, 0]``), and once the market has closed, as betfairlightweight's order cache
reads them.

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
                 matched: float | None = None) -> dict[str, Any]:
    return await place_one(client, token, MARKET, RUNNER, side, price, size, ref=ref, matched=matched)


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


def _orc(message: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The runner's change in an order message (``{}`` if it has none), and whether the market closed."""
    (market,) = message["oc"]
    assert market["id"] == MARKET
    orcs = market["orc"]
    assert [orc["id"] for orc in orcs] in ([], [RUNNER])
    return (orcs[0] if orcs else {}), market.get("closed", False)


def _apply(seen: Position, orc: dict[str, Any]) -> None:
    """What a client makes of a runner change: an image replaces ``seen``; a delta replaces the levels it lists,
    a level of size 0 goes. Kept apart from betfairlightweight's cache, which keeps ``smc`` from images only."""
    if orc.get("fullImage"):
        seen.clear()
    for key in ("mb", "ml"):
        _merge(seen.setdefault(key, []), orc.get(key, []))
    for ref, levels in orc.get("smc", {}).items():
        for key in ("mb", "ml"):
            _merge(seen.setdefault("smc", {}).setdefault(ref, {"mb": [], "ml": []})[key], levels.get(key, []))


def _merge(ladder: list[list[float]], levels: list[list[float]]) -> None:
    sizes = {price: size for price, size in ladder} | {price: size for price, size in levels}
    ladder[:] = [[price, size] for price, size in sorted(sizes.items()) if size]


async def _next_orders(ws: ClientWebSocketResponse, listener: StreamListener, seen: Position
                       ) -> tuple[dict[str, Any], bool]:
    """The next order change (heartbeats skipped), applied to ``seen`` and fed to betfairlightweight's listener."""
    while True:
        message = await receive(ws, "ocm")
        if message.get("ct") != "HEARTBEAT":
            listener.on_data(json.dumps(message))
            orc, closed = _orc(message)
            _apply(seen, orc)
            return orc, closed


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
        orc, _ = _orc(await receive(ws, "ocm", ct="SUB_IMAGE"))
        overall = await _expected(client, alice, mine)
        assert "smc" not in orc and (orc["mb"], orc["ml"]) == (overall["mb"], overall["ml"])

        listener = StreamListener(max_latency=None)
        listener.register_stream(2, "orderSubscription")
        await ws.send_json({"op": "orderSubscription", "id": 2, "orderFilter": {"partitionMatchedByStrategyRef": True}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        seen: Position = {}
        image, closed = await _next_orders(ws, listener, seen)
        assert image["fullImage"] and "uo" not in image and not closed  # both of alice's orders are complete
        assert seen == await _expected(client, alice, mine)
        assert image["mb"] == [[2.8, 1.0], [3.0, 2.0], [3.2, 2.0]] and image["ml"] == [[4.0, 2.0], [4.2, 2.0]]
        assert image["smc"] == {"s1": {"mb": [[2.8, 1.0], [3.0, 2.0], [3.2, 2.0]], "ml": []}}

        bet = (await _order(client, alice, "BACK", 2.8, 2, "s2", matched=2.0))["betId"]  # the rest of bob's 2.8
        flush(client, clock)
        delta, _ = await _next_orders(ws, listener, seen)
        assert seen == await _expected(client, alice, mine)
        assert [(uo["id"], uo["status"], uo["sm"]) for uo in delta["uo"]] == [(bet, "EC", 2.0)]
        assert {k: delta[k] for k in ("mb", "smc")} == {"mb": [[2.8, 3.0]], "smc": {"s2": {"mb": [[2.8, 2.0]]}}}
        assert "ml" not in delta and "fullImage" not in delta

        clock.run(until_ms=exposure + 10)  # the flop is out: matches from now on will be voided on notice
        await _order(client, bob, "LAY", 3.5, 2, matched=0.0)
        bet = (await _order(client, alice, "BACK", 3.4, 3, "s1", matched=2.0))["betId"]  # 2 at 3.5; 1 unmatched
        flush(client, clock)
        delta, _ = await _next_orders(ws, listener, seen)
        assert seen == await _expected(client, alice, mine)
        assert [(uo["id"], uo["status"], uo["sm"], uo["sr"]) for uo in delta["uo"]] == [(bet, "E", 2.0, 1.0)]
        assert {k: delta[k] for k in ("mb", "smc")} == {"mb": [[3.5, 2.0]], "smc": {"s1": {"mb": [[3.5, 2.0]]}}}

        clock.run(until_ms=exposure + 1_000 + 10)  # noticed: the 3.5 match is voided, the market suspended
        flush(client, clock)
        voided, _ = await _next_orders(ws, listener, seen)
        assert seen == await _expected(client, alice, mine)
        assert [(uo["id"], uo["status"], uo["sm"], uo["sv"], uo["sl"]) for uo in voided["uo"]] == [
            (bet, "EC", 0.0, 2.0, 1.0)]  # voided, its unmatched rest lapsed at the suspension: sent once, EC
        assert {k: voided[k] for k in ("mb", "smc")} == {"mb": [[3.5, 0.0]], "smc": {"s1": {"mb": [[3.5, 0.0]]}}}
        assert [p for p, _ in seen["mb"]] == [2.8, 3.0, 3.2]

        clock.run(until_ms=GAME_1 + 4 * ROUND_MS)  # game 1 plays out and settles: its orders are cleared
        final, closed = await _next_orders(ws, listener, seen)
        while not closed:
            final, closed = await _next_orders(ws, listener, seen)
        assert final == {}  # nothing of alice's changed at the settlement: the market is only closed
        assert seen == await _expected(client, alice, mine)
        backs, lays, _ = _cached(listener)
        assert listener.stream._caches[MARKET].closed is True
    assert backs == [{"price": p, "size": s} for p, s in seen["mb"]]
    assert lays == [{"price": p, "size": s} for p, s in seen["ml"]]
