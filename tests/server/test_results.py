"""``GET /games/v1/channels/{channel}/results``: the last games a channel settled or voided, kept bounded.

The winners the route reports are checked against the engine's own showdown of
the cards it reports (High and Low of a hi/lo game), the bound by playing more
games than are kept, and every refusal for its status and stable code.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

import engine
from exchange.clock import VirtualClock
from exchange.core.events import MarketVoided
from exchange.core.market import Market, SelectionStatus
from exchange.game.channels import CHANNELS, OMAHA_HILO
from exchange.game.events import (
    DrawMade,
    GameEnded,
    GameStarted,
    HandsCannotWin,
    HoleCardsTurned,
    ResultDeclared,
    Stamped,
)
from exchange.game.rounds import timetable
from exchange.server import keys
from exchange.server.kept_results import GameResult
from exchange.server.results import RecentResults, result_json
from tests.server.helpers import APP_KEY, PLAYING_MS, WINDOW_MS, login, serving

KEEP = 3
HILO = CHANNELS["omaha-hilo"]
GAME_MS = HILO.windows * (WINDOW_MS + PLAYING_MS)


@pytest.fixture
async def client(tmp_path: Path, clock: VirtualClock) -> AsyncIterator[TestClient]:
    """Omaha Hi/Lo and Hold'em, no house, the game's own equities; the server keeps 3 results a channel."""
    async with serving(tmp_path / "ex.db", clock, accounts=(), operators=("ops",), equities=None, seed=5,
                       channels=("omaha-hilo", "holdem"), keep_results=KEEP) as test_client:
        yield test_client


async def results(client: TestClient, channel: str, query: str = "") -> dict[str, Any]:
    resp = await client.get(f"/games/v1/channels/{channel}/results{query}")
    assert resp.status == 200, await resp.text()
    body: dict[str, Any] = await resp.json()
    return body


def play_games(clock: VirtualClock, games: int) -> None:
    """Run the clock through ``games`` whole games of the hi/lo channel (each next one starts a playing window on)."""
    clock.advance(games * (GAME_MS + PLAYING_MS))


def cards(result: dict[str, Any]) -> tuple[list[str], str]:
    hands = ["".join(hand["cards"]) for hand in result["gameData"]["hands"]]
    return hands, "".join(result["gameData"]["communityCards"])


async def test_a_hi_lo_games_two_markets_are_listed_with_the_showdowns_winners(client: TestClient,
                                                                               clock: VirtualClock) -> None:
    assert (await results(client, "omaha-hilo"))["results"] == []  # nothing has ended yet
    play_games(clock, 2)
    body = await results(client, "omaha-hilo")
    assert body["channel"] == "omaha-hilo" and body["kept"] == KEEP
    assert [r["id"] for r in body["results"]] == ["omaha-hilo.1", "omaha-hilo.0"]  # newest first
    for result in body["results"]:
        hands, board = cards(result)
        assert "NOT AVAILABLE" not in board and len(board) == 10
        shown = engine.showdown("omaha-hilo", hands, board)
        high, low = result["markets"]
        assert (high["marketId"], low["marketId"]) == (result["id"], result["id"] + "-low")
        assert (high["marketType"], low["marketType"]) == ("WIN", "LOW")
        assert high["winners"] == sorted(i + 1 for i in shown.high.winners)
        low_winners = () if shown.low is None else shown.low.winners
        assert low["winners"] == (sorted(i + 1 for i in low_winners) if low_winners else [5])  # 5: "No low"
        for market in (high, low):
            assert market["result"] == "SETTLED" and market["voidReason"] is None
            assert market["deadHeat"] is (len(market["winners"]) > 1)
            won = {s["selectionId"] for s in market["selections"] if s["status"] in ("WINNER", "TIED_DEAD_HEAT")}
            assert won == set(market["winners"])
            assert set(market["settledEarly"]).isdisjoint(won)
    assert json.dumps(body)


async def test_only_the_last_results_are_kept_and_limit_takes_the_newest(client: TestClient,
                                                                         clock: VirtualClock) -> None:
    play_games(clock, KEEP + 2)
    body = await results(client, "omaha-hilo", f"?limit={KEEP}")
    assert [r["gameNumber"] for r in body["results"]] == [KEEP + 1, KEEP, KEEP - 1]
    assert [r["gameNumber"] for r in (await results(client, "omaha-hilo", "?limit=1"))["results"]] == [KEEP + 1]
    kept = client.app[keys.SERVICE].results
    assert len(kept.recent("omaha-hilo", 10**6)) == KEEP and len(kept.recent("holdem", 10**6)) == KEEP
    assert len(kept._pending) <= 2  # the games in play on the two channels, nothing older


async def test_a_voided_game_lists_both_markets_voided_with_the_reason(client: TestClient,
                                                                       clock: VirtualClock) -> None:
    ops = await login(client, "ops", "pw-ops")
    resp = await client.post("/operator/v1/markets/omaha-hilo.0/void", data=json.dumps({"reason": "feed lost"}),
                             headers={"X-Application": APP_KEY, "X-Authentication": ops})
    assert resp.status == 200
    clock.advance(0)
    result = (await results(client, "omaha-hilo"))["results"][0]
    assert (result["id"], result["status"]) == ("omaha-hilo.0", "VOID")
    assert "feed lost" in result["voidReason"]
    for market in result["markets"]:
        assert market["result"] == "VOID" and market["winners"] == [] and "feed lost" in market["voidReason"]
        assert {s["status"] for s in market["selections"]} == {"REMOVED"}
    assert all(c == "NOT AVAILABLE" for hand in result["gameData"]["hands"] for c in hand["cards"])


@pytest.mark.parametrize(("path", "status", "code"), [
    ("/games/v1/channels/nothing/results", 404, "CHANNEL_NOT_FOUND"),
    ("/games/v1/channels/omaha-hilo/results?limit=0", 400, "INVALID_INPUT_DATA"),
    (f"/games/v1/channels/omaha-hilo/results?limit={KEEP + 1}", 400, "INVALID_INPUT_DATA"),
    ("/games/v1/channels/omaha-hilo/results?limit=-1", 400, "INVALID_INPUT_DATA"),
    ("/games/v1/channels/omaha-hilo/results?limit=1.5", 400, "INVALID_INPUT_DATA"),
    ("/games/v1/channels/omaha-hilo/results?limit=%EF%BC%92", 400, "INVALID_INPUT_DATA"),  # a full-width 2
    ("/games/v1/channels/omaha-hilo/results?limit=99999999999999999999", 400, "INVALID_INPUT_DATA"),
    ("/games/v1/channels/omaha-hilo/results?count=2", 400, "INVALID_INPUT_DATA"),
    ("/games/v1/channels/omaha-hilo/results?limit=1&limit=2", 400, "INVALID_INPUT_DATA"),  # which one?
])
async def test_a_bad_channel_or_limit_is_refused_with_a_stable_code(client: TestClient, path: str, status: int,
                                                                     code: str) -> None:
    resp = await client.get(path)
    assert resp.status == status
    body = await resp.json()
    assert body["error"] == code and body["details"]


@pytest.mark.parametrize(("path", "details"), [
    ("/games/v1/channels?channel=holdem", "unknown query parameters ['channel']; the channel list takes none"),
    ("/games/v1/channels/omaha-hilo/snapshot?limit=1&at=5", "unknown query parameters ['at', 'limit']; a snapshot "
                                                             "takes none"),
    ("/games/v1/channels/omaha-hilo/results?limit=1&count=2", "unknown query parameters ['count']; the only one is "
                                                              f"limit (1 to {KEEP})"),
])
async def test_a_query_parameter_a_games_route_does_not_take_is_refused(client: TestClient, path: str,
                                                                        details: str) -> None:
    """Not ignored: a client asking a snapshot ``?at=5`` would take the game now for the game it asked for."""
    resp = await client.get(path)
    body = await resp.json()
    assert (resp.status, body["error"], body["details"]) == (400, "INVALID_INPUT_DATA", details)
    resp = await client.get(path.split("?")[0])
    assert resp.status == 200  # the route itself answers


async def test_a_long_limit_is_quoted_cut_and_said_to_be(client: TestClient) -> None:
    body = await (await client.get("/games/v1/channels/omaha-hilo/results?limit=" + "9" * 33)).json()
    assert body["details"].endswith(f"not '{'9' * 20}...'")  # (it read as the whole value, 20 nines)


async def test_the_route_is_in_the_openapi_document(client: TestClient) -> None:
    doc = await (await client.get("/openapi.json")).json()
    responses = doc["paths"]["/games/v1/channels/{channelId}/results"]["get"]["responses"]
    assert {"200", "400", "404"} <= set(responses)


def test_early_results_losers_settled_early_and_a_market_voided_on_its_own() -> None:
    """The fold, event by event: a Low market decided early, a hand settled as a loser before the result."""
    results = RecentResults({"omaha-hilo": OMAHA_HILO}, keep=2)
    hands = tuple(tuple(engine.cards.parse_cards(h)) for h in ("AsKs2d3c", "QdQcJh4h", "7h6h5s8s", "2c2hTdTs"))

    def note(market: str, event: object) -> None:
        results.note(Stamped(0, 9_000, market, event))

    note("omaha-hilo.4", GameStarted("omaha-hilo", 4, "omaha-hilo", 4, timetable(OMAHA_HILO, 0)))
    note("omaha-hilo.4", HoleCardsTurned(hands))
    note("omaha-hilo.4-low", HandsCannotWin((2, 4)))
    note("omaha-hilo.4-low", ResultDeclared((1, 3), (), True, "low"))
    note("omaha-hilo.4", MarketVoided(9_000, "omaha-hilo.4", (), "house", "technical fault"))
    note("omaha-hilo.3", GameEnded("SETTLED"))  # another game's end: not this one's
    assert results.recent("omaha-hilo", 5) == []
    note("omaha-hilo.4", GameEnded("VOID"))
    [result] = [result_json(r, OMAHA_HILO) for r in results.recent("omaha-hilo", 5)]
    high, low = result["markets"]
    assert (high["result"], high["voidReason"], high["winners"]) == ("VOID", "technical fault", [])
    assert (low["result"], low["winners"], low["deadHeat"], low["early"]) == ("SETTLED", [1, 3], True, True)
    assert low["settledEarly"] == [2, 4]
    assert [s["status"] for s in low["selections"]] == ["TIED_DEAD_HEAT", "LOSER", "TIED_DEAD_HEAT", "LOSER",
                                                        "LOSER"]
    assert result["gameData"]["hands"][0]["cards"] == ["As", "Ks", "2d", "3c"]
    assert result["gameData"]["communityCards"] == ["NOT AVAILABLE"] * 5


async def test_a_draw_games_results_keep_each_hands_draws(tmp_path: Path, clock: VirtualClock) -> None:
    """A draw game's result gives each hand's draws, as its snapshot does: what it threw and drew at each draw
    (the dead cards its prices counted out). The route left them out. Checked against the game's own draw events,
    and kept through the journal's record of the result."""
    draw5 = CHANNELS["draw5"]
    async with serving(tmp_path / "ex.db", clock, accounts=(), equities=None, seed=5, channels=("draw5",)) as client:
        service = client.app[keys.SERVICE]
        draws: list[object] = []
        service.channels["draw5"].subscribe(lambda stamped: draws.append(stamped.event))
        clock.advance(draw5.windows * (WINDOW_MS + PLAYING_MS) + PLAYING_MS)
        [result] = (await results(client, "draw5"))["results"]
    made = [e for e in draws if isinstance(e, DrawMade)]
    assert len(made) == draw5.layout.draws >= 1
    for seat, hand in enumerate(result["gameData"]["hands"]):
        assert hand["draws"] == [{"discarded": [str(c) for c in e.discarded[seat]],
                                  "drawn": [str(c) for c in e.drawn[seat]]} for e in made]
        assert set(hand["draws"][-1]["drawn"]) <= set(hand["cards"])  # the last draw's cards are held at the end
    assert any(d["discarded"] for hand in result["gameData"]["hands"] for d in hand["draws"])
    [kept] = service.results.recent("draw5", 1)
    assert GameResult.from_dict(kept.to_dict()) == kept and len(kept.draws) == len(made)


def test_a_game_a_start_voided_keeps_what_was_settled_before_the_stop() -> None:
    """A hi/lo game stopped after its Low market settled early (no low possible) and after Hand 2 was settled as a
    loser of the High market: the start voids the High market alone, and the result says so, hand by hand."""
    high, low = (Market(market_id, ids, 200, 500) for market_id, ids in (("omaha-hilo.4", (1, 2, 3, 4)),
                                                                         ("omaha-hilo.4-low", (1, 2, 3, 4, 5))))
    high.selection_status[1] = SelectionStatus.LOSER
    low.selection_status[:] = [SelectionStatus.LOSER] * 4 + [SelectionStatus.WINNER]  # "No low"
    results = RecentResults({"omaha-hilo": OMAHA_HILO}, keep=5)
    markets = {"omaha-hilo.4": high, "omaha-hilo.4-low": low, "holdem.9": Market("holdem.9", (1, 2, 3, 4), 200, 500)}
    (ended,) = results.voided_at_start(["omaha-hilo.4", "holdem.9"], 7_000, "the server stopped", markets)
    assert results.recent("omaha-hilo", 5) == [ended]  # kept; Hold'em is not a channel served here
    assert (ended.game_id, ended.game_number, ended.status, ended.void_reason, ended.hands) == (
        "omaha-hilo.4", 4, "VOID", "the server stopped", ())
    answer = result_json(ended, OMAHA_HILO)["markets"]
    assert [(m["result"], m["winners"], m["early"], m["settledEarly"], m["voidReason"]) for m in answer] == [
        ("VOID", [], False, [2], "the server stopped"), ("SETTLED", [5], True, [], None)]
    assert [s["status"] for s in answer[0]["selections"]] == ["REMOVED", "LOSER", "REMOVED", "REMOVED"]
    assert [s["status"] for s in answer[1]["selections"]] == ["LOSER"] * 4 + ["WINNER"]
