"""What changed in each account's orders since the order stream's last flush, learnt from the events.

The stream's hub hears every event (:meth:`exchange.server.stream.StreamHub.touched`) and notes here, per
account and market, the bets whose ``uo`` record moved (placed, matched, cancelled, lapsed, a match voided)
and the matched levels that moved (selection, side and tick of a match or a voided match). A flush then
builds each account's delta from those alone (:meth:`exchange.server.service.ExchangeService.order_deltas`):
its cost follows what changed, not how many orders the account has. A market that closed is noted for
every account with a position on it, so each is told ``closed``; the hub takes a closed market's changes at
once (:meth:`DirtyOrders.take_market`) to read its orders' final records before the exchange can forget them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from exchange.betfair import order_changes
from exchange.core.events import (
    Event,
    MarketSettled,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
)
from exchange.core.exchange import Exchange, cleared_matched_on
from exchange.core.orders import ClearedOrder
from exchange.core.side import Side

#: A matched level of one account that moved: ``(selection id, side, tick, the bet whose match moved it)``.
Level = tuple[int, Side, int, int]


@dataclass
class OrderDirt:
    """One account's changes on one market: the bets whose records moved and the matched levels that moved."""

    bets: set[int] = field(default_factory=set)
    levels: set[Level] = field(default_factory=set)


class DirtyOrders:
    """The changes noted since the last :meth:`take`, per ``(account, market)``.

    >>> dirty = DirtyOrders()
    >>> dirty.note(Matched(5, 1, "1.1", 7, 149, 200, 3, 4, "al", "bo", Side.BACK))
    >>> dirty.note(OrderCancelled(6, 4, "bo", "1.1", 7, 100, "BY_USER"))
    >>> sorted((key, sorted(d.bets), sorted(d.levels)) for key, d in dirty.take().items())
    [(('al', '1.1'), [3], [(7, <Side.BACK: 'BACK'>, 149, 3)]), (('bo', '1.1'), [4], [(7, <Side.LAY: 'LAY'>, 149, 4)])]
    >>> dirty.take()
    {}
    """

    def __init__(self) -> None:
        self._dirt: dict[tuple[str, str], OrderDirt] = {}

    def _of(self, account_id: str, market_id: str) -> OrderDirt:
        dirt = self._dirt.get((account_id, market_id))
        if dirt is None:
            dirt = self._dirt[account_id, market_id] = OrderDirt()
        return dirt

    def note(self, event: Event) -> None:
        """Note what ``event`` changed in its accounts' orders (nothing, for most events). O(1) but for a
        market's close, O(its accounts)."""
        if isinstance(event, Matched | MatchVoided):
            for account_id, bet_id, side in ((event.back_account_id, event.back_bet_id, Side.BACK),
                                             (event.lay_account_id, event.lay_bet_id, Side.LAY)):
                dirt = self._of(account_id, event.market_id)
                dirt.bets.add(bet_id)
                dirt.levels.add((event.selection_id, side, event.tick, bet_id))
        elif isinstance(event, OrderPlaced | OrderCancelled | OrderLapsed):
            self._of(event.account_id, event.market_id).bets.add(event.bet_id)
        elif isinstance(event, MarketSettled | MarketVoided):
            for result in event.accounts:
                self._of(result.account_id, event.market_id)

    def take_market(self, market_id: str) -> dict[str, OrderDirt]:
        """What was noted on ``market_id``, per account, and forget it. O(everything noted)."""
        taken = {account: dirt for (account, market), dirt in self._dirt.items() if market == market_id}
        for account in taken:
            del self._dirt[account, market_id]
        return taken

    def take(self) -> dict[tuple[str, str], OrderDirt]:
        """Everything noted since the last call, and forget it."""
        dirt, self._dirt = self._dirt, {}
        return dirt


def cleared_on(exchange: Exchange, account: str, market_id: str) -> tuple[ClearedOrder, ...] | None:
    """The account's cleared orders on a closed market, kept or forgotten by the latest close
    (``exchange.forgotten``: what a delta of a market forgotten as it closed is read from); None for a market
    forgotten before that, or never known."""
    if exchange.market_status(market_id) is not None:
        return exchange.cleared_orders(account, market_id)
    forgotten = exchange.forgotten.get(market_id)
    return None if forgotten is None else tuple(forgotten.cleared.get(account, ()))


def closed_image(market_id: str, cleared: Sequence[ClearedOrder]) -> dict[str, Any] | None:
    """The account's final order records on a closed market, as an image (``oc``, ``closed: true``): each runner a
    ``fullImage`` with every order and the matched position that stood, which a client's cache takes in place of
    what it held (a level voided while it was away goes); None if it had no order there."""
    if not cleared:
        return None
    matched = cleared_matched_on(cleared, {c.selection_id for c in cleared})
    rows = [order_changes.cleared_order(c) for c in cleared]
    return {**order_changes.market_image(market_id, rows, matched, ended=True), "closed": True}
