"""House liquidity: market makers that quote around the exact fair price, and noise traders.

Both are ordinary :class:`~exchange.agents.trader.Agent` subclasses: they see only a
:class:`~exchange.agents.view.BettorView` and act only through their
:class:`~exchange.agents.trader.Trader`, like any user.

:class:`MarketMaker` rests, on every hand still in play, ``levels`` lays at
and below ``fair − margin`` (what a user sees as *available to back*) and
``levels`` backs at and above ``fair + margin`` (*available to lay*), with
the fair price ``1 / equity`` taken from the equities published for the
cards face up (4.0 for every hand in the Deal window). It requotes when a
window opens (after every reveal) and after each of its fills, and only
changes what differs from what it wants, so a resting quote keeps its place
in the queue. Quotes respect the account's available funds (each new order
is charged its worst case: a back its stake, a lay its liability), so the
house never runs into ``INSUFFICIENT_FUNDS``; the makers of one account (a hi/lo
game's High and Low, and every channel's makers where channels share one exchange:
one :class:`MakerDesk`) requote one at a time, each once the orders the others
sent have landed, so none budgets funds another has spent.

:class:`NoiseTrader` takes liquidity at random moments of each window: a
random hand, a random side, at the best price offered, a random stake, all
drawn from its own seeded ``random.Random``; the stake is cut to what its account (shared by every channel and
market) can pay, and it sits out while that is below the minimum stake.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from exchange.agents.host import seat
from exchange.agents.trader import Agent, Trader
from exchange.agents.view import BettorView
from exchange.core import ladder
from exchange.core.events import Matched
from exchange.core.side import Side
from exchange.game.pricing import QuoteSpec, QuoteTicks, quote_ticks

if TYPE_CHECKING:
    from exchange.game.channel import Channel
    from exchange.game.rounds import Round

#: The ladder's prices as exact fractions, for :func:`~exchange.game.pricing.quote_ticks`.
LADDER: tuple[Fraction, ...] = tuple(Fraction(p, 100) for p in ladder.PRICE_X100)

Key = tuple[int, Side, int]
"""A quote level: (hand, side the maker takes, tick)."""


#: Every account the house trades under begins so (its market maker, its noise traders); a client's may not.
HOUSE_PREFIX = "house-"
MAKER_ACCOUNT = HOUSE_PREFIX + "maker"
NOISE_ACCOUNT = HOUSE_PREFIX + "noise"


@dataclass(frozen=True, slots=True)
class MakerConfig:
    """How the house quotes. Sizes and money in minor units.

    ``max_liability`` caps one lay level's liability (``size × (price − 1)``):
    at long odds the level shrinks (never below the channel's minimum stake)
    instead of tying up the bankroll. ``reserve`` is kept out of quoting.
    """

    quote: QuoteSpec = field(default_factory=QuoteSpec)
    max_liability: int = 5_000_000
    reserve: int = 0
    requote_on_fill: bool = True


def desired_quotes(view: BettorView, config: MakerConfig) -> dict[Key, int]:
    """What the maker wants resting now: ``{(hand, side, tick): size}``, inner levels first.

    Pure: a function of the public view only.

    >>> from exchange.game.prospects import Prospects
    >>> from exchange.core.market import MarketStatus
    >>> from exchange.agents.view import build_hands
    >>> hands = build_hands((None,) * 4, Prospects.uniform(4).hands, None)
    >>> v = BettorView("holdem", "holdem.0", 0, 0, None, None, True, MarketStatus.ACTIVE, hands, ())
    >>> q = desired_quotes(v, MakerConfig(QuoteSpec(levels=1, size=5_000)))
    >>> [(hand, side.value, ladder.price_str(tick), size) for (hand, side, tick), size in q.items()][:2]
    [(1, 'LAY', '3.95', 5000), (1, 'BACK', '4.1', 5000)]
    """
    spec = config.quote
    out: dict[Key, int] = {}
    for level in range(spec.levels):
        for hand in view.live_hands:
            ticks = _ticks(hand.equity, hand.stderr, spec)
            if level < len(ticks.lay_ticks):
                tick = ticks.lay_ticks[level]
                size = _lay_size(tick, spec.size, config.max_liability, view.min_stake)
                if size:
                    out[(hand.hand, Side.LAY, tick)] = size
            if level < len(ticks.back_ticks):
                out[(hand.hand, Side.BACK, ticks.back_ticks[level])] = spec.size
    return out


@lru_cache(maxsize=4096)
def _ticks(equity: Fraction, stderr: Fraction | None, spec: QuoteSpec) -> QuoteTicks:
    """:func:`quote_ticks` on the exchange ladder, memoised: equities change only at reveals."""
    return quote_ticks(LADDER, equity, spec, stderr)


def _lay_size(tick: int, size: int, max_liability: int, min_stake: int) -> int:
    """``size``, cut so that the liability ``size × (price − 1)`` stays within ``max_liability``."""
    odds_minus_one_x100 = ladder.PRICE_X100[tick] - 100
    capped = min(size, max_liability * 100 // odds_minus_one_x100)
    return capped if capped >= min_stake else 0


def worst_case_cost(side: Side, tick: int, size: int) -> int:
    """The most a new order can add to exposure: a back's stake, a lay's liability (rounded up)."""
    if side is Side.BACK:
        return size
    return -(-size * (ladder.PRICE_X100[tick] - 100) // 100)


@dataclass(slots=True)
class MakerDesk:
    """The traders of every :class:`MarketMaker` quoting for one account, on one channel or on several that share
    an exchange and a clock: a maker requotes only once none of them has a command in flight, so the funds it
    reads are not already spent by another's orders on their way."""

    traders: list[Trader] = field(default_factory=list)


class MarketMaker(Agent):
    """Quotes both sides of every live hand around its exact fair price."""

    name = MAKER_ACCOUNT
    open_orders_only = True
    wants_book = False

    def __init__(self, config: MakerConfig | None = None, desk: MakerDesk | None = None) -> None:
        self.config = config or MakerConfig()
        self._waiting = False
        self._wanted: tuple[object, dict[Key, int]] | None = None
        self.requotes = 0
        #: Every maker quoting for the same account (its funds are theirs too).
        self.desk = desk if desk is not None else MakerDesk()

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        self._request(trader)

    def on_fill(self, view: BettorView, trader: Trader, fill: Matched) -> None:
        if self.config.requote_on_fill:
            self._request(trader)

    def _desired(self, view: BettorView) -> dict[Key, int]:
        """:func:`desired_quotes`, recomputed only when the market, the live hands or their equities change."""
        key = (view.market_id, view.min_stake, tuple((h.hand, h.equity, h.stderr) for h in view.live_hands))
        if self._wanted is None or self._wanted[0] != key:
            self._wanted = (key, desired_quotes(view, self.config))
        return self._wanted[1]

    def _request(self, trader: Trader) -> None:
        """Requote once every command already sent, by this maker or one sharing its account, has landed (so the
        view it reads, and the funds in it, are current)."""
        if self._waiting:
            return
        self._waiting = True
        others = tuple(t for t in self.desk.traders if t is not trader)
        _when_all_idle((trader, *others), lambda: self._requote(trader))

    def _requote(self, trader: Trader) -> None:
        self._waiting = False
        view = trader.view(open_orders_only=True, with_book=False)
        if view is None or not view.betting_open:
            return
        self.requotes += 1
        want = self._desired(view)
        have: dict[Key, list[tuple[int, int]]] = {}
        for order in view.open_orders():
            have.setdefault((order.selection_id, order.side, order.tick), []).append(
                (order.bet_id, order.size_remaining)
            )
        for key, orders in have.items():
            if key not in want:
                for bet_id, _ in orders:
                    trader.cancel(bet_id)
        budget = (view.funds.available if view.funds is not None else 0) - self.config.reserve
        for (hand, side, tick), size in want.items():
            missing = size - sum(remaining for _, remaining in have.get((hand, side, tick), ()))
            if missing < view.min_stake:
                continue
            cost = worst_case_cost(side, tick, missing)
            if cost > budget:
                continue
            budget -= cost
            trader.place(hand, side, tick, missing)


def _when_all_idle(traders: tuple[Trader, ...], callback: Callable[[], None]) -> None:
    """Run ``callback`` once none of ``traders`` has a command in flight.

    Every trader is checked again each time one lands: several makers waiting on the same trader are woken
    together, and the first to requote has commands in flight again when the next one looks.
    """
    busy = next((t for t in traders if t.in_flight), None)
    if busy is None:
        callback()
    else:
        busy.when_idle(lambda: _when_all_idle(traders, callback))


def seat_house_makers(
    channel: Channel, account_id: str, config: MakerConfig | None = None, *, desk: MakerDesk | None = None
) -> list[MarketMaker]:
    """Seat one :class:`MarketMaker` per market of the channel's games (two in a hi/lo game), one account; each
    requotes only once the others' orders have landed (they spend the same funds).

    ``desk``: the makers already quoting for ``account_id`` on other channels of the same exchange, to join
    (pass the same desk for every channel whose makers share the account)."""
    desk = desk if desk is not None else MakerDesk()
    makers = []
    for kind in channel.config.markets:
        maker = MarketMaker(config, desk)
        desk.traders.append(seat(channel, maker, account_id,
                                 market=None if kind is channel.config.markets[0] else kind))
        makers.append(maker)
    return makers


def seat_noise_traders(channel: Channel, account_id: str, seed: str,
                       config: NoiseConfig | None = None) -> list[NoiseTrader]:
    """Seat one :class:`NoiseTrader` per market of the channel's games, one account; the main market's is seeded
    with ``seed``, a hi/lo game's Low market's with ``seed/low``."""
    traders = []
    for kind in channel.config.markets:
        main = kind is channel.config.markets[0]
        trader = NoiseTrader(seed if main else f"{seed}/{kind}", config)
        seat(channel, trader, account_id, market=None if main else kind)
        traders.append(trader)
    return traders


@dataclass(frozen=True, slots=True)
class NoiseConfig:
    """How often and how much a noise trader bets. Sizes in minor units, multiples of ``size_step``."""

    trades_per_window: int = 3
    min_size: int = 200
    max_size: int = 2_000
    size_step: int = 100
    back_probability: Fraction = Fraction(1, 2)


class NoiseTrader(Agent):
    """Takes the best price offered at random moments; every draw from its own seeded generator."""

    name = NOISE_ACCOUNT
    open_orders_only = True

    def __init__(self, seed: int | str, config: NoiseConfig | None = None) -> None:
        self.config = config or NoiseConfig()
        self.rng = random.Random(f"noise/{seed}")
        self._scheduled: tuple[str, Round | None] | None = None  # the window whose moments are drawn

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        window = view.window
        if window is None or self._scheduled == (view.market_id, view.round):
            return  # a window an operator resumed: its moments are drawn already, those still to come will trade
        self._scheduled = (view.market_id, view.round)
        for delay in sorted(self._moments(window.closes_ms - view.now_ms)):
            trader.call_later(delay, lambda: self._trade(trader))

    def _moments(self, span_ms: int) -> Iterator[int]:
        for _ in range(self.config.trades_per_window):
            yield self.rng.randrange(max(span_ms, 1))

    def _trade(self, trader: Trader) -> None:
        view = trader.view(open_orders_only=True)
        if view is None or not view.betting_open:
            return
        live = view.live_hands
        if not live:
            return
        hand = live[self.rng.randrange(len(live))]
        cfg = self.config
        back = self.rng.randrange(cfg.back_probability.denominator) < cfg.back_probability.numerator
        size = self.rng.randrange(cfg.min_size, cfg.max_size + 1, cfg.size_step)
        tick = hand.best_to_back if back else hand.best_to_lay
        if tick is None:
            return
        side = Side.BACK if back else Side.LAY
        size = min(max(size, view.min_stake), self._affordable(view, side, tick))
        if size < view.min_stake:  # its account (shared by every channel and market) cannot pay for a bet now
            return
        trader.place(hand.hand, side, tick, size)

    def _affordable(self, view: BettorView, side: Side, tick: int) -> int:
        """The largest stake, a multiple of ``size_step``, whose worst case (a back's stake, a lay's liability) the
        account's available funds cover: the exchange would refuse more with ``INSUFFICIENT_FUNDS``."""
        available = view.funds.available if view.funds is not None else 0
        # A lay's liability stake × (price − 1), rounded up, is within ``available`` when stake × (price − 1) is.
        stake = available if side is Side.BACK else available * 100 // (ladder.PRICE_X100[tick] - 100)
        return stake - stake % self.config.size_step
