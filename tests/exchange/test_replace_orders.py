"""Replacing bets as Betfair's ``replaceOrders`` does: every cancel first, then the new bets all placed or none.

"The cancel is completed first then the new orders are placed. The new orders will be placed atomically in that
they will all be placed or none will be placed. In the case where the new orders cannot be placed the
cancellations will not be rolled back." A price off the ladder is one reason a new bet cannot be placed: the
cancel stands (a live Betfair reply to a move to 2.57: ``CANCELLED_NOT_PLACED``, the new bet ``INVALID_ODDS``).
"""

from __future__ import annotations

from decimal import Decimal

from exchange.core import ladder
from exchange.core.commands import Move, ReplaceOrders
from exchange.core.errors import ErrorCode
from exchange.core.events import CancelReason, Event, Matched, OrderCancelled, OrderPlaced, OrderRejected
from tests.exchange.conftest import Harness


def _moves(hx: Harness, account: str, *moves: tuple[int, str], market_id: str = "1.1") -> list[Event]:
    return hx.run(ReplaceOrders(hx.tick(), account, market_id, tuple(Move(b, Decimal(p)) for b, p in moves)))


def _kinds(events: list[Event]) -> list[tuple[str, int | None]]:
    return [(type(e).__name__, getattr(e, "bet_id", None)) for e in events]


def test_a_price_off_the_ladder_cancels_the_bet_and_places_nothing(hx: Harness) -> None:
    bet = hx.lay("carol", 1, "3", 1_000)
    events = hx.replace("carol", bet, "3.01")
    assert _kinds(events) == [("OrderCancelled", bet), ("OrderRejected", bet)]
    cancelled, refused = events
    assert isinstance(cancelled, OrderCancelled) and cancelled.reason is CancelReason.REPLACED
    assert isinstance(refused, OrderRejected) and refused.error_code is ErrorCode.INVALID_ODDS
    assert "nearest ticks 3, 3.05" in refused.message
    assert hx.exposure("carol") == 0 and not [o for o in hx.ex.current_orders("carol") if o.bet_id != bet]
    hx.assert_replays()


def test_the_new_bets_are_placed_after_every_cancel_in_the_order_given(hx: Harness) -> None:
    first = hx.back("alice", 1, "3", 500)
    second = hx.lay("alice", 2, "4", 300)
    hx.lay("bob", 1, "2.5", 200)  # alice's first moved to 2.5 matches it
    events = _moves(hx, "alice", (second, "3.5"), (first, "2.5"))
    assert _kinds(events)[:2] == [("OrderCancelled", second), ("OrderCancelled", first)]
    placed = [e for e in events if isinstance(e, OrderPlaced)]
    assert [(p.replaces, p.size, str(p.side)) for p in placed] == [(second, 300, "LAY"), (first, 500, "BACK")]
    assert [e.size for e in events if isinstance(e, Matched)] == [200]
    hx.assert_replays()


def test_one_new_bet_refused_refuses_them_all_and_the_cancels_stand(hx: Harness) -> None:
    backed = hx.back("carol", 2, "3", 10_000)
    laid = hx.lay("carol", 1, "3", 40_000)  # 800.00 of carol's 1000.00 at risk if hand 1 wins
    events = _moves(hx, "carol", (backed, "2.5"), (laid, "4"))  # the lay at 4 would risk 1200.00
    assert _kinds(events) == [("OrderCancelled", backed), ("OrderCancelled", laid), ("OrderRejected", backed),
                              ("OrderRejected", laid)]
    codes = [e.error_code for e in events if isinstance(e, OrderRejected)]
    assert codes == [ErrorCode.RELATED_ACTION_FAILED, ErrorCode.INSUFFICIENT_FUNDS]
    assert f"bet {laid}" in events[2].message  # type: ignore[attr-defined]
    assert hx.exposure("carol") == 0 and {o.bet_id for o in hx.ex.current_orders("carol")} == {backed, laid}
    hx.assert_replays()


def test_the_moves_are_judged_together_not_one_after_another(hx: Harness) -> None:
    """A lay moved to a longer price may use what another lay on the same hand frees by moving to a shorter one,
    named after it: one replace at a time, the first would be refused."""
    shortened = hx.lay("dave", 1, "5", 10_000)  # 400.00 at risk if hand 1 wins
    lengthened = hx.lay("dave", 1, "3", 25_000)  # and 500.00 more: 900.00 of dave's 1000.00
    alone = Harness()
    alone.accounts("dave")
    alone.market()
    alone.lay("dave", 1, "5", 10_000)
    lone = alone.lay("dave", 1, "3", 25_000)
    refused = alone.replace("dave", lone, "3.5")[-1]  # 1025.00 at risk
    assert isinstance(refused, OrderRejected) and refused.error_code is ErrorCode.INSUFFICIENT_FUNDS
    events = _moves(hx, "dave", (lengthened, "3.5"), (shortened, "2"))  # 625.00 + 100.00
    assert not [e for e in events if isinstance(e, OrderRejected)], events
    assert hx.exposure("dave") == 72_500
    hx.assert_replays()


def test_a_move_refused_before_its_cancel_leaves_its_bet_and_the_others_go_on(hx: Harness) -> None:
    mine = hx.back("alice", 1, "3", 500)
    theirs = hx.back("bob", 2, "3", 500)
    hx.market("1.2")
    elsewhere = hx.back("alice", 1, "3", 500, market_id="1.2")
    events = _moves(hx, "alice", (theirs, "4"), (mine, "4"), (mine, "5"), (elsewhere, "4"))
    refused = {e.bet_id: e.error_code for e in events if isinstance(e, OrderRejected)}
    assert refused == {theirs: ErrorCode.INVALID_BET_ID, mine: ErrorCode.DUPLICATE_BETIDS,
                       elsewhere: ErrorCode.INVALID_BET_ID}
    assert [(e.replaces, e.tick) for e in events if isinstance(e, OrderPlaced)] == [(mine, ladder.tick_of(Decimal(4)))]
    assert {o.bet_id for o in hx.ex.current_orders("alice")} >= {elsewhere}
    hx.assert_replays()


def _below_zero(hx: Harness) -> tuple[int, int]:
    """dave below zero (available -300.00): a hedge on market 1.2 taken back by a voided match, and two lays on
    hand 1 of 1.1 (400.00 and 500.00 at risk if it wins). Returns the lays' bet ids."""
    hx.market("1.2")
    hx.lay("dave", 1, "2", 40_000, market_id="1.2")
    hx.back("carol", 1, "2", 40_000, market_id="1.2")
    hedge_ts = hx.ts + 1
    hx.back("dave", 1, "2", 40_000, market_id="1.2")
    hx.lay("carol", 1, "2", 40_000, market_id="1.2")
    shortened = hx.lay("dave", 1, "5", 10_000)
    lengthened = hx.lay("dave", 1, "3", 25_000)
    hx.void_since(hedge_ts, market_id="1.2")  # the hedge's match voided: 1.2 risks 400.00 again
    assert hx.available("dave") == -30_000
    return shortened, lengthened


def test_below_zero_a_call_that_leaves_every_outcome_better_is_taken(hx: Harness) -> None:
    """Judged on the call as a whole against the position before it: hand 1's loss goes from 900.00 to 725.00
    (a lay to a longer price, another to a shorter one), so the call is taken though the account is below zero
    (judged move after move, the longer one was refused and both bets lost)."""
    shortened, lengthened = _below_zero(hx)
    events = _moves(hx, "dave", (lengthened, "3.5"), (shortened, "2"))
    assert not [e for e in events if isinstance(e, OrderRejected)], events
    assert hx.available("dave") == -12_500
    hx.assert_replays()


def test_below_zero_a_call_that_leaves_an_outcome_worse_says_so(hx: Harness) -> None:
    shortened, lengthened = _below_zero(hx)
    events = _moves(hx, "dave", (shortened, "4.5"), (lengthened, "3.5"))  # hand 1 winning: 900.00 -> 975.00 lost
    refused = [e for e in events if isinstance(e, OrderRejected)]
    assert [(e.bet_id, e.error_code) for e in refused] == [(shortened, ErrorCode.RELATED_ACTION_FAILED),
                                                           (lengthened, ErrorCode.INSUFFICIENT_FUNDS)], events
    assert "available to bet is -300.00, below zero" in refused[1].message
    hx.assert_replays()


def test_a_remainder_below_the_minimum_stake_moves_whatever_its_size(hx: Harness) -> None:
    """The minimum stake is a placement's: a replace carries the remainder over, as small as a fill or a size
    reduction left it (a part-matched bet's few pence can be moved to another price)."""
    bet = hx.back("alice", 1, "9", 1_000)
    hx.cancel("alice", bet, 999)
    events = hx.replace("alice", bet, "8")
    placed = [e for e in events if isinstance(e, OrderPlaced)]
    assert [(p.replaces, p.size) for p in placed] == [(bet, 1)]
    hx.assert_replays()
