"""``listRunnerBook``: ``listMarketBook`` of one market with one runner. A selection the market does not have still
answers the market's book, with no runner (as Betfair answers it: the call works and only the market's data comes
back); a market the exchange does not have answers nothing, as ``listMarketBook`` does."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.server.helpers import login, place_one, rpc

MARKET = "holdem.0"


async def test_one_runner_of_the_market_book_none_for_a_selection_it_lacks(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    await place_one(client, alice, MARKET, 3, "BACK", 2.5, 4)
    (market_book,) = (await rpc(client, alice, "listMarketBook", {
        "marketIds": [MARKET], "priceProjection": {"priceData": ["EX_BEST_OFFERS"]}}))["result"]
    runner_books = {}
    for selection in (3, 9):
        (runner_books[selection],) = (await rpc(client, alice, "listRunnerBook", {
            "marketId": MARKET, "selectionId": selection, "priceProjection": {"priceData": ["EX_BEST_OFFERS"]}}
        ))["result"]
    (runner,) = runner_books[3].pop("runners")
    assert runner == next(r for r in market_book.pop("runners") if r["selectionId"] == 3)
    assert runner["ex"]["availableToLay"] == [{"price": 2.5, "size": 4}]
    assert runner_books[3] == market_book
    assert runner_books[9] == {**market_book, "runners": []}
    assert (await rpc(client, alice, "listRunnerBook", {"marketId": "holdem.999", "selectionId": 3}))["result"] == []
