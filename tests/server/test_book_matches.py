"""listMarketBook's ``matches`` and ``matchesByStrategy`` under each ``matchProjection``, for orders that fill at
several prices and a match voided later, as betfairlightweight parses them.

The expected answer is built here from the journal's ``Matched`` and ``MatchVoided`` events and the account's
``listCurrentOrders``, sharing no code with the server's. Game ``holdem.1`` of the in-process server
(``conftest.py``) deals a premature flop halfway through its Pre-flop window, noticed a second later: what matched
after it is voided.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import MarketBook

from engine.irregularities import Irregularity, Kind
from exchange.clock import VirtualClock
from exchange.core.ladder import PRICES
from exchange.game.irregular import IrregularityPlan
from tests.server.helpers import WINDOW_MS, journal_matches, login, place_one, rpc
from tests.server.test_irregularities import GAME_1, ROUND_MS, inject

MARKET = "holdem.1"
RUNNER = 1
Order = dict[str, Any]  # a listCurrentOrders row


async def _order(client: TestClient, token: str, side: str, price: float, size: float, ref: str | None = None,
                 matched: float | None = None) -> None:
    await place_one(client, token, MARKET, RUNNER, side, price, size, ref=ref, matched=matched)


async def _book(client: TestClient, token: str, projection: str,
                **extra: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    answer = await rpc(client, token, "listMarketBook", {"marketIds": [MARKET], "matchProjection": projection,
                                                         "orderProjection": "ALL", **extra})
    (book,) = answer["result"]
    MarketBook(**book)  # betfairlightweight reads it
    (runner,) = [r for r in book["runners"] if r["selectionId"] == RUNNER]
    return runner.get("matches"), runner.get("matchesByStrategy")


async def _fills(client: TestClient, token: str) -> tuple[list[dict[str, Any]], dict[int, Order]]:
    """The journal's unvoided matches on the runner, in match order, and the account's orders by bet id."""
    answer = await rpc(client, token, "listCurrentOrders", {"marketIds": [MARKET]})
    orders = {int(o["betId"]): o for o in answer["result"]["currentOrders"]}
    return journal_matches(client, MARKET, RUNNER), orders


def _fragments(fills: list[dict[str, Any]], orders: dict[int, Order]) -> list[tuple[int, int, str, Decimal, int]]:
    """(bet id, match id, side, price, stake in pence) of each fill of one of ``orders``."""
    out = []
    for match in fills:
        for bet_id in (match["back_bet_id"], match["lay_bet_id"]):
            if bet_id in orders:
                out.append((bet_id, match["match_id"], orders[bet_id]["side"], PRICES[match["tick"]], match["size"]))
    return out


def _expected(fills: list[dict[str, Any]], orders: dict[int, Order], projection: str) -> list[dict[str, Any]]:
    fragments = _fragments(fills, orders)
    if projection == "NO_ROLLUP":
        return [{"betId": str(b), "matchId": str(m), "side": side, "price": float(p), "size": s / 100}
                for b, m, side, p, s in fragments]
    sums: dict[tuple[str, Any], int] = defaultdict(int)
    if projection == "ROLLED_UP_BY_PRICE":
        for _, _, side, price, size in fragments:
            sums[side, price] += size
    else:  # one per side: its stake at the stake-weighted average of its fills' prices, computed exactly
        per_side: dict[str, list[tuple[Decimal, int]]] = defaultdict(list)
        for _, _, side, price, size in fragments:
            per_side[side].append((price, size))
        for side, parts in per_side.items():
            stake = sum(s for _, s in parts)
            sums[side, round(float(sum(Fraction(p) * s for p, s in parts) / stake), 4)] = stake
    return [{"side": side, "price": float(p), "size": s / 100} for (side, p), s in sorted(sums.items())]


def _without_dates(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "matchDate"} for m in matches]


async def _check_every_projection(client: TestClient, alice: str) -> dict[str, list[dict[str, Any]]]:
    fills, orders = await _fills(client, alice)
    by_ref: dict[str, dict[int, Order]] = defaultdict(dict)
    for bet_id, o in orders.items():
        if o.get("customerStrategyRef"):
            by_ref[o["customerStrategyRef"]][bet_id] = o
    seen = {}
    for projection in ("NO_ROLLUP", "ROLLED_UP_BY_PRICE", "ROLLED_UP_BY_AVG_PRICE"):
        matches, by_strategy = await _book(client, alice, projection, partitionMatchedByStrategyRef=True)
        assert _without_dates(matches) == _expected(fills, orders, projection), projection
        expected_by_ref = {ref: _expected(fills, mine, projection) for ref, mine in sorted(by_ref.items())}
        assert {ref: _without_dates(m["matches"]) for ref, m in by_strategy.items()} == {
            ref: m for ref, m in expected_by_ref.items() if m}, projection
        seen[projection] = matches
    return seen


async def test_matches_by_fill_price_and_by_strategy(client: TestClient, clock: VirtualClock) -> None:
    inject(client, IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP), at_permille=500, notice_ms=1_000))
    preflop_opens = GAME_1 + ROUND_MS
    exposure = preflop_opens + WINDOW_MS // 2
    clock.run(until_ms=preflop_opens + 10)
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    for side, price, size in (("LAY", 3.2, 2), ("LAY", 3.0, 2), ("LAY", 2.8, 3), ("BACK", 4.0, 2), ("BACK", 4.2, 3)):
        await _order(client, bob, side, price, size, matched=0.0)
    await _order(client, alice, "BACK", 2.8, 5, "s1", matched=5.0)  # 2 at 3.2, 2 at 3.0, 1 at 2.8
    await _order(client, alice, "LAY", 4.4, 4, matched=4.0)  # 2 at 4.0, 2 at 4.2; no strategy
    await _order(client, alice, "BACK", 2.8, 2, "s2", matched=2.0)  # the rest of bob's 2.8

    seen = await _check_every_projection(client, alice)
    assert [(m["side"], m["price"], m["size"]) for m in seen["ROLLED_UP_BY_PRICE"]] == [
        ("BACK", 2.8, 3.0), ("BACK", 3.0, 2.0), ("BACK", 3.2, 2.0), ("LAY", 4.0, 2.0), ("LAY", 4.2, 2.0)]
    assert [(m["side"], m["price"], m["size"]) for m in seen["ROLLED_UP_BY_AVG_PRICE"]] == [
        ("BACK", 2.9714, 7.0), ("LAY", 4.1, 4.0)]  # (6.4 + 6.0 + 3 x 2.8) / 7 backed, (8.0 + 8.4) / 4 laid
    no_rollup = seen["NO_ROLLUP"]
    assert len(no_rollup) == 6 and len({m["matchId"] for m in no_rollup}) == 6
    assert all(m["matchDate"].endswith("Z") for m in no_rollup)

    only_s2, by_strategy = await _book(client, alice, "ROLLED_UP_BY_PRICE", partitionMatchedByStrategyRef=True,
                                       customerStrategyRefs=["s2"], includeOverallPosition=False)
    assert only_s2 == [{"side": "BACK", "price": 2.8, "size": 2.0}]
    assert by_strategy == {"s2": {"matches": only_s2}}
    overall, unpartitioned = await _book(client, alice, "ROLLED_UP_BY_PRICE", customerStrategyRefs=["s2"])
    assert overall == seen["ROLLED_UP_BY_PRICE"] and unpartitioned is None
    # alice's orders are all filled: none is EXECUTABLE, so none is shown, and matches of the orders shown are none
    executable, _ = await _book(client, alice, "ROLLED_UP_BY_PRICE", orderProjection="EXECUTABLE",
                                includeOverallPosition=False)
    complete, _ = await _book(client, alice, "ROLLED_UP_BY_PRICE", orderProjection="EXECUTION_COMPLETE",
                              includeOverallPosition=False)
    assert executable == [] and complete == seen["ROLLED_UP_BY_PRICE"]
    overall, _ = await _book(client, alice, "ROLLED_UP_BY_PRICE", orderProjection="EXECUTABLE")
    assert overall == seen["ROLLED_UP_BY_PRICE"]  # the overall position, whatever orders are shown

    clock.run(until_ms=exposure + 10)  # the flop is out: matches from now on will be voided on notice
    await _order(client, bob, "LAY", 3.5, 2, matched=0.0)
    await _order(client, alice, "BACK", 3.4, 3, "s1", matched=2.0)  # 2 at 3.5, voided a second later
    before_void = await _check_every_projection(client, alice)
    assert ("BACK", 3.5, 2.0) in [(m["side"], m["price"], m["size"]) for m in before_void["ROLLED_UP_BY_PRICE"]]

    clock.run(until_ms=exposure + 1_000 + 10)  # noticed: the 3.5 match is voided
    after_void = await _check_every_projection(client, alice)
    assert after_void["ROLLED_UP_BY_PRICE"] == seen["ROLLED_UP_BY_PRICE"]
    assert after_void["NO_ROLLUP"] == no_rollup


async def test_matches_come_only_with_the_orders_asked_for(client: TestClient, clock: VirtualClock) -> None:
    """API-NG's matchProjection says how matches are shown "if you ask for orders": without an orderProjection a
    runner has neither ``orders`` nor ``matches`` (they came with matchProjection alone)."""
    clock.run(until_ms=GAME_1 + 10)
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    await _order(client, bob, "LAY", 3.0, 4)
    await _order(client, alice, "BACK", 3.0, 4, matched=4)
    answer = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET], "matchProjection": "NO_ROLLUP"})
    (runner,) = [r for r in answer["result"][0]["runners"] if r["selectionId"] == RUNNER]
    assert "matches" not in runner and "orders" not in runner, runner
    matches, _ = await _book(client, alice, "NO_ROLLUP")
    assert [(m["side"], m["size"]) for m in matches] == [("BACK", 4.0)]
