"""listClearedOrders' rollups add up: every ``groupBy`` row equals the sum of the ``BET`` rows it rolls up.

A seeded flow of markets (matches, cancels, lapses, bets voided by a card exposure, selections settled early,
dead heats, voided markets) leaves an account with cleared orders of every status; for each status and each
grouping the rows are compared with the bet rows grouped here (counts, profit, sizes, the stake-weighted price,
the latest dates), and ``settledDateRange`` with bounds on settled dates keeps exactly the bets inside them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.core import ladder
from exchange.core.commands import (
    CancelOrder,
    CreateMarket,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
)
from exchange.core.events import OrderPlaced
from exchange.core.side import Side
from exchange.server import keys
from exchange.server.service import ExchangeService
from tests.server.helpers import ACCOUNT, login, rpc

SELECTIONS = (1, 2, 3, 4)
STATUSES = ("SETTLED", "VOIDED", "LAPSED", "CANCELLED")
KEYS: dict[str, Callable[[dict[str, Any]], tuple[Any, ...]]] = {
    "SIDE": lambda r: (r["marketId"], r["selectionId"], r["side"]),
    "RUNNER": lambda r: (r["marketId"], r["selectionId"]),
    "MARKET": lambda r: (r["marketId"],),
    "EVENT": lambda r: (r["eventId"],),
    "EVENT_TYPE": lambda r: (r["eventTypeId"],),
}


def _market(service: ExchangeService, clock: VirtualClock, rng: random.Random, market_id: str) -> dict[str, int]:
    """One market's life, at random; a ``-low`` market (a hi/lo game's Low market) has five selections.
    Returns the size of each bet placed there, by bet id (as the API writes it)."""
    selections = (*SELECTIONS, 5) if market_id.endswith("-low") else SELECTIONS
    service.execute(CreateMarket(service.now(), market_id, selections))
    service.execute(OpenMarket(service.now(), market_id))
    sizes: dict[str, int] = {}
    for _ in range(rng.randrange(3, 9)):
        clock.advance(rng.choice((0, 1, 40)))
        selection = rng.choice(selections)
        price = ladder.PRICES[rng.randrange(60, 70)]
        for account in rng.sample(("alice", "bob"), 2):
            side = rng.choice((Side.BACK, Side.LAY))
            events = service.execute(PlaceOrder(service.now(), account, market_id, selection, side, price,
                                                rng.randrange(200, 1_500)))
            placed = [e for e in events if isinstance(e, OrderPlaced)]
            sizes |= {str(e.bet_id): e.size for e in placed}
            if placed and rng.random() < 0.2:
                service.execute(CancelOrder(service.now(), account, placed[0].bet_id, rng.choice((None, 100))))
    if rng.random() < 0.3:
        service.execute(VoidMatchedSince(service.now(), market_id, service.now() - 40))
    service.execute(SuspendMarket(service.now(), market_id))  # what is unmatched lapses
    clock.advance(rng.choice((1, 7)))
    live = list(selections)
    if rng.random() < 0.5:
        live.remove(loser := rng.choice(live))
        service.execute(SettleSelection(service.now(), market_id, loser))
        clock.advance(rng.choice((0, 3)))
    if rng.random() < 0.2:
        service.execute(VoidMarket(service.now(), market_id, "test"))
    else:
        service.execute(SettleMarket(service.now(), market_id, tuple(rng.sample(live, rng.randint(1, 3)))))
    clock.advance(rng.choice((0, 1, 5)))
    return sizes


def _settled_twice(service: ExchangeService, clock: VirtualClock, market_id: str) -> None:
    """A market where alice backs hands 1 and 2 against bob; hand 1 settles a loser, hand 2 wins 5 ms later."""
    service.execute(CreateMarket(service.now(), market_id, SELECTIONS))
    service.execute(OpenMarket(service.now(), market_id))
    for selection, price in ((1, "3.0"), (2, "2.5")):
        service.execute(PlaceOrder(service.now(), "bob", market_id, selection, Side.LAY, Decimal(price), 1_000))
        service.execute(PlaceOrder(service.now(), "alice", market_id, selection, Side.BACK, Decimal(price), 1_000))
    service.execute(SuspendMarket(service.now(), market_id))
    service.execute(SettleSelection(service.now(), market_id, 1))
    clock.advance(5)
    service.execute(SettleMarket(service.now(), market_id, (2,)))
    clock.advance(5)


def _rolled_up(bets: list[dict[str, Any]], group_by: str) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The bet rows of each group summed here: what each group row must say."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in bets:
        groups.setdefault(KEYS[group_by](row), []).append(row)
    out = {}
    for key, rows in groups.items():
        want: dict[str, Any] = {"betCount": len(rows), "profit": round(sum(r["profit"] for r in rows), 2),
                                "settledDate": max(r["settledDate"] for r in rows)}
        if group_by in ("SIDE", "RUNNER"):  # sizeSettled only where its bets are on one side (_hoisted)
            want["sizeCancelled"] = round(sum(r["sizeCancelled"] for r in rows), 2)
        if group_by in ("SIDE", "RUNNER", "MARKET"):
            want |= _hoisted(rows, group_by)
        out[key] = want
    return out


def _hoisted(rows: list[dict[str, Any]], group_by: str) -> dict[str, Any]:
    """The bet-level fields Betfair's table of roll-up fields shows in a SIDE, RUNNER or MARKET row: the latest
    placedDate, persistenceType, orderType and priceReduced always (every bet here is the same LIMIT, LAPSE bet);
    the side, the averaged prices and the summed sizeSettled where they are unambiguous (a RUNNER row's bets all on
    one side, a MARKET row's on one runner and side), with the selection in a MARKET row; every field, betId
    included, of a row of one bet."""
    want: dict[str, Any] = {"placedDate": max(r["placedDate"] for r in rows), "persistenceType": "LAPSE",
                            "orderType": "LIMIT", "priceReduced": False}
    one_side = len({(r["selectionId"], r["side"]) for r in rows}) == 1
    if group_by == "SIDE" or one_side:
        want |= {"side": rows[0]["side"],
                 "priceRequested": float(sum(Fraction(str(r["priceRequested"])) for r in rows) / len(rows)),
                 "sizeSettled": round(sum(r["sizeSettled"] for r in rows), 2)}
        priced = [(Fraction(str(r["sizeSettled"])), Fraction(str(r["priceMatched"]))) for r in rows
                  if "priceMatched" in r and r["sizeSettled"]]
        if priced:  # from the bet rows' prices, rounded to four places: the group's is from the exact ones
            stake = sum(size for size, _ in priced)
            want["priceMatched"] = float(sum((s * p for s, p in priced), Fraction(0)) / stake)
        if group_by == "MARKET":
            want |= {"selectionId": rows[0]["selectionId"], "handicap": 0.0}
    if len(rows) == 1:
        want["betId"] = rows[0]["betId"]
    return want


async def _alice_and_bob(client: TestClient) -> tuple[ExchangeService, str]:
    """The server's service and alice's session, bob logged in too (the two trade with each other)."""
    alice = await login(client, "alice", "pw-alice")
    await login(client, "bob", "pw-bob")
    return client.app[keys.SERVICE], alice


async def _cleared(client: TestClient, token: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    answer = (await rpc(client, token, "listClearedOrders", params))["result"]
    assert not answer["moreAvailable"]
    return list(answer["clearedOrders"])


async def test_every_rollup_is_the_sum_of_its_bets(client: TestClient, clock: VirtualClock) -> None:
    service, alice = await _alice_and_bob(client)
    rng = random.Random(5)
    for m in range(16):
        _market(service, clock, rng, f"roll.{m}")
        if m % 3 == 0:  # the game's Low market: the same event
            _market(service, clock, rng, f"roll.{m}-low")
    seen = set()
    for status in STATUSES:
        bets = await _cleared(client, alice, {"betStatus": status})
        seen |= {status} if bets else set()
        for group_by in KEYS:
            rows = await _cleared(client, alice, {"betStatus": status, "groupBy": group_by})
            got = {KEYS[group_by](r): r for r in rows}
            want = _rolled_up(bets, group_by)
            assert got.keys() == want.keys(), (status, group_by)
            for key, fields in want.items():
                for name in ("priceMatched", "priceRequested"):
                    price = fields.pop(name, None)
                    assert (price is None) == (name not in got[key]), (status, group_by, key, name)
                    assert price is None or abs(got[key][name] - price) < 0.0001, (status, group_by, key, name)
                assert {k: got[key].get(k) for k in fields} == fields, (status, group_by, key)
                if group_by != "SIDE" and "side" not in fields:  # ambiguous: not shown (a back's stake and a lay's
                    # summed would say nothing)
                    assert not {"side", "betId", "sizeSettled"} & got[key].keys(), (status, group_by, key)
    assert seen == set(STATUSES)  # the flow left cleared orders of every status
    runners = await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "RUNNER"})
    assert any("side" not in r for r in runners)  # the flow left a runner backed and laid
    # commission: a market's once, an event's the sum of its markets', the event type's the sum of all
    by_market = {r["marketId"]: r for r in await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "MARKET"})}
    events = await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "EVENT"})
    assert any(m.endswith("-low") for m in by_market) and len(events) < len(by_market)
    for row in events:
        want = sum(r["commission"] for m, r in by_market.items() if r["eventId"] == row["eventId"])
        assert round(row["commission"], 2) == round(want, 2), row["eventId"]
    (everything,) = await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "EVENT_TYPE"})
    assert round(everything["commission"], 2) == round(sum(r["commission"] for r in by_market.values()), 2) > 0


async def test_the_rows_of_each_bet_add_up_to_its_size(client: TestClient, clock: VirtualClock) -> None:
    """Over every status, a bet's ``sizeSettled`` and ``sizeCancelled`` add up to what was placed: a bet settled on
    the stake that stood after a void has a ``VOIDED`` row for the voided stake beside its ``SETTLED`` one."""
    service: ExchangeService = client.app[keys.SERVICE]
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    rng = random.Random(7)
    sizes: dict[str, int] = {}
    for m in range(16):
        sizes |= _market(service, clock, rng, f"sizes.{m}")
    listed: dict[str, dict[str, dict[str, Any]]] = {}
    for token in (alice, bob):
        for status in STATUSES:
            for row in await _cleared(client, token, {"betStatus": status}):
                listed.setdefault(row["betId"], {})[status] = row
    assert listed.keys() == sizes.keys()
    for bet_id, rows in listed.items():
        total = sum(round(100 * (r["sizeSettled"] + r["sizeCancelled"])) for r in rows.values())
        assert total == sizes[bet_id], (bet_id, rows)
    both = [rows for rows in listed.values() if rows.keys() == {"SETTLED", "VOIDED"}]
    assert both  # the flow left bets partly voided and settled on the rest
    for rows in both:
        voided = rows["VOIDED"]
        assert voided["profit"] == voided["sizeCancelled"] == 0 and "betOutcome" not in voided, voided
        assert "priceMatched" not in voided and "betOutcome" in rows["SETTLED"]


async def test_settled_date_bounds_are_inclusive_to_the_millisecond(client: TestClient, clock: VirtualClock) -> None:
    service, alice = await _alice_and_bob(client)
    rng = random.Random(11)
    for m in range(14):
        _market(service, clock, rng, f"date.{m}")
    bets = await _cleared(client, alice, {"betStatus": "SETTLED"})
    dates = sorted({r["settledDate"] for r in bets})
    assert len(dates) >= 4
    for low, high in ((dates[0], dates[0]), (dates[1], dates[-2]), (dates[2], dates[2]), (dates[-1], dates[-1])):
        kept = await _cleared(client, alice, {"betStatus": "SETTLED", "settledDateRange": {"from": low, "to": high}})
        assert [r["betId"] for r in kept] == [r["betId"] for r in bets if low <= r["settledDate"] <= high]


async def test_a_rollup_with_commission_takes_each_market_whole(client: TestClient, clock: VirtualClock) -> None:
    """A ``settledDateRange`` picks a MARKET, EVENT or EVENT_TYPE rollup's markets, and each comes whole, bets settled
    outside the range included, as Betfair's does: its commission, charged on the whole market, is then with the
    profit it was charged on (a market settled at two times is in the ranges of both, whole, as Betfair warns).
    The finer rollups keep only the bets settled in the range."""
    service, alice = await _alice_and_bob(client)
    rng = random.Random(11)
    for m in range(6):
        _market(service, clock, rng, f"whole.{m}")
        _settled_twice(service, clock, f"twice.{m}")
    bets = await _cleared(client, alice, {"betStatus": "SETTLED"})
    by_market: dict[str, set[str]] = {}
    for row in bets:
        by_market.setdefault(row["marketId"], set()).add(row["settledDate"])
    split = sorted(m for m, dates in by_market.items() if len(dates) > 1)
    assert split
    cut = min(by_market[split[0]])  # a range that ends at that market's early settlement
    whole = {r["marketId"]: r for r in await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "MARKET"})}
    windowed = await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "MARKET",
                                              "settledDateRange": {"to": cut}})
    assert {r["marketId"] for r in windowed} == {m for m, dates in by_market.items() if min(dates) <= cut}
    assert split[0] in {r["marketId"] for r in windowed}
    for row in windowed:
        assert row == whole[row["marketId"]]
    sides = await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "SIDE", "settledDateRange": {"to": cut}})
    assert sum(r["betCount"] for r in sides) == sum(1 for r in bets if r["settledDate"] <= cut)
    (before,) = await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": "EVENT_TYPE",
                                                "settledDateRange": {"to": cut}})
    assert before["betCount"] == sum(whole[m]["betCount"] for m in {r["marketId"] for r in windowed})


async def test_a_range_that_ends_before_it_starts_holds_nothing(client: TestClient, clock: VirtualClock) -> None:
    """A ``from`` after its ``to`` is no error: "no results will be returned", as Betfair documents."""
    service, alice = await _alice_and_bob(client)
    _settled_twice(service, clock, "reversed.0")
    bets = await _cleared(client, alice, {"betStatus": "SETTLED"})
    assert bets
    late, early = bets[-1]["settledDate"], bets[0]["placedDate"]
    reversed_range = {"from": late, "to": early}
    assert await _cleared(client, alice, {"betStatus": "SETTLED", "settledDateRange": reversed_range}) == []
    for group_by in KEYS:
        assert await _cleared(client, alice, {"betStatus": "SETTLED", "groupBy": group_by,
                                              "settledDateRange": reversed_range}) == []
    current = (await rpc(client, alice, "listCurrentOrders", {"dateRange": reversed_range}))["result"]
    assert current == {"currentOrders": [], "moreAvailable": False}
    statement = (await rpc(client, alice, "getAccountStatement", {"itemDateRange": reversed_range}, path=ACCOUNT)
                 )["result"]
    assert statement == {"accountStatement": [], "moreAvailable": False}
