"""listMarketBook answers for a closed market as Betfair's does: a market settled (or voided) stays readable,
``status: CLOSED`` with each runner's result, beside the open ones a call names, until the exchange forgets it
(``keep_closed_markets``); then it is unknown and left out of the answer, as any unknown id is. A bot that polls
its market until it reads CLOSED to learn the winner works here as there.
"""

from __future__ import annotations

from exchange.core.commands import CreateMarket, OpenMarket, SettleMarket
from exchange.server import keys
from tests.server.helpers import StreamServer, close_and_forget, login, rpc


async def test_a_settled_market_is_read_closed_with_its_result_until_it_is_forgotten(
        stream_server: StreamServer) -> None:
    client = await stream_server(keep_closed_markets=1)
    service = client.app[keys.SERVICE]
    now = service.now()
    for market_id in ("first.1", "second.1"):
        service.execute(CreateMarket(now, market_id, (1, 2, 3)))
        service.execute(OpenMarket(now, market_id))
    service.execute(SettleMarket(now, "first.1", (2,)))
    alice = await login(client, "alice", "pw-alice")
    books = (await rpc(client, alice, "listMarketBook", {"marketIds": ["first.1", "second.1", "nowhere.1"]}))["result"]
    assert [(b["marketId"], b["status"]) for b in books] == [("first.1", "CLOSED"), ("second.1", "OPEN")]
    assert [r["status"] for r in books[0]["runners"]] == ["LOSER", "WINNER", "LOSER"]
    assert books[0]["numberOfActiveRunners"] == 0 and books[1]["numberOfActiveRunners"] == 3
    close_and_forget(service, "second.1", now)  # second.1 closes, then other.1: the one closed market kept
    books = (await rpc(client, alice, "listMarketBook", {"marketIds": ["first.1", "second.1", "other.1"]}))["result"]
    assert [(b["marketId"], b["status"]) for b in books] == [("other.1", "CLOSED")]
