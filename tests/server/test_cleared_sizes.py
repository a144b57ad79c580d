"""listClearedOrders' sizes as Betfair's ClearedOrderSummary defines them, after a crash-recovery void.

``sizeSettled`` is "the cumulative bet size that was settled as matched or voided under this item" (for a
VOIDED bet: the size voided) and ``sizeCancelled`` "the amount of the bet that was available to be matched,
before cancellation or lapsing" (never the voided part).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import START_MS, login, place, rpc, serving


async def _cleared(client: TestClient, token: str, status: str) -> dict[str, dict[str, Any]]:
    answer = await rpc(client, token, "listClearedOrders", {"betStatus": status})
    return {o["betId"]: o for o in answer["result"]["clearedOrders"]}


async def test_a_void_after_a_crash_reports_voided_and_cancelled_sizes_apart(tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    clock = VirtualClock(start_ms=START_MS)
    async with serving(db, clock) as client:
        alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
        lay = await rpc(client, alice, "placeOrders", place("holdem.0", 1, "LAY", 3.0, 10))
        back = await rpc(client, bob, "placeOrders", place("holdem.0", 1, "BACK", 3.0, 4))
        lay_id = lay["result"]["instructionReports"][0]["betId"]
        back_id = back["result"]["instructionReports"][0]["betId"]
        assert back["result"]["instructionReports"][0]["sizeMatched"] == 4.0
    # the server stopped mid-game (as a crash would leave it): the next start voids holdem.0
    async with serving(db, VirtualClock(start_ms=START_MS + 1_000), accounts=()) as client:
        assert client.app[keys.SERVICE].recovered_voids == ["holdem.0"]
        alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
        voided_lay = (await _cleared(client, alice, "VOIDED"))[lay_id]
        voided_back = (await _cleared(client, bob, "VOIDED"))[back_id]
    # the lay: 4 of 10 matched, then voided; the other 6 cancelled by the void
    assert (voided_lay["sizeSettled"], voided_lay["sizeCancelled"], voided_lay["profit"]) == (4.0, 6.0, 0.0)
    # the back: all 4 matched, all voided, nothing cancelled
    assert (voided_back["sizeSettled"], voided_back["sizeCancelled"], voided_back["profit"]) == (4.0, 0.0, 0.0)
    assert "betOutcome" not in voided_lay and "betOutcome" not in voided_back
