"""Checking a batch of place instructions before placing any (API-NG's placeOrders is atomic)."""

from __future__ import annotations

import random
from decimal import Decimal

from exchange.core import ladder
from exchange.core.commands import PlaceOrder
from exchange.core.errors import ErrorCode
from exchange.core.events import OrderPlaced
from exchange.core.side import Side

from .conftest import Harness


def place(hx: Harness, account: str, selection: int, side: Side, price: str, size: int) -> PlaceOrder:
    return PlaceOrder(hx.tick(), account, "1.1", selection, side, Decimal(price), size)


def codes(hx: Harness, batch: list[PlaceOrder]) -> list[str | None]:
    return [None if r is None else r.code.value for r in hx.ex.check_places(batch)]


def test_earlier_instructions_count_as_placed(hx: Harness) -> None:
    # alice has 1000.00. Two lays at 3 of 300.00 (liability 600.00 each) on different hands: only one
    # hand can win, so the worst case is 600.00 and both fit.
    batch = [place(hx, "alice", 1, Side.LAY, "3", 30_000), place(hx, "alice", 2, Side.LAY, "3", 30_000)]
    assert codes(hx, batch) == [None, None]
    batch.append(place(hx, "alice", 3, Side.BACK, "2", 50_000))  # 500.00 more if 1, 2 or 4 wins: 1100.00
    assert codes(hx, batch) == [None, None, "INSUFFICIENT_FUNDS"]
    assert hx.ex.check_places(batch[2:]) == [None]  # alone it fits


def test_every_refusal_is_reported_and_nothing_changes(hx: Harness) -> None:
    digest = hx.ex.state_digest()
    batch = [
        place(hx, "alice", 1, Side.BACK, "2.03", 500),  # not on the ladder
        place(hx, "alice", 9, Side.BACK, "2", 500),  # no such runner
        place(hx, "alice", 1, Side.BACK, "2", 100),  # below the minimum stake
        place(hx, "alice", 1, Side.BACK, "2", 500),
    ]
    assert codes(hx, batch) == ["INVALID_ODDS", "INVALID_RUNNER", "INVALID_BET_SIZE", None]
    assert hx.ex.state_digest() == digest
    assert hx.ex.accounts["alice"].positions == {}  # the tentative position was taken back


def test_a_batch_that_checks_clean_is_placed_whole(hx: Harness) -> None:
    """Seeded batches: checking never changes the state, and a clean check means every instruction is accepted."""
    rng = random.Random(7)
    hx.accounts("eve", balance=5_000)
    for _ in range(300):
        batch = [
            place(
                hx, rng.choice(("alice", "bob", "eve")), rng.choice((1, 2, 3, 4)), rng.choice((Side.BACK, Side.LAY)),
                str(ladder.PRICES[rng.randrange(40, 90)]), rng.randrange(200, 20_000),
            )
            for _ in range(rng.randrange(1, 5))
        ]  # fmt: skip
        digest = hx.ex.state_digest()
        results = hx.ex.check_places(batch)
        assert hx.ex.state_digest() == digest
        if all(r is None for r in results):
            for cmd in batch:
                assert isinstance(hx.run(cmd)[0], OrderPlaced)
        else:
            assert any(r is not None and r.code is ErrorCode.INSUFFICIENT_FUNDS for r in results)
    hx.assert_replays()
