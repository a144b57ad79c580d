"""Fixtures for the exchange core tests: a harness that checks invariants after every command."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal

import pytest

from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
)
from exchange.core.events import Event, OrderPlaced, OrderRejected
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.ladder import PRICES
from exchange.core.market import MarketBook
from exchange.core.orders import OrderView
from exchange.core.side import Side

BACK = Side.BACK
LAY = Side.LAY
#: What a refusal of an order while available to bet is below zero says is taken.
COVERED = ("an order is taken only if every outcome it makes worse stays within the balance less the exposure of the "
           "account's other markets")



def dutch(prices: Sequence[Decimal], stakes: Sequence[int], ts: int) -> list[Command]:
    """Market ``1.1`` of one hand a price, ``dutch`` backing every hand at its price for its stake, each back met by
    ``maker``'s lay: the accounts opened and funded (``dutch`` with the stakes' sum) and the market open."""
    commands: list[Command] = [
        OpenAccount(ts, "dutch"), Deposit(ts, "dutch", sum(stakes)), OpenAccount(ts, "maker"),
        Deposit(ts, "maker", 10**9), CreateMarket(ts, "1.1", tuple(range(1, len(prices) + 1))), OpenMarket(ts, "1.1"),
    ]  # fmt: skip
    for sel, (price, stake) in enumerate(zip(prices, stakes, strict=True), start=1):
        commands += [PlaceOrder(ts, "maker", "1.1", sel, LAY, price, stake),
                     PlaceOrder(ts, "dutch", "1.1", sel, BACK, price, stake)]
    return commands


def even_stakes(ticks: Sequence[int], returns: int) -> list[int]:
    """Stakes backing a hand at each tick that each return about ``returns`` (at least the minimum stake, 2.00)."""
    return [max(200, int(returns / PRICES[t])) for t in ticks]


class Harness:
    """An exchange plus the journal of every command and event, checked after each command.

    Prices are given as strings (``"2.5"``), money in minor units.
    """

    def __init__(self, config: ExchangeConfig | None = None) -> None:
        self.config = config
        self.ex = Exchange(config)
        self.commands: list[Command] = []
        self.events: list[Event] = []
        self.ts = 0

    def run(self, command: Command) -> list[Event]:
        events = self.ex.execute(command)
        self.commands.append(command)
        self.events.extend(events)
        self.ex._check()
        return events

    def tick(self) -> int:
        self.ts += 1
        return self.ts

    # -- setup -------------------------------------------------------------

    def accounts(self, *names: str, balance: int = 100_000) -> None:
        for name in names:
            self.run(OpenAccount(self.tick(), name))
            if balance:
                self.run(Deposit(self.tick(), name, balance))

    def market(
        self,
        market_id: str = "1.1",
        selections: tuple[int, ...] = (1, 2, 3, 4),
        open_: bool = True,
        min_stake: int | None = None,
        commission_bps: int | None = None,
    ) -> None:
        self.run(CreateMarket(self.tick(), market_id, selections, min_stake, commission_bps))
        if open_:
            self.run(OpenMarket(self.tick(), market_id))

    # -- trading -------------------------------------------------------------

    def place(
        self,
        account: str,
        selection: int,
        side: Side,
        price: str | Decimal | int | float,
        size: int,
        market_id: str = "1.1",
        round_: int | None = None,
    ) -> list[Event]:
        p = price if isinstance(price, Decimal) else Decimal(str(price)) if not isinstance(price, float) else price
        return self.run(PlaceOrder(self.tick(), account, market_id, selection, side, p, size, round_))  # type: ignore[arg-type]  # a float goes in as given

    def back(self, account: str, selection: int, price: str, size: int, market_id: str = "1.1") -> int:
        """Place a back that must be accepted; return its bet id."""
        return self._accepted(self.place(account, selection, BACK, price, size, market_id))

    def lay(self, account: str, selection: int, price: str, size: int, market_id: str = "1.1") -> int:
        """Place a lay that must be accepted; return its bet id."""
        return self._accepted(self.place(account, selection, LAY, price, size, market_id))

    @staticmethod
    def _accepted(events: list[Event]) -> int:
        placed = events[0]
        assert isinstance(placed, OrderPlaced), placed
        return placed.bet_id

    def cancel(self, account: str, bet_id: int, reduction: int | None = None) -> list[Event]:
        return self.run(CancelOrder(self.tick(), account, bet_id, reduction))

    def replace(self, account: str, bet_id: int, price: str) -> list[Event]:
        return self.run(ReplaceOrder(self.tick(), account, bet_id, Decimal(price)))

    def rejected(self, events: list[Event]) -> OrderRejected:
        (rejection,) = events
        assert isinstance(rejection, OrderRejected), events
        return rejection

    # -- lifecycle -----------------------------------------------------------

    def suspend(self, market_id: str = "1.1") -> list[Event]:
        return self.run(SuspendMarket(self.tick(), market_id))

    def open(self, market_id: str = "1.1") -> list[Event]:
        return self.run(OpenMarket(self.tick(), market_id))

    def lose(self, selection: int, market_id: str = "1.1") -> list[Event]:
        return self.run(SettleSelection(self.tick(), market_id, selection))

    def settle(self, *winners: int, market_id: str = "1.1") -> list[Event]:
        return self.run(SettleMarket(self.tick(), market_id, winners))

    def void(self, market_id: str = "1.1") -> list[Event]:
        return self.run(VoidMarket(self.tick(), market_id))

    def void_since(self, since_ts: int, market_id: str = "1.1") -> list[Event]:
        return self.run(VoidMatchedSince(self.tick(), market_id, since_ts))

    # -- reading -------------------------------------------------------------

    def balance(self, account: str) -> int:
        funds = self.ex.funds(account)
        assert funds is not None
        return funds.balance

    def available(self, account: str) -> int:
        funds = self.ex.funds(account)
        assert funds is not None
        return funds.available

    def exposure(self, account: str) -> int:
        funds = self.ex.funds(account)
        assert funds is not None
        return funds.exposure

    def market_book(self, market_id: str = "1.1", depth: int | None = 3) -> MarketBook:
        """The exchange's book of a market the test knows is there."""
        book = self.ex.market_book(market_id, depth)
        assert book is not None, f"no market {market_id}"
        return book

    def order_view(self, account: str, bet_id: int) -> OrderView:
        """The exchange's view of an order the test knows ``account`` holds."""
        view = self.ex.order_view(account, bet_id)
        assert view is not None, f"{account} has no bet {bet_id}"
        return view

    @staticmethod
    def placed_id(event: Event) -> int:
        """The bet id of an event the test knows is an ``OrderPlaced``."""
        assert isinstance(event, OrderPlaced), event
        return event.bet_id

    def assert_replays(self) -> None:
        """Replaying the events, and re-executing the commands, rebuild the same state."""
        digest = self.ex.state_digest()
        assert Exchange.replay(self.events, self.config).state_digest() == digest
        assert Exchange.replay(self.commands, self.config).state_digest() == digest


def types(events: Iterable[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


@pytest.fixture
def hx() -> Harness:
    """A fresh harness with accounts alice, bob, carol, dave (1000.00 each) and an open market 1.1."""
    h = Harness()
    h.accounts("alice", "bob", "carol", "dave")
    h.market()
    return h


@pytest.fixture
def types_of() -> Callable[[Iterable[Event]], list[str]]:
    return types
