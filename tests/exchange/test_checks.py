"""Every ``_check()`` of the exchange core, and ``audit.check``, catches a corrupted field.

Each test builds the same real state through commands (:func:`build`: resting
orders on both sides, partial and full fills, two backs queued at one level,
a fully cancelled order, a selection settled early, a market settled and
compacted), confirms that the check passes, corrupts exactly one thing, and
expects :class:`LedgerError` naming the broken invariant.  The last test runs
corrupted checks under ``python -O`` to show they do not rely on ``assert``.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from exchange.core.accounts import Account
from exchange.core.book import SelectionBook
from exchange.core.cleared import ClearedOrders
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
)
from exchange.core.errors import LedgerError
from exchange.core.events import BetResult, OrderPlaced
from exchange.core.exchange import Exchange
from exchange.core.ladder import TICK_COUNT, parse_price
from exchange.core.market import Market, MarketStatus
from exchange.core.orders import BetOutcome, ClearedOrder, Order
from exchange.core.positions import Position
from exchange.core.side import Side

ROOT = Path(__file__).resolve().parents[2]
OPEN, CLOSED = "1.1", "1.2"


@dataclass
class State:
    """The exchange and the bet ids of :func:`build`, by name."""

    ex: Exchange
    bets: dict[str, int]

    def order(self, name: str) -> Order:
        return self.ex.orders[self.bets[name]]

    def account(self, name: str) -> Account:
        return self.ex.accounts[name]

    def position(self, account: str, market_id: str = OPEN) -> Position:
        return self.ex.accounts[account].positions[market_id]

    @property
    def market(self) -> Market:
        return self.ex.open_markets[OPEN]

    def book(self, selection: int) -> SelectionBook:
        return self.market.books[self.market.index[selection]]


def build() -> State:
    """Market 1.1 ACTIVE with resting and matched orders and selection 3 settled early; market 1.2 settled."""
    ex = Exchange()
    bets: dict[str, int] = {}
    ts = 0

    def run(command: Command) -> None:
        ex.execute(command)

    def place(name: str, account: str, market: str, selection: int, side: Side, price: str, size: int) -> None:
        nonlocal ts
        ts += 1
        placed = ex.execute(PlaceOrder(ts, account, market, selection, side, Decimal(price), size))[0]
        assert isinstance(placed, OrderPlaced), placed
        bets[name] = placed.bet_id

    for account in ("alice", "bob", "carol", "dave", "erin"):
        run(OpenAccount(0, account))
        run(Deposit(0, account, 100_000))
    for market, selections in ((OPEN, (1, 2, 3, 4)), (CLOSED, (1, 2))):
        run(CreateMarket(0, market, selections))
        run(OpenMarket(0, market))
    back, lay = Side.BACK, Side.LAY
    place("alice lay 1", "alice", OPEN, 1, lay, "3", 1000)  # 400 matched, 600 resting
    place("bob back 1", "bob", OPEN, 1, back, "3", 400)
    place("carol back 2", "carol", OPEN, 2, back, "2", 500)  # fully matched
    place("dave lay 2", "dave", OPEN, 2, lay, "2", 500)
    place("carol back 2 resting", "carol", OPEN, 2, back, "2.5", 300)
    place("dave back 3", "dave", OPEN, 3, back, "4", 200)  # matched, then settled early
    place("alice lay 3", "alice", OPEN, 3, lay, "4", 200)
    place("bob back 4 first", "bob", OPEN, 4, back, "5", 300)  # two backs queued at one level
    place("carol back 4 second", "carol", OPEN, 4, back, "5", 250)
    place("carol lay 4", "carol", OPEN, 4, lay, "1.5", 200)
    place("erin back 1", "erin", OPEN, 1, back, "10", 300)  # cancelled whole: reserves nothing
    run(CancelOrder(50, "erin", bets["erin back 1"]))
    run(SettleSelection(51, OPEN, 3))
    place("alice back closed", "alice", CLOSED, 1, back, "2", 500)
    place("bob lay closed", "bob", CLOSED, 1, lay, "2", 500)
    run(SuspendMarket(60, CLOSED))
    run(SettleMarket(61, CLOSED, (1,)))
    state = State(ex, bets)
    ex._check()
    return state


@pytest.fixture
def s() -> State:
    return build()


def test_the_built_state_has_what_the_corruptions_need(s: State) -> None:
    """Resting orders, partial fills, a queue of two, an early result and a closed market: all checks pass."""
    assert s.order("alice lay 1").matched == 400 and s.order("alice lay 1").remaining == 600
    assert [o.bet_id for o in s.book(4).orders_at(True, parse_price("5"))] == [
        s.bets["bob back 4 first"],
        s.bets["carol back 4 second"],
    ]
    assert s.order("dave back 3").result is not None and s.position("dave").settled == -200
    assert s.order("erin back 1").cancelled == 300 and s.position("erin").reserve() == 0
    assert s.ex.markets[CLOSED].status is MarketStatus.SETTLED and s.ex.cleared
    for order in s.ex.orders.values():
        order._check()
    for account in s.ex.accounts.values():
        account._check()
        for pos in account.positions.values():
            pos._check()
    s.market._check()
    for book in s.market.books:
        book._check()


# -- Order._check ------------------------------------------------------------------------------


def _result_for_another_bet(o: Order) -> None:
    assert o.result is not None
    o.result = dataclasses.replace(o.result, bet_id=o.bet_id + 1)


def _result_while_unmatched(o: Order) -> None:
    o.result = BetResult(o.bet_id, o.account_id, o.selection_id, BetOutcome.LOST, -o.matched)


ORDER_CORRUPTIONS: list[tuple[str, str, Callable[[Order], None], str, str]] = [
    ("a negative part", "alice lay 1", lambda o: setattr(o, "lapsed", -1), r"sizes .* must be non-negative",
     r"bet 1: sizes .* must be non-negative"),
    ("a tick off the ladder", "carol back 2 resting", lambda o: setattr(o, "tick", 350), r"tick 350 is off the ladder",
     rf"book of selection 2, backs at tick {parse_price('2.5')}: bet 5 is a back at tick 350 on selection 2"),
    ("a matched price sum with nothing matched", "carol back 2 resting", lambda o: setattr(o, "matched_x100", 250),
     r"matched_x100 250 with nothing matched", r"bet 5: matched sums"),
    ("an average price below 1.01", "bob back 1", lambda o: setattr(o, "matched_x100", 100 * o.matched),
     r"average matched price .* is off the ladder", r"bet 2: matched sums"),
    ("a back matched below its limit", "bob back 1", lambda o: setattr(o, "matched_x100", o.matched_x100 - 1),
     r"matched at a worse price than its limit", r"bet 2: matched sums"),
    ("a lay matched above its limit", "alice lay 1", lambda o: setattr(o, "matched_x100", o.matched_x100 + 1),
     r"matched at a worse price than its limit", r"bet 1: matched sums"),
    ("a result for another bet", "dave back 3", _result_for_another_bet, r"settled result .* does not fit",
     r"bet 6: settled result .* does not fit"),
    ("a result on an order with unmatched size", "alice lay 1", _result_while_unmatched,
     r"settled result .* does not fit", r"position of 'alice' on 1.1: settled 200, early results sum to -200"),
]  # fmt: skip


@pytest.mark.parametrize(("bet", "corrupt", "message", "audit_message"), [c[1:] for c in ORDER_CORRUPTIONS],
                         ids=[c[0] for c in ORDER_CORRUPTIONS])  # fmt: skip
def test_order_check_catches(
    s: State, bet: str, corrupt: Callable[[Order], None], message: str, audit_message: str,
) -> None:
    """The order's own check names what is wrong; the whole audit meets the corruption first where the message says
    (the book holding the order, the matches' sums, the position's results)."""
    order = s.order(bet)
    order._check()
    corrupt(order)
    with pytest.raises(LedgerError, match=rf"bet {order.bet_id}: {message}"):
        order._check()
    with pytest.raises(LedgerError, match=audit_message):
        s.ex._check()


# -- Position._check ---------------------------------------------------------------------------


def _d(i: int) -> Callable[[Position], None]:
    def corrupt(pos: Position) -> None:
        pos.d[i] += 1

    return corrupt


POSITION_CORRUPTIONS: list[tuple[str, str, Callable[[Position], None], str]] = [
    ("d[0] off by one", "alice", _d(0), r"d/ltot .* orders give"),
    ("d of a settled selection off by one", "dave", _d(2), r"d/ltot .* orders give"),
    ("ltot off by one", "bob", lambda p: setattr(p, "ltot", p.ltot + 1), r"d/ltot .* orders give"),
    ("the early results' sum off by one", "dave", lambda p: setattr(p, "settled", p.settled + 1),
     r"settled -199, early results sum to -200"),
    ("an order of another position", "carol", lambda p: setattr(p.orders[0], "position", None),
     r"bet \d+ belongs to another position"),
]  # fmt: skip


@pytest.mark.parametrize(("account", "corrupt", "message"), [c[1:] for c in POSITION_CORRUPTIONS],
                         ids=[c[0] for c in POSITION_CORRUPTIONS])  # fmt: skip
def test_position_check_catches(s: State, account: str, corrupt: Callable[[Position], None], message: str) -> None:
    pos = s.position(account)
    pos._check()
    corrupt(pos)
    with pytest.raises(LedgerError, match=rf"position of '{account}' on {OPEN}: {message}"):
        pos._check()


# -- Account._check ----------------------------------------------------------------------------


def test_account_check_catches_a_reserve_off_by_one(s: State) -> None:
    s.account("alice").reserved += 1
    with pytest.raises(LedgerError, match=r"account 'alice': reserved \d+, its orders reserve \d+"):
        s.account("alice")._check()


def test_account_check_catches_an_exposure_above_the_reserve(s: State) -> None:
    s.position("alice").d[1] -= 100 * 1_000_000  # a loss of 10,000.00 if selection 2 wins that no order explains
    with pytest.raises(LedgerError, match=r"account 'alice': reserved \d+ below its exposure"):
        s.account("alice")._check()


def test_account_check_catches_a_position_filed_under_another_market(s: State) -> None:
    account = s.account("bob")
    account.positions["1.9"] = account.positions.pop(OPEN)
    with pytest.raises(LedgerError, match=r"account 'bob': position on 1.9"):
        account._check()


def test_account_check_catches_a_position_on_a_closed_market(s: State) -> None:
    s.market.status = MarketStatus.SETTLED
    with pytest.raises(LedgerError, match=rf"account 'alice': a position on closed market {OPEN}"):
        s.account("alice")._check()


def test_account_check_catches_cleared_orders_misfiled(s: State) -> None:
    alice, bob = s.account("alice"), s.account("bob")
    alice.cleared[CLOSED], bob.cleared[CLOSED] = bob.cleared[CLOSED], alice.cleared[CLOSED]
    with pytest.raises(LedgerError, match=rf"cleared orders of {CLOSED} filed under the wrong account or market"):
        alice._check()


def test_account_check_catches_cleared_bet_ids_that_are_not_their_records(s: State) -> None:
    cleared = s.account("alice").cleared[CLOSED]
    cleared.bet_ids = (cleared.bet_ids[0] + 1,)
    with pytest.raises(LedgerError, match=rf"bet ids of its cleared orders on {CLOSED} are not their records'"):
        s.account("alice")._check()


def test_account_check_runs_its_positions_checks(s: State) -> None:
    s.position("bob").ltot += 1
    with pytest.raises(LedgerError, match=r"position of 'bob'"):
        s.account("bob")._check()


# -- SelectionBook._check ----------------------------------------------------------------------


def test_book_check_catches_a_level_size_off_by_one(s: State) -> None:
    tick = parse_price("2.5")
    s.book(2).back_size[tick] += 1
    with pytest.raises(LedgerError, match=rf"book of selection 2, backs at tick {tick}: size 301"):
        s.book(2)._check()


def test_book_check_catches_a_mask_bit_without_orders(s: State) -> None:
    s.book(2).lay_mask |= 1 << 7
    with pytest.raises(LedgerError, match=r"lays at tick 7: mask bit disagrees with size"):
        s.book(2)._check()


def test_book_check_catches_a_mask_bit_missing(s: State) -> None:
    tick = parse_price("3")
    s.book(1).lay_mask &= ~(1 << tick)
    with pytest.raises(LedgerError, match=rf"lays at tick {tick}: mask bit disagrees with size"):
        s.book(1)._check()


def test_book_check_catches_a_mask_bit_off_the_ladder(s: State) -> None:
    s.book(3).back_mask |= 1 << TICK_COUNT
    with pytest.raises(LedgerError, match=r"book of selection 3, backs: mask 0x[0-9a-f]+ has bits off the ladder"):
        s.book(3)._check()


def test_book_check_catches_a_size_on_a_level_never_queued(s: State) -> None:
    tick = parse_price("900")
    assert s.book(3).lays[tick] is None
    s.book(3).lay_size[tick] = 500
    with pytest.raises(LedgerError, match=rf"book of selection 3, lays at tick {tick}: size 500"):
        s.book(3)._check()


def test_book_check_catches_a_queue_out_of_time_order(s: State) -> None:
    queue = s.book(4).backs[parse_price("5")]
    assert queue is not None
    queue.reverse()
    with pytest.raises(LedgerError, match=r"queue out of time order \[\d+, \d+\]"):
        s.book(4)._check()


def test_book_check_catches_an_order_queued_at_the_wrong_price(s: State) -> None:
    order = s.order("carol back 2 resting")
    order.tick += 1
    with pytest.raises(LedgerError, match=rf"book of selection 2, backs at tick {parse_price('2.5')}: bet "
                                          rf"{order.bet_id} is a back at tick {order.tick} on selection 2$"):
        s.book(2)._check()


def test_book_check_catches_a_crossed_book(s: State) -> None:
    """Carol's lay at 1.5 moved (sizes, queues and masks kept consistent) to 5, where backs rest."""
    book, lay = s.book(4), s.order("carol lay 4")
    book.reduce(lay, lay.remaining)
    lay.tick = parse_price("5")
    book.add(lay)
    with pytest.raises(LedgerError, match=r"book of selection 4: crossed"):
        book._check()


@pytest.mark.parametrize("change", [1, -1])
def test_book_check_catches_traded_volume_off_by_one(s: State, change: int) -> None:
    s.book(2).volume[parse_price("2")] += change
    with pytest.raises(LedgerError, match=r"book of selection 2: traded volume"):
        s.book(2)._check()


# -- Market._check -----------------------------------------------------------------------------


def test_market_check_catches_live_selections_reordered(s: State) -> None:
    s.market.live.reverse()
    with pytest.raises(LedgerError, match=r"market 1.1: live \[3, 1, 0\] but in play \[0, 1, 3\]"):
        s.market._check()


def test_market_check_catches_a_settled_selection_still_live(s: State) -> None:
    s.market.live.insert(2, 2)
    with pytest.raises(LedgerError, match=r"live \[0, 1, 2, 3\] but in play \[0, 1, 3\]"):
        s.market._check()


def test_market_check_catches_repeated_selection_ids(s: State) -> None:
    s.market.selection_ids = (1, 2, 3, 3)
    with pytest.raises(LedgerError, match=r"market 1.1: selection ids"):
        s.market._check()


def test_market_check_catches_a_closed_status_on_an_open_market(s: State) -> None:
    s.market.status = MarketStatus.VOID
    with pytest.raises(LedgerError, match=r"an open market has two live selections or more"):
        s.market._check()


def test_market_check_catches_an_empty_match(s: State) -> None:
    match_id, ts, sel, tick, _, back, lay = s.market.fills[0]
    s.market.fills[0] = (match_id, ts, sel, tick, 0, back, lay)
    with pytest.raises(LedgerError, match=rf"match {match_id} of size 0"):
        s.market._check()


def test_market_check_catches_book_volume_that_disagrees_with_the_fills(s: State) -> None:
    """The book's own totals stay consistent (volume and total matched both move); the fills disagree."""
    book = s.book(2)
    book.volume[parse_price("2")] += 1
    book.total_matched += 1
    book._check()
    with pytest.raises(LedgerError, match=r"traded volume of selection index 1 disagrees with fills"):
        s.market._check()


def test_market_check_catches_a_last_traded_price_that_disagrees_with_the_fills(s: State) -> None:
    s.book(1).last_tick = parse_price("2")
    with pytest.raises(LedgerError, match=r"last traded tick \d+, fills say \d+"):
        s.market._check()


def test_market_check_catches_a_position_filed_under_another_account(s: State) -> None:
    positions = s.market.positions
    positions["alice"], positions["bob"] = positions["bob"], positions["alice"]
    with pytest.raises(LedgerError, match=r"market 1.1: position of '(alice|bob)'"):
        s.market._check()


def test_market_check_runs_its_books_checks(s: State) -> None:
    s.book(1).lay_size[parse_price("3")] -= 1
    with pytest.raises(LedgerError, match=r"book of selection 1, lays at tick \d+: size 599"):
        s.market._check()


# -- audit.check (Exchange._check) -------------------------------------------------------------


def test_audit_catches_money_not_conserved(s: State) -> None:
    s.account("carol").balance += 1
    with pytest.raises(LedgerError, match=r"money created or destroyed: balances \d+, paid in \d+"):
        s.ex._check()


@pytest.mark.parametrize("how", ["replaced", "missing"])
def test_audit_catches_an_open_market_not_kept(s: State, how: str) -> None:
    """Found failing for ``missing``: the check indexes ``ex.markets[m]`` and raises ``KeyError``."""
    if how == "replaced":
        s.ex.markets[OPEN] = s.ex.markets[CLOSED]
    else:
        del s.ex.markets[OPEN]
    with pytest.raises(LedgerError, match=r"is not kept in markets"):
        s.ex._check()


def test_audit_catches_a_match_id_from_the_future(s: State) -> None:
    s.ex.next_match_id = 2
    with pytest.raises(LedgerError, match=r"match \d+ at or above next_match_id"):
        s.ex._check()


def test_audit_catches_a_bet_id_from_the_future(s: State) -> None:
    s.ex.next_bet_id = s.bets["alice lay 1"]
    with pytest.raises(LedgerError, match=r"a bet id at or above next_bet_id"):
        s.ex._check()


def test_audit_catches_an_order_matched_more_than_its_fills(s: State) -> None:
    order = s.order("bob back 1")
    order.matched += 1
    with pytest.raises(LedgerError, match=rf"bet {order.bet_id}: matched sums"):
        s.ex._check()


def test_audit_catches_a_match_that_does_not_pair_a_back_with_a_lay(s: State) -> None:
    match_id, ts, sel, tick, size, back, lay = s.market.fills[0]
    s.market.fills[0] = (match_id, ts, sel, tick, size, lay, back)
    with pytest.raises(LedgerError, match=rf"match {match_id} does not pair a back with a lay"):
        s.ex._check()


def test_audit_catches_a_match_across_selections(s: State) -> None:
    s.order("bob back 1").sel = 1  # a fully matched back: no book holds it, only the match record
    with pytest.raises(LedgerError, match=r"match \d+ pairs bets on different selections"):
        s.ex._check()


def test_audit_catches_matched_backs_and_lays_that_disagree_with_the_books(s: State) -> None:
    pos = s.position("bob")
    pos.orders.append(s.order("bob back 1"))  # counted twice
    with pytest.raises(LedgerError, match=r"market 1.1: matched backs \[800, 500, 200, 0\], lays"):
        s.ex._check()


def test_audit_catches_unmatched_size_on_a_suspended_market(s: State) -> None:
    s.market.status = MarketStatus.SUSPENDED
    with pytest.raises(LedgerError, match=r"has unmatched size on a market or selection not taking bets"):
        s.ex._check()


def test_audit_catches_an_order_on_a_market_not_held(s: State) -> None:
    del s.ex.markets[OPEN]
    del s.ex.open_markets[OPEN]
    with pytest.raises(LedgerError, match=r"bet \d+ on a market not held as open"):
        s.ex._check()


def test_audit_catches_an_order_its_account_does_not_hold(s: State) -> None:
    """Erin's only order on 1.1 was cancelled whole: dropping her position leaves her reserve right."""
    del s.account("erin").positions[OPEN]
    with pytest.raises(LedgerError, match=rf"^bet {s.bets['erin back 1']}$"):
        s.ex._check()


@pytest.mark.parametrize("bet", ["carol back 2 resting", "bob back 1"], ids=["unmatched", "matched"])
def test_audit_catches_an_order_removed_from_the_exchange(s: State, bet: str) -> None:
    """An order still in its book and its position but gone from ``ex.orders`` is lost to every read.

    Found failing: ``audit.check`` walks ``ex.orders`` outward (each order to its position) but never
    the positions' orders back to ``ex.orders``, so an unmatched order dropped from it passes every
    check; a matched one makes ``_check_matches`` index ``ex.orders`` and raise ``KeyError``, not
    ``LedgerError``.
    """
    del s.ex.orders[s.bets[bet]]
    with pytest.raises(LedgerError, match=rf"^bet {s.bets[bet]} is in a position but not in the orders$"):
        s.ex._check()


def test_audit_catches_a_cleared_record_missing(s: State) -> None:
    s.ex.cleared.forget(s.account("alice").cleared[CLOSED])
    with pytest.raises(LedgerError, match=r"cleared orders by bet id disagree with the accounts' records"):
        s.ex._check()


def test_audit_catches_a_bet_id_filed_to_another_accounts_records(s: State) -> None:
    """Alice's bet id leads to Bob's cleared orders on the closed market: the keys agree, the records do not."""
    alice_bet = s.bets["alice back closed"]
    s.ex.cleared._blocks[alice_bet >> s.ex.cleared.BLOCK_BITS][alice_bet] = s.account("bob").cleared[CLOSED]
    with pytest.raises(LedgerError, match=r"cleared orders by bet id disagree with the accounts' records"):
        s.ex._check()


def test_audit_catches_a_cleared_record_misfiled_under_another_market(s: State) -> None:
    bob = s.account("bob")
    bob.cleared["1.9"] = bob.cleared.pop(CLOSED)
    with pytest.raises(LedgerError, match=r"account 'bob': cleared orders of 1.9 filed under the wrong account"):
        s.ex._check()


def test_audit_catches_a_bet_both_open_and_cleared(s: State) -> None:
    bet_id = s.bets["alice lay 1"]
    alice = s.account("alice")
    ghost = dataclasses.replace(alice.cleared[CLOSED][0], bet_id=bet_id)
    _refile(s, alice, sorted((*alice.cleared[CLOSED], ghost), key=lambda c: c.bet_id))
    with pytest.raises(LedgerError, match=r"a bet is both open and cleared"):
        s.ex._check()


def _refile(s: State, account: Account, records: list[ClearedOrder]) -> None:
    """Put ``records`` in place of the account's cleared orders on the closed market, filed by bet id too."""
    cleared = account.cleared[CLOSED] = ClearedOrders(records)
    s.ex.cleared.file(cleared)


@pytest.mark.parametrize(("several", "message"), [
    (((99, 500),), r"several prices \(\(99, 500\),\) is not two or more ascending ticks"),
    (((104, 200), (99, 300)), r"is not two or more ascending ticks with positive sizes"),
    (((99, 300), (104, 200)), r"matched by tick \(\(99, 300\), \(104, 200\)\) is not 500 at 2"),
    (((99, 300), (104, 100)), r"is not 500 at 2"),
])
def test_audit_catches_a_cleared_stake_by_price_that_does_not_add_up(s: State, several: tuple[tuple[int, int], ...],
                                                                     message: str) -> None:
    """Alice's bet on the closed market matched 5.00 at 2.0 (tick 99): one price, so nothing is kept."""
    alice = s.account("alice")
    (record,) = alice.cleared[CLOSED]
    assert record.several_prices == () and record.matched_by_tick == ((99, 500),)
    _refile(s, alice, [dataclasses.replace(record, several_prices=several)])
    with pytest.raises(LedgerError, match=message):
        s.ex._check()


def test_a_cleared_bet_at_one_price_must_report_a_ladder_price(s: State) -> None:
    alice = s.account("alice")
    _refile(s, alice, [dataclasses.replace(alice.cleared[CLOSED][0], price_matched=Fraction(203, 100))])
    with pytest.raises(LedgerError, match=r"matched at one price, but 203/100 is not on the ladder"):
        s.ex._check()


def test_audit_catches_a_closed_market_not_recorded(s: State) -> None:
    s.ex.closed.clear()
    with pytest.raises(LedgerError, match=r"closed markets \['1.2'\] but the record says"):
        s.ex._check()


# -- under python -O ---------------------------------------------------------------------------

OPTIMISED = """
import sys
sys.path.insert(0, "tests/exchange")
from test_checks import build, parse_price
from exchange.core.errors import LedgerError

assert sys.flags.optimize, "not running under -O"
assert False, "assert statements run: not under -O"  # stripped under -O


def corrupt_order(s):
    s.order("bob back 1").matched_x100 -= 1
    return s.order("bob back 1")._check


def corrupt_position(s):
    s.position("alice").d[0] += 1
    return s.position("alice")._check


def corrupt_account(s):
    s.account("alice").reserved += 1
    return s.account("alice")._check


def corrupt_book(s):
    s.book(2).back_size[parse_price("2.5")] += 1
    return s.book(2)._check


def corrupt_market(s):
    s.market.live.reverse()
    return s.market._check


def corrupt_money(s):
    s.account("carol").balance += 1
    return s.ex._check


for corrupt in (corrupt_order, corrupt_position, corrupt_account, corrupt_book, corrupt_market, corrupt_money):
    check = corrupt(build())
    try:
        check()
    except LedgerError:
        continue
    sys.exit(f"{corrupt.__name__}: the check let the corruption through under -O")
print("all caught")
"""


def test_corrupted_checks_still_raise_under_python_dash_o() -> None:
    run = subprocess.run([sys.executable, "-O", "-c", OPTIMISED], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "all caught"
