"""A memo of order views, for a caller that lists the same account's orders at every turn (a strategy's view of
its market, built at every update): :class:`OrderViews`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from exchange.core.orders import OrderView

if TYPE_CHECKING:
    from exchange.core.positions import Position


class OrderViews:
    """Views of orders for a caller that lists the same account's orders again and again (a strategy's view of its
    market, built at every update): each market's views are kept in bet-id order, and only the orders that may still
    change are looked at again.

    An order with nothing unmatched and nothing matched (cancelled or lapsed whole, or voided) never changes again,
    so a listing costs a look at each order still resting or matched and a view for each new or changed one
    (:meth:`~exchange.core.orders.Order.sizes`): a strategy that has placed and cancelled thousands of orders on a
    market pays for the few it still has, not for all of them at every update. It keeps the markets it listed last,
    and no other.

    ``changes``: also keep, for :meth:`changed`, the views built since it was last asked (a caller that tells its
    owner which orders changed, without comparing every view it lists).
    """

    __slots__ = ("_changes", "_listings")

    def __init__(self, *, changes: bool = False) -> None:
        self._listings: dict[str, _Listing] = {}
        self._changes: dict[str, dict[int, OrderView]] | None = {} if changes else None

    def of(self, positions: Iterable[Position], live_only: bool = False) -> tuple[OrderView, ...]:
        """The views of the positions' orders, position by position, each's by bet id (``live_only``: only those
        with an unmatched remainder)."""
        listings: dict[str, _Listing] = {}
        out: list[OrderView] = []
        for position in positions:
            market_id = position.market.market_id
            listing = self._listings.get(market_id)
            if listing is None or not listing.follows(position):
                listing = _Listing(position)
            built = listing.update()
            if self._changes is not None and built:
                self._changes.setdefault(market_id, {}).update((view.bet_id, view) for view in built)
            listings[market_id] = listing
            out.extend(listing.live() if live_only else listing.views)
        self._listings = listings
        if self._changes is not None:  # a market no longer listed: its changes go with it
            self._changes = {m: views for m, views in self._changes.items() if m in listings}
        return tuple(out)

    def live(self, market_id: str) -> tuple[OrderView, ...]:
        """The views of the market's orders with an unmatched remainder, by bet id, as of the last listing that had
        the market (none if the last did not have it)."""
        listing = self._listings.get(market_id)
        return () if listing is None else tuple(listing.live())

    def changed(self, market_id: str) -> list[OrderView]:
        """The views of the market's orders built since the last call for it, as they are now, by bet id: every
        new order and every one that changed (and, where the memo lost track of a market and listed it afresh, its
        others too); kept only with ``changes``."""
        if self._changes is None:
            raise ValueError("this memo keeps no changes: make it with OrderViews(changes=True)")
        return sorted(self._changes.pop(market_id, {}).values(), key=lambda view: view.bet_id)


class _Listing:
    """One position's order views, by bet id, and where in them the orders that may still change are."""

    __slots__ = ("changing", "position", "sizes", "views")

    def __init__(self, position: Position) -> None:
        self.position = position
        self.views: list[OrderView] = []
        self.sizes: list[tuple[int, ...]] = []  # each order's sizes when its view was built
        self.changing: list[int] = []  # the indices of the orders with something unmatched or matched, ascending

    def follows(self, position: Position) -> bool:
        """Whether ``position`` is the one listed, its orders listed still first in it (an order is only ever taken
        out in the command that put it in: :meth:`~exchange.core.positions.Position.take_back`)."""
        orders, listed = position.orders, len(self.views)
        return position is self.position and len(orders) >= listed and (
            listed == 0 or orders[listed - 1].bet_id == self.views[-1].bet_id)

    def update(self) -> list[OrderView]:
        """Build again the views of the orders changed since the last update, and those of the orders new since;
        returns the views built."""
        orders, views, sizes = self.position.orders, self.views, self.sizes
        changing, built = [], []
        for i in self.changing:
            order = orders[i]
            now = order.sizes()
            if now != sizes[i]:
                views[i], sizes[i] = order.view(), now
                built.append(views[i])
            if order.remaining or order.matched:
                changing.append(i)
        for i in range(len(views), len(orders)):
            order = orders[i]
            views.append(order.view())
            sizes.append(order.sizes())
            built.append(views[i])
            if order.remaining or order.matched:
                changing.append(i)
        self.changing = changing
        return built

    def live(self) -> list[OrderView]:
        """The views, as last updated, of the orders with an unmatched remainder (all among those that may change)."""
        views = self.views
        return [views[i] for i in self.changing if views[i].size_remaining]
