"""listClearedOrders reads an index kept from the events; it must hold every account's cleared orders, whenever
the account was opened."""

from __future__ import annotations

from decimal import Decimal

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from exchange.betfair.stream import snapshot_of
from exchange.clock import VirtualClock
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    VoidMatchedSince,
)
from exchange.core.events import OrderPlaced
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.orders import BetStatus, ClearedOrder
from exchange.core.side import Side
from exchange.server import cleared_index, keys
from exchange.server.cleared_index import ClearedIndex
from exchange.server.ended_markets import EndedMarket, EndedMarkets
from exchange.server.market_infos import MarketInfo
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, login, place, rpc

MARKET = "holdem.0"


async def place_and_cancel(client: TestClient, token: str) -> None:
    report = (await rpc(client, token, "placeOrders", place(MARKET, 1, "BACK", 1000, 2)))["result"]
    bet_id = report["instructionReports"][0]["betId"]
    await rpc(client, token, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": bet_id}]})


async def test_an_account_opened_after_an_unread_change_to_a_market_sees_its_cleared_orders_there(
    client: TestClient, clock: VirtualClock
) -> None:
    """An account's first login opens it on the exchange; when the index's newest change (not yet read by
    anyone) was to the same market, the account's own later changes there used to join that older entry,
    which the account counts as seen, so its orders on the market were never listed."""
    await place_and_cancel(client, await login(client, "bob", "pw-bob"))
    alice = await login(client, "alice", "pw-alice")  # opened now, the change log ending on holdem.0, unread
    await place_and_cancel(client, alice)
    clock.run(until_ms=START_MS + 4 * (WINDOW_MS + PLAYING_MS) + 10)  # the game ends: its orders are cleared
    exchange = client.app[keys.SERVICE].exchange
    for account, token in (("alice", alice), ("bob", await login(client, "bob", "pw-bob"))):
        listed = (await rpc(client, token, "listClearedOrders", {"betStatus": "CANCELLED"}))["result"]
        assert [o["betId"] for o in listed["clearedOrders"]] == [str(o.bet_id) for o in
                                                                 exchange.cleared_orders(account)], account
        assert len(listed["clearedOrders"]) == 1, account


@pytest.fixture(autouse=True)
def short_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change log of 8 entries, so that cutting its oldest half happens within a few steps."""
    monkeypatch.setattr(cleared_index, "LOG_LIMIT", 8)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_index_equals_the_cores_cleared_orders_over_random_interleavings(data: st.DataObject) -> None:
    """Accounts open at any moment, orders are placed and cancelled on two markets, markets settle and new ones
    open, and accounts read in between, with a change log short enough to be cut often; the core forgets closed
    markets beyond a few and the server remembers a few of those, as the service does: after every read the
    rows served equal the core's and the remembered markets', and at the end every account's do
    (``ClearedIndex._check``)."""
    exchange = Exchange(ExchangeConfig(keep_closed_markets=data.draw(st.integers(0, 3), label="kept")))
    ended = EndedMarkets(keep=data.draw(st.integers(0, 3), label="remembered"))
    index = ClearedIndex(lambda: exchange, ended)
    ts = 0

    def run(command: Command) -> None:
        for event in exchange.execute(command):
            index.note(event)

    def remember_forgotten() -> None:
        for market_id, gone in exchange.forgotten.items():
            info = MarketInfo(market_id, market_id, "Event", "Market", 0, 0, ts, ("Hand 1", "Hand 2"))
            cleared = {account: tuple(orders) for account, orders in gone.cleared.items()}
            remembered = EndedMarket(info, snapshot_of(gone.market.book, False, 0, ts), cleared, {})
            for dropped in ended.add(market_id, remembered):
                index.forget(dropped)

    def listed(account: str, status: BetStatus) -> list[ClearedOrder]:
        """What listClearedOrders lists of ``status``, from the core and the remembered markets."""
        known = [*exchange.cleared_orders(account), *ended.all_cleared_orders(account)]
        if status is BetStatus.VOIDED:  # a bet settled on what stood is listed here too, with its voided part
            known += [part for o in known if (part := o.voided_part()) is not None]
        return sorted((o for o in known if o.bet_status is status), key=lambda o: (o.settled_ts, o.bet_id))

    accounts: list[str] = []
    live = [f"1.{n}" for n in range(2)]
    created = len(live)
    for market_id in live:
        run(CreateMarket(ts, market_id, (1, 2)))
        run(OpenMarket(ts, market_id))
    bets: list[tuple[str, int]] = []
    for _ in range(data.draw(st.integers(1, 60), label="steps")):
        ts += 1
        step = data.draw(st.sampled_from(["open", "place", "place", "cancel", "void", "settle", "read"]))
        if step == "open" or not accounts:
            account = f"a{len(accounts)}"
            accounts.append(account)
            run(OpenAccount(ts, account))
            run(Deposit(ts, account, 1_000_000))
        elif step == "place":
            account, market_id = data.draw(st.sampled_from(accounts)), data.draw(st.sampled_from(live))
            side = data.draw(st.sampled_from([Side.BACK, Side.LAY]))
            events = exchange.execute(PlaceOrder(ts, account, market_id, data.draw(st.sampled_from([1, 2])), side,
                                                 Decimal("2.0"), data.draw(st.sampled_from([100, 200, 300]))))
            for event in events:
                index.note(event)
                if isinstance(event, OrderPlaced):
                    bets.append((account, event.bet_id))
        elif step == "cancel" and bets:
            account, bet_id = data.draw(st.sampled_from(bets))
            run(CancelOrder(ts, account, bet_id))
        elif step == "void":  # the matches from a moment on (a card exposed), so some bets are partly voided
            market_id = data.draw(st.sampled_from(live))
            run(VoidMatchedSince(ts, market_id, ts - data.draw(st.integers(0, 5), label="since"), "card exposed"))
        elif step == "settle":
            market_id = data.draw(st.sampled_from(live))
            run(SettleMarket(ts, market_id, (data.draw(st.sampled_from([1, 2])),)))
            remember_forgotten()
            live[live.index(market_id)] = replacement = f"1.{created}"
            created += 1
            run(CreateMarket(ts, replacement, (1, 2)))
            run(OpenMarket(ts, replacement))
        elif step == "read":
            account, status = data.draw(st.sampled_from(accounts)), data.draw(st.sampled_from(list(BetStatus)))
            assert list(index.rows(account, status)) == listed(account, status)
    for account in accounts:
        for status in BetStatus:
            assert list(index.rows(account, status)) == listed(account, status)
    index._check()
