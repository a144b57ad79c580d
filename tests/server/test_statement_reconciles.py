"""getAccountStatement reconciles with the account's funds and cleared orders, to the penny.

After a seeded flow of markets (dead heats, selections settled early, voids, lapses), the statement read page
by page chains exactly (each item's balance is the one before plus its amount, from the deposit on), its newest
balance is the account's funds, and each market's result and commission items are the profit and commission
``listClearedOrders`` gives for that market, and name the event it gives.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
from collections.abc import Awaitable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.core import ladder
from exchange.core.commands import CreateMarket, OpenMarket, PlaceOrder, SettleMarket, SuspendMarket
from exchange.core.side import Side
from exchange.server import keys
from exchange.server.service import ExchangeService
from tests.server.helpers import ACCOUNT, login, rpc, until
from tests.server.test_cleared_rollups import _market


def _pennies(value: float) -> int:
    return round(value * 100)


async def _statement(client: TestClient, token: str, page: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    while True:
        answer = (await rpc(client, token, "getAccountStatement", {"fromRecord": len(items), "recordCount": page},
                            path=ACCOUNT))["result"]
        items += answer["accountStatement"]
        if not answer["moreAvailable"]:
            return items


async def test_the_statement_chains_and_matches_funds_and_cleared_orders(client: TestClient,
                                                                        clock: VirtualClock) -> None:
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")
    rng = random.Random(5)
    for m in range(24):
        _market(service, clock, rng, f"rec.{m}")
    items = await _statement(client, alice, 7)
    assert len(items) > 24 and items[-1]["legacyData"]["transactionType"] == "ACCOUNT_CREDIT"
    assert _pennies(items[-1]["amount"]) == _pennies(items[-1]["balance"])  # the first item: the deposit
    for newer, older in itertools.pairwise(items):
        assert _pennies(older["balance"]) + _pennies(newer["amount"]) == _pennies(newer["balance"]), newer["refId"]
    funds = (await rpc(client, alice, "getAccountFunds", {}, path=ACCOUNT))["result"]
    assert funds["exposure"] == 0 and items[0]["balance"] == funds["availableToBetBalance"]

    by_name = {service.infos[m].market_name: m for m in service.infos}
    stated: dict[str, dict[str, int]] = {}
    for item in items[:-1]:
        market_id = by_name[item["legacyData"]["marketName"]]
        kind = "commission" if item["refId"].endswith("-c") else "profit"
        stated.setdefault(market_id, {"profit": 0, "commission": 0})[kind] -= (
            _pennies(item["amount"]) if kind == "commission" else -_pennies(item["amount"]))
    rows = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET"})
            )["result"]["clearedOrders"]
    cleared = {r["marketId"]: {"profit": _pennies(r["profit"]), "commission": _pennies(r["commission"])}
               for r in rows if r["profit"] or r["commission"]}
    assert stated == cleared
    assert any(v["commission"] for v in stated.values()) and any(v["profit"] < 0 for v in stated.values())
    # each market's items name its event as its cleared orders do (they said 0); the deposit has none
    events = {r["marketId"]: r["eventId"] for r in rows}
    assert all(item["legacyData"]["eventId"] == events[by_name[item["legacyData"]["marketName"]]]
               for item in items[:-1])
    assert items[-1]["legacyData"]["eventId"] == 0


async def test_cleared_rollups_of_every_status_add_up_to_the_statement(client: TestClient, clock: VirtualClock) -> None:
    """A client that nets profit less commission over every bet status, rolled up by event type, gets what the
    statement says the markets paid: commission is charged on settled bets, so only SETTLED rollups carry it."""
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")
    rng = random.Random(8)
    for m in range(16):
        _market(service, clock, rng, f"net.{m}")
    exchange_items = (await rpc(client, alice, "getAccountStatement", {"includeItem": "EXCHANGE"}, path=ACCOUNT)
                      )["result"]["accountStatement"]
    paid = sum(_pennies(i["amount"]) for i in exchange_items)
    netted = 0
    for status in ("SETTLED", "VOIDED", "LAPSED", "CANCELLED"):
        for group_by in ("MARKET", "EVENT", "EVENT_TYPE"):
            rows = (await rpc(client, alice, "listClearedOrders", {"betStatus": status, "groupBy": group_by})
                    )["result"]["clearedOrders"]
            assert rows, (status, group_by)
            if status != "SETTLED":
                assert all(r["commission"] == 0 for r in rows), (status, group_by)
            if group_by == "EVENT_TYPE":
                netted += sum(_pennies(r["profit"]) - _pennies(r["commission"]) for r in rows)
    assert netted == paid and any(_pennies(i["amount"]) < 0 for i in exchange_items if i["refId"].endswith("-c"))


async def test_a_market_settled_a_moment_ago_is_on_the_statement_as_on_the_cleared_orders(
        client: TestClient, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The statement reads the journal's committed records: it waits for the settlement just executed to be on
    disk before reading (it read at once and, with the commit still under way, missed a market listClearedOrders
    already showed). The writer is held stopped across the request, so the read cannot race the commit."""
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")
    market_id, price = "fresh.0", ladder.PRICES[60]
    service.execute(CreateMarket(service.now(), market_id, (1, 2, 3, 4)))
    service.execute(OpenMarket(service.now(), market_id))
    for account, side in (("bob", Side.LAY), ("alice", Side.BACK)):  # matched: alice backs hand 1, which wins
        service.execute(PlaceOrder(service.now(), account, market_id, 1, side, price, 500))
    service.execute(SuspendMarket(service.now(), market_id))
    service.execute(SettleMarket(service.now(), market_id, (1,)))
    waits: list[int] = []
    durable = service.durable

    def counted(through: int | None = None) -> Awaitable[None]:
        waits.append(service.journal.last_seq)
        return durable(through)

    monkeypatch.setattr(service, "durable", counted)
    writer = client.app[keys.JOURNAL].writer_pid
    assert writer is not None and service.journal.durable_seq < service.journal.last_seq  # the settlement pending
    os.kill(writer, signal.SIGSTOP)
    try:
        asked = asyncio.ensure_future(rpc(client, alice, "getAccountStatement", {"includeItem": "EXCHANGE"},
                                          path=ACCOUNT))
        await until(lambda: bool(waits), "the statement's request waiting for the journal")
    finally:
        os.kill(writer, signal.SIGCONT)
    items = (await asyncio.wait_for(asked, 30))["result"]["accountStatement"]
    cleared = (await rpc(client, alice, "listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET"})
               )["result"]["clearedOrders"]
    assert [r["marketId"] for r in cleared] == [market_id] and cleared[0]["profit"] > 0, cleared
    assert [i["legacyData"]["marketName"] for i in items] == [service.infos[market_id].market_name] * 2, items
    assert [_pennies(i["amount"]) for i in items] == [-_pennies(cleared[0]["commission"]), _pennies(
        cleared[0]["profit"])], (items, cleared)  # newest first: the commission, then the result
