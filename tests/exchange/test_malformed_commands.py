"""A command whose id or structure is of the wrong type: refused as a trader's request (a rejection event) or a
driver's slip (:class:`ExchangeError`), never a bare ``TypeError`` out of ``execute``, and nothing changes.

Each id field (account, market, selection, bet) and each field that holds several (a replace's moves, the
winners, a market's selections) of every command is given values of other types, unhashable ones among them,
which a dict lookup of an id would raise on. A trader's commands (accounts' money, placements, cancels,
replaces) must come back as one ``OrderRejected`` or ``CommandRejected`` with a message; the market lifecycle,
a game driver's, raises ``ExchangeError``.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from exchange.core import commands as c
from exchange.core.errors import ExchangeError
from exchange.core.events import CommandRejected, OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side

# Each command (valid as it stands, on the state of _exchange()) and the fields given wrong values.
TRADERS: list[tuple[c.Command, tuple[str, ...]]] = [
    (c.OpenAccount(1, "bo"), ("account_id",)),
    (c.Deposit(1, "al", 5), ("account_id", "amount")),
    (c.Withdraw(1, "al", 5), ("account_id", "amount")),
    (c.PlaceOrder(1, "al", "1.1", 1, Side.BACK, Decimal("3"), 400),
     ("account_id", "market_id", "selection_id", "side", "size")),
    (c.CancelOrder(1, "al", 1), ("account_id", "bet_id")),
    (c.ReplaceOrder(1, "al", 1, Decimal("4")), ("account_id", "bet_id")),
    (c.ReplaceOrders(1, "al", "1.1", (c.Move(1, Decimal("4")),)), ("account_id", "market_id")),
]  # fmt: skip
DRIVERS: list[tuple[c.Command, tuple[str, ...]]] = [
    (c.CreateMarket(1, "1.2", (1, 2)), ("market_id", "selection_ids", "min_stake", "commission_bps")),
    (c.OpenMarket(1, "1.3"), ("market_id",)),
    (c.SuspendMarket(1, "1.1"), ("market_id",)),
    (c.ResumeMarket(1, "1.3"), ("market_id",)),
    (c.SettleSelection(1, "1.1", 2), ("market_id", "selection_id")),
    (c.SettleMarket(1, "1.1", (1,)), ("market_id", "winners")),
    (c.VoidMarket(1, "1.1"), ("market_id",)),
    (c.VoidMatchedSince(1, "1.1", 0), ("market_id", "since_ts", "first_match_id")),
    (c.ReplaceOrders(1, "al", "1.1", (c.Move(1, Decimal("4")),)), ("moves",)),
]  # fmt: skip
WRONG: list[object] = [["x"], {"a": 1}, 3.5, object(), ("x",), "", b"1.1"]


def _exchange() -> Exchange:
    """An account with money and a resting back (bet 1) on an open two-selection market, 1.1; 1.3 suspended in its
    first round."""
    ex = Exchange()
    for command in (c.OpenAccount(0, "al"), c.Deposit(0, "al", 5_000), c.CreateMarket(0, "1.1", (1, 2)),
                    c.OpenMarket(0, "1.1"), c.PlaceOrder(0, "al", "1.1", 1, Side.BACK, Decimal("3"), 400),
                    c.CreateMarket(0, "1.3", (1, 2)), c.OpenMarket(0, "1.3"), c.SuspendMarket(0, "1.3")):
        ex.execute(command)
    return ex


def _malformed(commands: list[tuple[c.Command, tuple[str, ...]]]) -> list[object]:
    """Each command with one field given one wrong value, named (stably, for the test workers) by all three."""
    return [pytest.param(dataclasses.replace(command, **{name: bad}),  # type: ignore[type-var]  # (dataclasses)
                         id=f"{type(command).__name__}-{name}-{type(bad).__name__}-{i}")
            for command, names in commands for name in names for i, bad in enumerate(WRONG)]


def test_each_command_as_it_stands_is_taken() -> None:
    for command, _ in TRADERS + DRIVERS:
        events = _exchange().execute(command)  # (no match to void since 0: no event)
        assert not [e for e in events if isinstance(e, OrderRejected | CommandRejected)], command


@pytest.mark.parametrize("command", _malformed(TRADERS))
def test_a_traders_command_of_the_wrong_shape_is_refused(command: c.Command) -> None:
    ex = _exchange()
    digest = ex.state_digest()
    events = ex.execute(command)
    refused = [e for e in events if isinstance(e, OrderRejected | CommandRejected)]
    assert len(refused) == 1 and refused[0].message, events
    if not isinstance(command, c.ReplaceOrders):  # (a replace's cancel stands when its new bet cannot be placed)
        assert events == refused and ex.state_digest() == digest


@pytest.mark.parametrize("command", _malformed(DRIVERS))
def test_a_drivers_command_of_the_wrong_shape_raises_exchange_error(command: c.Command) -> None:
    ex = _exchange()
    digest = ex.state_digest()
    with pytest.raises(ExchangeError):
        ex.execute(command)
    assert ex.state_digest() == digest
