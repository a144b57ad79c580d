"""Markets of any number of selections, 2 to 8: matching, exposure, early settlement, dead heats, voids, money.

Exposure is judged against a brute-force oracle written from the public reads
only (:meth:`Exchange.current_orders` and :meth:`Exchange.cleared_orders`):
the worst P&L over each live selection winning alone and the VOID outcome, in
``Fraction``.  Every command goes through the :class:`Harness`, which runs
``Exchange._check()`` after it; the seeded stress runs :mod:`flows` on markets
of N selections.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from exchange.core.errors import ErrorCode
from exchange.core.events import MarketSettled, MarketVoided, Matched, SelectionSettled
from exchange.core.exchange import Exchange
from exchange.core.market import MarketStatus, SelectionStatus
from exchange.core.side import Side

from . import flows
from .conftest import BACK, Harness

NS = range(2, 9)
START = 100_000
NAMES = ("alice", "bob", "carol", "dave")


def harness(n: int) -> Harness:
    h = Harness()
    h.accounts(*NAMES, balance=START)
    h.market(selections=tuple(range(1, n + 1)))
    return h


def oracle_exposure(ex: Exchange, account: str, market_id: str = "1.1") -> int:
    """The worst loss over the outcomes still possible, from the account's order views, exactly."""
    statuses = ex.selection_statuses(market_id)
    assert statuses is not None
    book = ex.market_book(market_id)
    assert book is not None
    ids = [r.selection_id for r in book.runners]
    live = [sid for sid, status in zip(ids, statuses, strict=True) if status is SelectionStatus.IN_PLAY]
    orders = ex.current_orders(account, market_id)
    outcomes = []
    for winner in live:
        pnl = Fraction(0)
        for o in orders:
            wins = o.selection_id == winner
            if o.size_matched:  # a back's matched P&L; a lay's is its negative
                assert o.average_price_matched is not None
                back = o.size_matched * (o.average_price_matched - 1) if wins else Fraction(-o.size_matched)
                pnl += back if o.side is Side.BACK else -back
            if o.side is Side.BACK:  # unmatched: only the downside counts
                pnl -= 0 if wins else o.size_remaining
            else:
                pnl -= o.size_remaining * (Fraction(o.price) - 1) if wins else 0
        outcomes.append(pnl)
    early = [c for c in ex.cleared_orders(account, market_id) if c.bet_outcome is not None]
    outcomes.append(Fraction(sum(c.profit for c in early)))
    return max(0, math.ceil(-min(outcomes)))


def assert_exposures(h: Harness) -> None:
    for name in NAMES:
        assert h.exposure(name) == oracle_exposure(h.ex, name), name


def assert_money_conserved(h: Harness) -> None:
    assert sum(h.balance(a) for a in h.ex.accounts) == len(NAMES) * START


@pytest.mark.parametrize("n", NS)
def test_matching_on_every_selection_is_price_then_time(n: int) -> None:
    h = harness(n)
    for sid in range(1, n + 1):
        first = h.lay("alice", sid, "3", 300)
        second = h.lay("bob", sid, "3", 300)
        better = h.lay("carol", sid, "3.5", 200)
        events = h.place("dave", sid, BACK, "3", 600)
        fills = [(e.lay_bet_id, e.tick, e.size) for e in events if isinstance(e, Matched)]
        three, three_and_a_half = h.order_view("alice", first).tick, h.order_view("carol", better).tick
        assert fills == [(better, three_and_a_half, 200), (first, three, 300), (second, three, 100)]
        assert all(e.selection_id == sid for e in events if isinstance(e, Matched))
    assert_exposures(h)


@pytest.mark.parametrize("n", NS)
def test_exposure_matches_the_brute_force_oracle_as_orders_fill(n: int) -> None:
    """Each account trades on every selection, both sides, matched and unmatched; checked after each order."""
    h = harness(n)
    rng = random.Random(n)
    prices = ["1.5", "2", "2.5", "3", "4", "6.2", "10"]
    for _ in range(12 * n):
        name = rng.choice(NAMES)
        side = rng.choice([BACK, Side.LAY])
        h.place(name, rng.randrange(1, n + 1), side, rng.choice(prices), rng.randrange(200, 1500))
        assert_exposures(h)
    assert any(isinstance(e, Matched) for e in h.events)


@pytest.mark.parametrize("n", NS)
def test_early_settlement_until_two_are_left_then_a_dead_heat(n: int) -> None:
    h = harness(n)
    for sid in range(1, n + 1):
        h.lay("alice", sid, "4", 501)
        h.back("bob", sid, "4", 501)
        h.back("carol", sid, "2.5", 333)
        h.lay("dave", sid, "2.5", 333)
    for sid in range(1, n - 1):  # every selection but the last two loses early
        events = h.lose(sid)
        settled = events[-1]
        assert isinstance(settled, SelectionSettled)
        assert {(b.account_id, b.profit) for b in settled.bets} == {
            ("alice", 501),
            ("bob", -501),
            ("carol", -333),
            ("dave", 333),
        }
        rejected = h.rejected(h.place("bob", sid, BACK, "4", 200))
        assert rejected.error_code is ErrorCode.SELECTION_ALREADY_LOST
        assert_exposures(h)
    assert h.ex.market_status("1.1") is MarketStatus.ACTIVE
    h.suspend()
    events = h.settle(n - 1, n)
    ev = events[-1]
    assert isinstance(ev, MarketSettled)
    assert_settlement(h, ev)
    statuses = h.ex.selection_statuses("1.1")
    assert statuses == (SelectionStatus.LOSER,) * (n - 2) + (SelectionStatus.TIED_DEAD_HEAT,) * 2
    assert_money_conserved(h)
    h.assert_replays()


def assert_settlement(h: Harness, ev: MarketSettled) -> None:
    """Σ P&L + rounding = 0; each account's P&L now is its exact dead-heat P&L to the nearest unit, a half down."""
    assert sum(a.profit for a in ev.accounts) + ev.rounding == 0
    n_winners = len(ev.winners)
    for a in ev.accounts:
        now = [b for b in ev.bets if b.account_id == a.account_id]
        exact = Fraction(0)
        for b in now:
            c = next(c for c in h.ex.cleared_orders(a.account_id, ev.market_id) if c.bet_id == b.bet_id)
            assert c.price_matched is not None
            won = (
                c.size_settled * (c.price_matched / n_winners - 1) if c.selection_id in ev.winners else -c.size_settled
            )
            exact += won if c.side is Side.BACK else -won
        assert sum(b.profit for b in now) == math.ceil(exact - Fraction(1, 2)), (a, exact)  # nearest, a half down
        assert a.commission == (a.profit * 250 // 10_000 if a.profit > 0 else 0)


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("ties", [1, 2, 3, 8])
def test_dead_heats_of_every_size_conserve_money(n: int, ties: int) -> None:
    ties = min(ties, n)
    h = harness(n)
    rng = random.Random(100 * n + ties)
    for sid in range(1, n + 1):
        for _ in range(3):
            price = rng.choice(["1.99", "2.5", "3", "3.35", "7.4"])
            size = rng.randrange(201, 999, 2)  # odd stakes: fractions of a unit to round
            h.lay(rng.choice(NAMES[:2]), sid, price, size)
            h.back(rng.choice(NAMES[2:]), sid, price, size)
    h.suspend()
    ev = h.settle(*range(1, ties + 1))[-1]
    assert isinstance(ev, MarketSettled)
    assert_settlement(h, ev)
    assert_money_conserved(h)
    won = SelectionStatus.WINNER if ties == 1 else SelectionStatus.TIED_DEAD_HEAT
    assert h.ex.selection_statuses("1.1") == (won,) * ties + (SelectionStatus.LOSER,) * (n - ties)


@pytest.mark.parametrize("n", NS)
def test_void_after_early_settlement_keeps_the_early_results_only(n: int) -> None:
    h = harness(n)
    for sid in range(1, n + 1):
        h.back("alice", sid, "3", 400)
        h.lay("bob", sid, "3", 400)
        h.lay("carol", sid, "2", 300)  # resting: cancelled by the void
    early = max(1, n - 2)
    if early < n - 1:
        for sid in range(1, early + 1):
            h.lose(sid)
    else:
        early = 0
    assert_exposures(h)
    ev = h.void()[-1]
    assert isinstance(ev, MarketVoided)
    results = {a.account_id: (a.profit, a.commission) for a in ev.accounts}
    assert results["alice"] == (-400 * early, 0)
    assert results["bob"] == (400 * early, 400 * early * 250 // 10_000)
    assert results["carol"] == (0, 0)
    assert h.balance("alice") == START - 400 * early
    assert h.balance("carol") == START
    assert_money_conserved(h)


@pytest.mark.parametrize("n", NS)
def test_seeded_stress(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The flows of :mod:`flows` on markets of ``n`` selections, ``Exchange._check()`` after every step.

    :class:`flows.FlowRunner` reads its selections from the module constant, so it is patched for the test.
    """
    monkeypatch.setattr(flows, "SELECTIONS", tuple(10 * (i + 1) for i in range(n)))
    runner = flows.FlowRunner(accounts=6, markets=2, balance=20_000, replay_every=150)
    for step in flows.random_steps(random.Random(n), 360, lifecycle=0.1):
        runner.step(step)
    runner.check_replay()
    kinds = {type(e) for e in runner.events}
    assert {Matched, SelectionSettled, MarketSettled} <= kinds
    assert runner.settlements >= 2
    assert {len(m.selection_ids) for m in runner.ex.markets.values()} == {n}
