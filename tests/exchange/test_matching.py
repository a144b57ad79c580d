"""Order books: price-time priority, fills at the resting price, partial fills, cancel, replace, views."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from exchange.core.book import PriceSize
from exchange.core.events import CancelReason, Matched, OrderCancelled, OrderPlaced
from exchange.core.ladder import parse_price
from exchange.core.orders import OrderStatus
from exchange.core.side import Side

from .conftest import Harness, types


def t(p: str) -> int:
    return parse_price(p)


def test_resting_lay_is_available_to_back_and_back_to_lay(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    hx.lay("alice", 1, "2.9", 500)
    hx.back("bob", 1, "3.5", 700)
    hx.back("bob", 1, "3.6", 300)
    runner = hx.market_book("1.1").runners[0]
    assert runner.available_to_back == (PriceSize(t("3"), 1000), PriceSize(t("2.9"), 500))
    assert runner.available_to_lay == (PriceSize(t("3.5"), 700), PriceSize(t("3.6"), 300))
    assert runner.available_to_back[0].price == Decimal("3")


def test_incoming_back_takes_best_lays_first_at_their_prices(hx: Harness) -> None:
    lay_low = hx.lay("alice", 1, "2.9", 500)
    lay_high = hx.lay("carol", 1, "3", 400)
    events = hx.place("bob", 1, Side.BACK, "2.8", 700)
    assert types(events) == ["OrderPlaced", "Matched", "Matched"]
    m1, m2 = events[1], events[2]
    assert isinstance(m1, Matched) and isinstance(m2, Matched)
    assert (m1.tick, m1.size, m1.lay_bet_id, m1.taker_side) == (t("3"), 400, lay_high, Side.BACK)
    assert (m2.tick, m2.size, m2.lay_bet_id) == (t("2.9"), 300, lay_low)
    back = hx.ex.order_view("bob", hx.placed_id(events[0]))
    assert back is not None
    assert back.status is OrderStatus.EXECUTION_COMPLETE
    assert back.size_matched == 700 and back.size_remaining == 0
    # the backer got the improvement: stake-weighted (400·3 + 300·2.9) / 700
    assert back.average_price_matched == Fraction(400 * 300 + 300 * 290, 700 * 100)
    assert hx.order_view("alice", lay_low).size_remaining == 200


def test_incoming_lay_takes_lowest_backs_first(hx: Harness) -> None:
    hx.back("alice", 2, "5", 300)
    hx.back("carol", 2, "4.5", 300)
    events = hx.place("bob", 2, Side.LAY, "6", 500)
    fills = [e for e in events if isinstance(e, Matched)]
    assert [(f.tick, f.size, f.taker_side) for f in fills] == [(t("4.5"), 300, Side.LAY), (t("5"), 200, Side.LAY)]
    lay = hx.ex.order_view("bob", hx.placed_id(events[0]))
    assert lay is not None and lay.average_price_matched == Fraction(300 * 450 + 200 * 500, 500 * 100)


def test_time_priority_within_a_price(hx: Harness) -> None:
    first = hx.lay("alice", 1, "3", 300)
    second = hx.lay("carol", 1, "3", 300)
    events = hx.place("bob", 1, Side.BACK, "3", 400)
    fills = [e for e in events if isinstance(e, Matched)]
    assert [(f.lay_bet_id, f.size) for f in fills] == [(first, 300), (second, 100)]


def test_partial_fill_rests_the_remainder(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 300)
    events = hx.place("bob", 1, Side.BACK, "3", 1000)
    bet = hx.placed_id(events[0])
    view = hx.ex.order_view("bob", bet)
    assert view is not None and view.status is OrderStatus.EXECUTABLE
    assert (view.size_matched, view.size_remaining) == (300, 700)
    runner = hx.market_book("1.1").runners[0]
    assert runner.available_to_back == ()
    assert runner.available_to_lay == (PriceSize(t("3"), 700),)


def test_no_match_when_prices_do_not_cross(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 300)
    events = hx.place("bob", 1, Side.BACK, "3.05", 300)
    assert types(events) == ["OrderPlaced"]


def test_views_traded_volume_last_price_total(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 300)
    hx.lay("alice", 1, "2.9", 300)
    hx.back("bob", 1, "2.9", 500)
    hx.back("carol", 2, "4", 250)
    hx.lay("dave", 2, "4", 250)
    book = hx.ex.market_book("1.1", depth=None)
    assert book is not None
    r1, r2 = book.runners[0], book.runners[1]
    assert r1.traded_volume == (PriceSize(t("2.9"), 200), PriceSize(t("3"), 300))
    assert r1.last_traded_tick == t("2.9") and r1.total_matched == 500
    assert r2.last_traded_tick == t("4") and r2.total_matched == 250
    assert book.total_matched == 750
    assert book.round == 1


def test_best_n_levels_and_full_ladder(hx: Harness) -> None:
    for p in ("2", "2.02", "2.04", "2.06", "2.08"):
        hx.lay("alice", 3, p, 200)
    top3 = hx.market_book("1.1", depth=3).runners[2].available_to_back
    assert [x.price for x in top3] == [Decimal("2.08"), Decimal("2.06"), Decimal("2.04")]
    full = hx.market_book("1.1", depth=None).runners[2].available_to_back
    assert len(full) == 5


def test_cancel_whole_and_reduce(hx: Harness) -> None:
    bet = hx.lay("alice", 1, "3", 1000)
    events = hx.cancel("alice", bet, 300)
    assert isinstance(events[0], OrderCancelled) and events[0].size == 300
    view = hx.ex.order_view("alice", bet)
    assert view is not None and (view.size_remaining, view.size_cancelled) == (700, 300)
    events = hx.cancel("alice", bet)
    assert isinstance(events[0], OrderCancelled) and events[0].size == 700
    view = hx.ex.order_view("alice", bet)
    assert view is not None and view.status is OrderStatus.EXECUTION_COMPLETE and view.size_cancelled == 1000
    assert hx.market_book("1.1").runners[0].available_to_back == ()


def test_reduction_larger_than_remaining_cancels_the_rest(hx: Harness) -> None:
    bet = hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 400)
    events = hx.cancel("alice", bet, 5000)
    assert isinstance(events[0], OrderCancelled) and events[0].size == 600
    view = hx.ex.order_view("alice", bet)
    assert view is not None and (view.size_matched, view.size_cancelled, view.size_remaining) == (400, 600, 0)


def test_partial_cancel_keeps_queue_position(hx: Harness) -> None:
    first = hx.lay("alice", 1, "3", 1000)
    second = hx.lay("carol", 1, "3", 1000)
    hx.cancel("alice", first, 500)
    events = hx.place("bob", 1, Side.BACK, "3", 600)
    fills = [e for e in events if isinstance(e, Matched)]
    assert [(f.lay_bet_id, f.size) for f in fills] == [(first, 500), (second, 100)]


def test_replace_loses_queue_position_and_gets_a_new_bet_id(hx: Harness) -> None:
    first = hx.lay("alice", 1, "3", 1000)
    second = hx.lay("carol", 1, "3", 1000)
    hx.lay("alice", 1, "2.9", 200)
    moved = hx.replace("alice", first, "2.98")
    assert types(moved) == ["OrderCancelled", "OrderPlaced"]
    cancelled, placed = moved
    assert isinstance(cancelled, OrderCancelled) and cancelled.reason is CancelReason.REPLACED
    assert isinstance(placed, OrderPlaced) and placed.replaces == first and placed.bet_id > first
    # move it back to 3: now it queues behind carol
    back_again = hx.replace("alice", placed.bet_id, "3")
    new_id = hx.placed_id(back_again[1])
    events = hx.place("bob", 1, Side.BACK, "3", 1500)
    fills = [e for e in events if isinstance(e, Matched)]
    assert [(f.lay_bet_id, f.size) for f in fills] == [(second, 1000), (new_id, 500)]
    old = hx.ex.order_view("alice", first)
    assert old is not None and old.size_cancelled == 1000


def test_replace_of_partially_matched_order_moves_only_the_remainder(hx: Harness) -> None:
    bet = hx.back("alice", 1, "3", 1000)
    hx.lay("bob", 1, "3", 400)
    events = hx.replace("alice", bet, "3.5")
    placed = events[1]
    assert isinstance(placed, OrderPlaced) and placed.size == 600 and placed.tick == t("3.5")
    old = hx.ex.order_view("alice", bet)
    assert old is not None and (old.size_matched, old.size_cancelled) == (400, 600)


def test_replace_that_crosses_matches_immediately(hx: Harness) -> None:
    lay = hx.lay("bob", 1, "3", 500)
    bet = hx.back("alice", 1, "3.2", 300)
    events = hx.replace("alice", bet, "3")
    assert types(events) == ["OrderCancelled", "OrderPlaced", "Matched"]
    placed, matched = events[1], events[2]
    assert isinstance(placed, OrderPlaced) and isinstance(matched, Matched)
    assert (matched.tick, matched.size, matched.back_bet_id, matched.lay_bet_id) == (t("3"), 300, placed.bet_id, lay)


def test_self_match_is_allowed(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 500)
    events = hx.place("alice", 1, Side.BACK, "3", 500)
    assert types(events) == ["OrderPlaced", "Matched"]
    assert hx.exposure("alice") == 0


def test_current_orders_lists_only_own_orders(hx: Harness) -> None:
    a = hx.lay("alice", 1, "3", 500)
    b = hx.back("bob", 2, "3", 500)
    assert [o.bet_id for o in hx.ex.current_orders("alice")] == [a]
    assert [o.bet_id for o in hx.ex.current_orders("bob", "1.1")] == [b]
    assert hx.ex.current_orders("bob", "9.9") == ()
    assert hx.ex.current_orders("nobody") == ()
    assert hx.ex.order_view("bob", a) is None
    assert hx.ex.order_view("alice", 999) is None


def test_order_view_reports_api_ng_fields(hx: Harness) -> None:
    bet = hx.lay("alice", 1, "3", 500)
    hx.back("bob", 1, "3", 200)
    view = hx.ex.order_view("alice", bet)
    assert view is not None
    d = view.to_dict()
    assert d["side"] == "LAY" and d["status"] == "EXECUTABLE" and d["price"] == "3"
    assert d["size_matched"] == 200 and d["average_price_matched"] == "3"
    assert d["order_type"] == "LIMIT" and d["persistence_type"] == "LAPSE"
    assert view.matched_ts is not None and view.matched_ts > view.placed_ts
