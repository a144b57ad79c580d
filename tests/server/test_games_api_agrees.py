"""The Games API says of a hi/lo game's markets what API-NG says of them, at every moment and once they end.

Seed 19 deals an Omaha Hi/Lo game whose High market is won at the Flop's close while the Low market trades on;
the snapshot is read every half second of the virtual clock and its markets' and selections' statuses are
compared with ``listMarketBook``'s, then the results route's winners and statuses with the closed books.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.game.channels import CHANNELS
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, login, rpc, serving

CHANNEL = "omaha-hilo"
#: (listMarketBook's runner status, the snapshot's selection status) that say the same.
SAME_LIVE = {("ACTIVE", "IN_PLAY"), ("LOSER", "CAN_NOT_WIN"), ("LOSER", "LOSER"), ("WINNER", "WINNER"),
             ("WINNER", "TIED_DEAD_HEAT")}
SAME_ENDED = {("LOSER", "LOSER"), ("WINNER", "WINNER"), ("WINNER", "TIED_DEAD_HEAT")}


async def books(client: TestClient, token: str, market_ids: list[str]) -> dict[str, dict]:
    answer = await rpc(client, token, "listMarketBook", {"marketIds": market_ids})
    return {book["marketId"]: book for book in answer["result"]}


async def test_the_snapshot_and_the_results_agree_with_the_market_book(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, accounts=("alice",), equities=None, house=True, seed=19,
                       channels=(CHANNEL,)) as client:
        alice = await login(client, "alice", "pw-alice")
        seen = set()
        for _ in range((2 * CHANNELS[CHANNEL].windows + 1) * (WINDOW_MS + PLAYING_MS) // 500):  # two games
            clock.advance(500)
            game = (await (await client.get(f"/games/v1/channels/{CHANNEL}/snapshot")).json())["game"]
            book_of = await books(client, alice, [m["marketId"] for m in game["markets"]])
            for market in game["markets"]:
                book = book_of[market["marketId"]]
                assert market["status"] == book["status"], (clock.now(), market["marketId"])
                pairs = {(r["status"], s["status"]) for r, s in zip(book["runners"], market["selections"], strict=True)}
                assert pairs <= SAME_LIVE, (clock.now(), market["marketId"], pairs)
                seen.add((market["marketType"], market["marketStatus"]))
            open_markets = [m for m in game["markets"] if m["status"] == "OPEN"]
            assert game["bettingOpen"] is bool(open_markets)
        assert {("WIN", "SETTLED"), ("LOW", "ACTIVE")} <= seen  # the High won while the Low traded on

        results = (await (await client.get(f"/games/v1/channels/{CHANNEL}/results")).json())["results"]
        assert len(results) == 2
        for result in results:
            book_of = await books(client, alice, [m["marketId"] for m in result["markets"]])
            for market in result["markets"]:
                book = book_of[market["marketId"]]
                assert book["status"] == "CLOSED" and market["result"] == "SETTLED"
                assert market["winners"] == [r["selectionId"] for r in book["runners"] if r["status"] == "WINNER"]
                pairs = {(r["status"], s["status"]) for r, s in zip(book["runners"], market["selections"], strict=True)}
                assert pairs <= SAME_ENDED, (market["marketId"], pairs)
