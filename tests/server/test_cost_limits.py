"""One account must not be able to freeze the server: cost limits, paging, slices, rates (issue "fails safe").

The account under test holds thousands of settled bets (seeded on markets no
channel runs, straight through the service), then asks for them as the issue
did: a batch of 50 ``listClearedOrders`` of 1000 records each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.core.commands import (
    CancelOrder,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
)
from exchange.core.orders import BetStatus
from exchange.core.side import Side
from exchange.server import keys
from exchange.server.limits import AccountGate, Limits
from exchange.server.service import ExchangeService
from tests.server.helpers import BETTING, START_MS, headers, login, rpc, serving

MARKETS = 250
BOUND_S = 30  # the longest a test waits for an answer that is due (a loaded machine)
BETS_PER_MARKET = 20  # 5,000 settled bets


def seed(service: ExchangeService, account: str, markets: int = MARKETS, per_market: int = BETS_PER_MARKET) -> None:
    """``markets`` settled markets on which ``account`` backed ``per_market`` matched bets (layer: ``seed-layer``)."""
    now = service.now
    service.execute(OpenAccount(now(), "seed-layer"))
    service.execute(Deposit(now(), "seed-layer", 10**12))
    service.execute(Deposit(now(), account, 10**12))
    for m in range(markets):
        market_id = f"seed.{m}"
        service.execute(CreateMarket(now(), market_id, (1, 2, 3, 4)))
        service.execute(OpenMarket(now(), market_id))
        for i in range(per_market):
            service.execute(PlaceOrder(now(), "seed-layer", market_id, 1 + i % 4, Side.LAY, Decimal("2"), 200))
            service.execute(PlaceOrder(now(), account, market_id, 1 + i % 4, Side.BACK, Decimal("2"), 200))
        service.execute(SuspendMarket(now(), market_id))
        service.execute(SettleMarket(now(), market_id, (1,)))


#: The limits of a server whose clock stands still, but for the rates: with no time passing, an account over its
#: read rate would wait for ever, and one over its call rate be refused for good (the tests of the rates give theirs).
STILL = Limits(calls_per_second=0, read_rows_per_second=0)


def _client(tmp_path: Path, limits: Limits = STILL) -> AbstractAsyncContextManager[TestClient]:
    """A server (no house, alice and bob with 1000.00 each) whose games stand still: its clock is never advanced."""
    return serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), limits=limits)


@pytest.fixture
async def heavy(tmp_path: Path) -> AsyncIterator[tuple[TestClient, str]]:
    """A server where alice has 5,000 settled bets; yields the client and alice's token."""
    async with _client(tmp_path) as client:
        token = await login(client, "alice", "pw-alice")
        await rpc(client, token, "getAccountFunds", path="/exchange/account/json-rpc/v1")  # opens alice in the core
        seed(client.app[keys.SERVICE], "alice")
        yield client, token


def _cleared(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"jsonrpc": "2.0", "id": i, "method": "SportsAPING/v1.0/listClearedOrders",
             "params": {"betStatus": "SETTLED", "recordCount": 1000, "fromRecord": 1000 * (i % 5), **extra}}
            for i in range(n)]


async def _post(client: TestClient, token: str, body: Any) -> tuple[Any, int]:
    resp = await client.post(BETTING, data=json.dumps(body), headers=headers(token))
    raw = await resp.read()
    return json.loads(raw), len(raw)


class LoopTurns:
    """Counts the turns of the event loop while it is entered: a task that yields at every turn."""

    def __init__(self) -> None:
        self.turns = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(0)
            self.turns += 1

    def __enter__(self) -> LoopTurns:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def test_a_batch_of_50_full_pages_is_cut_at_the_batch_budget(heavy: tuple[TestClient, str]) -> None:
    client, token = heavy
    answers, size = await _post(client, token, _cleared(50))
    served = [a for a in answers if "result" in a]
    refused = [a for a in answers if "error" in a]
    limits = Limits()
    assert sum(len(a["result"]["clearedOrders"]) for a in served) <= limits.max_rows_per_batch
    assert len(served) == limits.max_rows_per_batch // 1000
    assert len(refused) == 50 - len(served)
    for answer in refused:
        assert answer["error"]["data"]["APINGException"]["errorCode"] == "TOO_MUCH_DATA"
        assert "page across requests" in answer["error"]["data"]["APINGException"]["errorDetails"]
    assert size < limits.max_bytes_per_batch + 100_000  # was 22 MB


async def test_the_heavy_batch_never_holds_the_loop_long(heavy: tuple[TestClient, str]) -> None:
    """The answers are built a slice at a time: the loop turns at least once per slice of records.

    Counted in turns of the loop, not milliseconds, so a loaded machine cannot
    make it pass or fail: built in one go, 15,000 records would take a handful
    of turns.
    """
    client, token = heavy
    await _post(client, token, _cleared(1))  # the first use of the client (imports, the connection)
    with LoopTurns() as loop:
        batches = await asyncio.gather(*(_post(client, token, _cleared(50)) for _ in range(3)))
    records = sum(len(a["result"]["clearedOrders"]) for answers, _ in batches for a in answers if "result" in a)
    assert records == 3 * Limits().max_rows_per_batch
    assert loop.turns >= records // Limits().rows_per_slice


async def test_paging_returns_every_settled_bet_once_in_order(heavy: tuple[TestClient, str]) -> None:
    client, token = heavy
    seen: list[dict[str, Any]] = []
    start = 0
    while True:
        out = await rpc(client, token, "listClearedOrders",
                        {"betStatus": "SETTLED", "fromRecord": start, "recordCount": 700})
        page = out["result"]["clearedOrders"]
        seen += page
        start += len(page)
        if not out["result"]["moreAvailable"]:
            break
        assert len(page) == 700
    assert len(seen) == MARKETS * BETS_PER_MARKET
    assert len({row["betId"] for row in seen}) == len(seen)
    keys_ = [(row["settledDate"], int(row["betId"])) for row in seen]
    assert keys_ == sorted(keys_)
    # recordCount past the page size gives a full page, never more
    out = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "recordCount": 5000})
    assert len(out["result"]["clearedOrders"]) == 1000 and out["result"]["moreAvailable"] is True
    # filters still apply (scanned in slices)
    out = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "marketIds": ["seed.3"]})
    assert len(out["result"]["clearedOrders"]) == BETS_PER_MARKET
    out = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET",
                                                         "recordCount": 10})
    assert len(out["result"]["clearedOrders"]) == 10 and out["result"]["moreAvailable"] is True


async def test_list_market_book_is_weighted_as_betfair_weights_it(tmp_path: Path) -> None:
    async with _client(tmp_path) as client:
        token = await login(client, "alice", "pw-alice")
        ids = [f"holdem.{i}" for i in range(7)]
        out = await rpc(client, token, "listMarketBook", {
            "marketIds": ids, "priceProjection": {"priceData": ["EX_ALL_OFFERS", "EX_TRADED"]}})
        detail = out["error"]["data"]["APINGException"]
        assert detail["errorCode"] == "TOO_MUCH_DATA" and "at most 6 markets" in detail["errorDetails"]
        out = await rpc(client, token, "listMarketBook", {
            "marketIds": ids[:6], "priceProjection": {"priceData": ["EX_ALL_OFFERS", "EX_TRADED"]}})
        assert "result" in out
        out = await rpc(client, token, "listMarketBook", {
            "marketIds": [f"holdem.{i}" for i in range(40)], "priceProjection": {"priceData": ["EX_BEST_OFFERS"]}})
        assert "result" in out


async def test_an_account_over_its_call_rate_gets_too_many_requests(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, limits=Limits(calls_per_second=20)) as client:
        alice = await login(client, "alice", "pw-alice")
        bob = await login(client, "bob", "pw-bob")
        batch = [{"jsonrpc": "2.0", "id": i, "method": "SportsAPING/v1.0/listCurrentOrders", "params": {}}
                 for i in range(30)]
        answers, _ = await _post(client, alice, batch)
        codes = [a["error"]["data"]["APINGException"]["errorCode"] if "error" in a else "OK" for a in answers]
        assert codes == ["OK"] * 20 + ["TOO_MANY_REQUESTS"] * 10
        assert answers[25]["id"] == 25
        # another account is not affected; alice's bucket refills with time, a call every 50 ms (the server's
        # clock for durations: in production the loop's monotonic time, not the game clock's)
        assert "result" in await rpc(client, bob, "listCurrentOrders")
        clock.advance(49)
        assert "TOO_MANY_REQUESTS" in json.dumps(await rpc(client, alice, "listCurrentOrders"))
        clock.advance(1)
        assert "result" in await rpc(client, alice, "listCurrentOrders")


async def test_an_account_over_its_read_rate_is_paced_by_the_servers_clock(tmp_path: Path) -> None:
    """Past a second's worth of records (here 1,000), the account's next list call waits until it is back under the
    rate: answered, not refused, once the server's clock has moved the time owed (two pages of 1,000 read: 1 s)."""
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, limits=Limits(read_rows_per_second=1_000)) as client:
        token = await login(client, "alice", "pw-alice")
        await rpc(client, token, "getAccountFunds", path="/exchange/account/json-rpc/v1")  # opens alice in the core
        seed(client.app[keys.SERVICE], "alice", markets=100)  # 2,000 settled bets
        for page in range(2):
            (answer,), _ = await _post(client, token, _cleared(1, fromRecord=1000 * page))
            assert len(answer["result"]["clearedOrders"]) == 1000
        scheduled, owed_until = clock.pending, clock.now() + 1000
        third = asyncio.create_task(_post(client, token, _cleared(1)))
        for _ in range(1000):  # until the call waits on the clock for the second owed (bounded: no wall-clock wait)
            if clock.next_due() == owed_until:
                break
            await asyncio.sleep(0)
        assert clock.next_due() == owed_until and clock.pending == scheduled + 1 and not third.done()
        clock.advance(999)
        assert clock.next_due() == owed_until and not third.done()  # a millisecond short: still waiting
        clock.advance(1)
        assert clock.pending == scheduled  # its wait is over
        (answer,), _ = await asyncio.wait_for(third, BOUND_S)
        assert len(answer["result"]["clearedOrders"]) == 1000


async def test_a_paced_call_given_up_leaves_no_timer() -> None:
    clock = VirtualClock()
    gate = AccountGate(Limits(read_rows_per_second=1_000), clock=clock)
    gate.spend_rows("alice", 3_000)  # two seconds' worth owed beyond the one the rate allows

    async def read() -> None:
        async with gate.reading("alice"):
            pass

    paced = asyncio.create_task(read())
    await asyncio.sleep(0)
    assert clock.next_due() == 2_000 and not paced.done()
    paced.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await paced
    assert clock.pending == 0


async def test_more_than_three_list_calls_in_flight_are_refused(heavy: tuple[TestClient, str]) -> None:
    """With the list lane held (by another account's read), alice's first three list calls wait in flight and the
    other three are refused at once; the three answer once the lane is free."""
    client, token = heavy
    calls = [asyncio.create_task(_post(client, token, _cleared(1)[0])) for _ in range(6)]
    refused: list[asyncio.Task[tuple[Any, int]]] = []
    async with client.app[keys.BETTING].gate.reading("another"):
        waiting = set(calls)
        while len(refused) < 3:  # each wait bounded: a fourth call let in would wait behind the lane, and time out
            done, waiting = await asyncio.wait(waiting, timeout=BOUND_S, return_when=asyncio.FIRST_COMPLETED)
            assert done, f"{len(refused)} calls answered while the lane is held; 3 should be refused"
            refused += done
        assert len(refused) == 3 and not any(call.done() for call in waiting)
    answered = await asyncio.gather(*waiting)
    codes = [answer["error"]["data"]["APINGException"]["errorCode"] for answer, _ in (c.result() for c in refused)]
    assert codes == ["TOO_MANY_REQUESTS"] * 3
    assert [len(answer["result"]["clearedOrders"]) for answer, _ in answered] == [1000] * 3


def test_the_cleared_index_matches_the_core_through_random_flows(tmp_path: Path) -> None:
    """Seeded random settles, voids, early settlements, lapses and cancels; the index checked after each step."""

    async def scenario() -> None:
        async with _client(tmp_path) as client:
            service: ExchangeService = client.app[keys.SERVICE]
            rng = random.Random(7)
            now = service.now
            accounts = ["p1", "p2", "p3"]
            for account in accounts:
                service.execute(OpenAccount(now(), account))
                service.execute(Deposit(now(), account, 10**9))
            index = service.cleared_index
            for m in range(30):
                market_id = f"flow.{m}"
                service.execute(CreateMarket(now(), market_id, (1, 2, 3, 4)))
                service.execute(OpenMarket(now(), market_id))
                for _ in range(rng.randrange(1, 12)):
                    side = rng.choice((Side.BACK, Side.LAY))
                    events = service.execute(PlaceOrder(now(), rng.choice(accounts), market_id, rng.randint(1, 4),
                                                        side, Decimal(rng.choice(("2", "3", "4"))), 200))
                    bet = next((getattr(e, "bet_id", None) for e in events), None)
                    if bet is not None and rng.random() < 0.2:
                        account = next(e.account_id for e in events if hasattr(e, "account_id"))
                        service.execute(CancelOrder(now(), account, bet))
                    if rng.random() < 0.3:
                        index._check()
                suspended = rng.random() < 0.3
                loser = rng.randint(1, 4)
                if suspended:
                    service.execute(SuspendMarket(now(), market_id))
                    service.execute(SettleSelection(now(), market_id, loser))
                    index._check()
                ending = rng.random()
                if ending < 0.15:
                    service.execute(VoidMarket(now(), market_id, "test"))
                elif ending < 0.85:
                    if not suspended:
                        service.execute(SuspendMarket(now(), market_id))
                    winner = rng.choice([h for h in (1, 2, 3, 4) if not suspended or h != loser])
                    service.execute(SettleMarket(now(), market_id, (winner,)))
                index._check()
                for account in accounts:
                    for status in BetStatus:
                        await service.cleared_rows(account, status)
            index._check()
            statuses = {o.bet_status for a in accounts for o in service.exchange.cleared_orders(a)}
            assert statuses == set(BetStatus), statuses  # the flow reached every kind of cleared order

    asyncio.run(scenario())
