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
from engine.irregularities import PREMATURE_STREET, Kind
from exchange.clock import Clock, Timer
from exchange.core.events import MatchVoided
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
from exchange.game.irregular import PREMATURE_ROUND, BetsVoided, IrregularityOccurred, IrregularityPlan
from exchange.game.port import MarketPort
from exchange.game.prospects import Prospects, resolve
from exchange.game.rounds import Round, Window, timetable

EquityFn = Callable[[str, Sequence[Sequence[Card]], Sequence[Card]], Prospects]
"""Exact prospects for ``(variant, hole cards of every hand, board)``: see :mod:`exchange.game.equities`."""

STREET_NAMES = ("flop", "turn", "river")


class GameStateError(RuntimeError):
    """An operator's action that the game's state does not allow (e.g. resuming a market that is open)."""


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
        irregularity: IrregularityPlan | None = None,
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
        #: The dealer's error injected in this game (``None``: a clean deal).
        self.irregularity = irregularity
        self._incident_timer: Timer | None = None  # a premature street's exposure, or its notice
        self._exposed_ms: int | None = None  # a card seen in this window, not yet acted on
        self._hold: str | None = None  # why the market is suspended inside its window (an exposure, an operator)

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
        plan = self.irregularity
        self._deal = GameDeal(self._dealer, hands=cfg.hands, hole_cards=cfg.hole_cards,
                              irregularity=None if plan is None else plan.irregularity,
                              rng=None if plan is None else plan.rng())
        self._emit(HoleCardsDealt(cfg.hands, cfg.hole_cards))
        if plan is not None and plan.kind in (Kind.EXPOSED_HOLE_CARDS, Kind.EXTRA_CARDS):
            misdeal = self._deal.misdeal
            self._announce(self._deal.public.exposed, "misdeal" if misdeal else "deal goes on")
            if misdeal is not None:
                self.void(f"{misdeal}, {plan.irregularity.describe()}")
                return
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
        plan = self.irregularity
        if plan is not None and PREMATURE_ROUND.get(plan.kind) == rnd:
            at = window.opens_ms + window.length_ms * plan.at_permille // 1000
            self._incident_timer = self._clock.call_at(max(at, self._clock.now()), self._expose)

    def _close(self) -> None:
        self._timer = None
        assert self.round is not None
        rnd = self.round
        now = self._clock.now()
        if self._exposed_ms is not None:  # a card seen in the window and not yet acted on: act now
            self._cancel_incident()
            self._notice()
        self.phase = Phase.PLAYING
        if self._hold is not None:
            self._hold = None
        else:
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
        if deal.last_seen:  # too many flop cards: seen while the market was suspended, shuffled back
            self._announce(deal.last_seen, "deal goes on")
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

    # --- an operator's hand ------------------------------------------------------------------

    def operator_suspend(self, reason: str) -> None:
        """Suspend the market inside its betting window (a technical fault); the window runs on its timetable."""
        if self.phase is not Phase.BETTING or self._hold is not None:
            raise GameStateError(f"market {self.market_id} is not open for betting ({self._state_words()}): "
                                 "only an open market can be suspended")
        self._suspend_in_window(f"operator: {reason}")

    def operator_void(self, reason: str) -> None:
        """Void the game now for a technical fault: matched bets refunded, unmatched cancelled, no winner."""
        if self.over:
            raise GameStateError(f"market {self.market_id} is already over ({self.phase}): nothing to void")
        self.void(f"operator: {reason}")

    def operator_resume(self) -> None:
        """Reopen a market an operator suspended, while its window lasts (never one held for an exposed card)."""
        if self.phase is not Phase.BETTING or self._hold is None or not self._hold.startswith("operator"):
            raise GameStateError(f"market {self.market_id} was not suspended by an operator in an open window "
                                 f"({self._state_words()}): nothing to resume")
        self._hold = None
        self._emit(*self._port.resume(self._clock.now()))

    def _state_words(self) -> str:
        held = f", suspended: {self._hold}" if self._hold else ""
        return f"phase {self.phase}{held}"

    # --- irregularities (engine.irregularities, exchange.game.irregular) --------------------

    def _expose(self) -> None:
        """A premature street is turned in the window before it: everyone sees it; act when it is noticed."""
        self._incident_timer = None
        plan = self.irregularity
        if plan is None or self.over or self.phase is not Phase.BETTING:
            return
        cards = self._require_deal().expose_early(PREMATURE_STREET[plan.kind])
        now = self._clock.now()
        self._exposed_ms = now
        self._announce(cards, "bets voided")
        window = self.window
        if plan.notice_ms == 0:
            self._notice()
        elif window is not None and now + plan.notice_ms < window.closes_ms:
            self._incident_timer = self._clock.call_at(now + plan.notice_ms, self._notice)

    def _notice(self) -> None:
        """Suspend the market and void every match since the exposure; the window then runs out suspended."""
        self._incident_timer = None
        plan, since = self.irregularity, self._exposed_ms
        if plan is None or since is None:
            return
        self._exposed_ms = None
        now = self._clock.now()
        self._suspend_in_window("a card exposed before its time")
        reason = f"card exposed before its time ({plan.irregularity.describe()})"
        voided = [e for e in self._port.void_matched_since(since, reason, now)]
        self._emit(*voided)
        matches = [e for e in voided if isinstance(e, MatchVoided)]
        self._emit(BetsVoided(plan.kind.rule, str(plan.kind), since, len(matches), sum(e.size for e in matches)))

    def _suspend_in_window(self, why: str) -> None:
        if self._hold is None:
            self._emit(*self._port.suspend(self._clock.now()))
        if self._hold is None or why.startswith("a card"):
            self._hold = why

    def _announce(self, cards: tuple[Card, ...], outcome: str) -> None:
        plan = self.irregularity
        if plan is not None:
            self._emit(IrregularityOccurred(plan.kind.rule, str(plan.kind), plan.irregularity.describe(), cards,
                                            outcome, self._clock.now()))

    def _cancel_incident(self) -> None:
        if self._incident_timer is not None:
            self._incident_timer.cancel()
            self._incident_timer = None

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
        self._cancel_incident()
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
