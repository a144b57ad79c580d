"""Accounts: balances, exposure (matched + conservative unmatched), available to bet, deposits and withdrawals."""

from __future__ import annotations

from decimal import Decimal

from exchange.core.commands import Deposit, OpenAccount, Withdraw
from exchange.core.errors import ErrorCode
from exchange.core.events import CommandRejected
from exchange.core.side import Side

from .conftest import Harness


def test_unmatched_lay_reserves_its_liability(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)  # liability 10.00 × 2 = 20.00
    assert hx.exposure("alice") == 2000
    assert hx.available("alice") == 100_000 - 2000
    assert hx.balance("alice") == 100_000


def test_unmatched_back_reserves_its_stake(hx: Harness) -> None:
    hx.back("alice", 2, "4", 500)
    assert hx.exposure("alice") == 500


def test_exposure_is_the_worst_outright_outcome_matched_and_unmatched(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    hx.back("alice", 2, "4", 500)
    # outcome 1: -20.00 (lay) - 5.00 (back on 2); 2: 0 (no credit for unmatched gains); 3, 4: -5.00
    assert hx.exposure("alice") == 2500
    hx.back("bob", 1, "3", 1000)  # matches alice's lay
    # alice: outcome 1: -20.00 - 5.00; outcomes 2, 3, 4: +10.00 - 5.00 -> worst -25.00
    assert hx.exposure("alice") == 2500
    # bob: +20.00 if 1 wins, -10.00 otherwise
    assert hx.exposure("bob") == 1000
    pnl = hx.ex.profit_and_loss("alice", "1.1")
    assert pnl == {1: Decimal("-2000"), 2: Decimal("1000"), 3: Decimal("1000"), 4: Decimal("1000")}


def test_an_unmatched_hedge_frees_nothing_until_it_matches(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 1000)
    assert hx.exposure("alice") == 2000
    hedge = hx.back("alice", 1, "3.05", 1000)
    assert hx.exposure("alice") == 2000  # still the 20.00 if 1 wins; the back's possible loss is covered
    hx.lay("carol", 1, "3.05", 1000)  # matches the hedge
    # 1 wins: -20.00 + 20.50 = +0.50; otherwise +10.00 - 10.00 = 0
    assert hx.exposure("alice") == 0
    assert hx.order_view("alice", hedge).size_matched == 1000


def test_fractional_exposure_rounds_up_to_the_unit(hx: Harness) -> None:
    hx.lay("alice", 1, "1.01", 201)  # liability 201 minor units × 0.01 = 2.01 minor units
    assert hx.exposure("alice") == 3


def test_insufficient_funds_rejects_and_changes_nothing(hx: Harness) -> None:
    digest = hx.ex.state_digest()
    rejection = hx.rejected(hx.place("carol", 1, Side.LAY, "1000", 200))  # liability 1998.00
    assert rejection.error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert rejection.message == "this order needs 1998.00 more exposure but only 1000.00 is available to bet"
    assert hx.ex.state_digest() == digest


def test_an_order_may_use_exactly_all_available_funds(hx: Harness) -> None:
    hx.lay("carol", 1, "6", 20_000)  # liability 1000.00 = the whole balance
    assert hx.available("carol") == 0
    assert hx.rejected(hx.place("carol", 2, Side.BACK, "3", 200)).error_code is ErrorCode.INSUFFICIENT_FUNDS
    # a back on the same selection cannot make the worst case (selection 1 wins) worse
    hx.back("carol", 1, "7", 50_000)
    assert hx.available("carol") == 0


def test_exposure_adds_up_across_markets(hx: Harness) -> None:
    hx.market("1.2")
    hx.lay("alice", 1, "3", 1000, market_id="1.1")
    hx.lay("alice", 1, "5", 1000, market_id="1.2")
    assert hx.exposure("alice") == 2000 + 4000
    hx.run(Withdraw(hx.tick(), "alice", 100_000 - 6000))
    assert hx.available("alice") == 0
    rejection = hx.rejected(hx.place("alice", 1, Side.LAY, "2", 200, market_id="1.2"))
    assert rejection.error_code is ErrorCode.INSUFFICIENT_FUNDS
    # a lay of another selection does not deepen the worst case (selection 1 winning)
    hx.lay("alice", 2, "2", 200, market_id="1.2")


def test_fills_never_raise_exposure(hx: Harness) -> None:
    """A back's worst case is its stake lost, matched or not: a fill moves none of it (nor drops it)."""
    hx.back("alice", 1, "3", 1000)
    assert hx.exposure("alice") == 1000
    hx.lay("bob", 1, "3", 400)
    assert hx.exposure("alice") == 1000 and hx.exposure("bob") == 800  # bob's lay: 4.00 × (3 − 1)


def test_cancel_releases_exposure(hx: Harness) -> None:
    bet = hx.lay("alice", 1, "3", 1000)
    hx.cancel("alice", bet, 400)
    assert hx.exposure("alice") == 1200
    hx.cancel("alice", bet)
    assert hx.exposure("alice") == 0


def test_deposit_withdraw_and_their_rejections(hx: Harness) -> None:
    hx.run(Deposit(hx.tick(), "alice", 500))
    assert hx.balance("alice") == 100_500
    hx.lay("alice", 1, "3", 1000)
    events = hx.run(Withdraw(hx.tick(), "alice", 100_500 - 1999))
    assert isinstance(events[0], CommandRejected) and events[0].error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert events[0].message == "cannot withdraw 985.01; available 985.00"
    hx.run(Withdraw(hx.tick(), "alice", 100_500 - 2000))
    assert hx.balance("alice") == 2000 and hx.available("alice") == 0
    for cmd, code in [
        (Deposit(hx.tick(), "alice", 0), ErrorCode.INVALID_AMOUNT),
        (Deposit(hx.tick(), "alice", -5), ErrorCode.INVALID_AMOUNT),
        (Withdraw(hx.tick(), "alice", 0), ErrorCode.INVALID_AMOUNT),
        (Deposit(hx.tick(), "zed", 100), ErrorCode.INVALID_ACCOUNT),
        (Withdraw(hx.tick(), "zed", 100), ErrorCode.INVALID_ACCOUNT),
        (OpenAccount(hx.tick(), "alice"), ErrorCode.DUPLICATE_ACCOUNT),
        (OpenAccount(hx.tick(), ""), ErrorCode.INVALID_ACCOUNT),
    ]:
        events = hx.run(cmd)
        assert len(events) == 1 and isinstance(events[0], CommandRejected), cmd
        assert events[0].error_code is code, (cmd, events[0])


def test_funds_view(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    funds = hx.ex.funds("alice")
    assert funds is not None and funds.to_dict() == {
        "account_id": "alice",
        "balance": 100_000,
        "exposure": 2000,
        "available": 98_000,
    }
    assert hx.ex.funds("nobody") is None
    assert hx.ex.profit_and_loss("nobody", "1.1") is None


def reserved(hx: Harness, account: str) -> int:
    return hx.ex.accounts[account].reserved


def test_the_reserve_bounds_exposure_through_every_lifecycle_step(hx: Harness) -> None:
    # The reserve: each order's largest loss on its live size, a back's stake or a lay's liability at its own price.
    bet = hx.lay("alice", 1, "3", 1000)
    assert reserved(hx, "alice") == 2000
    hx.back("alice", 2, "1.01", 201)
    assert reserved(hx, "alice") == 2201
    hx.back("bob", 1, "2.5", 400)  # fills 400 of alice's lay at 3: the reserve stays at the lay's own price
    assert reserved(hx, "alice") == 2201 and reserved(hx, "bob") == 400
    hx.cancel("alice", bet, 100)  # live size 900: liability 18.00
    assert reserved(hx, "alice") == 2001
    hx.lay("alice", 3, "1.01", 201)  # liability 2.01 rounds up to 3
    assert reserved(hx, "alice") == 2004
    hx.suspend()  # unmatched remainders lapse; the 400 matched stays reserved
    assert reserved(hx, "alice") == 800
    assert hx.exposure("alice") <= reserved(hx, "alice")
    hx.settle(2)
    assert reserved(hx, "alice") == reserved(hx, "bob") == 0


def test_an_account_over_its_reserve_still_places_an_order_that_does_not_raise_exposure(hx: Harness) -> None:
    hx.accounts("dora", balance=1000)
    hx.back("dora", 1, "2", 1000)  # exposure 10.00: the whole balance
    hx.lay("dora", 1, "1.9", 1000)  # 9.00 more reserved, but selection 1 winning costs only 9.00 of the 10.00
    assert reserved(hx, "dora") == 1900 > hx.balance("dora")
    assert hx.exposure("dora") == 1000 and hx.available("dora") == 0
    assert hx.rejected(hx.place("dora", 2, Side.LAY, "2", 200)).error_code is ErrorCode.INSUFFICIENT_FUNDS


def test_a_voided_match_releases_its_reserve(hx: Harness) -> None:
    start = hx.tick()
    hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 1000)
    hx.void_since(start)
    assert reserved(hx, "alice") == 0 and reserved(hx, "bob") == 0
