"""listMarketBook's ``priceProjection``: ``bestPricesDepth`` and the STAKE rollup honoured, what is not offered
refused by name; the rollup itself checked against a reference that shares no code with it.

The in-process server of ``conftest.py`` (no house): game ``holdem.0`` has its Deal window open, and the only
prices on the book are the ones a test rests there.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient
from hypothesis import given
from hypothesis import strategies as st

from exchange.core.book import PriceSize
from exchange.server.price_projection import rolled_up
from tests.server.helpers import login, place, rpc

MARKET = "holdem.0"
#: Alice's lays on runner 1 (so its back prices), best first: price and size in pounds.
LAYS = ((3.0, 3), (2.98, 3), (2.96, 4), (2.94, 10), (2.92, 2))


async def _book(client: TestClient, token: str, projection: dict[str, Any]) -> list[tuple[float, float]]:
    answer = await rpc(client, token, "listMarketBook", {"marketIds": [MARKET], "priceProjection": projection})
    assert "result" in answer, answer
    runner = next(r for r in answer["result"][0]["runners"] if r["selectionId"] == 1)
    return [(level["price"], level["size"]) for level in runner["ex"]["availableToBack"]]


async def _rested(client: TestClient) -> str:
    """Alice's lays of :data:`LAYS`, with 2.00 of the best taken by Bob: 1.00 left at 3.0."""
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    for price, size in LAYS:
        assert (await rpc(client, alice, "placeOrders", place(MARKET, 1, "LAY", price, size)))["result"][
            "status"] == "SUCCESS"
    await rpc(client, bob, "placeOrders", place(MARKET, 1, "BACK", 3.0, 2))
    return alice


BEST = {"priceData": ["EX_BEST_OFFERS"]}


async def test_best_prices_depth_limits_the_levels(client: TestClient) -> None:
    alice = await _rested(client)
    every = [(3.0, 1.0), (2.98, 3.0), (2.96, 4.0), (2.94, 10.0), (2.92, 2.0)]
    assert await _book(client, alice, {**BEST, "exBestOffersOverrides": {"bestPricesDepth": 10}}) == every
    assert await _book(client, alice, {**BEST, "exBestOffersOverrides": {"bestPricesDepth": 2}}) == every[:2]
    assert await _book(client, alice, BEST) == every[:3]  # Betfair's default depth
    assert await _book(client, alice, {"priceData": ["EX_ALL_OFFERS"],
                                       "exBestOffersOverrides": {"bestPricesDepth": 1}}) == every  # best offers' only
    plain = {"bestPricesDepth": 10, "rollupModel": "NONE"}
    assert await _book(client, alice, {**BEST, "virtualise": True, "rolloverStakes": False,
                                       "exBestOffersOverrides": plain}) == every


async def test_starting_price_data_is_taken_and_gives_nothing(client: TestClient) -> None:
    """``SP_AVAILABLE`` and ``SP_TRADED`` (which many bots ask for on every call) give no ``sp`` block, no market
    here being a BSP market, and change nothing of the rest."""
    alice = await _rested(client)
    sp = {"priceData": ["EX_BEST_OFFERS", "SP_AVAILABLE", "SP_TRADED"]}
    answer = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET], "priceProjection": sp})
    assert [r for r in answer["result"][0]["runners"] if "sp" in r] == [], answer
    assert await _book(client, alice, sp) == await _book(client, alice, BEST)
    only_sp = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET],
                                                          "priceProjection": {"priceData": ["SP_AVAILABLE"]}})
    assert [r for r in only_sp["result"][0]["runners"] if "sp" in r] == [], only_sp


async def test_stake_rollup_shows_no_level_under_its_limit(client: TestClient) -> None:
    alice = await _rested(client)
    rollup = {"bestPricesDepth": 10, "rollupModel": "STAKE"}
    # 1.00 at 3.0 is under the minimum stake (2.00, the default limit): it is shown with 2.98's 3.00
    assert await _book(client, alice, {**BEST, "exBestOffersOverrides": rollup}) == [
        (2.98, 4.0), (2.96, 4.0), (2.94, 10.0), (2.92, 2.0)]
    # 5.00: 1 + 3 + 4 reach it at 2.96; 10 at 2.94; the 2.00 left at 2.92 never does
    assert await _book(client, alice, {**BEST, "exBestOffersOverrides": {**rollup, "rollupLimit": 5}}) == [
        (2.96, 8.0), (2.94, 10.0)]
    assert await _book(client, alice, {**BEST, "exBestOffersOverrides": {**rollup, "rollupLimit": 5,
                                                                         "bestPricesDepth": 1}}) == [(2.96, 8.0)]


REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"exBestOffersOverrides": {"rollupModel": "PAYOUT"}}, "rollupModel 'PAYOUT' is not offered; allowed: STAKE"),
    ({"exBestOffersOverrides": {"rollupModel": "MANAGED_LIABILITY"}}, "rollupModel 'MANAGED_LIABILITY' is not"),
    ({"exBestOffersOverrides": {"rollupModel": "STAKES"}}, "rollupModel 'STAKES' is not a RollupModel"),
    ({"exBestOffersOverrides": {"rollupLiabilityFactor": 2}}, "rollupLiabilityFactor belongs to the MANAGED_"),
    ({"exBestOffersOverrides": {"rollupLimit": 5}}, "rollupLimit needs rollupModel STAKE"),
    ({"exBestOffersOverrides": {"rollupModel": "STAKE", "rollupLimit": 0}}, "rollupLimit must be a positive"),
    ({"exBestOffersOverrides": {"bestPricesDepth": 0}}, "bestPricesDepth must be a positive integer, not 0"),
    ({"exBestOffersOverrides": {"depth": 2}}, "exBestOffersOverrides has unknown keys ['depth']"),
    ({"rolloverStakes": True}, "rolloverStakes true (cumulative sizes) is not offered"),
    ({"virtualise": "yes"}, "virtualise"),
    ({"virtualize": True}, "priceProjection has unknown keys ['virtualize']"),
    ({"priceData": ["EX_BEST"]}, "priceData has unknown values ['EX_BEST']"),
]


async def test_what_is_not_offered_is_refused_naming_the_field(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    for projection, message in REFUSED:
        answer = await rpc(client, alice, "listMarketBook", {"marketIds": [MARKET],
                                                             "priceProjection": {**BEST, **projection}})
        error = answer["error"]["data"]["APINGException"]
        assert error["errorCode"] == "INVALID_INPUT_DATA", (projection, answer)
        assert message in error["errorDetails"], (projection, error["errorDetails"])


def _reference(sizes: list[int], limit: int) -> list[tuple[int, int]]:
    """Rolled up the long way, as ``(level index, size)``: from each cut, the shortest run of levels whose sum
    reaches ``limit`` (every candidate run summed afresh) is shown at its last level; the next run starts after it."""
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(sizes):
        ends = [end for end in range(start, len(sizes)) if sum(sizes[start:end + 1]) >= limit]
        if not ends:
            break
        end = min(ends)
        out.append((end, sum(sizes[start:end + 1])))
        start = end + 1
    return out


@given(st.lists(st.integers(1, 5_000), max_size=12), st.integers(1, 6_000))
def test_rollup_matches_the_reference_and_loses_only_a_tail_under_the_limit(sizes: list[int], limit: int) -> None:
    levels = tuple(PriceSize(500 - i, size) for i, size in enumerate(sizes))  # best (highest back price) first
    shown = rolled_up(levels, limit)
    assert [(500 - level.tick, level.size) for level in shown] == _reference(sizes, limit)
    assert all(level.size >= limit for level in shown)
    last = 500 - shown[-1].tick if shown else -1
    assert sum(level.size for level in shown) + sum(sizes[last + 1:]) == sum(sizes)
    assert sum(sizes[last + 1:]) < limit
