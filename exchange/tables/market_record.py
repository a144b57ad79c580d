"""What a game's rows are made from: each market's record, folded from the channel's stamped events.

A :class:`MarketRecord` keeps, for one market of a game, just what its rows need
(:mod:`exchange.tables.collector` writes them): the game's cards and result as
the market saw them, each order and what became of it, each fill with the
equity published before it, each refusal, the settlement. :data:`HANDLERS` folds
one event into it, by the event's type; an event of the whole game
(:data:`GAME_WIDE`) is folded into each market's record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

from engine.cards import format_cards
from exchange.core import ladder
from exchange.core.events import (
    AccountResult,
    BetResult,
    MarketSettled,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    OrderRejected,
    SelectionSettled,
)
from exchange.core.side import Side
from exchange.game.events import (
    BoardTurned,
    DrawMade,
    EquitiesPublished,
    GameEnded,
    GameStarted,
    HoleCardsTurned,
    ResultDeclared,
    SeatCardsTurned,
    Stamped,
    WindowOpened,
)
from exchange.game.irregular import BetsVoided, IrregularityOccurred
from exchange.game.layouts import LAYOUTS

MAX_HANDS = 4
DRAW_GAMES = frozenset(name for name, layout in LAYOUTS.items() if layout.draws)
#: Events of the whole game (stamped with its main market id) that every market's rows read.
GAME_WIDE = frozenset({GameStarted, WindowOpened, GameEnded})


class Asked(Protocol):
    """What a refused instruction asked, where its sender knows (a backtest's strategy: its
    :class:`~exchange.backtest.instructions.Sent`): the parts the exchange's refusal does not say."""

    @property
    def market_id(self) -> str: ...
    @property
    def side(self) -> Side | None: ...
    @property
    def price(self) -> Decimal | None: ...
    @property
    def size(self) -> int | None: ...
    @property
    def round(self) -> int | None: ...


@dataclass(slots=True)
class OrderRecord:
    placed: OrderPlaced
    matched: int = 0
    matched_x100: int = 0
    lapsed: int = 0
    cancelled: int = 0
    voided: int = 0
    outcome: str | None = None
    profit: int | None = None
    cancels: list[dict[str, int]] = field(default_factory=list)
    lapsed_ms: int | None = None


@dataclass(slots=True)
class MarketRecord:
    game_index: int
    market_id: str
    session: int
    session_game: int
    channel: str = ""
    variant: str = ""
    start_ms: int = 0
    #: The game's betting and playing windows (ms; a server's may differ from its channel's defaults).
    betting_window_ms: int = 0
    playing_window_ms: int | None = None
    hands: tuple[str | None, ...] = (None,) * MAX_HANDS
    board: str = ""
    winners: tuple[int, ...] = ()
    early: bool = False
    status: str = ""
    #: How this market ended (``SETTLED`` or ``VOID``): a hi/lo game's Low market can settle before its game is voided.
    market_status: str = ""
    round: int = 0
    equities: dict[int, Fraction] = field(default_factory=dict)
    published: list[tuple[int, EquitiesPublished]] = field(default_factory=list)
    orders: dict[int, OrderRecord] = field(default_factory=dict)
    #: Each refusal, with the instruction it refused where that is known (a strategy's, from its instruction log),
    #: and how many of the market's bets were placed before it (its rows go between theirs, in the order they came).
    rejected: list[tuple[OrderRejected, Asked | None, int]] = field(default_factory=list)
    fills: list[tuple[Matched, int, Fraction | None]] = field(default_factory=list)
    voided: dict[int, int] = field(default_factory=dict)  # match id -> when it was voided
    results: dict[str, AccountResult] = field(default_factory=dict)
    commission_received: int = 0
    rounding: int = 0
    house: str | None = None
    ended: bool = False
    balances: Mapping[str, int] = field(default_factory=dict)
    dealt: tuple[str | None, ...] = ()
    discarded: list[list[str]] = field(default_factory=list)
    drawn: list[list[str]] = field(default_factory=list)
    irregularities: list[IrregularityRecord] = field(default_factory=list)
    #: Matches voided whose cause is not known yet: a premature card's (a ``BetsVoided`` follows them) or a whole
    #: market's void (a ``MarketVoided`` follows). The reason's words are not read: an operator's are free text.
    voids_pending: list[MatchVoided] = field(default_factory=list)

    @property
    def total_matched(self) -> int:
        """The stake matched on this market and not voided (minor units)."""
        return sum(m.size for m, _, _ in self.fills if m.match_id not in self.voided)

    def refuse(self, rejection: OrderRejected, asked: Asked | None) -> None:
        """Note a refusal of this market's, after the bets placed so far."""
        self.rejected.append((rejection, asked, len(self.orders)))


@dataclass(slots=True)
class IrregularityRecord:
    at_ms: int
    round: int
    event: IrregularityOccurred
    matches: int = 0
    stake: int = 0
    bets: list[int] = field(default_factory=list)


def _started(g: MarketRecord, s: Stamped, e: GameStarted) -> None:
    g.channel, g.variant, g.start_ms = e.channel, e.variant, s.at_ms
    g.betting_window_ms = e.windows[0].length_ms
    g.playing_window_ms = e.windows[1].opens_ms - e.windows[0].closes_ms if len(e.windows) > 1 else None
    g.hands = (None,) * e.hands


def _window(g: MarketRecord, s: Stamped, e: WindowOpened) -> None:
    g.round = int(e.round)


def _equities(g: MarketRecord, s: Stamped, e: EquitiesPublished) -> None:
    g.equities = {h.hand: h.equity for h in e.hands}
    g.published.append((s.at_ms, e))


def _holes(g: MarketRecord, s: Stamped, e: HoleCardsTurned) -> None:
    g.hands = tuple(format_cards(h) for h in e.hands)
    if g.variant in DRAW_GAMES:
        g.dealt = g.hands
        g.discarded = [[] for _ in e.hands]
        g.drawn = [[] for _ in e.hands]


def _seat_cards(g: MarketRecord, s: Stamped, e: SeatCardsTurned) -> None:
    g.hands = tuple(format_cards(h) for h in e.hands)


def _draw(g: MarketRecord, s: Stamped, e: DrawMade) -> None:
    g.hands = tuple(format_cards(h) for h in e.hands)
    for i, (thrown, got) in enumerate(zip(e.discarded, e.drawn, strict=True)):
        g.discarded[i].append(format_cards(thrown) or "-")
        g.drawn[i].append(format_cards(got) or "-")


def _board(g: MarketRecord, s: Stamped, e: BoardTurned) -> None:
    g.board = format_cards(e.board)


def _result(g: MarketRecord, s: Stamped, e: ResultDeclared) -> None:
    g.winners, g.early, g.board = tuple(e.winners), e.early, format_cards(e.board)


def _ended(g: MarketRecord, s: Stamped, e: GameEnded) -> None:
    g.status, g.ended = e.status, True


def _placed(g: MarketRecord, s: Stamped, e: OrderPlaced) -> None:
    g.orders[e.bet_id] = OrderRecord(e)


def _matched(g: MarketRecord, s: Stamped, e: Matched) -> None:
    g.fills.append((e, g.round, g.equities.get(e.selection_id)))
    value = e.size * ladder.PRICE_X100[e.tick]
    for bet_id in (e.back_bet_id, e.lay_bet_id):
        o = g.orders[bet_id]
        o.matched += e.size
        o.matched_x100 += value


def _cancelled(g: MarketRecord, s: Stamped, e: OrderCancelled) -> None:
    o = g.orders[e.bet_id]
    o.cancelled += e.size
    o.cancels.append({"at_ms": e.ts, "size": e.size})


def _lapsed(g: MarketRecord, s: Stamped, e: OrderLapsed) -> None:
    o = g.orders[e.bet_id]
    o.lapsed += e.size
    o.lapsed_ms = e.ts


def _irregularity(g: MarketRecord, s: Stamped, e: IrregularityOccurred) -> None:
    g.irregularities.append(IrregularityRecord(s.at_ms, g.round, e))


def _match_voided(g: MarketRecord, s: Stamped, e: MatchVoided) -> None:
    g.voided[e.match_id] = e.ts
    g.voids_pending.append(e)  # whose they are is known by what follows: BetsVoided, or the market's void
    value = e.size * ladder.PRICE_X100[e.tick]
    for bet_id in (e.back_bet_id, e.lay_bet_id):
        o = g.orders[bet_id]
        o.matched -= e.size
        o.matched_x100 -= value
        o.voided += e.size


def _bets_voided(g: MarketRecord, s: Stamped, e: BetsVoided) -> None:
    """The matches just voided were the last irregularity's (a card exposed before its time): counted in its row."""
    pending = g.voids_pending
    if not g.irregularities or (e.matches, e.stake) != (len(pending), sum(v.size for v in pending)):
        raise RuntimeError(f"market {g.market_id}: BetsVoided says {e.matches} matches, {e.stake} staked, voided by "
                             f"irregularity {len(g.irregularities)}; the record holds {len(pending)} voided since")
    last = g.irregularities[-1]
    last.matches += e.matches
    last.stake += e.stake
    for v in pending:
        last.bets.extend(b for b in (v.back_bet_id, v.lay_bet_id) if b not in last.bets)
    pending.clear()


def _bets(g: MarketRecord, bets: Iterable[BetResult]) -> None:
    for b in bets:
        o = g.orders[b.bet_id]
        o.outcome, o.profit = b.outcome.value, b.profit


def _selection_settled(g: MarketRecord, s: Stamped, e: SelectionSettled) -> None:
    _bets(g, e.bets)


def _market_settled(g: MarketRecord, s: Stamped, e: MarketSettled) -> None:
    _bets(g, e.bets)
    g.results = {a.account_id: a for a in e.accounts}
    g.commission_received = sum(a.commission for a in e.accounts)
    g.rounding, g.house, g.market_status = e.rounding, e.house_account_id, "SETTLED"


def _market_voided(g: MarketRecord, s: Stamped, e: MarketVoided) -> None:
    g.voids_pending.clear()  # the whole market's void (a misdeal at the deal, a fault, an operator): no row's
    g.results = {a.account_id: a for a in e.accounts}
    g.commission_received = sum(a.commission for a in e.accounts)
    g.house, g.market_status = e.house_account_id, "VOID"


HANDLERS: dict[type, Callable[[MarketRecord, Stamped, Any], None]] = {
    GameStarted: _started,
    WindowOpened: _window,
    EquitiesPublished: _equities,
    HoleCardsTurned: _holes,
    SeatCardsTurned: _seat_cards,
    DrawMade: _draw,
    BoardTurned: _board,
    ResultDeclared: _result,
    GameEnded: _ended,
    OrderPlaced: _placed,
    Matched: _matched,
    OrderCancelled: _cancelled,
    OrderLapsed: _lapsed,
    MatchVoided: _match_voided,
    BetsVoided: _bets_voided,
    SelectionSettled: _selection_settled,
    MarketSettled: _market_settled,
    MarketVoided: _market_voided,
    IrregularityOccurred: _irregularity,
}
