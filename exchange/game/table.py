"""One exchange game as a state machine driven by clock callbacks.

A :class:`Game` never sleeps and never reads the time by itself: at
:meth:`Game.start` it asks the clock to call it back at the game's start,
and every step schedules the next with ``call_at``. The same object therefore
runs under asyncio (``WallClock``) and in a backtest (``VirtualClock``), where
a whole game takes milliseconds.

Phases: ``SCHEDULED → BETTING(Deal) → PLAYING → BETTING(Pre-flop) → PLAYING →
BETTING(Flop) → PLAYING → BETTING(Turn) → PLAYING → FINISHED`` (or ``VOID``
at any point). At every close: suspend, lapse, turn the next cards, compute
exact equities from the cards face up, settle at once the hands that cannot
win, and settle the whole market once the outcome is certain (one hand left
that can win or tie, or a dead heat certain on every remaining board). The
equities are computed by an :class:`~exchange.game.equities.EquityRunner`:
inline by default (a backtest), off the event loop on the server, whose
result may arrive later; the next window then opens when it is in (never
before: a bettor must not trade on a hand already decided) and closes at its
timetable time, so the timetable never depends on how long it took. A game
settled early deals out the rest of its board at once, declares the result and
ends; the channel deals the next game one playing window later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum

from engine import InvariantError
from engine.cards import Card
from engine.dealer import Dealer
from exchange.clock import Clock, Timer
from exchange.game.channels import BOARD_STREETS, ChannelConfig
from exchange.game.deal import GameDeal, PublicCards
from exchange.game.equities import EquityRunner, run_inline
from exchange.game.events import (
    BoardTurned,
    DealRecorded,
    EquitiesPublished,
    EventBus,
    GameEnded,
    GameStarted,
    GameVoided,
    HandsCannotWin,
    HoleCardsDealt,
    HoleCardsTurned,
    ResultDeclared,
    WindowClosed,
    WindowOpened,
)
from exchange.game.port import MarketPort
from exchange.game.prospects import Prospects, resolve
from exchange.game.rounds import Round, Window, timetable

EquityFn = Callable[[str, Sequence[Sequence[Card]], Sequence[Card]], Prospects]
"""Exact prospects for ``(variant, hole cards of every hand, board)``: see :mod:`exchange.game.equities`."""

STREET_NAMES = ("flop", "turn", "river")


class Phase(StrEnum):
    SCHEDULED = "SCHEDULED"
    BETTING = "BETTING"
    PLAYING = "PLAYING"
    FINISHED = "FINISHED"
    VOID = "VOID"


class Game:
    """One deal on a channel, its market and its timetable."""

    def __init__(
        self,
        *,
        config: ChannelConfig,
        number: int,
        dealer: Dealer,
        start_ms: int,
        clock: Clock,
        port: MarketPort,
        bus: EventBus,
        equities: EquityFn,
        on_finished: Callable[[Game], None] | None = None,
        runner: EquityRunner = run_inline,
    ) -> None:
        self.config = config
        self.number = number
        self.market_id = port.market_id
        self.windows: tuple[Window, ...] = timetable(config, start_ms)
        self.phase = Phase.SCHEDULED
        self.round: Round | None = None
        self.prospects = Prospects.uniform(config.hands)
        self.settled: dict[int, str] = {}
        self.winners: tuple[int, ...] = ()
        self._dealer = dealer
        self._deal: GameDeal | None = None
        self._clock = clock
        self._port = port
        self._bus = bus
        self._equities = equities
        self._on_finished = on_finished
        self._timer: Timer | None = None
        self._runner = runner
        self._awaiting = False  # a reveal's equities are being computed
        self._open_when_ready: Round | None = None  # the window due while they were
        self._halted = False

    # --- what anyone may read ---------------------------------------------------------

    @property
    def start_ms(self) -> int:
        return self.windows[0].opens_ms

    @property
    def public(self) -> PublicCards:
        """The cards face up now (nothing before the deal)."""
        if self._deal is None:
            return PublicCards(hands=(None,) * self.config.hands)
        return self._deal.public

    @property
    def window(self) -> Window | None:
        """The current betting window (the last one while suspended), ``None`` before the first."""
        return None if self.round is None else self.windows[self.round - 1]

    @property
    def live_hands(self) -> tuple[int, ...]:
        return tuple(h for h in range(1, self.config.hands + 1) if h not in self.settled)

    @property
    def over(self) -> bool:
        return self.phase in (Phase.FINISHED, Phase.VOID)

    # --- driving -------------------------------------------------------------------------

    def start(self) -> None:
        """Schedule the game on the clock; nothing happens before ``start_ms``."""
        if self.phase is not Phase.SCHEDULED or self._timer is not None:
            raise RuntimeError(f"game {self.market_id} is already started")
        self._timer = self._clock.call_at(self.start_ms, self._begin)

    def halt(self) -> None:
        """Cancel the pending step: nothing more happens to this game (for a driver shutting down)."""
        self._halted = True
        self._cancel_timer()

    def void(self, reason: str) -> None:
        """Stop the game now and void its market (a fault or a misdeal)."""
        if self.over:
            raise RuntimeError(f"game {self.market_id} is already over ({self.phase})")
        self._cancel_timer()
        self.phase = Phase.VOID
        self._emit(*self._port.void(reason, self._clock.now()))
        self._emit(GameVoided(reason))
        self._end("VOID")

    def _begin(self) -> None:
        self._timer = None
        cfg = self.config
        self._emit(GameStarted(cfg.name, self.number, cfg.variant, cfg.hands, self.windows))
        self._emit(*self._port.create(self._clock.now()))
        self._deal = GameDeal(self._dealer, hands=cfg.hands, hole_cards=cfg.hole_cards)
        self._emit(HoleCardsDealt(cfg.hands, cfg.hole_cards))
        self._emit(EquitiesPublished(Round.DEAL, self.prospects.boards, self.prospects.hands))
        self._open(Round.DEAL)

    def _open(self, rnd: Round) -> None:
        self._timer = None
        if self._awaiting:  # the last reveal's equities are not in yet: open when they are, close on time
            self._open_when_ready = rnd
            return
        window = self.windows[rnd - 1]
        self.round = rnd
        self.phase = Phase.BETTING
        self._emit(*self._port.open_window(rnd, self._clock.now()))
        self._emit(WindowOpened(rnd, window.closes_ms))
        self._timer = self._clock.call_at(window.closes_ms, self._close)

    def _close(self) -> None:
        self._timer = None
        assert self.round is not None
        rnd = self.round
        now = self._clock.now()
        self.phase = Phase.PLAYING
        self._emit(*self._port.suspend(now))
        self._emit(WindowClosed(rnd))
        self._emit(*self._port.lapse(now))
        self._reveal(rnd)
        if self.over:
            return
        following = rnd.next
        if following is None:  # the Turn close: the river's result settles the market when it is in
            return
        self._timer = self._clock.call_at(self.windows[following - 1].opens_ms, lambda: self._open(following))

    def _reveal(self, closing: Round) -> None:
        deal = self._require_deal()
        if closing is Round.DEAL:
            deal.turn_hole_cards()
            self._emit(HoleCardsTurned(deal.public.visible_hands()))
        else:
            self._turn_street(closing - 2)
        public = deal.public
        variant, hands, board = self.config.variant, public.visible_hands(), public.board
        self._awaiting = True
        self._runner(lambda: self._equities(variant, hands, board),
                     lambda prospects: self._apply(closing, prospects), self._failed)

    def _apply(self, closing: Round, prospects: Prospects) -> None:
        """The reveal's equities are in: publish them, settle what they decide, open a window held for them."""
        if self.over or self._halted:
            return
        self._awaiting = False
        self.prospects = prospects
        self._emit(EquitiesPublished(closing.next, self.prospects.boards, self.prospects.hands))
        self._resolve()
        due, self._open_when_ready = self._open_when_ready, None
        if self.over:
            self._cancel_timer()
        elif due is not None:
            self._open(due)

    def _failed(self, error: BaseException) -> None:
        if not self.over and not self._halted:
            self._awaiting = False
            self.void(f"technical fault: the equity computation failed ({error!r:.200})")

    def _resolve(self) -> None:
        resolution = resolve(self.prospects, self.live_hands)
        if resolution.decided:
            self._finish(resolution.winners)
            return
        if resolution.losers:
            self._emit(HandsCannotWin(resolution.losers))
            self._emit(*self._port.settle_losers(resolution.losers, self._clock.now()))
            self.settled.update(dict.fromkeys(resolution.losers, "LOSER"))

    def _turn_street(self, street: int) -> None:
        deal = self._require_deal()
        cards = deal.turn_board(BOARD_STREETS[street])
        self._emit(BoardTurned(STREET_NAMES[street], cards, deal.public.board))

    def _finish(self, winners: tuple[int, ...]) -> None:
        deal = self._require_deal()
        early = len(deal.public.board) < sum(BOARD_STREETS)
        while len(deal.public.board) < sum(BOARD_STREETS):
            street = {0: 0, 3: 1, 4: 2}[len(deal.public.board)]
            self._turn_street(street)
        self.winners = winners
        self._emit(ResultDeclared(winners, deal.public.board, early))
        self._emit(*self._port.settle(winners, self._clock.now()))
        self.settled.update({h: ("LOSER" if h not in winners else "WINNER") for h in self.live_hands})
        self.phase = Phase.FINISHED
        self._end("SETTLED")

    def _end(self, status: str) -> None:
        if self._deal is not None:
            self._emit(DealRecorded(self._deal.record()))
        self._emit(GameEnded(status))
        if self._on_finished is not None:
            self._on_finished(self)

    # --- helpers ---------------------------------------------------------------------------

    def _emit(self, *events: object) -> None:
        now = self._clock.now()
        for event in events:
            self._bus.publish(now, self.market_id, event)

    def _require_deal(self) -> GameDeal:
        if self._deal is None:
            raise RuntimeError(f"game {self.market_id} has not been dealt yet")
        return self._deal

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        """Invariants of the phase, round, settled hands and board. Raises :class:`~engine.InvariantError`."""
        if (self.round is None) != (self.phase is Phase.SCHEDULED) and self.phase is not Phase.VOID:
            raise InvariantError(f"game {self.market_id}: round {self.round} in phase {self.phase}")
        if not set(self.settled) <= set(range(1, self.config.hands + 1)):
            raise InvariantError(f"game {self.market_id}: settled hands {sorted(self.settled)} of {self.config.hands}")
        board = len(self.public.board)
        if self.phase is Phase.FINISHED:
            if not self.winners or len(self.settled) != self.config.hands:
                raise InvariantError(f"game {self.market_id}: finished with winners {self.winners}, settled "
                                     f"{sorted(self.settled)} of {self.config.hands} hands")
            if board != sum(BOARD_STREETS):
                raise InvariantError(f"game {self.market_id}: finished with {board} board cards")
        if self.round is not None and board < self.round.board_cards_visible:
            raise InvariantError(f"game {self.market_id}: {board} board cards in round {self.round.name}, "
                                 f"which shows {self.round.board_cards_visible}")
