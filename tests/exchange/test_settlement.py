"""Settlement, hand-computed: outright wins, dead heats of 2, 3 and 4, commission on net, rounding, voids."""

from __future__ import annotations

from exchange.core.commands import Withdraw
from exchange.core.errors import ErrorCode
from exchange.core.events import (
    AccountResult,
    BetResult,
    CancelReason,
    CommandRejected,
    MarketSettled,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderCancelled,
    SelectionSettled,
)
from exchange.core.ladder import parse_price
from exchange.core.market import Market, MarketStatus, SelectionStatus
from exchange.core.orders import BetOutcome, BetStatus

from .conftest import BACK, COVERED, Harness, types

START = 100_000  # each fixture account's balance (1000.00)
HOUSE = "HOUSE"


def settled(events: list) -> MarketSettled:
    last = events[-1]
    assert isinstance(last, MarketSettled), events
    return last


def results(ev: MarketSettled | MarketVoided) -> dict[str, tuple[int, int]]:
    return {a.account_id: (a.profit, a.commission) for a in ev.accounts}


def settle_conserved(hx: Harness, *winners: int, market_id: str = "1.1") -> MarketSettled:
    """Settle the market; each account's balance moved by its result net of commission, the house's by every
    commission plus the rounding, and no other (the money on the exchange the same to the penny)."""
    before = {name: hx.balance(name) for name in hx.ex.accounts}
    ev = settled(hx.settle(*winners, market_id=market_id))
    after = {name: hx.balance(name) for name in hx.ex.accounts}
    moved = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    due = {a.account_id: a.profit - a.commission for a in ev.accounts}
    due[HOUSE] = due.get(HOUSE, 0) + sum(a.commission for a in ev.accounts) + ev.rounding
    assert moved == {name: amount for name, amount in due.items() if amount}
    assert sum(after.values()) == sum(before.values())
    return ev


def test_outright_win_with_commission(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 1000)
    hx.back("carol", 2, "4", 500)
    hx.lay("dave", 2, "4", 500)
    hx.suspend()
    ev = settle_conserved(hx, 1)
    assert results(ev) == {
        "alice": (-2000, 0),
        "bob": (2000, 50),  # 2.5 % of 20.00
        "carol": (-500, 0),
        "dave": (500, 12),  # 2.5 % of 5.00 = 0.125 -> 0.12 (rounded down)
    }
    assert ev.rounding == 0
    assert hx.balance("alice") == START - 2000
    assert hx.balance("bob") == START + 1950
    assert hx.balance("dave") == START + 488
    assert hx.balance(HOUSE) == 62
    assert hx.exposure("alice") == 0
    market = hx.ex.markets["1.1"]
    assert market.status is MarketStatus.SETTLED
    assert list(market.selection_status) == [SelectionStatus.WINNER] + [SelectionStatus.LOSER] * 3
    hx.assert_replays()


def test_dead_heat_of_two(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 1000)
    hx.back("carol", 2, "4", 500)
    hx.lay("dave", 2, "4", 500)
    hx.back("alice", 3, "6", 400)
    hx.lay("bob", 3, "6", 400)
    hx.suspend()
    ev = settle_conserved(hx, 1, 2)
    # selection 1: 10.00 × (3/2 − 1) = +5.00 to the backer; selection 2: 5.00 × (4/2 − 1) = +5.00
    # selection 3 lost: alice −4.00, bob +4.00
    assert results(ev) == {
        "alice": (-500 - 400, 0),
        "bob": (500 + 400, 22),  # 2.5 % of 9.00 = 0.225
        "carol": (500, 12),
        "dave": (-500, 0),
    }
    assert {(b.account_id, b.selection_id): (b.outcome, b.profit) for b in ev.bets} == {
        ("alice", 1): (BetOutcome.LOST, -500),
        ("bob", 1): (BetOutcome.WON, 500),
        ("carol", 2): (BetOutcome.WON, 500),
        ("dave", 2): (BetOutcome.LOST, -500),
        ("alice", 3): (BetOutcome.LOST, -400),
        ("bob", 3): (BetOutcome.WON, 400),
    }
    assert list(hx.ex.markets["1.1"].selection_status[:2]) == [SelectionStatus.TIED_DEAD_HEAT] * 2
    hx.assert_replays()


def test_dead_heat_of_three_at_short_odds_loses_for_the_backer(hx: Harness) -> None:
    hx.lay("alice", 1, "2.5", 1000)
    hx.back("bob", 1, "2.5", 1000)
    hx.suspend()
    ev = settle_conserved(hx, 1, 2, 3)
    # 10.00 × (2.5/3 − 1) = −1.666… : the backer "wins" at odds 0.833 and loses 1.67; the layer gets 1.67
    assert results(ev) == {"alice": (167, 4), "bob": (-167, 0)}
    assert [(b.account_id, b.outcome, b.profit) for b in ev.bets] == [
        ("alice", BetOutcome.LOST, 167),
        ("bob", BetOutcome.WON, -167),
    ]
    assert ev.rounding == 0


def test_dead_heat_of_four(hx: Harness) -> None:
    hx.lay("alice", 1, "4", 1000)
    hx.back("bob", 1, "4", 1000)  # 10.00 × (4/4 − 1) = 0
    hx.lay("dave", 2, "10", 300)
    hx.back("carol", 2, "10", 300)  # 3.00 × (10/4 − 1) = +4.50
    hx.lay("bob", 3, "2", 800)
    hx.back("alice", 3, "2", 800)  # 8.00 × (2/4 − 1) = −4.00
    hx.suspend()
    ev = settle_conserved(hx, 4, 3, 2, 1)
    assert ev.winners == (4, 3, 2, 1)
    assert results(ev) == {"alice": (-400, 0), "bob": (400, 10), "dave": (-450, 0), "carol": (450, 11)}
    assert all(s is SelectionStatus.TIED_DEAD_HEAT for s in hx.ex.markets["1.1"].selection_status)
    hx.assert_replays()


def test_one_account_backing_and_laying_the_same_hand_pays_commission_on_net(hx: Harness) -> None:
    hx.lay("bob", 1, "3", 1000)
    hx.back("alice", 1, "3", 1000)  # alice backs 10.00 at 3
    hx.back("carol", 1, "2.5", 1000)
    hx.lay("alice", 1, "2.5", 1000)  # ... and lays 10.00 at 2.5: +5.00 if 1 wins, 0 otherwise
    assert hx.exposure("alice") == 0
    hx.suspend()
    ev = settle_conserved(hx, 1)
    # per bet +20.00 and −15.00; commission on the net 5.00 only (not on the winning bet's 20.00)
    assert results(ev)["alice"] == (500, 12)
    assert sorted(b.profit for b in ev.bets if b.account_id == "alice") == [-1500, 2000]


def test_back_and_lay_same_hand_that_loses_nets_to_zero(hx: Harness) -> None:
    hx.lay("bob", 1, "3", 1000)
    hx.back("alice", 1, "3", 1000)
    hx.back("carol", 1, "2.5", 1000)
    hx.lay("alice", 1, "2.5", 1000)
    hx.suspend()
    ev = settle_conserved(hx, 2)
    assert results(ev)["alice"] == (0, 0)
    assert sorted((b.outcome, b.profit) for b in ev.bets if b.account_id == "alice") == [
        (BetOutcome.LOST, -1000),
        (BetOutcome.WON, 1000),
    ]


def test_commission_only_on_positive_net(hx: Harness) -> None:
    hx.lay("bob", 1, "3", 1000)
    hx.back("alice", 1, "3", 1000)  # +20.00 if 1 wins
    hx.lay("carol", 2, "2", 1500)
    hx.back("alice", 2, "2", 1500)  # −15.00 if 1 wins
    hx.lay("carol", 3, "2", 1000)
    hx.back("alice", 3, "2", 1000)  # −10.00 if 1 wins
    hx.suspend()
    ev = settle_conserved(hx, 1)
    assert results(ev)["alice"] == (2000 - 1500 - 1000, 0)
    assert results(ev)["carol"] == (2500, 62)
    assert hx.balance(HOUSE) == 62 + 50 * 0  # bob lost


def test_commission_rate_per_market(hx: Harness) -> None:
    hx.market("1.2", commission_bps=500)
    hx.lay("bob", 1, "3", 1000, market_id="1.2")
    hx.back("alice", 1, "3", 1000, market_id="1.2")
    hx.suspend("1.2")
    ev = settle_conserved(hx, 1, market_id="1.2")
    assert results(ev)["alice"] == (2000, 100)
    assert hx.ex.market_result("alice", "1.2") == AccountResult("alice", 2000, 100)


def test_rounding_is_explicit_and_conserves_money(hx: Harness) -> None:
    # 2.50 backed at 1.01 wins exactly 2.5 minor units: an exact half rounds down for both sides
    hx.lay("alice", 1, "1.01", 250)
    hx.back("bob", 1, "1.01", 250)
    # 2.01 backed at 1.01 wins 2.01 minor units: rounds to 2 each way
    hx.lay("carol", 2, "1.01", 201)
    hx.back("dave", 2, "1.01", 201)
    hx.suspend()
    hx.lose(3)
    ev = settle_conserved(hx, 1, 2)
    # dead heat of 1 and 2: bob 250 × (1.01/2 − 1) = −123.75 minor units -> −124; alice +123.75 -> +124
    # dave 201 × (0.505 − 1) = −99.495 -> −99; carol +99.495 -> +99; commissions 3.1 -> 3 and 2.475 -> 2
    assert results(ev) == {"alice": (124, 3), "bob": (-124, 0), "carol": (99, 2), "dave": (-99, 0)}
    assert ev.rounding == 0


def test_rounding_residue_goes_to_the_house(hx: Harness) -> None:
    hx.lay("alice", 1, "1.01", 250)
    hx.back("bob", 1, "1.01", 250)
    hx.suspend()
    ev = settle_conserved(hx, 1)
    # exact +2.5 / −2.5 minor units: both halves round down: +2 and −3, the house keeps 1
    assert results(ev) == {"alice": (-3, 0), "bob": (2, 0)}
    assert ev.rounding == 1
    assert hx.balance(HOUSE) == 1


def test_window_close_lapses_unmatched_and_next_window_is_a_new_round(hx: Harness) -> None:
    partly = hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 400)
    untouched = hx.back("carol", 2, "5", 300)
    events = hx.suspend()
    assert types(events) == ["OrderLapsed", "OrderLapsed", "MarketSuspended"]
    view = hx.ex.order_view("alice", partly)
    assert view is not None and (view.size_matched, view.size_lapsed, view.size_remaining) == (400, 600, 0)
    assert hx.order_view("carol", untouched).size_lapsed == 300
    assert hx.exposure("carol") == 0
    book = hx.ex.market_book("1.1")
    assert book is not None and book.status is MarketStatus.SUSPENDED and book.round == 1
    assert all(r.available_to_back == r.available_to_lay == () for r in book.runners)
    hx.open()
    assert hx.market_book("1.1").round == 2
    hx.assert_replays()


def test_early_loser_settles_its_bets_at_once_and_cash_moves_at_the_end(hx: Harness) -> None:
    hx.lay("alice", 3, "5", 1000)
    hx.back("bob", 3, "5", 1000)  # alice: −40.00 if 3 wins
    hx.back("carol", 1, "2", 1000)
    hx.lay("dave", 1, "2", 1000)
    hx.suspend()
    assert hx.exposure("alice") == 4000
    events = hx.lose(3)
    assert types(events) == ["SelectionSettled"]
    ev = events[0]
    assert isinstance(ev, SelectionSettled) and ev.status is SelectionStatus.LOSER
    assert {(b.account_id, b.outcome, b.profit) for b in ev.bets} == {
        ("alice", BetOutcome.WON, 1000),
        ("bob", BetOutcome.LOST, -1000),
    }
    # results are fixed now; exposure now ranges over 1, 2, 4 only; balances move at the market's end,
    # so bob's settled loss is still held as exposure and alice's win is not yet available
    assert hx.exposure("alice") == 0 and hx.exposure("bob") == 1000
    assert hx.balance("alice") == START and hx.balance("bob") == START
    cleared = hx.ex.cleared_orders("alice")
    assert [(c.bet_status, c.bet_outcome, c.profit) for c in cleared] == [(BetStatus.SETTLED, BetOutcome.WON, 1000)]
    assert hx.ex.current_orders("alice")[0].size_matched == 1000
    hx.open()
    final = settle_conserved(hx, 2)
    assert results(final)["alice"] == (1000, 25)  # commission on the whole market's net
    assert results(final)["bob"] == (-1000, 0)
    assert results(final)["carol"] == (-1000, 0) and results(final)["dave"] == (1000, 25)
    assert {b.bet_id for b in final.bets}.isdisjoint(b.bet_id for b in ev.bets)
    assert hx.balance("alice") == START + 975
    hx.assert_replays()


def test_market_settles_when_one_selection_is_left(hx: Harness) -> None:
    hx.lay("alice", 1, "1.5", 1000)
    hx.back("bob", 1, "1.5", 1000)
    hx.suspend()
    hx.lose(2)
    hx.lose(3)
    events = hx.lose(4)
    assert types(events) == ["SelectionSettled", "MarketSettled"]
    ev = settled(events)
    assert ev.winners == (1,)
    assert results(ev) == {"alice": (-500, 0), "bob": (500, 12)}
    assert list(hx.ex.markets["1.1"].selection_status) == [SelectionStatus.WINNER] + [SelectionStatus.LOSER] * 3
    hx.assert_replays()


def test_settling_an_active_market_lapses_what_is_unmatched(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    events = hx.settle(1)
    assert types(events) == ["OrderLapsed", "MarketSettled"]
    assert results(settled(events)) == {"alice": (0, 0)}


def test_void_after_partial_early_settlement_keeps_what_was_settled(hx: Harness) -> None:
    hx.lay("alice", 3, "5", 1000)
    hx.back("bob", 3, "5", 1000)
    hx.back("carol", 1, "2", 1000)
    hx.lay("dave", 1, "2", 1000)
    hx.lay("dave", 2, "3", 500)  # lapses at the window close
    hx.suspend()
    hx.lose(3)  # alice +10.00, bob −10.00: fixed
    hx.open()
    resting = hx.lay("dave", 2, "3", 500)
    events = hx.void()
    assert types(events) == ["OrderCancelled", "MatchVoided", "MarketVoided"]
    voided = events[-1]
    assert isinstance(voided, MarketVoided)
    assert results(voided) == {"alice": (1000, 25), "bob": (-1000, 0), "carol": (0, 0), "dave": (0, 0)}
    assert hx.balance("alice") == START + 975 and hx.balance("bob") == START - 1000
    assert hx.balance("carol") == START and hx.balance("dave") == START
    assert hx.balance(HOUSE) == 25
    carol = hx.ex.cleared_orders("carol")
    assert [(c.bet_status, c.size_voided, c.profit) for c in carol] == [(BetStatus.VOIDED, 1000, 0)]
    dave = {c.bet_id: c for c in hx.ex.cleared_orders("dave")}
    assert dave[resting].bet_status is BetStatus.CANCELLED
    assert [c.bet_status for c in hx.ex.cleared_orders("alice")] == [BetStatus.SETTLED]
    market = hx.ex.markets["1.1"]
    assert market.status is MarketStatus.VOID and market.selection_status[2] is SelectionStatus.LOSER
    hx.assert_replays()


def test_void_matched_since_a_card_exposure(hx: Harness) -> None:
    lay = hx.lay("alice", 1, "3", 2000)
    hx.back("bob", 1, "3", 500)  # matched before the exposure
    exposed_at = hx.tick()
    hx.back("carol", 1, "2.9", 700)  # matched after, at 3
    hx.lay("dave", 2, "4", 300)
    hx.back("bob", 2, "4", 300)  # matched after, on selection 2
    events = hx.void_since(exposed_at)
    assert types(events) == ["MatchVoided", "MatchVoided"]
    assert all(isinstance(e, MatchVoided) for e in events)
    alice = hx.ex.order_view("alice", lay)
    assert alice is not None and (alice.size_matched, alice.size_voided, alice.size_remaining) == (500, 700, 800)
    carol = hx.ex.current_orders("carol")[0]
    assert (carol.size_matched, carol.size_voided, carol.average_price_matched) == (0, 700, None)
    runner1, runner2 = hx.market_book("1.1", depth=None).runners[:2]
    assert runner1.total_matched == 500 and runner1.last_traded_tick == parse_price("3")
    assert runner2.total_matched == 0 and runner2.last_traded_tick is None and runner2.traded_volume == ()
    # exposure counts only what is still matched (and alice's unmatched 8.00 at 3)
    assert hx.exposure("alice") == 500 * 2 + 800 * 2
    hx.suspend()
    ev = settle_conserved(hx, 1)
    assert results(ev) == {"alice": (-1000, 0), "bob": (1000, 25), "carol": (0, 0), "dave": (0, 0)}
    hx.assert_replays()


def test_standing_fills_leave_out_exactly_the_voided_matches(hx: Harness) -> None:
    """Two card exposures: the second, from earlier, voids only what still stands on live selections; the
    market keeps every fill, and its standing fills (and an account's matches) are the rest, in fill order."""
    hx.lay("alice", 1, "3", 2000)
    hx.back("bob", 1, "3", 500)  # a: before both exposures
    first_exposure = hx.tick()
    hx.back("carol", 1, "3", 300)  # b: voided by the second void
    hx.lay("dave", 4, "4", 300)
    hx.back("bob", 4, "4", 300)  # c: selection 4 loses early, so no void touches it
    hx.lose(4)
    second_exposure = hx.tick()
    hx.lay("dave", 2, "4", 300)
    hx.back("bob", 2, "4", 300)  # d: voided by the first void
    first = hx.void_since(second_exposure)
    hx.back("bob", 1, "3", 400)  # e: matched after the first void, voided by the second
    second = hx.void_since(first_exposure)
    a, b, c, d, e = (ev.match_id for ev in hx.events if isinstance(ev, Matched))
    assert [ev.match_id for ev in first if isinstance(ev, MatchVoided)] == [d]
    assert [ev.match_id for ev in second if isinstance(ev, MatchVoided)] == [b, e]
    market = hx.ex.markets["1.1"]
    assert isinstance(market, Market)  # voids and an early loser leave it open
    assert [f[0] for f in market.fills] == [a, b, c, d, e]  # the record keeps voided matches too
    standing = list(market.standing_fills())
    assert standing == [f for f in market.fills if f[0] in (a, c)]
    assert list(market.standing_fills(newest_first=True)) == standing[::-1]
    assert [(m.match_id, m.size) for m in hx.ex.matches("bob", "1.1")] == [(a, 500), (c, 300)]
    hx.assert_replays()


def test_voiding_a_hedge_overdraws_cancels_unmatched_and_leaves_the_rest_owed() -> None:
    h = Harness()
    h.accounts("alice", balance=2000)  # 20.00
    h.accounts("bob", "carol", "dave")
    h.market("1.1")
    h.market("1.2")
    h.lay("alice", 1, "3", 1000)  # liability 20.00: alice's whole balance
    h.back("bob", 1, "3", 1000)  # matched before the card is exposed
    assert h.available("alice") == 0
    exposed_at = h.tick()
    h.back("alice", 1, "3.05", 1000)  # the hedge (the outcomes it makes worse lose nothing: allowed) ...
    h.lay("carol", 1, "3.05", 1000)  # ... matched after the exposure: 1 wins +0.50, otherwise 0
    assert h.exposure("alice") == 0 and h.available("alice") == 2000
    h.lay("alice", 1, "2", 1000, market_id="1.2")  # the freed 20.00 goes to work: 10.00 on market 1.2 ...
    h.back("dave", 1, "2", 1000, market_id="1.2")
    back3 = h.back("alice", 3, "4", 600)  # ... and unmatched on 1.1: outcomes 1, 2, 4 now -5.50, -6.00, -6.00
    lay2 = h.lay("alice", 2, "3", 200)  # liability 4.00 if 2 wins: -10.00
    assert (h.exposure("alice"), h.available("alice")) == (1000 + 1000, 0)

    events = h.void_since(exposed_at)

    assert types(events) == ["MatchVoided", "OrderCancelled", "OrderCancelled"]
    assert isinstance(events[0], MatchVoided) and (events[0].back_account_id, events[0].lay_account_id) == (
        "alice",
        "carol",
    )
    # with the hedge voided, 1.1's outcomes for alice are 1: -20.00 - 6.00 = -26.00, 2: +10.00 - 6.00 - 4.00 = 0,
    # 3: +10.00, 4: +4.00; with 1.2's 10.00, exposure 36.00 > balance 20.00: available -16.00.  Her unmatched orders on
    # 1.1 are cancelled (bet-id order) to release 6.00; 1.1's worst is then -20.00 (1 wins): exposure 20.00 + 10.00.
    cancels = [(e.bet_id, e.size, e.reason) for e in events if isinstance(e, OrderCancelled)]
    assert cancels == [(back3, 600, CancelReason.ACCOUNT_OVERDRAWN), (lay2, 200, CancelReason.ACCOUNT_OVERDRAWN)]
    assert (h.balance("alice"), h.exposure("alice"), h.available("alice")) == (2000, 3000, -1000)
    # carol's side of the void only lowers her exposure: her orders are not touched
    assert h.exposure("carol") == 0 and h.available("carol") == START
    # short of 10.00, alice may still hedge (what it makes worse stays within her balance less 1.2's exposure), not
    # add risk nor withdraw
    h.back("alice", 1, "3", 200)  # 1 wins: -20.00 unchanged; otherwise +10.00 - 2.00
    refused = h.rejected(h.place("alice", 2, BACK, "3", 200))
    assert refused.error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert refused.message == (
        f"available to bet is -10.00, below zero: {COVERED}, and this order does not"
    )
    withdrawal = h.run(Withdraw(h.tick(), "alice", 1))[0]
    assert isinstance(withdrawal, CommandRejected) and withdrawal.error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert h.available("alice") == -1000

    # settlement debits what she lost in full: money is conserved, and her balance goes below zero
    h.suspend("1.1")
    first = settled(h.settle(1, market_id="1.1"))
    assert results(first) == {"alice": (-2000, 0), "bob": (2000, 50), "carol": (0, 0)}
    assert (h.balance("alice"), h.available("alice")) == (0, -1000)
    h.suspend("1.2")
    second = settled(h.settle(1, market_id="1.2"))
    assert results(second) == {"alice": (-1000, 0), "dave": (1000, 25)}
    assert (h.balance("alice"), h.exposure("alice"), h.available("alice")) == (-1000, 0, -1000)
    assert h.balance("bob") == START + 1950 and h.balance("dave") == START + 975 and h.balance(HOUSE) == 75
    assert sum(h.balance(a) for a in ("alice", "bob", "carol", "dave", HOUSE)) == 2000 + 3 * START
    h.assert_replays()


def test_cleared_orders_report_every_ending(hx: Harness) -> None:
    won = hx.back("alice", 1, "3", 1000)
    hx.lay("bob", 1, "3", 600)
    cancelled = hx.lay("alice", 2, "3", 500)
    hx.cancel("alice", cancelled)
    hx.suspend()
    hx.settle(1)
    cleared = {c.bet_id: c for c in hx.ex.cleared_orders("alice", "1.1")}
    assert cleared[won].bet_status is BetStatus.SETTLED and cleared[won].profit == 1200
    assert (cleared[won].size_settled, cleared[won].size_lapsed) == (600, 400)
    assert cleared[cancelled].bet_status is BetStatus.CANCELLED and cleared[cancelled].profit == 0
    assert hx.ex.cleared_orders("alice", "9.9") == ()
    assert hx.ex.cleared_orders("nobody") == ()
    assert hx.ex.current_orders("alice") == ()
    d = cleared[won].to_dict()
    assert d["bet_outcome"] == "WON" and d["price_matched"] == "3" and d["settled_ts"] > 0


def test_orders_on_a_selection_settled_early_are_cleared_at_that_time(hx: Harness) -> None:
    matched = hx.lay("alice", 2, "3", 1000)
    hx.back("bob", 2, "3", 400)  # 400 of alice's lay matched, 600 unmatched
    unmatched = hx.back("alice", 2, "5", 300)
    hx.tick()
    lost = hx.lose(2)  # alice's unmatched backs and lays on 2 lapse; her matched lay wins
    ts = next(e.ts for e in lost if isinstance(e, SelectionSettled))
    early = {c.bet_id: c for c in hx.ex.cleared_orders("alice", "1.1")}
    assert early[matched].settled_ts == early[unmatched].settled_ts == ts
    assert early[unmatched].bet_status is BetStatus.LAPSED and early[unmatched].size_lapsed == 300
    hx.suspend()
    hx.settle(1)
    late = {c.bet_id: c for c in hx.ex.cleared_orders("alice", "1.1")}
    assert late[matched].settled_ts == late[unmatched].settled_ts == ts  # the market's end changes nothing
    hx.assert_replays()


def test_bet_results_are_records(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 1000)
    hx.back("bob", 1, "3", 1000)
    ev = settle_conserved(hx, 1)
    assert BetResult(2, "bob", 1, BetOutcome.WON, 2000) in ev.bets
    assert ev.to_dict()["accounts"][1] == {"account_id": "bob", "profit": 2000, "commission": 50}


def test_a_loss_settled_early_stays_reserved_for_a_void() -> None:
    """Exposure counts the VOID outcome: bets settled early keep their results, the rest are refunded.

    C (4.00) backs hand 4 at 2.0 for 2.00 and lays hands 1-3 at 1.01 for 2.00
    each; D takes the other side of everything.  P&L if hand 4 wins: +2.00 +
    3 x 2.00 = +8.00; if hand 1, 2 or 3 wins: -2.00 - 0.02 + 2 x 2.00 = +1.98.
    Exposure 0.  Hand 4 is settled early as a loser: C's back is -2.00 for
    good.  The outright outcomes still pay C +1.98, but a void would refund
    the lays and keep the -2.00, so exposure is 2.00 and only 2.00 is
    available.  (Before the fix C could withdraw 4.00 and a void left -2.00.)
    """
    h = Harness()
    h.accounts("C", balance=400)
    h.accounts("D", balance=100_000)
    h.market()
    h.lay("D", 4, "2.0", 200)
    h.back("C", 4, "2.0", 200)
    for sel in (1, 2, 3):
        h.back("D", sel, "1.01", 200)
        h.lay("C", sel, "1.01", 200)
    assert (h.balance("C"), h.exposure("C"), h.available("C")) == (400, 0, 400)
    h.suspend()
    lost = h.lose(4)[-1]
    assert isinstance(lost, SelectionSettled)
    assert {(b.account_id, b.profit) for b in lost.bets} == {("C", -200), ("D", 200)}
    assert (h.balance("C"), h.exposure("C"), h.available("C")) == (400, 200, 200)
    pos = h.ex.accounts["C"].positions["1.1"]
    assert pos.settled == -200 and pos.worst_x100() == -20_000
    refused = h.run(Withdraw(h.tick(), "C", 400))
    assert len(refused) == 1 and isinstance(refused[0], CommandRejected)
    assert refused[0].error_code is ErrorCode.INSUFFICIENT_FUNDS
    assert h.balance("C") == 400
    allowed = h.run(Withdraw(h.tick(), "C", 200))
    assert types(allowed) == ["AccountDebited"]
    assert (h.balance("C"), h.exposure("C"), h.available("C")) == (200, 200, 0)
    voided = h.void()[-1]
    assert isinstance(voided, MarketVoided)
    assert results(voided) == {"C": (-200, 0), "D": (200, 5)}  # 2.5 % of 2.00 = 0.05
    assert h.balance("C") == 0 and h.available("C") == 0
    assert h.balance("D") == 100_000 + 195
    assert h.balance(HOUSE) == 5
    assert sum(a.balance for a in h.ex.accounts.values()) == 400 + 100_000 - 200  # 2.00 withdrawn
    h.assert_replays()
