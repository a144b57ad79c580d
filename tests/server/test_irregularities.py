"""Dealer irregularities on the live server: what a trader sees and what happens to their bets."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aiohttp import ClientWebSocketResponse, WSMsgType
from aiohttp.test_utils import TestClient

from engine.irregularities import Irregularity, Kind
from exchange.clock import VirtualClock
from exchange.game.irregular import IrregularityPlan, scripted
from exchange.server import keys
from tests.server.helpers import APP_KEY, PLAYING_MS, START_MS, WINDOW_MS, login, place, rpc

ROUND_MS = WINDOW_MS + PLAYING_MS
GAME_1 = START_MS + 4 * ROUND_MS  # game 0 began at START_MS; the next deals one playing window after its end


def inject(client: TestClient, plan: IrregularityPlan) -> None:
    client.app[keys.SERVICE].channels["holdem"].irregularities = scripted({1: plan})


async def cleared(client: TestClient, token: str, status: str) -> dict[int, dict[str, Any]]:
    answer = await rpc(client, token, "listClearedOrders", {"betStatus": status})
    return {int(o["betId"]): o for o in answer["result"]["clearedOrders"]}


async def book_status(client: TestClient, token: str, market_id: str) -> str:
    answer = await rpc(client, token, "listMarketBook", {"marketIds": [market_id]})
    return str(answer["result"][0]["status"])


async def test_a_premature_flop_voids_the_bets_matched_after_it(client: TestClient, clock: VirtualClock) -> None:
    # the flop is turned halfway through game 1's Pre-flop window; the exchange acts one second later
    inject(client, IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP), at_permille=500, notice_ms=1_000))
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    preflop_opens = GAME_1 + ROUND_MS
    exposure = preflop_opens + WINDOW_MS // 2
    clock.run(until_ms=preflop_opens + 10)
    lay = await rpc(client, alice, "placeOrders", place("holdem.1", 1, "LAY", 3.0, 20))
    before = await rpc(client, bob, "placeOrders", place("holdem.1", 1, "BACK", 3.0, 4))
    clock.run(until_ms=exposure + 10)
    snapshot = await (await client.get("/games/v1/channels/holdem/snapshot")).json()
    exposed = snapshot["game"]["gameData"]["exposedCards"]
    assert len(exposed) == 3 and snapshot["game"]["gameData"]["communityCards"] == ["NOT AVAILABLE"] * 5
    assert "deadCards" not in snapshot["game"]["gameData"]  # rule 3: the flop goes back into the deck
    after = await rpc(client, bob, "placeOrders", place("holdem.1", 1, "BACK", 3.0, 6))
    assert after["result"]["instructionReports"][0]["sizeMatched"] == 6.0  # matched: the void comes on notice
    clock.run(until_ms=exposure + 1_000 + 10)
    assert await book_status(client, bob, "holdem.1") == "SUSPENDED"
    refused = await rpc(client, bob, "placeOrders", place("holdem.1", 1, "BACK", 3.0, 2))
    assert refused["result"]["instructionReports"][0]["errorCode"] == "MARKET_NOT_OPEN_FOR_BETTING"
    clock.run(until_ms=GAME_1 + 4 * ROUND_MS)  # game 1 plays out and settles
    assert await book_status(client, bob, "holdem.1") == "CLOSED"
    bet = {name: r["result"]["instructionReports"][0]["betId"] for name, r in
           (("lay", lay), ("before", before), ("after", after))}
    voided, settled = await cleared(client, bob, "VOIDED"), await cleared(client, bob, "SETTLED")
    assert int(bet["after"]) in voided and voided[int(bet["after"])]["sizeSettled"] == 6.0
    assert int(bet["before"]) in settled and int(bet["before"]) not in voided
    assert voided[int(bet["after"])]["profit"] == 0.0


async def test_an_extra_card_burned_is_shown_as_dead(client: TestClient, clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=1)))  # rule 5: it becomes the burn card
    clock.run(until_ms=GAME_1 + 10)
    snapshot = await (await client.get("/games/v1/channels/holdem/snapshot")).json()
    data = snapshot["game"]["gameData"]
    assert len(data["exposedCards"]) == 1 and data["deadCards"] == data["exposedCards"]


async def test_a_misdeal_closes_the_market_with_no_winner(client: TestClient, clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=2)))
    bob = await login(client, "bob", "pw-bob")
    clock.run(until_ms=GAME_1 + 10)
    answer = await rpc(client, bob, "listMarketBook", {"marketIds": ["holdem.1"]})
    book = answer["result"][0]
    assert book["status"] == "CLOSED" and all(r["status"] != "WINNER" for r in book["runners"])
    refused = await rpc(client, bob, "placeOrders", place("holdem.1", 1, "BACK", 3.0, 2))
    assert refused["result"]["instructionReports"][0]["errorCode"] == "MARKET_NOT_OPEN_FOR_BETTING"
    game = client.app[keys.SERVICE].channels["holdem"].game("holdem.1")
    assert game is not None and game.phase.value == "VOID"
    snapshot = await (await client.get("/games/v1/channels/holdem/snapshot")).json()
    shown = snapshot["game"]["gameData"]["exposedCards"]
    assert len(shown) == 2
    # the recent results keep what the misdeal showed: a page opened later sees why the game was voided
    answer = await (await client.get("/games/v1/channels/holdem/results", params={"limit": "1"})).json()
    [result] = answer["results"]
    assert (result["id"], result["status"]) == ("holdem.1", "VOID")
    assert result["gameData"]["exposedCards"] == shown and "deadCards" not in result["gameData"]


async def test_the_results_keep_the_cards_an_error_showed_and_those_burned(client: TestClient,
                                                                          clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=1)))  # rule 5: it becomes the burn card
    clock.run(until_ms=GAME_1 + 10)
    shown = (await (await client.get("/games/v1/channels/holdem/snapshot")).json())["game"]["gameData"]
    clock.run(until_ms=GAME_1 + 4 * ROUND_MS)  # game 1 plays out and settles
    answer = await (await client.get("/games/v1/channels/holdem/results", params={"limit": "2"})).json()
    kept = {r["id"]: r for r in answer["results"]}
    assert kept["holdem.1"]["status"] == "SETTLED"
    data = kept["holdem.1"]["gameData"]
    assert (data["exposedCards"], data["deadCards"]) == (shown["exposedCards"], shown["deadCards"])
    assert "exposedCards" not in kept["holdem.0"]["gameData"]  # a clean deal shows none


async def frames_until(ws: ClientWebSocketResponse, found: Callable[[dict[str, Any]], bool],
                       limit: int = 40) -> dict[str, Any]:
    """Read stream messages until one satisfies ``found`` (bounded)."""
    for _ in range(limit):
        msg = await ws.receive(timeout=3)
        assert msg.type is WSMsgType.TEXT, msg
        message: dict[str, Any] = json.loads(msg.data)
        if found(message):
            return message
    raise AssertionError(f"no such stream message in {limit}")


def voided_order(message: dict[str, Any], bet_id: str) -> bool:
    return message.get("op") == "ocm" and any(
        uo["id"] == bet_id and uo["sv"] > 0
        for oc in message.get("oc", []) for orc in oc.get("orc", []) for uo in orc.get("uo", []))


def suspended_definition(message: dict[str, Any]) -> bool:
    return message.get("op") == "mcm" and any(
        mc.get("marketDefinition", {}).get("status") == "SUSPENDED" for mc in message.get("mc", []))


async def test_the_stream_republishes_the_market_and_the_voided_orders(client: TestClient,
                                                                       clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP), at_permille=500, notice_ms=1_000))
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    preflop_opens = GAME_1 + ROUND_MS
    exposure = preflop_opens + WINDOW_MS // 2
    clock.run(until_ms=exposure + 10)
    ws = await client.ws_connect("/stream")
    await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": bob})
    await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": ["holdem.1"]}})
    await ws.send_json({"op": "orderSubscription", "id": 3})
    await frames_until(ws, lambda m: m.get("op") == "ocm" and m.get("ct") == "SUB_IMAGE")
    await rpc(client, alice, "placeOrders", place("holdem.1", 2, "LAY", 3.0, 20))
    after = await rpc(client, bob, "placeOrders", place("holdem.1", 2, "BACK", 3.0, 6))
    bet_id = after["result"]["instructionReports"][0]["betId"]
    clock.run(until_ms=exposure + 1_000 + 10)  # noticed: suspended, the match voided
    clock.advance(500)  # past the stream's conflation
    definition = await frames_until(ws, suspended_definition)
    version = next(mc["marketDefinition"]["version"] for mc in definition["mc"] if "marketDefinition" in mc)
    book = (await rpc(client, bob, "listMarketBook", {"marketIds": ["holdem.1"]}))["result"][0]
    assert book["status"] == "SUSPENDED" and book["version"] == version
    await frames_until(ws, lambda m: voided_order(m, bet_id))
    await ws.close()
