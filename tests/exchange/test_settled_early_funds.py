"""Funds after a hand is settled early: an account left below zero may hedge, but place nothing that could overdraw.

Backing every hand can lose nothing outright, so an account may withdraw all the rest of its balance. Settling a hand
early fixes that back's loss, and the account's bets on the other hands, which would pay it back, would be refunded
if the market were then voided: the VOID outcome becomes the worst, and available to bet falls below zero. An order
that leaves that worst outcome where it is can still make the others worse; taken, one of them settling normally
would leave the balance below zero.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from exchange.core.commands import Deposit, Withdraw
from exchange.core.errors import ErrorCode
from exchange.core.events import MarketSettled, OrderRejected
from exchange.core.ladder import PRICES

from .conftest import BACK, COVERED, LAY, Harness, dutch, even_stakes


def dutched(prices: list[str], stakes: list[int]) -> Harness:
    """A market of ``len(prices)`` hands; ``dutch`` has backed each hand, matched by ``maker``, and withdrawn all it
    could."""
    h = Harness()
    ts = h.tick()
    for command in dutch([Decimal(p) for p in prices], stakes, ts):
        assert not isinstance(h.run(command)[0], OrderRejected), command
    if h.available("dutch") > 0:
        h.run(Withdraw(h.tick(), "dutch", h.available("dutch")))
    return h


def test_below_zero_after_an_early_loser_an_order_adding_risk_is_refused_and_a_hedge_taken() -> None:
    h = dutched(["4", "5", "4", "4"], [10_000] * 4)  # outright: hand 2 +100.00, the others 0
    assert (h.balance("dutch"), h.exposure("dutch")) == (0, 0)
    h.suspend()
    h.lose(1)  # back 1 settled at -100.00; void now: -100.00
    h.open()
    assert (h.balance("dutch"), h.exposure("dutch"), h.available("dutch")) == (0, 10_000, -10_000)

    # a back of hand 2 takes 100.00 off hands 3 and 4 winning: exposure stays 100.00 (the VOID outcome), but a win
    # of hand 3 or 4 would now cost 100.00 the balance does not have
    refused = h.rejected(h.place("dutch", 2, BACK, "5", 10_000))
    assert refused.error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert refused.message == f"available to bet is -100.00, below zero: {COVERED}, and this order does not"
    # a lay of hand 2 at 2.0 makes only hand 2 winning worse (+100.00 -> +50.00): a hedge, taken
    h.lay("dutch", 2, "2", 5_000)
    h.back("maker", 2, "2", 5_000)  # matched: hands 3 and 4 winning +50.00 each, hand 2 +50.00
    assert (h.exposure("dutch"), h.available("dutch")) == (10_000, -10_000)  # the VOID outcome is unchanged

    h.suspend()
    (settled,) = [e for e in h.settle(3) if isinstance(e, MarketSettled)]
    (result,) = [a for a in settled.accounts if a.account_id == "dutch"]
    assert (result.profit, result.commission) == (5_000, 125)  # 2.5 % of the net 50.00
    assert h.balance("dutch") == 4_875
    h.assert_replays()


def below_zero() -> Harness:
    """The dutcher of four hands at 4.0 after hand 1 lost early: balance 0, every outright outcome 0, void -100.00."""
    h = dutched(["4", "4", "4", "4"], [10_000] * 4)
    h.suspend()
    h.lose(1)
    h.open()
    assert (h.balance("dutch"), h.available("dutch")) == (0, -10_000)
    return h


def test_below_zero_a_lay_moved_to_a_longer_price_is_refused_where_the_balance_cannot_pay_it() -> None:
    h = below_zero()
    h.run(Deposit(h.tick(), "dutch", 5_000))  # available -50.00: hand 2 winning may lose 50.00
    bet = h.lay("dutch", 2, "1.5", 5_000)  # liability 25.00
    refused = h.replace("dutch", bet, "5")  # liability 200.00 if hand 2 wins: the exposure stays 100.00 (the void's)
    # as Betfair's, the cancel is done first and stands: the old bet is gone, the new one not placed
    assert [type(e).__name__ for e in refused] == ["OrderCancelled", "OrderRejected"]
    assert isinstance(refused[1], OrderRejected) and refused[1].error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert refused[1].message == f"available to bet is -50.00, below zero: {COVERED}, and the new price does not"
    assert h.ex.order_view("dutch", bet).size_remaining == 0  # type: ignore[union-attr]
    bet = h.lay("dutch", 2, "1.5", 5_000)
    moved = h.replace("dutch", bet, "2")  # liability 50.00: covered
    assert [type(e).__name__ for e in moved] == ["OrderCancelled", "OrderPlaced"]
    h.back("maker", 2, "2", 5_000)
    h.suspend()
    h.settle(2)
    assert h.balance("dutch") == 0  # 50.00, and hand 2 winning: 0 on the backs, -50.00 on the lay


def test_below_zero_a_bet_small_enough_is_taken_and_nothing_on_another_market() -> None:
    h = below_zero()
    h.market("1.2")
    h.run(Deposit(h.tick(), "dutch", 5_000))  # available -50.00; 1.1's outcomes may lose 50.00 each
    # on 1.2 nothing is covered: 1.1's exposure (100.00, the void's) is more than the whole balance (50.00)
    refused = h.rejected(h.place("dutch", 1, BACK, "2", 200, market_id="1.2"))
    assert refused.message == f"available to bet is -50.00, below zero: {COVERED}, and this order does not"
    assert h.rejected(h.place("dutch", 3, BACK, "3", 5_100)).error_code is ErrorCode.INSUFFICIENT_FUNDS
    h.back("dutch", 3, "3", 5_000)  # hands 2 and 4 winning: -50.00 each, what the balance covers
    h.lay("maker", 3, "3", 5_000)
    h.suspend()
    h.settle(4)
    assert h.balance("dutch") == 0


def test_what_is_not_reserved_a_void_after_a_hand_settled_early_can_leave_the_balance_below_zero() -> None:
    """Exposure reserves the VOID outcome's loss as it stands, not as a hand settled later would make it (the spec's
    exposure is the outright outcomes'): the dutcher withdrew what the outright outcomes left free, and a void after
    hand 1 settled early keeps that back's -100.00 and refunds the backs that covered it."""
    h = dutched(["4", "4", "4", "4"], [10_000] * 4)
    assert (h.balance("dutch"), h.exposure("dutch")) == (0, 0)
    h.suspend()
    h.lose(1)
    assert (h.exposure("dutch"), h.available("dutch")) == (10_000, -10_000)
    h.void()
    assert h.balance("dutch") == -10_000
    assert h.balance("dutch") + h.balance("maker") + h.balance("HOUSE") == 10**9  # what was paid in, to the penny
    h.assert_replays()


@st.composite
def dutches(draw: st.DrawFn) -> tuple[list[str], list[int]]:
    """Backs of every hand (3 to 8) at prices from 1.10 to 10, each stake the returns' total over its price: every
    outright outcome then returns about the same, so a hand settled early often leaves available below zero."""
    ticks = draw(st.lists(st.integers(10, 250), min_size=3, max_size=8))
    return [str(PRICES[t]) for t in ticks], even_stakes(ticks, draw(st.integers(5_000, 40_000)))


orders = st.lists(st.tuples(st.booleans(), st.integers(0, 7), st.integers(0, 349), st.integers(2, 60)), max_size=12)


@settings(max_examples=120, deadline=None)
@given(dutches(), st.integers(1, 6), orders, st.data())
def test_after_early_losers_no_order_taken_can_leave_a_normal_settlement_below_zero(
    dutch: tuple[list[str], list[int]], losers: int, attempts: list[tuple[bool, int, int, int]], data: st.DataObject
) -> None:
    """Whatever the dutcher then tries (each order met at once by the maker), settling the market normally, with any
    hand or dead heat of hands still in play winning, leaves its balance at zero or above."""
    h = dutched(*dutch)
    n = len(dutch[0])
    h.suspend()
    live = list(range(1, n + 1))
    for _ in range(min(losers, n - 2)):
        h.lose(live.pop(data.draw(st.integers(0, len(live) - 1))))
    h.open()
    for is_back, which, tick, size in attempts:
        sel, price = live[which % len(live)], PRICES[tick]
        events = h.place("dutch", sel, BACK if is_back else LAY, price, 100 * size)
        if events[0].CHANGES_STATE:  # taken: the maker meets it
            h.place("maker", sel, LAY if is_back else BACK, price, 100 * size)
    h.suspend()
    winners = data.draw(st.lists(st.sampled_from(live), min_size=1, max_size=len(live), unique=True))
    h.settle(*winners)
    assert h.balance("dutch") >= 0, h.ex.market_result("dutch", "1.1")
