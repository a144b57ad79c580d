"""A game's market on the exchange core: :class:`MarketPort` as core commands.

Selections are the hand numbers 1..n, and n + 1 ("No low") in a hi/lo game's Low market.
Suspending the market lapses its unmatched orders in the same command (the core does both), so :meth:`lapse`
has nothing left to do.
"""

from __future__ import annotations

from collections.abc import Sequence

from exchange.core.commands import (
    CreateMarket,
    OpenMarket,
    ResumeMarket,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
)
from exchange.core.errors import ExchangeError
from exchange.core.events import Event, LapseReason
from exchange.core.exchange import Exchange
from exchange.game.channels import ChannelConfig, parse_market_id
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round


class ExchangeMarket:
    """One game's market on an :class:`~exchange.core.exchange.Exchange`."""

    def __init__(self, exchange: Exchange, config: ChannelConfig, market_id: str) -> None:
        self.exchange = exchange
        self.config = config
        self.market_id = market_id

    def create(self, at_ms: int) -> Sequence[Event]:
        parsed = parse_market_id(self.market_id)
        kind = parsed[2] if parsed is not None else MarketKind.WIN
        selections = tuple(range(1, len(self.config.selection_names(kind)) + 1))
        return self.exchange.execute(
            CreateMarket(at_ms, self.market_id, selections, self.config.min_stake, self.config.commission_bps)
        )

    def open_window(self, round: Round, at_ms: int) -> Sequence[Event]:
        events = self.exchange.execute(OpenMarket(at_ms, self.market_id))
        opened = getattr(events[-1], "round", None)
        if opened != int(round):  # the exchange and the game disagree on the round: a driver's bug, never ignored
            raise ExchangeError(f"market {self.market_id} opened round {opened}, the game is in round {int(round)}")
        return events

    def suspend(self, at_ms: int) -> Sequence[Event]:
        return self.exchange.execute(SuspendMarket(at_ms, self.market_id))

    def hold(self, at_ms: int) -> Sequence[Event]:
        return self.exchange.execute(SuspendMarket(at_ms, self.market_id, LapseReason.MARKET_SUSPENDED))

    def lapse(self, at_ms: int) -> Sequence[Event]:
        return ()

    def settle_losers(self, hands: Sequence[int], at_ms: int) -> Sequence[Event]:
        events: list[Event] = []
        for hand in hands:
            events.extend(self.exchange.execute(SettleSelection(at_ms, self.market_id, hand)))
        return events

    def settle(self, winners: Sequence[int], at_ms: int) -> Sequence[Event]:
        return self.exchange.execute(SettleMarket(at_ms, self.market_id, tuple(winners)))

    def void(self, reason: str, at_ms: int) -> Sequence[Event]:
        return self.exchange.execute(VoidMarket(at_ms, self.market_id, reason))

    def resume(self, at_ms: int) -> Sequence[Event]:
        return self.exchange.execute(ResumeMarket(at_ms, self.market_id))

    def match_mark(self) -> int:
        return self.exchange.next_match_id

    def void_matched_since(self, since_ms: int, mark: int, reason: str, at_ms: int) -> Sequence[Event]:
        return self.exchange.execute(VoidMatchedSince(at_ms, self.market_id, since_ms, reason, first_match_id=mark))
