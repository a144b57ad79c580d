"""A voided market's runners read the same on every surface: refunded hands REMOVED, hands settled before it kept.

Seed 3 deals a Hold'em game in which Hands 2 and 3 can no longer win by the Turn window and are settled
LOSER there; an operator then voids the market, which refunds the bets on Hands 1 and 4. ``listMarketBook``,
the Exchange Stream's image and the Games API's snapshot and results must all say so (exchange.md: "selections
already settled stay settled").
"""

from __future__ import annotations

import json
from pathlib import Path

from exchange.clock import VirtualClock
from tests.server.helpers import APP_KEY, PLAYING_MS, START_MS, WINDOW_MS, headers, login, rpc, serving
from tests.server.test_stream import receive

MARKET = "holdem.0"
SETTLED_EARLY = {2, 3}  # what seed 3's Turn window shows, checked below before the void
EXPECTED = {1: "REMOVED", 2: "LOSER", 3: "LOSER", 4: "REMOVED"}


async def test_a_voided_market_keeps_its_early_losers_and_removes_the_rest_everywhere(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, accounts=("alice",), operators=("ops",), equities=None,
                       seed=3) as client:
        clock.advance(3 * (WINDOW_MS + PLAYING_MS))  # the Turn window is open
        alice, ops = await login(client, "alice", "pw-alice"), await login(client, "ops", "pw-ops")
        (book,) = (await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET]}))["result"]
        assert book["status"] == "OPEN"
        assert {r["selectionId"] for r in book["runners"] if r["status"] == "LOSER"} == SETTLED_EARLY

        resp = await client.post(f"/operator/v1/markets/{MARKET}/void", data=json.dumps({"reason": "feed lost"}),
                                 headers=headers(ops))
        assert resp.status == 200

        (book,) = (await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET]}))["result"]
        assert book["status"] == "CLOSED" and book["numberOfActiveRunners"] == 0
        assert {r["selectionId"]: r["status"] for r in book["runners"]} == EXPECTED

        async with client.ws_connect("/stream") as ws:
            await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
            assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
            await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]}})
            assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
            image = await receive(ws, "mcm", ct="SUB_IMAGE")
        (definition,) = [m["marketDefinition"] for m in image["mc"] if m["id"] == MARKET]
        assert definition["status"] == "CLOSED"
        assert {r["id"]: r["status"] for r in definition["runners"]} == EXPECTED

        snapshot = (await (await client.get("/games/v1/channels/holdem/snapshot")).json())["game"]
        shown = {m["marketId"]: m for m in snapshot["markets"]}
        assert {s["selectionId"]: s["status"] for s in shown[MARKET]["selections"]} == EXPECTED
        results = (await (await client.get("/games/v1/channels/holdem/results")).json())["results"]
        (ended,) = [m for r in results for m in r["markets"] if m["marketId"] == MARKET]
        assert {s["selectionId"]: s["status"] for s in ended["selections"]} == EXPECTED
