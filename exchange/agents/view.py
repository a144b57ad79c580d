"""What a bettor may see: the one window through which every agent looks at a game.

A :class:`BettorView` is a frozen snapshot built from public state only — the
cards face up, the published equities, the public market book — plus the
viewing account's own orders and funds. It holds no reference to the game, the
dealer or the exchange, so a face-down card cannot reach a strategy through
it: :meth:`BettorView.hole_cards` raises :class:`CardNotVisible` until the
cards are turned, and the snapshot shows ``"not available"`` (as the Exchange
Games API does).

The house market makers, noise traders, user strategies in a backtest and the
HTTP server all read this same object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.cards import Card, format_cards
from exchange.core import ladder
from exchange.core.accounts import AccountFunds
from exchange.core.market import MarketBook, MarketStatus, RunnerBook, SelectionStatus
from exchange.core.order_views import OrderViews
from exchange.core.orders import OrderStatus, OrderView
from exchange.core.side import Side
from exchange.game.events import HandEquity
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round, Window
from exchange.game.table import Game, GameMarket

if TYPE_CHECKING:
    from exchange.core.exchange import Exchange
    from exchange.game.channel import Channel

NOT_AVAILABLE = "not available"


class CardNotVisible(LookupError):
    """A card that is still face down was asked for."""


@dataclass(frozen=True, slots=True)
class HandView:
    """One hand (selection) as a bettor sees it: its cards if face up, its exact prospects, its book."""

    hand: int
    cards: tuple[Card, ...] | None
    equity: Fraction
    fair_odds: Fraction | None
    book: RunnerBook | None
    #: The selection's status when the view was built without the book.
    selection_status: SelectionStatus = SelectionStatus.IN_PLAY
    #: The runner's name where it is not a hand ("No low" in a Low market).
    title: str | None = None
    #: The Monte Carlo standard error of ``equity`` (``None``: exact).
    stderr: Fraction | None = None

    @property
    def name(self) -> str:
        return self.title or f"Hand {self.hand}"

    @property
    def status(self) -> SelectionStatus:
        return self.selection_status if self.book is None else self.book.status

    @property
    def in_play(self) -> bool:
        return self.status is SelectionStatus.IN_PLAY

    @property
    def best_to_back(self) -> int | None:
        """Tick of the best price available to back (the highest resting lay)."""
        return self.book.available_to_back[0].tick if self.book and self.book.available_to_back else None

    @property
    def best_to_lay(self) -> int | None:
        """Tick of the best price available to lay (the lowest resting back)."""
        return self.book.available_to_lay[0].tick if self.book and self.book.available_to_lay else None

    @property
    def best_to_back_price(self) -> Decimal | None:
        """The best price available to back as odds (what ``place_order`` takes; ``best_to_back`` is its tick)."""
        tick = self.best_to_back
        return None if tick is None else ladder.price(tick)

    @property
    def best_to_lay_price(self) -> Decimal | None:
        """The best price available to lay as odds (``best_to_lay`` is its tick)."""
        tick = self.best_to_lay
        return None if tick is None else ladder.price(tick)


@dataclass(frozen=True, slots=True)
class BettorView:
    """A game at one instant, as the account ``account_id`` may see it (``None``: an anonymous viewer)."""

    channel: str
    market_id: str
    game_number: int
    now_ms: int
    round: Round | None
    window: Window | None
    #: Orders are taken now: the window is open (before its ``closes_ms``) and the market active.
    betting_open: bool
    market_status: MarketStatus
    hands: tuple[HandView, ...]
    board: tuple[Card, ...]
    min_stake: int = 200
    account_id: str | None = None
    orders: tuple[OrderView, ...] = ()
    funds: AccountFunds | None = None
    #: The game's name for the round ("Flop", "4th street").
    round_name: str | None = None
    #: Which of the game's markets this view shows, and the ids of all of them (the main market first).
    market_kind: MarketKind = MarketKind.WIN
    market_ids: tuple[str, ...] = ()
    #: Per hand, whether each card was dealt face up (the poker meaning; bettors see every dealt card).
    faces: tuple[tuple[bool, ...], ...] = ()
    #: The orders of ``orders`` with an unmatched remainder, when the view's builder knew them (:func:`bettor_view`
    #: with a memo of order views does, so that :meth:`open_orders` need not go through every order an account ever
    #: placed on the market); ``None``: :meth:`open_orders` finds them in ``orders``. Give ``None`` when replacing
    #: ``orders`` in a copy.
    live_orders: tuple[OrderView, ...] | None = None
    #: Cards each hand holds at the end of the game (what a page leaves room for).
    seat_cards: int = 2
    #: Draw games: per hand, the cards discarded and drawn at each draw so far.
    discarded: tuple[tuple[tuple[Card, ...], ...], ...] = ()
    drawn: tuple[tuple[tuple[Card, ...], ...], ...] = ()
    #: The last reveal's equities are being computed: the hands' ``equity`` is the reveal's before (the game's
    #: market is suspended meanwhile; the window opens once they are in).
    pricing: bool = False

    def hand(self, number: int) -> HandView:
        """Hand ``number`` (1-based, the selection id)."""
        if not 1 <= number <= len(self.hands):
            raise IndexError(f"no hand {number}; hands are 1 to {len(self.hands)}")
        return self.hands[number - 1]

    def hole_cards(self, number: int) -> tuple[Card, ...]:
        """Hand ``number``'s hole cards; raises :class:`CardNotVisible` while they are face down."""
        cards = self.hand(number).cards
        if cards is None:
            raise CardNotVisible(f"Hand {number}'s cards are face down until the Deal window closes")
        return cards

    @property
    def live_hands(self) -> tuple[HandView, ...]:
        return tuple(h for h in self.hands if h.in_play)

    def open_orders(self, hand: int | None = None, side: Side | None = None) -> tuple[OrderView, ...]:
        """This account's orders with an unmatched remainder, optionally of one hand and side."""
        live = self.live_orders
        if live is None:
            live = tuple(o for o in self.orders if o.status is OrderStatus.EXECUTABLE)
        if hand is None and side is None:
            return live
        return tuple(o for o in live if (hand is None or o.selection_id == hand) and (side is None or o.side is side))

    @property
    def percentage_complete(self) -> int:
        return 0 if self.window is None else self.window.percentage_complete(self.now_ms)

    def snapshot(self) -> dict[str, object]:
        """The Exchange Games API channel snapshot shape (prices as decimal strings, sizes in minor units)."""
        return {
            "channel": self.channel,
            "gameId": self.market_id,
            "market": self.market_kind.value,
            "round": 0 if self.round is None else int(self.round),
            "roundName": self.round_name,
            "bettingWindowTime": 0 if self.window is None else self.window.length_ms // 1000,
            "bettingWindowPercentageComplete": self.percentage_complete,
            "marketStatus": self.market_status.value,
            "bettingOpen": self.betting_open,
            "communityCards": [str(c) for c in self.board],
            "hands": [_hand_snapshot(h) for h in self.hands],
        }


def _hand_snapshot(h: HandView) -> dict[str, object]:
    return {
        "selectionId": h.hand,
        "name": h.name,
        "cards": NOT_AVAILABLE if h.cards is None else format_cards(h.cards).split(),
        "status": h.status.value,
        "equity": str(h.equity),
        "fairOdds": None if h.fair_odds is None else str(h.fair_odds),
        "bestToBack": None if h.best_to_back is None else ladder.price_str(h.best_to_back),
        "bestToLay": None if h.best_to_lay is None else ladder.price_str(h.best_to_lay),
    }


def build_hands(
    cards: tuple[tuple[Card, ...] | None, ...],
    equities: tuple[HandEquity, ...],
    book: MarketBook | None,
    statuses: Sequence[SelectionStatus] | None = None,
    names: Sequence[str] = (),
) -> tuple[HandView, ...]:
    """Join public cards, published equities and the public book into hand views (hand i = selection i).

    Without a book, ``statuses`` (one per selection) says which are still in play. A selection past
    the hands ("No low") has no cards; ``names`` gives the runners' names where known.
    """
    runners: Mapping[int, RunnerBook] = {} if book is None else {r.selection_id: r for r in book.runners}
    return tuple(
        HandView(
            hand=e.hand,
            cards=cards[e.hand - 1] if e.hand <= len(cards) else (),
            equity=e.equity,
            fair_odds=e.fair_odds,
            book=runners.get(e.hand),
            selection_status=SelectionStatus.IN_PLAY if statuses is None else statuses[e.hand - 1],
            title=names[e.hand - 1] if e.hand > len(cards) and e.hand <= len(names) else None,
            stderr=e.stderr,
        )
        for e in equities
    )


def bettor_view(
    channel: Channel,
    account_id: str | None = None,
    market_id: str | None = None,
    *,
    open_orders_only: bool = False,
    with_book: bool = True,
    market: MarketKind | None = None,
    views: OrderViews | None = None,
    now_ms: int | None = None,
) -> BettorView | None:
    """The channel's game (current, or the one of ``market_id``) as ``account_id`` may see it; ``None`` if none.

    The view shows one market: the one ``market_id`` names, else the game's market of kind ``market`` (a hi/lo
    game's Low), else its main market. ``open_orders_only`` leaves fully matched, lapsed and cancelled orders out
    of ``orders``; ``with_book=False`` leaves out the price ladders (hands keep their status). Both are for busy
    agents that do not read those parts. ``views``: the viewer's memo of its orders' views, for one that looks at
    every update (each order's view is built again only once it changed). ``now_ms``: the instant of several views
    read together (the clock's now, by default).
    """
    game = channel.game(market_id)
    if game is None:
        return None
    shown = _market_of(game, market_id, market)
    if shown is None:
        return None
    exchange = channel.exchange
    mid = shown.market_id
    status = exchange.market_status(mid) or MarketStatus.SUSPENDED
    book = channel.market_book(mid) if with_book else None
    statuses = exchange.selection_statuses(mid)
    public = game.public
    orders, live = _orders(exchange, account_id, mid, open_orders_only, status, views)
    config = channel.config
    now_ms = channel.clock.now() if now_ms is None else now_ms
    return BettorView(
        channel=config.name,
        market_id=mid,
        game_number=game.number,
        now_ms=now_ms,
        round=game.round,
        window=game.window,
        betting_open=status is MarketStatus.ACTIVE and game.window_open_at(now_ms),
        market_status=status,
        hands=build_hands(public.hands, shown.prospects.hands, book, statuses, config.selection_names(shown.kind)),
        board=public.board,
        min_stake=config.min_stake,
        account_id=account_id,
        orders=orders,
        live_orders=live,
        funds=None if account_id is None else exchange.funds(account_id),
        round_name=game.round_name,
        market_kind=shown.kind,
        market_ids=tuple(m.market_id for m in game.markets),
        faces=tuple(public.faces(i) for i in range(len(public.hands))),
        seat_cards=config.hole_cards,
        discarded=public.discarded,
        drawn=public.drawn,
        pricing=game.pricing and not game.over,  # a game voided as its equities were computed prices no more
    )


def _market_of(game: Game, market_id: str | None, kind: MarketKind | None) -> GameMarket | None:
    if market_id is not None and kind is None:
        return game.market(market_id) or game.main
    if kind is None:
        return game.main
    return next((m for m in game.markets if m.kind is kind), None)


def _orders(exchange: Exchange, account_id: str | None, market_id: str, open_only: bool, status: MarketStatus,
            views: OrderViews | None) -> tuple[tuple[OrderView, ...], tuple[OrderView, ...] | None]:
    """The account's orders on the market as a view lists them, and those of them with an unmatched remainder where
    they are known without looking (``None``: :meth:`BettorView.open_orders` finds them if asked)."""
    if account_id is None:
        return (), ()
    if status in MARKET_OVER and not open_only:  # a market over is none of the account's current orders: as they ended
        return tuple(cleared.view() for cleared in exchange.cleared_orders(account_id, market_id)), ()
    orders = exchange.current_orders(account_id, market_id, live_only=open_only, views=views)
    if open_only:
        return orders, orders
    return orders, None if views is None else views.live(market_id)


#: A market's statuses once it is over (settled or voided).
MARKET_OVER = frozenset({MarketStatus.SETTLED, MarketStatus.VOID})

