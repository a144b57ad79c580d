"""Every order subscription's image and deltas, folded as a Betfair client folds them, equal a fresh image taken at
that moment with the same ``orderFilter``: several connections of one account with different filters, connections
that subscribe in the middle of a burst (pending changes not yet flushed), a resubscription on the same connection,
fills, cancels, replaces, voids and the market's close.

The fold is written here from Betfair's rules, sharing nothing with the server: an image (``SUB_IMAGE``) starts the
client afresh, a runner marked ``fullImage`` replaces what was known of it, otherwise an order record replaces the
one with its id and a matched level ``[price, size]`` sets that level (size 0 removes it), overall (``mb``/``ml``)
and per strategy ref (``smc``).
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.core.commands import VoidMatchedSince
from exchange.server import keys
from tests.server.helpers import APP_KEY, PLAYING_MS, WINDOW_MS, login, place, rpc
from tests.server.test_stream import MARKET, OS, authenticated, flush, receive

Levels = dict[float, float]


class Runner:
    def __init__(self) -> None:
        self.uo: dict[str, dict[str, Any]] = {}
        self.mb: Levels = {}
        self.ml: Levels = {}
        self.smc: dict[str, dict[str, Levels]] = {}

    def apply(self, orc: dict[str, Any]) -> None:
        for uo in orc.get("uo", ()):
            self.uo[uo["id"]] = uo
        _levels(self.mb, orc.get("mb", ()))
        _levels(self.ml, orc.get("ml", ()))
        for ref, change in orc.get("smc", {}).items():
            mine = self.smc.setdefault(ref, {"mb": {}, "ml": {}})
            _levels(mine["mb"], change.get("mb", ()))
            _levels(mine["ml"], change.get("ml", ()))

    def view(self) -> tuple[Any, ...]:
        executable = {i: u for i, u in self.uo.items() if u["status"] == "E"}
        smc = {ref: m for ref, m in self.smc.items() if m["mb"] or m["ml"]}
        return executable, self.mb, self.ml, smc


def _levels(levels: Levels, change: Any) -> None:
    for price, size in change:
        if size:
            levels[price] = size
        else:
            levels.pop(price, None)


class Fold:
    """A client of one order subscription: what it knows after each message."""

    def __init__(self, ws: ClientWebSocketResponse, order_filter: dict[str, Any]) -> None:
        self.ws = ws
        self.order_filter = order_filter
        self.markets: dict[str, dict[int, Runner]] = {}
        self.closed: set[str] = set()
        self.messages: list[dict[str, Any]] = []
        self._asked = 1000

    def apply(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if message.get("ct") == "SUB_IMAGE":
            self.markets, self.closed = {}, set()
        else:  # a delta says something: no empty message, market (unless closing) or runner
            assert message["oc"] and all(m["orc"] or m.get("closed") for m in message["oc"]), message
            assert all(len(orc) > 1 for m in message["oc"] for orc in m["orc"]), message
        for market in message.get("oc", ()):
            runners = self.markets.setdefault(market["id"], {})
            if market.get("closed"):
                self.closed.add(market["id"])
            for orc in market.get("orc", ()):
                if orc.get("fullImage") or orc["id"] not in runners:
                    runners[orc["id"]] = Runner()
                runners[orc["id"]].apply(orc)

    async def subscribe(self) -> None:
        await self.ws.send_json({"op": OS, "id": 2, "orderFilter": self.order_filter})
        assert (await receive(self.ws, "status"))["statusCode"] == "SUCCESS"
        self.apply(await receive(self.ws, "ocm", ct="SUB_IMAGE"))

    async def settle(self, client: TestClient) -> None:
        hub = client.app[keys.HUB]
        while hub._tasks:
            await asyncio.gather(*list(hub._tasks))
        self._asked += 1
        await self.ws.send_json({"op": "heartbeat", "id": self._asked})
        while True:
            message = json.loads((await self.ws.receive(timeout=3)).data)
            if message.get("op") == "status" and message.get("id") == self._asked:
                return
            if message.get("op") == "ocm" and message.get("ct") != "HEARTBEAT":
                self.apply(message)

    def view(self) -> dict[tuple[str, int], Any]:
        out = {}
        for market_id, runners in self.markets.items():
            if market_id in self.closed:
                continue
            for selection_id, runner in runners.items():
                view = runner.view()
                if any(view):
                    out[market_id, selection_id] = view
        return out


FILTERS: list[dict[str, Any]] = [
    {},
    {"customerStrategyRefs": ["s1"], "partitionMatchedByStrategyRef": True, "includeOverallPosition": False},
    {"partitionMatchedByStrategyRef": True},
    {"customerStrategyRefs": ["s2", ""], "partitionMatchedByStrategyRef": True},
]
PRICES = (2.0, 2.5, 3.0, 3.5)


async def _as(ws: ClientWebSocketResponse, token: str) -> None:
    await receive(ws, "connection")
    await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
    assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"


async def _fresh(client: TestClient, token: str, order_filter: dict[str, Any]) -> dict[tuple[str, int], Any]:
    async with client.ws_connect("/stream") as ws:
        await _as(ws, token)
        fold = Fold(ws, order_filter)
        await fold.subscribe()
        return fold.view()


async def _step(rng: random.Random, client: TestClient, tokens: dict[str, str], clock: VirtualClock,
                placed: list[str], fills: list[int]) -> None:
    kind = rng.choices(["alice", "bob", "cancel", "replace", "void"], weights=[5, 4, 2, 1, 1])[0]
    if kind in ("alice", "bob"):
        params = place(MARKET, rng.choice([1, 2]), rng.choice(["BACK", "LAY"]), rng.choice(PRICES), rng.randint(2, 6))
        ref = rng.choice([None, "s1", "s2"])
        if ref is not None:
            params["customerStrategyRef"] = ref
        result = (await rpc(client, tokens[kind], "placeOrders", params))["result"]
        if result["status"] == "SUCCESS":
            (report,) = result["instructionReports"]
            if kind == "alice":
                placed.append(report["betId"])
            if report["sizeMatched"]:
                fills.append(clock.now())
    elif kind == "cancel" and placed:
        await rpc(client, tokens["alice"], "cancelOrders",
                  {"marketId": MARKET, "instructions": [{"betId": rng.choice(placed)}]})
    elif kind == "replace" and placed:
        await rpc(client, tokens["alice"], "replaceOrders", {"marketId": MARKET, "instructions": [
            {"betId": rng.choice(placed), "newPrice": rng.choice(PRICES)}]})
    elif kind == "void" and fills:
        client.app[keys.SERVICE].execute(VoidMatchedSince(clock.now(), MARKET, rng.choice(fills)))
    clock.advance(rng.choice([0, 0, 1]))


@pytest.mark.parametrize("seed", [4, 5, 7])  # each walk fills, voids a strategy's level to 0 and resubscribes
async def test_every_subscription_folds_to_a_fresh_image(seed: int, client: TestClient, clock: VirtualClock) -> None:
    rng = random.Random(seed)
    tokens = {"bob": await login(client, "bob", "pw-bob")}
    folds: list[Fold] = []
    sockets = [client.ws_connect("/stream") for _ in FILTERS]
    opened = [await s.__aenter__() for s in sockets]
    try:
        tokens["alice"] = await authenticated(client, opened[0])
        for ws in opened[1:]:
            await _as(ws, tokens["alice"])
        placed: list[str] = []
        fills: list[int] = []
        resubscribed = 0
        for i in range(14):
            for _ in range(rng.randint(1, 3)):
                await _step(rng, client, tokens, clock, placed, fills)
                if rng.random() < 0.2:  # a flush starts: what follows runs while it waits for the journal
                    flush(client, clock)
                if len(folds) < len(FILTERS) and rng.random() < 0.3:  # a subscription in the middle of a burst
                    folds.append(Fold(opened[len(folds)], FILTERS[len(folds)]))
                    await folds[-1].subscribe()
                elif folds and rng.random() < 0.1:  # a resubscription on the same connection
                    await rng.choice(folds).subscribe()
                    resubscribed += 1
            flush(client, clock)
            for fold in folds:
                await fold.settle(client)
            for fold in folds:
                assert fold.view() == await _fresh(client, tokens["alice"], fold.order_filter), (i, fold.order_filter)
        assert len(folds) >= 2 and fills and resubscribed
        deltas = [orc for fold in folds for m in fold.messages if m.get("ct") != "SUB_IMAGE"
                  for market in m.get("oc", ()) for orc in market["orc"]]
        ref_zeros = [level for orc in deltas for ref in orc.get("smc", {}).values() for side in ref.values()
                     for level in side if level[1] == 0]
        assert ref_zeros and any(u["sv"] for orc in deltas for u in orc.get("uo", ()))  # voids reached the folds
        clock.run(until_ms=clock.now() + 5 * (WINDOW_MS + PLAYING_MS))
        for fold in folds:
            await fold.settle(client)
            assert MARKET in fold.closed and fold.view() == await _fresh(client, tokens["alice"], fold.order_filter)
    finally:
        for s in sockets:
            await s.__aexit__(None, None, None)
