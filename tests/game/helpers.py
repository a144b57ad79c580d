"""Building channels for tests: virtual clock, fresh exchange, funded accounts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from engine.cards import parse_cards
from engine.dealer import arrange_deck
from exchange.agents.host import seat
from exchange.agents.house import NoiseTrader, seat_house_makers
from exchange.clock import VirtualClock
from exchange.core.commands import PlaceOrder
from exchange.core.events import Event
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import HOLDEM, ChannelConfig
from exchange.game.deal import DeckSource, fixed_decks
from exchange.game.equities import GameProspects, Job
from exchange.game.events import EventLog

HOUSE_BANKROLL = 1_000_000_000
USER_BANKROLL = 10_000_000


def deck(hands: Sequence[str], board: str) -> list:
    return arrange_deck([parse_cards(h) for h in hands], parse_cards(board))


def make_channel(
    decks: DeckSource,
    *,
    config: ChannelConfig = HOLDEM,
    makers: int = 1,
    noise: int = 0,
    users: Sequence[str] = ("alice", "bob"),
) -> tuple[Channel, VirtualClock, EventLog]:
    clock = VirtualClock()
    channel = Channel(config, clock, Exchange(), decks=decks)
    log = EventLog.attach(channel.bus)
    for i in range(makers):
        channel.open_account(f"house-maker-{i}", HOUSE_BANKROLL)
        seat_house_makers(channel, f"house-maker-{i}")  # one maker per market (two in a hi/lo game)
    for i in range(noise):
        channel.open_account(f"house-noise-{i}", USER_BANKROLL)
        seat(channel, NoiseTrader(seed=i), f"house-noise-{i}")
    for user in users:
        channel.open_account(user, USER_BANKROLL)
    return channel, clock, log


def one_deck(hands: Sequence[str], board: str) -> DeckSource:
    return fixed_decks([deck(hands, board)])


def place(channel: Channel, account: str, hand: int, side: Side, price: str, size: int, rnd: int | None) -> Event:
    """A user's order arriving now (as the HTTP server would submit it); returns the first event."""
    game = channel.game()
    assert game is not None
    events = channel.submit(
        PlaceOrder(channel.clock.now(), account, game.market_id, hand, side, Decimal(price), size, round=rnd)
    )
    return events[0]


Pending = tuple[Job, Callable[[GameProspects], None], Callable[[BaseException], None]]


class Later:
    """An equity runner that keeps each job until the test hands its result over."""

    def __init__(self) -> None:
        self.jobs: list[Pending] = []

    def __call__(self, job: Job, deliver: Callable[[GameProspects], None],
                 fail: Callable[[BaseException], None]) -> None:
        self.jobs.append((job, deliver, fail))

    def deliver(self) -> None:
        job, deliver, _ = self.jobs.pop(0)
        deliver(job())

    def fail(self) -> None:
        _, _, fail = self.jobs.pop(0)
        fail(RuntimeError("the worker died"))
