"""One exchange game as a state machine driven by clock callbacks.

A :class:`Game` never sleeps and never reads the time by itself: at :meth:`Game.start` it asks the clock to
call it back at the game's start, and every step schedules the next with ``call_at``. The same object therefore
runs under asyncio (``WallClock``) and in a backtest (``VirtualClock``), where a whole game takes milliseconds.

Phases: ``SCHEDULED → BETTING(Deal) → PLAYING → BETTING(Pre-flop) → PLAYING →
… → BETTING(last window) → PLAYING → FINISHED`` (or ``VOID`` at any point); the
windows and what each close deals are the channel's
:class:`~exchange.game.layouts.Layout`. At every close: suspend, lapse, deal
and turn the next cards, compute the equities from the cards face up, settle
at once the selections that cannot win, and settle a market once its outcome
is certain (one selection left that can win or tie, or a dead heat certain on
every remaining deal). A hi/lo game runs a High and a Low market side by side,
on the same windows; each settles when its own outcome is certain. The
equities are computed by an :class:`~exchange.game.equities.EquityRunner`:
inline by default (a backtest), off the event loop on the server, whose
result may arrive later; the next window then opens when it is in (never
before: a bettor must not trade on a hand already decided) and closes at its
timetable time, so the timetable never depends on how long it took. A game
settled early deals out the rest of its board at once, declares the result and
ends; the channel deals the next game one playing window later.

A game dealt as Hold'em is (hole cards, then flop, turn and river) may carry a dealer's error
(:mod:`exchange.game.irregular`); its consequences apply to every market of the game: a misdeal voids them all,
and a card exposed early suspends them all and voids on each the matches made since the exposure. An operator's
suspend, resume or void, asked through any of a game's markets, acts on all of the game's markets not yet settled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine import InvariantError
from engine.cards import Card
from engine.dealer import Dealer
from engine.irregularities import PREMATURE_STREET, Kind
from exchange.clock import Clock, Timer
from exchange.core.events import MatchVoided
from exchange.game.channels import ChannelConfig
from exchange.game.deal import GameDeal, PublicCards, StepDealt
from exchange.game.equities import EquityRunner, GameProspects, opening_prospects, run_inline
from exchange.game.events import (
    BoardTurned,
    DealRecorded,
    DrawMade,
    EquitiesPublished,
    EventBus,
    GameEnded,
    GameStarted,
    GameVoided,
    HandsCannotWin,
    HoleCardsDealt,
    HoleCardsTurned,
    ResultDeclared,
    SeatCardsTurned,
    WindowClosed,
    WindowOpened,
    WindowResumed,
)
from exchange.game.irregular import PREMATURE_ROUND, BetsVoided, IrregularityOccurred, IrregularityPlan
from exchange.game.layouts import MarketKind, StepKind
from exchange.game.port import MarketPort
from exchange.game.prospects import Prospects, Resolution, resolve
from exchange.game.rounds import Round, Window, next_round, timetable

EquityFn = Callable[..., "Prospects | GameProspects"]
"""Prospects for ``(variant, cards of every hand, board)`` — one :class:`Prospects`, or one per market — and,
in draw games, the keywords ``dead``, ``draws_left`` and ``stock``: see :mod:`exchange.game.equities`. ``dead``
also comes, in any game, once a dealer's error has shown a card and taken it out of play."""


class GameStateError(RuntimeError):
    """An operator's action that the game's state does not allow (e.g. resuming a market that is open)."""


class Phase(StrEnum):
    SCHEDULED = "SCHEDULED"
    BETTING = "BETTING"
    PLAYING = "PLAYING"
    FINISHED = "FINISHED"
    VOID = "VOID"


@dataclass(slots=True)
class GameMarket:
    """One market of a game: its port, its latest prospects, the selections settled and, once decided, the winners."""

    kind: MarketKind
    port: MarketPort
    prospects: Prospects
    settled: dict[int, str] = field(default_factory=dict)
    winners: tuple[int, ...] = ()

    @property
    def market_id(self) -> str:
        return self.port.market_id

    @property
    def selections(self) -> int:
        return len(self.prospects.hands)

    @property
    def decided(self) -> bool:
        return bool(self.winners)

    @property
    def live(self) -> tuple[int, ...]:
        return tuple(h for h in range(1, self.selections + 1) if h not in self.settled)


class Game:
    """One deal on a channel, its market(s) and its timetable."""

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
        ports: Sequence[MarketPort] = (),
        irregularity: IrregularityPlan | None = None,
    ) -> None:
        self.config = config
        self.number = number
        self.market_id = port.market_id
        self.windows: tuple[Window, ...] = timetable(config, start_ms)
        self.phase = Phase.SCHEDULED
        self.round: Round | None = None
        opening = opening_prospects(config.variant, config.hands)
        self.markets: tuple[GameMarket, ...] = tuple(
            GameMarket(kind, p, prospects)
            for kind, p, prospects in zip(config.markets, (port, *ports), opening, strict=True)
        )
        self._dealer = dealer
        self._deal: GameDeal | None = None
        self._clock = clock
        self._bus = bus
        self._equities = equities
        self._on_finished = on_finished
        self._timer: Timer | None = None
        self._runner = runner
        self.pricing = False  # a reveal's equities are being computed: the cards face up are newer than theirs
        self._open_when_ready: Round | None = None  # the window due while they were
        self._halted = False
        #: The dealer's error injected in this game (``None``: a clean deal).
        self.irregularity = irregularity
        self._incident_timer: Timer | None = None  # a premature street's exposure, or its notice
        self._incident: Callable[[], None] | None = None  # what that timer will run
        self._exposed: tuple[int, dict[str, int]] | None = None  # a card seen, not acted on: when; each match_mark
        self.suspended_for: str | None = None  # why the markets are held in their window ("operator: ...", a card)

    # --- what anyone may read ---------------------------------------------------------

    @property
    def main(self) -> GameMarket:
        """The game's first market (the only one, or High)."""
        return self.markets[0]

    @property
    def prospects(self) -> Prospects:
        return self.main.prospects

    @property
    def settled(self) -> dict[int, str]:
        return self.main.settled

    @property
    def winners(self) -> tuple[int, ...]:
        return self.main.winners

    def market(self, market_id: str) -> GameMarket | None:
        """The market of this game with that id, if any."""
        return next((m for m in self.markets if m.market_id == market_id), None)

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
    def round_name(self) -> str | None:
        """The game's name for the current round ("Flop", "4th street"), ``None`` before the first."""
        return None if self.round is None else self.config.layout.windows[self.round - 1]

    @property
    def live_hands(self) -> tuple[int, ...]:
        return self.main.live

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
        """Stop the game now and void its markets (a fault or a misdeal)."""
        if self.over:
            raise RuntimeError(f"game {self.market_id} is already over ({self.phase})")
        self._cancel_timer()
        self.phase = Phase.VOID
        for market in self.markets:
            if not market.decided:
                self._emit_to(market, *market.port.void(reason, self._clock.now()))
        self._emit(GameVoided(reason))
        self._end("VOID")

    def _begin(self) -> None:
        self._timer = None
        cfg = self.config
        self._emit(GameStarted(cfg.name, self.number, cfg.variant, cfg.hands, self.windows))
        for market in self.markets:
            self._emit_to(market, *market.port.create(self._clock.now()))
        plan = self.irregularity
        self._deal = GameDeal(self._pack_dealer(), hands=cfg.hands, layout=cfg.layout,
                              irregularity=None if plan is None else plan.irregularity,
                              rng=None if plan is None else plan.rng())
        self._emit(HoleCardsDealt(cfg.hands, cfg.layout.steps[0].per_seat))
        if plan is not None and plan.kind in (Kind.EXPOSED_HOLE_CARDS, Kind.EXTRA_CARDS):
            misdeal = self._deal.misdeal
            self._announce(self._deal.public.exposed, "misdeal" if misdeal else "deal goes on")
            if misdeal is not None:
                self.void(f"{misdeal}, {plan.irregularity.describe()}")
                return
        dead = self._deal.public.dead
        if dead:  # a card shown and burned at the deal (rules 1, 5): the opening prices count it out
            variant, hands = cfg.variant, cfg.hands
            self.phase = Phase.PLAYING  # dealt and on the table; the Deal window opens when the price is in
            self.pricing = True  # a Low market's price is sampled again: on the runner, as a reveal's
            self._runner(lambda: opening_prospects(variant, hands, dead),
                         lambda prospects: self._publish_opening(prospects, dead), self._failed)
        else:
            self._publish_opening(tuple(market.prospects for market in self.markets), dead)
        self._open(Round.DEAL)

    def _publish_opening(self, results: GameProspects, dead: tuple[Card, ...]) -> None:
        """The deal's prices are in: publish them and open the first window if it is due meanwhile."""
        if self.over or self._halted:
            return
        self.pricing = False
        for market, prospects in zip(self.markets, results, strict=True):
            market.prospects = prospects
            self._emit_to(market, EquitiesPublished(Round.DEAL, prospects.boards, prospects.hands, prospects.exact,
                                                    dead))
        due, self._open_when_ready = self._open_when_ready, None
        if due is not None:
            self._open(due)

    def _pack_dealer(self) -> Dealer:
        """The dealer, its deck cut down to the game's pack if it holds more (a 32-card game)."""
        from engine.variants import get_variant  # the rankings (numba) load with the engine, not at import

        pack = get_variant(self.config.variant).deck.cards()
        if set(self._dealer.remaining) <= set(pack):
            return self._dealer
        return self._dealer.restricted(pack)

    def _open(self, rnd: Round) -> None:
        self._timer = None
        if self.pricing:  # the last reveal's equities are not in yet: open when they are, close on time
            self._open_when_ready = rnd
            return
        window = self.windows[rnd - 1]
        self.round = rnd
        self.phase = Phase.BETTING
        for market in self._undecided():
            self._emit_to(market, *market.port.open_window(rnd, self._clock.now()))
        self._emit(WindowOpened(rnd, window.closes_ms))
        self._timer = self._clock.call_at(window.closes_ms, self._close)
        plan = self.irregularity
        if plan is not None and PREMATURE_ROUND.get(plan.kind) == rnd:
            at = window.opens_ms + window.length_ms * plan.at_permille // 1000
            self._schedule_incident(max(at, self._clock.now()), self._expose)

    def window_open_at(self, now_ms: int) -> bool:
        """Whether the game is in a betting window not closed by ``now_ms`` (its close's timer may run late on a busy
        loop); not :meth:`Window.open_at`: a wall clock stepped back before ``opens_ms`` must not close it."""
        window = self.window
        return self.phase is Phase.BETTING and window is not None and now_ms < window.closes_ms

    def close_if_due(self) -> None:
        """Close the betting window now if its time has come and its timer has not run yet (a trader's command
        arriving must find it closed). An irregularity's timer still pending is due before the close (each is
        set inside the window), so it runs first, as the timers would have run them, in time order.
        """
        if self.phase is Phase.BETTING and self._timer is not None and not self.window_open_at(self._clock.now()):
            while self._incident_timer is not None and self._incident is not None:  # an exposure, then its notice
                incident = self._incident
                self._cancel_incident()
                incident()
            self._timer.cancel()
            self._close()

    def _close(self) -> None:
        self._timer = None
        if self.round is None:
            raise InvariantError(f"game {self.market_id}: a window closed before any opened")
        rnd = self.round
        now = self._clock.now()
        if self._exposed is not None:  # a card seen in the window and not yet acted on: act now
            self._cancel_incident()
            self._notice()
        self.phase = Phase.PLAYING
        if self.suspended_for is None:  # else suspended already inside the window
            for market in self._undecided():
                self._emit_to(market, *market.port.suspend(now))
        self.suspended_for = None
        self._emit(WindowClosed(rnd))
        for market in self._undecided():
            self._emit_to(market, *market.port.lapse(now))
        self._reveal(rnd)
        if self.over:
            return
        following = next_round(self.config, rnd)
        if following is None:  # the last close: the result settles the markets when it is in
            return
        self._timer = self._clock.call_at(self.windows[following - 1].opens_ms, lambda: self._open(following))

    def _reveal(self, closing: Round) -> None:
        deal = self._require_deal()
        if closing is Round.DEAL:
            deal.turn_hole_cards()
            self._emit(HoleCardsTurned(deal.public.visible_hands()))
        else:
            self._publish_step(deal.deal_next())
        job, dead = self._job(deal), deal.public.dead
        self.pricing = True
        self._runner(job, lambda prospects: self._apply(closing, prospects, dead), self._failed)

    def _job(self, deal: GameDeal) -> Callable[[], GameProspects]:
        """The equity computation for the cards face up now (run inline, or on a worker thread)."""
        public, layout = deal.public, deal.layout
        variant, hands, board = self.config.variant, public.visible_hands(), public.board
        extra: dict[str, Any] = {}
        if layout.draws:
            extra = {"dead": public.dead, "draws_left": layout.draws_after(deal.steps_done), "stock": deal.stock}
        elif public.dead:  # a card a dealer's error showed, then burned: no later street can hold it
            extra = {"dead": public.dead}
        equities = self._equities

        def job() -> GameProspects:
            result = equities(variant, hands, board, **extra)
            return (result,) if isinstance(result, Prospects) else tuple(result)

        return job

    def _apply(self, closing: Round, results: GameProspects, dead: tuple[Card, ...] = ()) -> None:
        """The reveal's equities are in: publish them, settle what they decide, open a window held for them.

        ``dead``: the cards the equities counted out of play (published with them).
        """
        if self.over or self._halted:
            return
        self.pricing = False
        following = next_round(self.config, closing)
        for market, prospects in zip(self.markets, results, strict=False):
            if market.decided:
                continue
            market.prospects = prospects
            resolution = resolve(prospects, market.live)  # prices that decide the market early are its result
            self._emit_to(market, EquitiesPublished(None if resolution.decided else following, prospects.boards,
                                                    prospects.hands, prospects.exact, dead))
            self._resolve(market, resolution)
        if all(m.decided for m in self.markets):
            self._finish()
        due, self._open_when_ready = self._open_when_ready, None
        if self.over:
            self._cancel_timer()
        elif due is not None:
            self._open(due)

    def _failed(self, error: BaseException) -> None:
        if not self.over and not self._halted:
            self.pricing = False
            self.void(f"technical fault: the equity computation failed ({error!r:.200})")

    def _resolve(self, market: GameMarket, resolution: Resolution) -> None:
        if resolution.decided:
            self._settle(market, resolution.winners)
            return
        if resolution.losers:
            self._emit_to(market, HandsCannotWin(resolution.losers))
            self._emit_to(market, *market.port.settle_losers(resolution.losers, self._clock.now()))
            market.settled.update(dict.fromkeys(resolution.losers, "LOSER"))

    def _settle(self, market: GameMarket, winners: tuple[int, ...]) -> None:
        """Declare and settle one market (the others, in a hi/lo game, may go on)."""
        deal = self._require_deal()
        market.winners = winners
        early = deal.steps_done < len(deal.layout.steps)
        self._emit_to(market, ResultDeclared(winners, deal.public.board, early, market.kind.value))
        self._emit_to(market, *market.port.settle(winners, self._clock.now()))
        market.settled.update({h: ("WINNER" if h in winners else "LOSER") for h in market.live})

    def _publish_step(self, dealt: StepDealt) -> None:
        public = self._require_deal().public
        step = dealt.step
        if step.kind is StepKind.BOARD:
            seen = self._require_deal().last_seen
            if seen:  # too many flop cards: seen while the markets were suspended, shuffled back
                self._announce(seen, "deal goes on")
            self._emit(BoardTurned(step.name, dealt.board, public.board))
        elif step.kind is StepKind.SEATS:
            faces = (False,) * step.down + (True,) * step.up
            self._emit(SeatCardsTurned(step.name, dealt.cards, faces, public.visible_hands()))
        else:
            number = len(public.drawn[0]) if public.drawn else 0
            self._emit(DrawMade(number, dealt.discarded, dealt.cards, public.visible_hands()))

    def _finish(self) -> None:
        """Every market is settled: deal out the rest of the cards (an early result), then end."""
        deal = self._require_deal()
        while deal.steps_done < len(deal.layout.steps):
            self._publish_step(deal.deal_next())
        self.phase = Phase.FINISHED
        self._end("SETTLED")

    def _end(self, status: str) -> None:
        if self._deal is not None:
            self._emit(DealRecorded(self._deal.record()))
        self._emit(GameEnded(status))
        if self._on_finished is not None:
            self._on_finished(self)

    # --- an operator's hand (every market of the game not yet settled) --------------------

    def operator_suspend(self, reason: str) -> None:
        """Suspend the game's markets inside their betting window (a technical fault); the window runs on."""
        if self.phase is not Phase.BETTING or self.suspended_for is not None:
            raise GameStateError(f"market {self.market_id} is not open for betting ({self._state_words()}): "
                                 "only an open market can be suspended")
        self._suspend_in_window(f"operator: {reason}")

    def operator_void(self, reason: str) -> None:
        """Void the game now for a technical fault: every market's matched bets refunded, unmatched cancelled."""
        if self.over:
            raise GameStateError(f"market {self.market_id} is already over ({self.phase}): nothing to void")
        self.void(f"operator: {reason}")

    def operator_resume(self) -> None:
        """Reopen markets an operator suspended, while the window lasts (never ones held for an exposed card)."""
        window = self.window
        if (window is None or self.phase is not Phase.BETTING or self.suspended_for is None
                or not self.suspended_for.startswith("operator")):
            raise GameStateError(f"market {self.market_id} was not suspended by an operator in an open window "
                                 f"({self._state_words()}): nothing to resume")
        self.suspended_for = None
        for market in self._undecided():
            self._emit_to(market, *market.port.resume(self._clock.now()))
        self._emit(WindowResumed(window.round, window.closes_ms))  # the agents requote the window's rest

    def _state_words(self) -> str:
        held = f", suspended: {self.suspended_for}" if self.suspended_for else ""
        return f"phase {self.phase}{held}"

    # --- irregularities (engine.irregularities, exchange.game.irregular) --------------------

    def _expose(self) -> None:
        """A premature street is turned in the window before it: everyone sees it; act when it is noticed."""
        self._incident_timer = self._incident = None
        plan = self.irregularity
        if plan is None or self.over or self.phase is not Phase.BETTING:
            return
        cards = self._require_deal().expose_early(PREMATURE_STREET[plan.kind])
        now = self._clock.now()
        self._exposed = now, {market.market_id: market.port.match_mark() for market in self._undecided()}
        self._announce(cards, "bets voided")
        window = self.window
        if plan.notice_ms == 0:
            self._notice()
        elif window is not None and now + plan.notice_ms < window.closes_ms:
            self._schedule_incident(now + plan.notice_ms, self._notice)

    def _notice(self) -> None:
        """Suspend every market and void its matches since the exposure; the window then runs out suspended."""
        self._incident_timer = self._incident = None
        plan, exposed = self.irregularity, self._exposed
        if plan is None or exposed is None:
            return
        (since, marks), self._exposed = exposed, None
        now = self._clock.now()
        self._suspend_in_window("a card exposed before its time")
        reason = f"card exposed before its time ({plan.irregularity.describe()})"
        for market in self._undecided():
            voided = list(market.port.void_matched_since(since, marks[market.market_id], reason, now))
            self._emit_to(market, *voided)
            matches = [e for e in voided if isinstance(e, MatchVoided)]
            self._emit_to(market, BetsVoided(plan.kind.rule, str(plan.kind), since, len(matches),
                                             sum(e.size for e in matches)))

    def _suspend_in_window(self, why: str) -> None:
        if self.suspended_for is None:
            for market in self._undecided():
                self._emit_to(market, *market.port.hold(self._clock.now()))
        if self.suspended_for is None or why.startswith("a card"):
            self.suspended_for = why

    def _announce(self, cards: tuple[Card, ...], outcome: str) -> None:
        plan = self.irregularity
        if plan is not None:
            dead = self._require_deal().public.out_of_play
            self._emit(IrregularityOccurred(plan.kind.rule, str(plan.kind), plan.irregularity.describe(), cards,
                                            outcome, self._clock.now(), dead))

    def _schedule_incident(self, at_ms: int, incident: Callable[[], None]) -> None:
        self._incident_timer, self._incident = self._clock.call_at(at_ms, incident), incident

    def _cancel_incident(self) -> None:
        if self._incident_timer is not None:
            self._incident_timer.cancel()
        self._incident_timer = self._incident = None

    # --- helpers ---------------------------------------------------------------------------

    def _undecided(self) -> list[GameMarket]:
        return [m for m in self.markets if not m.decided]

    def _emit(self, *events: object) -> None:
        """Publish game events under the game's (main) market id."""
        self._emit_to(self.main, *events)

    def _emit_to(self, market: GameMarket, *events: object) -> None:
        now = self._clock.now()
        for event in events:
            self._bus.publish(now, market.market_id, event)

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
        """Invariants of the phase, round, settled selections and cards. Raises :class:`~engine.InvariantError`."""
        if (self.round is None) != (self.phase is Phase.SCHEDULED) and self.phase is not Phase.VOID:
            raise InvariantError(f"game {self.market_id}: round {self.round} in phase {self.phase}")
        for market in self.markets:
            if not set(market.settled) <= set(range(1, market.selections + 1)):
                raise InvariantError(f"market {market.market_id}: settled selections {sorted(market.settled)} "
                                     f"of {market.selections}")
            if self.phase is Phase.FINISHED and (not market.winners or len(market.settled) != market.selections):
                raise InvariantError(f"market {market.market_id}: finished with winners {market.winners}, "
                                     f"settled {sorted(market.settled)} of {market.selections} selections")
        if self._deal is not None:
            deal = self._deal
            board = sum(step.board for step in deal.layout.steps[: deal.steps_done])
            if len(deal.public.board) != board:
                raise InvariantError(f"game {self.market_id}: {len(deal.public.board)} board cards after "
                                     f"{deal.steps_done} deals, which show {board}")
            in_play = {c for hand in deal.public.hands if hand is not None for c in hand} | set(deal.public.board)
            if in_play & set(deal.public.out_of_play):
                raise InvariantError(f"game {self.market_id}: cards out of play were dealt again: "
                                     f"{sorted(map(str, in_play & set(deal.public.out_of_play)))}")
        if self.phase is Phase.FINISHED:
            deal = self._require_deal()
            if deal.steps_done != len(deal.layout.steps):
                raise InvariantError(f"game {self.market_id}: finished after {deal.steps_done} of "
                                     f"{len(deal.layout.steps)} deals")
        if self._deal is not None and self.round is not None and self.phase is not Phase.VOID:
            due = self.round - (1 if self.phase is Phase.BETTING else 0)
            if self._deal.steps_done < due:
                raise InvariantError(f"game {self.market_id}: {self._deal.steps_done} deals in round "
                                     f"{self.round.name}, which shows {due}")
