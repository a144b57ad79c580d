"""The bankroll a strategy reads follows the exchange's balances over random order flows, to the penny.

:class:`~exchange.backtest.bankroll.BankrollWatch` folds the settlement events
(``MarketSettled``, ``MarketVoided``) of one account; the exchange keeps its
balances by its own state. Over random flows of orders, cancels, early and full
settlements, voids, deposits and withdrawals (the exchange's own property-test
flows), after every step: the exchange's balance of every trader = the balance
when the watch began + the watch's net P&L + what was deposited − withdrawn since.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from exchange.backtest.bankroll import BankrollWatch
from exchange.core.events import AccountCredited, AccountDebited, MarketSettled, MarketVoided
from exchange.game.events import Stamped
from tests.exchange.flows import FlowRunner, random_steps

steps = st.lists(st.tuples(*[st.integers(0, 999)] * 5), min_size=1, max_size=60)


def follow(runner: FlowRunner, flow: list[tuple[int, ...]]) -> dict[str, BankrollWatch]:
    """Run ``flow``, feeding every event to a watch per trader; check them against the exchange after each step."""
    watches = {}
    for name in runner.names:
        funds = runner.ex.funds(name)
        assert funds is not None
        watches[name] = BankrollWatch(name, funds.balance)
    moved = dict.fromkeys(runner.names, 0)
    seen = len(runner.events)
    for step in flow:
        runner.step(step)
        for seq, event in enumerate(runner.events[seen:], start=seen):
            for watch in watches.values():
                watch(Stamped(seq, event.ts, getattr(event, "market_id", None), event))  # type: ignore[attr-defined]  # every event has a ts; Event declares none
            if isinstance(event, AccountCredited):
                moved[event.account_id] += event.amount
            elif isinstance(event, AccountDebited):
                moved[event.account_id] -= event.amount
        seen = len(runner.events)
        for name, watch in watches.items():
            funds = runner.ex.funds(name)
            assert funds is not None
            bankroll = watch.bankroll(funds)
            assert bankroll.balance == bankroll.starting_balance + bankroll.net_profit + moved[name], name
            assert (bankroll.exposure, bankroll.available) == (funds.exposure, funds.available)
    return watches


@settings(max_examples=30, deadline=None)
@given(steps)
def test_the_watch_follows_the_exchanges_balances(flow: list[tuple[int, ...]]) -> None:
    follow(FlowRunner(accounts=4, markets=2, balance=20_000, replay_every=1_000_000), flow)


def test_a_long_flow_settles_and_voids_markets_and_the_watch_keeps_up() -> None:
    runner = FlowRunner(accounts=6, markets=2, balance=50_000, replay_every=1_000_000)
    watches = follow(runner, random_steps(random.Random(1), 600, lifecycle=0.1))
    kinds = {type(e) for e in runner.events}
    assert {MarketSettled, MarketVoided, AccountCredited, AccountDebited} <= kinds, kinds
    assert sum(w.net_profit != 0 for w in watches.values()) >= 3
