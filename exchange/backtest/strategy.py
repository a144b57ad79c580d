"""The strategy API: a flumine-style class with hooks, trading through a handle.

A strategy is a small class. The game calls its hooks; it answers by placing,
cancelling and replacing orders through the :class:`MarketHandle` it is given.
The handle shows only what a bettor may see (the public market book, the
strategy's own orders and funds, the cards face up, the published exact
equities: a :class:`~exchange.agents.view.BettorView`), and every instruction reaches
the exchange ``latency_ms`` after the decision — scheduled on the clock by the
game's :class:`~exchange.agents.trader.Trader`, so in a backtest the delay is exact and
costs no real time. A strategy is seated at a channel as an ordinary game agent
(:mod:`exchange.backtest.agent`), like the house market makers: the same class
runs on any channel, the backtester's virtual clock or a live one.

Hooks, in the order a game calls them (names as flumine's where it has one)::

    on_game_start(game)                         a new game: its market ids, the bankroll now
    on_market_open(market)                      a new game's market exists (each market traded)
    on_window_open(market, round)               a betting window has opened
    check_market_book(market) -> bool           on every market update …
    process_market_book(market)                 … if check_market_book said yes
    process_orders(market, orders)              some of this strategy's orders changed
    on_order_rejected(market, rejection)        an instruction was refused (error code, message)
    on_window_close(market, round)              the window closed (unmatched orders lapsed)
    on_settlement(market, settlement)           the market settled (or was voided), as it did
    on_game_end(game)                           the game is over: each market's result, the bankroll after it

A "market update" is the market as it stands after some of the book's changes
(orders placed, matched, cancelled): changes made while an update is pending are
conflated into it, and a change made after it has run brings another, at the same
instant of the clock too; a window opening and cards turned are updates of their
own. So one instant can bring two or three: a window opens (its book still empty),
then the house's quotes come at the same instant; a noise trade, then the house's
requote answering it (the house acts at 0 ms), each book shown as it stood, the
last as the instant left it. A stream subscriber, and a replay of the recorded
stream files, sees one message an instant, that last book. ``check_market_book``
is where a strategy that acts once an instant says so (``market.view.now_ms``).

**Which markets.** Most games have one market; a Hi/Lo game (``omaha-hilo``,
``stud7-hilo``) has two, High (``omaha-hilo.17``, hands 1-4) and Low
(``omaha-hilo.17-low``, hands 1-4 and selection 5, "No low"). A strategy trades
the markets its class attribute :attr:`Strategy.markets` names: by default
(``None``) the game's main market only — the one market of most games, the High
market of a Hi/Lo game — so a strategy written for one market per game (one
stake a game, a hand number kept from window to window) stays correct on a Hi/Lo
channel; ``markets = (MarketKind.LOW,)`` trades the Low market only, and
``markets = ALL_MARKETS`` every market of each game. Every market hook is then
called once per market traded, with that market's handle (``market.market_id``,
``market.kind``), and orders go to the market of the handle they are placed
through; ``on_game_start`` and ``on_game_end`` come once a game and list the
markets traded (``on_game_end`` with a settlement for each). ``on_settlement``
comes once a market, when it settles or is voided: a Hi/Lo game's markets can
settle at different reveals (No low certain at the flop while High plays on to
the river), and each market's settlement comes right after the step that settled
it, before the next window or reveal; ``on_game_end`` follows the last of them.

>>> class LowBacker(Strategy):
...     markets = (MarketKind.LOW,)
...     def on_window_open(self, market, round):
...         if round is Round.PREFLOP:
...             market.place_order(5, Side.BACK, "2.5", 200)   # "No low"

**From game to game.** In a backtest *session* (``--sessions K
--games-per-session G``) one instance plays G games in a row on one account,
whose balance carries over; so does everything the instance keeps, and
``on_game_start`` / ``on_game_end`` mark the games. ``market.bankroll`` (and
``game.bankroll``) is the account as the exchange sees it — balance, exposure,
available — with ``starting_balance`` and ``net_profit``, the sum of its settled
results since it was seated (:mod:`exchange.backtest.bankroll`). An order the
account cannot cover is refused with ``INSUFFICIENT_FUNDS`` (through
``on_order_rejected``), as live; a strategy that wants no more games calls
:meth:`Strategy.end_session`.

>>> class Backer(Strategy):
...     def process_market_book(self, market):
...         if market.betting_open and not market.orders:
...             market.place_order(1, Side.BACK, "4.1", 200)
>>> Backer().latency_ms, Backer(latency_ms=0).latency_ms
(100, 0)
"""

from __future__ import annotations

import hashlib
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from fractions import Fraction
from typing import Any

from engine.cards import Card
from exchange.agents.trader import Arrival, Stamp, Trader, stamp_of
from exchange.agents.view import BettorView
from exchange.backtest.bankroll import Bankroll, BankrollWatch
from exchange.backtest.instructions import InstructionLog, Sent
from exchange.betfair.apiformat import CUSTOMER_REF_MAX, line_breaker
from exchange.core.accounts import AccountFunds
from exchange.core.events import BetResult, OrderAction, OrderRejected
from exchange.core.market import MarketBook
from exchange.core.money import as_printed
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round
from exchange.game.table import Phase
from exchange.tables import INT64_MAX, INT64_MIN

DEFAULT_LATENCY_MS = 100
#: :attr:`Strategy.markets` for a strategy that trades every market of each game (both halves of a Hi/Lo game).
ALL_MARKETS: tuple[MarketKind, ...] = tuple(MarketKind)

PriceLike = Decimal | str | float | int | Fraction
"""A price as a trader writes it: ``"2.5"``, ``Decimal("2.5")``, ``2.5`` (floats via their shortest repr),
``Fraction(5, 2)`` (one with an exact decimal, as the handle's ``fair_odds`` may be); numpy's numbers, as read from
a frame, as they print."""
_REF_PREFIX_MAX = 20  # an automatic reference's prefix: room left for "-" and a counter of up to 11 digits


@dataclass(frozen=True, slots=True)
class Settlement:
    """How a market ended for one account. Money in minor units.

    ``status`` is ``FINISHED`` (settled) or ``VOID``; ``winners`` is empty for a
    void market, several winners are a dead heat. ``profit`` is the account's
    gross P&L on the market, ``commission`` what it paid.
    """

    market_id: str
    status: Phase
    winners: tuple[int, ...]
    profit: int
    commission: int
    bets: tuple[BetResult, ...]

    @property
    def net_profit(self) -> int:
        return self.profit - self.commission

    @property
    def dead_heat(self) -> bool:
        return len(self.winners) > 1


@dataclass(frozen=True, slots=True)
class GameStart:
    """A new game on the channel: its number, the ids of the markets the strategy trades in it (the game's order:
    High before Low), when its first window opens, the bankroll now."""

    game_number: int
    market_ids: tuple[str, ...]
    start_ms: int
    bankroll: Bankroll


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game is over: how each market the strategy traded ended for this account (one :class:`Settlement` per
    market, in ``market_ids`` order), and the bankroll after it (minor units).

    ``net_profit`` is the game's result for the account: every market of it, net of commission.
    """

    game_number: int
    market_ids: tuple[str, ...]
    settlements: tuple[Settlement, ...]
    bankroll: Bankroll

    @property
    def net_profit(self) -> int:
        return sum(s.net_profit for s in self.settlements)


class Instruction(StrEnum):
    """What an :class:`OrderTicket` asked for (API-NG's three order operations)."""

    PLACE = "PLACE"
    CANCEL = "CANCEL"
    REPLACE = "REPLACE"


@dataclass(frozen=True, slots=True)
class OrderTicket:
    """An instruction on its way: what was asked and when it reaches the exchange (``arrives_ms``: exactly, on the
    backtest's clock; a live host under load may deliver it later).

    The outcome comes back through ``process_orders`` (placed, matched, lapsed …)
    or ``on_order_rejected``; ``customer_ref`` ties the two together.
    """

    instruction: Instruction
    customer_ref: str | None
    decided_ms: int
    arrives_ms: int


class CustomerRefs:
    """The ``customer_ref`` of each placement that names none: ``<prefix>-1``, ``<prefix>-2`` … one counter for
    every market a seated strategy trades, from game to game.

    Betfair asks nothing of a ``customerOrderRef``'s uniqueness (it is the customer's own label, at most 32
    characters); flumine makes its own unique, to key its orders by, and so do these: a strategy or a researcher
    may look an order up by its reference. The backtester's prefix holds the session number too, so a reference
    names one placement over a whole backtest's orders table (every session is its own exchange, with its own bet
    ids): that order, and the orders replacing it (``replace_order`` keeps the reference, as Betfair's does).

    A prefix too long to leave room for the counter within :data:`CUSTOMER_REF_MAX` (an account id of more than
    about 20 characters) is shortened to its head and a digest of the whole, so references stay within the limit
    and prefixes that share their head still differ.

    >>> refs = CustomerRefs("strategy-7")
    >>> refs.next(), refs.next()
    ('strategy-7-1', 'strategy-7-2')
    >>> ref = CustomerRefs("a-researchers-long-account-name-12").next()
    >>> ref[:14], len(ref)
    ('a-researchers.', 22)
    """

    __slots__ = ("_count", "prefix")

    def __init__(self, prefix: str) -> None:
        if len(prefix) > _REF_PREFIX_MAX:
            digest = hashlib.blake2b(prefix.encode(), digest_size=3).hexdigest()
            prefix = f"{prefix[:_REF_PREFIX_MAX - len(digest) - 1]}.{digest}"
        self.prefix = prefix
        self._count = 0

    def next(self) -> str:
        self._count += 1
        return f"{self.prefix}-{self._count}"


class MarketHandle:
    """One market as one strategy trades it: read the view, send instructions (after the latency).

    A thin layer over the game's :class:`~exchange.agents.trader.Trader` (which stamps
    each command with the round the strategy saw and delivers it through the
    clock after its latency) and the :class:`~exchange.agents.view.BettorView` of the
    hook being run. Prices are decimal odds on the ladder; sizes are the
    backer's stake in minor units (``200`` = 2.00). An off-ladder price or a
    too-small size is not refused here: it travels and comes back through
    ``on_order_rejected`` with the exchange's error code, as it would live.
    """

    def __init__(
        self,
        trader: Trader,
        view: BettorView,
        rng: random.Random | None = None,
        watch: BankrollWatch | None = None,
        log: InstructionLog | None = None,
        refs: CustomerRefs | None = None,
    ) -> None:
        self._trader = trader
        self._view = view
        self._refs = refs if refs is not None else CustomerRefs(trader.account_id)
        self._watch = watch
        self._log = log
        #: A generator seeded for this strategy in this game (in a session: in this session, carried on from game
        #: to game): use it for any randomness.
        self.rng = rng if rng is not None else random.Random(view.market_id)

    # --- reading --------------------------------------------------------------------------

    @property
    def view(self) -> BettorView:
        """Everything a bettor may see, as of the hook being run (see :meth:`refresh`)."""
        return self._view

    def refresh(self) -> BettorView:
        """Take a fresh view now (the hook's view does not change while the hook runs)."""
        view = self._trader.view()
        if view is not None:
            self._view = view
        return self._view

    def _see(self, view: BettorView) -> None:
        self._view = view
        self._trader.saw(view)

    @property
    def market_id(self) -> str:
        return self._view.market_id

    @property
    def kind(self) -> MarketKind:
        """Which of the game's markets this is: ``WIN`` (a game of one market), ``HIGH`` or ``LOW``."""
        return self._view.market_kind

    @property
    def account_id(self) -> str:
        return self._trader.account_id

    @property
    def latency_ms(self) -> int:
        return self._trader.latency_ms

    @property
    def now_ms(self) -> int:
        return self._trader.now()

    @property
    def round(self) -> Round | None:
        return self._view.round

    @property
    def betting_open(self) -> bool:
        return self._view.betting_open

    @property
    def min_stake(self) -> int:
        """The smallest size (minor units) this market takes: a smaller one is refused ``INVALID_BET_SIZE``."""
        return self._view.min_stake

    @property
    def market_book(self) -> MarketBook:
        """The public book (API-NG ``listMarketBook``): every runner's status, ladders, traded volume."""
        view = self._view
        runners = tuple(h.book for h in view.hands if h.book is not None)
        total = sum(r.total_matched for r in runners)
        return MarketBook(view.market_id, view.market_status, 0 if view.round is None else int(view.round), total,
                          runners)  # fmt: skip

    @property
    def orders(self) -> tuple[OrderView, ...]:
        """This strategy's orders on this market (all of them, unmatched or not; once the market is over, as they
        ended)."""
        return self._view.orders

    @property
    def funds(self) -> AccountFunds | None:
        return self._view.funds

    @property
    def bankroll(self) -> Bankroll:
        """The account as the exchange sees it (as of this hook's view), and its result since being seated."""
        if self._watch is None:
            raise RuntimeError("this handle follows no bankroll: seat the strategy with attach_strategy")
        return self._watch.bankroll(self._view.funds)

    @property
    def hands(self) -> tuple[tuple[Card, ...] | None, ...]:
        """Each hand's hole cards, ``None`` while face down."""
        return tuple(h.cards for h in self._view.hands)

    @property
    def board(self) -> tuple[Card, ...]:
        return self._view.board

    @property
    def equities(self) -> tuple[Fraction, ...]:
        """Each hand's published equity (exact, or a Monte Carlo estimate where the game publishes one; a dead heat
        counted as 1/n of a win), hand 1 first."""
        return tuple(h.equity for h in self._view.hands)

    def equity(self, hand: int) -> Fraction:
        return self._view.hand(hand).equity

    # --- trading --------------------------------------------------------------------------

    def place_order(
        self, hand: int, side: Side, price: PriceLike, size: int, *, customer_ref: str | None = None
    ) -> OrderTicket:
        """Back or lay ``hand`` at ``price`` for ``size`` minor units (API-NG ``placeOrders``, LIMIT, LAPSE).

        ``customer_ref`` labels the order; without one (``None`` or ``""``) it gets the next automatic reference.
        An argument of the wrong type raises ``TypeError`` here, naming it (a ``side`` that is not a
        :class:`~exchange.core.side.Side`, a hand or size that is not an ``int``, a price that is not text or a
        number, a ``customer_ref`` that is not text), and ``ValueError`` a price text that is no number, a
        ``Fraction`` with no exact decimal, a hand or size past 64 bits or a ``customer_ref`` over 32 characters
        (API-NG's limit) or not one line of text (a control character): what the exchange itself refuses (hand 9,
        a size under the minimum, odds off the ladder) comes back through ``on_order_rejected``.
        """
        if not isinstance(side, Side):
            raise TypeError(f"side must be Side.BACK or Side.LAY, not {side!r}")
        hand = _whole("hand", hand, "the selection's number, e.g. 1")
        size = _whole("size", size, "sizes are whole minor units: 200 is 2.00")
        if customer_ref is not None and not isinstance(customer_ref, str):
            raise TypeError(f"customer_ref {customer_ref!r} is not text: give a str, or None")
        if customer_ref is not None and len(customer_ref) > CUSTOMER_REF_MAX:
            raise ValueError(f"customer_ref is at most {CUSTOMER_REF_MAX} characters (Betfair's limit, which the "
                             f"HTTP API holds too), not {len(customer_ref)}: {customer_ref!r}")
        if customer_ref is not None and (breaker := line_breaker(customer_ref)) is not None:
            raise ValueError(f"customer_ref must be one line of text, without control characters ({breaker!r} in "
                             f"{customer_ref!r}), as the HTTP API's customerOrderRef")
        asked = _decimal(price)
        # numbered once nothing can refuse it; "" names none, as the HTTP API's customerOrderRef "" does
        ref = customer_ref if customer_ref else self._refs.next()
        arrival = self._note(OrderAction.PLACE, selection_id=hand, side=side, price=asked, size=size,
                             customer_ref=ref)  # fmt: skip
        self._trader.place_price(hand, side, asked, size, customer_ref=ref, arrival=arrival, at=self._stamp())
        return self._ticket(Instruction.PLACE, ref)

    def cancel_order(self, bet_id: int, size_reduction: int | None = None) -> OrderTicket:
        """Cancel an order's unmatched part, or reduce it by ``size_reduction`` (API-NG ``cancelOrders``).

        A bet id or size reduction that is not an ``int`` raises ``TypeError`` here, one past 64 bits
        ``ValueError``.
        """
        bet_id = _whole("bet id", bet_id, "the bet_id of one of your orders")
        if size_reduction is not None:
            size_reduction = _whole("size_reduction", size_reduction, "sizes are whole minor units, or None for all")
        arrival = self._note(OrderAction.CANCEL, bet_id=bet_id, size=size_reduction, round=None)
        self._trader.cancel(bet_id, size_reduction, arrival=arrival)
        return self._ticket(Instruction.CANCEL, None)

    def replace_order(self, bet_id: int, new_price: PriceLike) -> OrderTicket:
        """Move an order's unmatched part to ``new_price`` (a new bet id, at the back of the new queue).

        ``TypeError`` for a bet id that is not an ``int`` or a price that is not text or a number, ``ValueError``
        for a bet id past 64 bits or a price text that is no number, as :meth:`place_order`; odds off the ladder
        come back through ``on_order_rejected``, as a placement's do, after the old bet's cancel (Betfair's replace
        cancels first, and a new bet it cannot place leaves the old one cancelled).
        """
        bet_id = _whole("bet id", bet_id, "the bet_id of one of your orders")
        asked = _decimal(new_price)
        arrival = self._note(OrderAction.REPLACE, bet_id=bet_id, price=asked)
        self._trader.replace_price(bet_id, asked, arrival=arrival, at=self._stamp())
        return self._ticket(Instruction.REPLACE, None)

    def cancel_all(self) -> list[OrderTicket]:
        """Cancel every unmatched order of this strategy on this market."""
        return [self.cancel_order(o.bet_id) for o in self._view.open_orders()]

    def _note(self, action: OrderAction, **asked: Any) -> Arrival | None:
        """Keep what was asked until it has arrived, to tell what a refusal of it refused: the arrival to send it
        with (``None`` without a log)."""
        if self._log is None:
            return None
        market, rnd = self._stamp()
        asked.setdefault("round", rnd)
        return self._log.sent(Sent(action, self._trader.account_id, market, **asked))

    def _stamp(self) -> Stamp:
        """This handle's market and the round its view is of: what its orders are sent to and stamped with, whatever
        hook it is used from (a handle kept from an earlier game of a session sent them to the market of the hook
        being run)."""
        return stamp_of(self._view)

    def _ticket(self, kind: Instruction, ref: str | None) -> OrderTicket:
        now = self._trader.now()
        return OrderTicket(kind, ref, now, now + self._trader.latency_ms)


def _whole(name: str, value: object, hint: str) -> int:
    """``value`` as an ``int`` (any integer type: numpy's too), else ``TypeError`` (a ``bool`` too), and
    ``ValueError`` past 64 bits: a float or text in an integer field would travel to the exchange only to be
    refused, and could not be written to the tables as it was given, nor a number past 64 bits.

    >>> _whole("size", 500, "")
    500
    >>> _whole("size", 2.5, "sizes are whole minor units")
    Traceback (most recent call last):
    ...
    TypeError: size 2.5 is not an int: sizes are whole minor units
    """
    try:  # any integer type has __index__ (an isinstance of typing's SupportsIndex took 10 µs an order)
        whole = operator.index(value)  # type: ignore[arg-type]  # (what has no __index__ raises, as wanted)
    except TypeError:
        whole = None
    if whole is None or isinstance(value, bool):
        raise TypeError(f"{name} {value!r} is not an int: {hint}")
    if not INT64_MIN <= whole <= INT64_MAX:  # no table column holds it, and more than any stake or bet id
        raise ValueError(f"{name} {whole} is past what any order carries (a whole number of 64 bits): {hint}")
    return whole


def _decimal(price: PriceLike) -> Decimal:
    """A price as the exchange reads it: exactly, as written (a float as it prints, a fraction as its decimal)."""
    if isinstance(price, Fraction):  # as the handle's own fair_odds are
        return _exact_decimal(price)
    if isinstance(price, str):
        try:
            return Decimal(price)
        except InvalidOperation:
            raise ValueError(f"price {price!r} is not a number: give decimal odds on the ladder, e.g. '2.5'") from None
    printed = as_printed(price)  # a number of any kind, numpy's from a frame included
    if printed is None:
        raise TypeError(f"price {price!r} is not a number: give decimal odds on the ladder, e.g. '2.5'")
    return printed


def _exact_decimal(price: Fraction) -> Decimal:
    """A fraction's decimal, every digit of it (a division in a decimal context would round past 28 digits and
    call a fraction that has one inexact); refused if it has none (its denominator has a prime factor but 2 and 5).

    >>> _exact_decimal(Fraction(7, 2)), _exact_decimal(Fraction(1, 2**50))  # 35 digits
    (Decimal('3.5'), Decimal('8.8817841970012523233890533447265625E-16'))
    """
    rest, places = price.denominator, 0
    while rest % 10 == 0:
        rest, places = rest // 10, places + 1
    while rest % 2 == 0 or rest % 5 == 0:
        rest, places = rest // (2 if rest % 2 == 0 else 5), places + 1
    if rest != 1:
        raise ValueError(f"price {price} has no exact decimal: give decimal odds on the ladder, e.g. '2.5'")
    digits = price.numerator * 10**places // price.denominator  # exact: the denominator divides 10**places
    return Decimal(f"{digits}e-{places}")


def check_latency_ms(latency_ms: object) -> None:
    """Refuse a latency that is not a whole number of milliseconds, 0 or more (``ValueError``): the clock and every
    timestamp are whole milliseconds."""
    if type(latency_ms) is not int or latency_ms < 0:
        raise ValueError(f"latency must be a whole number of ms, 0 or more, not {latency_ms!r}")


class Strategy:
    """Base class of backtestable strategies. Override the hooks you need; all default to doing nothing.

    Constructor keyword arguments come from ``--params`` JSON; subclasses take
    their own and pass ``latency_ms`` / ``name`` on. By default a backtest
    builds a fresh instance for every game (games are independent worlds); in a
    session (``--sessions K --games-per-session G``) one instance plays the G
    games of its session in order, and what it keeps carries from game to game
    (reset per-game state in :meth:`on_game_start`). Either way the output does
    not depend on how games or sessions are split between workers.
    """

    #: Why the strategy asked for no further game (:meth:`end_session`), ``None`` while it plays on.
    session_ended: str | None = None
    #: The markets of each game it trades: ``None``, the main market only (a Hi/Lo game's High market); or the
    #: kinds it wants, e.g. ``(MarketKind.LOW,)`` or :data:`ALL_MARKETS`. A channel with none of them refuses
    #: the strategy when it is seated (``ValueError``).
    markets: tuple[MarketKind, ...] | None = None

    def __init__(
        self, *, latency_ms: int = DEFAULT_LATENCY_MS, name: str | None = None, context: dict[str, Any] | None = None
    ) -> None:
        check_latency_ms(latency_ms)
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name must be text, not {name!r}")
        if context is not None and not isinstance(context, dict):
            raise ValueError(f"context must be a dict of settings (a JSON object), not {context!r:.40}")
        self.latency_ms = latency_ms
        self.name = name or type(self).__name__
        #: Free-form settings (flumine's ``context``); unknown keyword arguments are an error, not context.
        self.context: dict[str, Any] = dict(context or {})

    def end_session(self, reason: str = "ended by the strategy") -> None:
        """Ask for no further game: a backtest session deals none once the current game is over.

        The strategy's hooks still run to the end of the current game (its
        orders settle as usual). Seated at a live channel, where the channel
        plays on for everyone else, the strategy is simply woken no more after
        that game. A strategy that runs out of money need not call this: its
        orders are refused (``INSUFFICIENT_FUNDS``) and the session goes on.
        """
        if self.session_ended is None:
            self.session_ended = reason

    def on_game_start(self, game: GameStart) -> None:
        """A new game has started (before its markets open): reset per-game state here; ``game.bankroll`` is now."""

    def on_game_end(self, game: GameEnd) -> None:
        """The game is over, every market of it settled or void: its result and the bankroll after it."""

    def on_market_open(self, market: MarketHandle) -> None:
        """A new game's market exists (before its first window opens); once for each market the strategy trades."""

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        """``round``'s betting window has just opened."""

    def check_market_book(self, market: MarketHandle) -> bool:
        """Whether :meth:`process_market_book` should run for this update; default: while betting is open."""
        return market.betting_open

    def process_market_book(self, market: MarketHandle) -> None:
        """The market changed: a window opened, cards were turned, or its book changed. Changes made while an
        update is pending join it; one after it brings another, at the same instant too (an opening and the house's
        quotes that follow it, a noise trade and the requote answering it, are two calls)."""

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        """Some of this strategy's orders changed: placed, matched, cancelled, lapsed, settled."""

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        """An instruction was refused; ``rejection.error_code`` says why (API-NG codes)."""

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        """``round``'s window has closed; its unmatched orders have lapsed."""

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        """The market is settled (or void): this account's result, once for each market traded, as it happens.

        A market settled before its game ends (a Hi/Lo game's Low or High market) is reported then, not at
        the game's end; ``settlement.status`` is the market's own (``FINISHED`` if it settled, even if the
        game was later voided).
        """
