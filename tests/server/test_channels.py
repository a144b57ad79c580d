"""Several channels in one server; a hi/lo game's High and Low markets on every route that lists markets."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.game.channels import CHANNELS
from exchange.server import keys
from tests.server.helpers import APP_KEY, PLAYING_MS, WINDOW_MS, login, place, rpc, serving
from tests.server.test_stream import receive

HIGH, LOW = "omaha-hilo.0", "omaha-hilo.0-low"


@pytest.fixture
async def client(tmp_path: Path, clock: VirtualClock) -> AsyncIterator[TestClient]:
    """Omaha Hi/Lo, 7-Card Stud and 2-7 Triple Draw with the house, the game's own equities; alice has 1000.00."""
    async with serving(tmp_path / "ex.db", clock, accounts=("alice",), equities=None, house=True, seed=3,
                       channels=("omaha-hilo", "stud7", "triple-draw-27")) as test_client:
        yield test_client


async def test_the_channel_list_names_each_games_rounds_and_markets(client: TestClient) -> None:
    listed = {c["id"]: c for c in (await (await client.get("/games/v1/channels")).json())["channels"]}
    assert set(listed) == {"omaha-hilo", "stud7", "triple-draw-27"}
    assert listed["omaha-hilo"]["markets"] == ["WIN", "LOW"] and listed["stud7"]["markets"] == ["WIN"]
    assert listed["stud7"]["rounds"] == list(CHANNELS["stud7"].layout.windows)


async def test_the_stud_snapshot_shows_faces_and_round_names(client: TestClient, clock: VirtualClock) -> None:
    clock.advance(WINDOW_MS + PLAYING_MS)  # the Deal window closed: 3rd street is turned
    game = (await (await client.get("/games/v1/channels/stud7/snapshot")).json())["game"]
    assert game["roundName"] == "3rd street"
    for hand in game["gameData"]["hands"]:
        assert hand["faces"] == ["DOWN", "DOWN", "UP"] + ["DOWN"] * 4
        assert hand["cards"][3:] == ["NOT AVAILABLE"] * 4 and "NOT AVAILABLE" not in hand["cards"][:3]
    assert game["gameData"]["communityCards"] == []


async def test_hilo_markets_in_catalogue_book_snapshot_stream_and_settlement(
    client: TestClient, clock: VirtualClock
) -> None:
    alice = await login(client, "alice", "pw-alice")
    catalogue = (await rpc(client, alice, "listMarketCatalogue", {
        "filter": {}, "maxResults": 50, "marketProjection": ["RUNNER_DESCRIPTION"]}))["result"]
    by_id = {m["marketId"]: m for m in catalogue}
    assert [r["runnerName"] for r in by_id[LOW]["runners"]] == ["Hand 1", "Hand 2", "Hand 3", "Hand 4", "No low"]
    assert len(by_id[HIGH]["runners"]) == 4 and by_id[LOW]["marketName"].endswith("Low")

    books = (await rpc(client, alice, "listMarketBook", {"marketIds": [HIGH, LOW]}))["result"]
    assert [len(b["runners"]) for b in books] == [4, 5]

    async with client.ws_connect("/stream") as ws:
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [HIGH, LOW]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
        assert {m["id"] for m in image["mc"]} == {HIGH, LOW}

    report = (await rpc(client, alice, "placeOrders", place(LOW, 5, "BACK", 1.01, 2)))["result"]
    assert report["status"] == "SUCCESS"

    snap = (await (await client.get("/games/v1/channels/omaha-hilo/snapshot")).json())["game"]
    assert [m["marketId"] for m in snap["markets"]] == [HIGH, LOW]
    assert [s["name"] for s in snap["markets"][1]["selections"]][-1] == "No low"

    clock.advance(CHANNELS["omaha-hilo"].windows * (WINDOW_MS + PLAYING_MS) + PLAYING_MS)
    cleared = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED"}))["result"]
    assert [o["marketId"] for o in cleared["clearedOrders"]] == [LOW]
    assert json.dumps(cleared)  # plain JSON all the way


async def test_low_markets_have_their_own_market_type_and_filters_select_by_it(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")

    async def catalogue(codes: list[str] | None) -> dict[str, str]:
        market_filter = {} if codes is None else {"marketTypeCodes": codes}
        answer = await rpc(client, alice, "listMarketCatalogue", {"filter": market_filter, "maxResults": 50,
                                                                 "marketProjection": ["MARKET_DESCRIPTION"]})
        return {m["marketId"]: m["description"]["marketType"] for m in answer["result"]}

    every = await catalogue(None)
    assert every == {HIGH: "WIN", LOW: "LOW", "stud7.0": "WIN", "triple-draw-27.0": "WIN"}
    assert await catalogue(["LOW"]) == {LOW: "LOW"}
    assert await catalogue(["WIN"]) == {m: t for m, t in every.items() if m != LOW}
    assert await catalogue(["WIN", "LOW"]) == every and await catalogue(["PLACE"]) == {}

    async def events(codes: list[str]) -> dict[str, int]:
        answer = await rpc(client, alice, "listEvents", {"filter": {"marketTypeCodes": codes}})
        return {e["event"]["id"]: e["marketCount"] for e in answer["result"]}

    assert await events(["LOW"]) == {"omaha-hilo.0": 1}
    assert await events(["WIN"]) == {"omaha-hilo.0": 1, "stud7.0": 1, "triple-draw-27.0": 1}
    types = (await rpc(client, alice, "listMarketTypes", {"filter": {}}))["result"]
    assert types == [{"marketType": "LOW", "marketCount": 1}, {"marketType": "WIN", "marketCount": 3}]

    async with client.ws_connect("/stream") as ws:
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketTypes": ["LOW"]}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
    assert [(m["id"], m["marketDefinition"]["marketType"]) for m in image["mc"]] == [(LOW, "LOW")]


async def test_a_client_sees_one_market_type_for_a_market_on_every_surface(
    client: TestClient, clock: VirtualClock
) -> None:
    """The High market of a hi/lo game is a ``WIN`` market (Betfair's code for a market the best hand wins) in
    API-NG, the Exchange Stream, the Games API's channel list, snapshot and results alike; the Low market ``LOW``."""
    alice = await login(client, "alice", "pw-alice")
    expected = {HIGH: "WIN", LOW: "LOW", "stud7.0": "WIN"}
    catalogue = (await rpc(client, alice, "listMarketCatalogue", {
        "filter": {"marketIds": list(expected)}, "maxResults": 50, "marketProjection": ["MARKET_DESCRIPTION"]}))
    assert {m["marketId"]: m["description"]["marketType"] for m in catalogue["result"]} == expected
    async with client.ws_connect("/stream") as ws:
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": list(expected)}})
        assert (await receive(ws, "status"))["statusCode"] == "SUCCESS"
        image = await receive(ws, "mcm", ct="SUB_IMAGE")
    assert {m["id"]: m["marketDefinition"]["marketType"] for m in image["mc"]} == expected

    listed = {c["id"]: c for c in (await (await client.get("/games/v1/channels")).json())["channels"]}
    assert (listed["omaha-hilo"]["markets"], listed["stud7"]["markets"]) == (["WIN", "LOW"], ["WIN"])
    shown = {}
    for channel in ("omaha-hilo", "stud7"):
        snap = (await (await client.get(f"/games/v1/channels/{channel}/snapshot")).json())["game"]
        shown.update({m["marketId"]: m["marketType"] for m in snap["markets"]})
    assert shown == expected

    clock.advance(CHANNELS["stud7"].windows * (WINDOW_MS + PLAYING_MS) + PLAYING_MS)  # both first games ended
    ended = {}
    for channel in ("omaha-hilo", "stud7"):
        body = await (await client.get(f"/games/v1/channels/{channel}/results")).json()
        ended.update({m["marketId"]: m["marketType"] for r in body["results"] for m in r["markets"]})
    assert {m: ended[m] for m in expected} == expected


async def test_the_snapshot_says_betting_is_open_while_the_low_market_is_open_after_the_high_settled(
    tmp_path: Path, clock: VirtualClock
) -> None:
    """Seed 19 deals a game whose High market is won at the Flop's close while its Low market trades on in the
    Turn window: the snapshot must say betting is open (the page shows the countdown, not "suspended")."""
    async with serving(tmp_path / "ex.db", clock, accounts=(), equities=None, house=True, seed=19,
                       channels=("omaha-hilo",)) as client:
        clock.advance(3 * (WINDOW_MS + PLAYING_MS))  # the Turn window opens
        game = (await (await client.get("/games/v1/channels/omaha-hilo/snapshot")).json())["game"]
        high, low = game["markets"]
        assert (game["roundName"], high["marketStatus"], low["marketStatus"]) == ("Turn", "SETTLED", "ACTIVE")
        assert game["bettingOpen"] is True and game["bettingWindowRemainingMs"] == WINDOW_MS
        clock.advance(WINDOW_MS)  # the Turn window closes: nothing is open
        game = (await (await client.get("/games/v1/channels/omaha-hilo/snapshot")).json())["game"]
        assert game["bettingOpen"] is False


async def test_an_operator_acts_on_both_markets_of_a_hi_lo_game_through_either(client: TestClient) -> None:
    client.app[keys.STORE].add("ops", "pw-ops", deposit=0, operator=True)
    ops, alice = await login(client, "ops", "pw-ops"), await login(client, "alice", "pw-alice")

    async def act(action: str, market_id: str) -> tuple[int, dict]:
        resp = await client.post(f"/operator/v1/markets/{market_id}/{action}",
                                 data=json.dumps({"reason": "feed lost"}), headers={"X-Application": APP_KEY,
                                                                                   "X-Authentication": ops})
        return resp.status, await resp.json()

    async def statuses() -> list[str]:
        answer = await rpc(client, alice, "listMarketBook", {"marketIds": [HIGH, LOW]})
        return [book["status"] for book in answer["result"]]

    assert await statuses() == ["OPEN", "OPEN"]
    assert (await act("suspend", LOW))[0] == 200 and await statuses() == ["SUSPENDED", "SUSPENDED"]
    code, body = await act("suspend", HIGH)
    assert (code, body["error"]) == (409, "MARKET_STATE_CONFLICT")
    assert (await act("resume", HIGH))[0] == 200 and await statuses() == ["OPEN", "OPEN"]
    code, body = await act("void", LOW)
    assert (code, body["marketStatus"]) == (200, "VOID") and await statuses() == ["CLOSED", "CLOSED"]


async def test_irregularities_are_dealt_on_the_hold_em_dealt_channels_only(tmp_path: Path,
                                                                           clock: VirtualClock) -> None:
    async with serving(tmp_path / "ex.db", clock, accounts=(), equities=None, seed=3,
                       channels=("omaha-hilo", "stud7"), irregularity_rate=1.0) as client:
        channels = client.app[keys.SERVICE].channels
        assert channels["omaha-hilo"].irregularities is not None and channels["stud7"].irregularities is None
