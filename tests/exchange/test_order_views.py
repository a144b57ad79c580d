"""A memo of order views (:class:`OrderViews`): an order's view is built again exactly when the order changed."""

from __future__ import annotations

from decimal import Decimal

import pytest

from exchange.core.commands import (
    CancelOrder,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    VoidMarket,
    VoidMatchedSince,
)
from exchange.core.exchange import Exchange
from exchange.core.order_views import OrderViews
from exchange.core.side import Side


def market_with_three_lays() -> Exchange:
    """``maker`` rests lays 1, 2 and 3 (bets 1-3) on hands 1-3 of market 1.1; ``taker`` is funded."""
    ex = Exchange()
    for name in ("maker", "taker"):
        ex.execute(OpenAccount(0, name))
        ex.execute(Deposit(0, name, 100_000))
    ex.execute(CreateMarket(0, "1.1", (1, 2, 3, 4)))
    ex.execute(OpenMarket(0, "1.1"))
    for sel in (1, 2, 3):
        ex.execute(PlaceOrder(1, "maker", "1.1", sel, Side.LAY, Decimal("3"), 1_000))
    return ex


def test_an_unchanged_order_keeps_its_view_and_a_changed_one_gets_a_new_one() -> None:
    ex = market_with_three_lays()
    memo = OrderViews()
    first = ex.current_orders("maker", "1.1", views=memo)
    assert ex.current_orders("maker", "1.1", views=memo) == first
    assert all(a is b for a, b in zip(ex.current_orders("maker", "1.1", views=memo), first, strict=True))

    ex.execute(PlaceOrder(2, "taker", "1.1", 1, Side.BACK, Decimal("3"), 400))  # bet 1 partly matched
    ex.execute(CancelOrder(3, "maker", 2, 300))  # bet 2 reduced
    after = ex.current_orders("maker", "1.1", views=memo)
    assert after == ex.current_orders("maker", "1.1")  # as built afresh
    assert [v.size_matched for v in after] == [400, 0, 0]
    assert [v.size_cancelled for v in after] == [0, 300, 0]
    assert after[0] is not first[0] and after[1] is not first[1] and after[2] is first[2]


def test_a_voided_match_is_a_change() -> None:
    """A void moves matched stake to voided and leaves the remainder as it was."""
    ex = market_with_three_lays()
    ex.execute(PlaceOrder(2, "taker", "1.1", 3, Side.BACK, Decimal("3"), 1_000))  # bet 3 matched whole
    memo = OrderViews()
    before = ex.current_orders("maker", "1.1", views=memo)
    ex.execute(VoidMatchedSince(3, "1.1", 2))
    after = ex.current_orders("maker", "1.1", views=memo)
    assert after == ex.current_orders("maker", "1.1")
    assert (before[2].size_matched, after[2].size_matched, after[2].size_voided) == (1_000, 0, 1_000)


def test_orders_done_with_are_listed_without_being_looked_at_again() -> None:
    """Cancelled whole with nothing matched, an order never changes: its view is the one listed before, and a live
    listing leaves it out."""
    ex = market_with_three_lays()
    memo, live = OrderViews(), OrderViews()
    ex.current_orders("maker", "1.1", views=memo)
    ex.execute(CancelOrder(2, "maker", 2))
    done = ex.current_orders("maker", "1.1", views=memo)[1]
    assert done.size_cancelled == 1_000
    ex.execute(PlaceOrder(3, "maker", "1.1", 4, Side.LAY, Decimal("3"), 500))  # bet 4
    listed = ex.current_orders("maker", "1.1", views=memo)
    assert listed[1] is done and [v.bet_id for v in listed] == [1, 2, 3, 4]
    assert [v.bet_id for v in ex.current_orders("maker", "1.1", live_only=True, views=live)] == [1, 3, 4]


def test_live_says_the_orders_of_the_last_listing_with_something_unmatched() -> None:
    ex = market_with_three_lays()
    memo = OrderViews()
    assert memo.live("1.1") == ()  # not listed yet
    ex.current_orders("maker", "1.1", views=memo)
    ex.execute(CancelOrder(2, "maker", 2))
    ex.execute(PlaceOrder(2, "taker", "1.1", 3, Side.BACK, Decimal("3"), 400))  # bet 4 takes 400 of bet 3
    assert [v.bet_id for v in memo.live("1.1")] == [1, 2, 3]  # as of the last listing
    listed = ex.current_orders("maker", "1.1", views=memo)
    assert memo.live("1.1") == (listed[0], listed[2]) and listed[2].size_remaining == 600
    ex.current_orders("maker", "1.2", views=memo)
    assert memo.live("1.1") == ()  # the last listing did not have it


def test_a_listing_follows_the_markets_asked_for() -> None:
    """One memo across markets and a market's end: each listing is as built afresh."""
    ex = market_with_three_lays()
    ex.execute(CreateMarket(2, "1.2", (1, 2)))
    ex.execute(OpenMarket(2, "1.2"))
    ex.execute(PlaceOrder(2, "maker", "1.2", 1, Side.BACK, Decimal("2"), 300))
    memo = OrderViews()
    for market_id in ("1.1", None, "1.2", "1.1", None):
        assert ex.current_orders("maker", market_id, views=memo) == ex.current_orders("maker", market_id)
    ex.execute(VoidMarket(3, "1.1", "a misdeal"))
    assert ex.current_orders("maker", views=memo) == ex.current_orders("maker")
    assert [v.bet_id for v in ex.current_orders("maker", views=memo)] == [4]


def test_changed_says_the_orders_new_or_changed_since_it_was_last_asked() -> None:
    ex = market_with_three_lays()
    memo = OrderViews(changes=True)
    ex.current_orders("maker", "1.1", views=memo)
    assert [v.bet_id for v in memo.changed("1.1")] == [1, 2, 3]  # new to it
    ex.current_orders("maker", "1.1", views=memo)
    assert memo.changed("1.1") == []
    ex.execute(PlaceOrder(2, "taker", "1.1", 3, Side.BACK, Decimal("3"), 200))  # bet 3 partly matched
    ex.current_orders("maker", "1.1", views=memo)
    ex.execute(CancelOrder(3, "maker", 1, 100))  # bet 1 reduced: two listings, one question
    ex.execute(PlaceOrder(3, "taker", "1.1", 3, Side.BACK, Decimal("3"), 200))  # bet 3 matched further
    listed = ex.current_orders("maker", "1.1", views=memo)
    changed = memo.changed("1.1")
    assert [(v.bet_id, v.size_cancelled, v.size_matched) for v in changed] == [(1, 100, 0), (3, 0, 400)]
    assert changed == [listed[0], listed[2]]


def test_only_a_memo_made_to_keep_changes_says_them() -> None:
    memo = OrderViews()
    market_with_three_lays().current_orders("maker", views=memo)
    with pytest.raises(ValueError, match="keeps no changes"):
        memo.changed("1.1")
