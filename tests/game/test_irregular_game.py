"""Dealer irregularities in a running game and what they do to the bets on its market."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.irregularities import Irregularity, Kind
from exchange.agents.host import seat
from exchange.agents.house import MarketMaker, NoiseConfig, NoiseTrader
from exchange.clock import VirtualClock
from exchange.core.commands import PlaceOrder
from exchange.core.events import MarketOpened, MarketSuspended, MarketVoided, Matched, MatchVoided, OrderCancelled
from exchange.core.exchange import Exchange
from exchange.core.market import MarketStatus, SelectionStatus
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import HOLDEM
from exchange.game.deal import DeckSource, seeded_decks
from exchange.game.events import BoardTurned, DealRecorded, EventLog, GameEnded, WindowClosed, WindowOpened
from exchange.game.irregular import (
    PREMATURE_ROUND,
    BetsVoided,
    IrregularityOccurred,
    IrregularityPlan,
    scripted,
    seeded_irregularities,
)
from exchange.game.table import Game

BANKROLL = 100_000_000
BUSY_NOISE = NoiseConfig(trades_per_window=12, min_size=200, max_size=2_000, size_step=100)


def run_game(plan: IrregularityPlan | None, decks: DeckSource, *, noise: int = 2) -> tuple[Channel, EventLog, Game]:
    clock = VirtualClock()
    channel = Channel(HOLDEM, clock, Exchange(), decks=decks, irregularities=scripted({0: plan} if plan else {}))
    log = EventLog.attach(channel.bus)
    channel.open_account("maker", BANKROLL)
    seat(channel, MarketMaker(), "maker")
    for k in range(noise):
        channel.open_account(f"noise-{k}", BANKROLL)
        seat(channel, NoiseTrader(f"noise/{k}", BUSY_NOISE), f"noise-{k}")
    game = channel.start(games=1)
    clock.run()
    return channel, log, game


def deposits(channel: Channel) -> int:
    return BANKROLL * (1 + sum(1 for a in channel.exchange.accounts if a.startswith("noise-")))


def balances(channel: Channel) -> int:
    total = 0
    for account in channel.exchange.accounts:
        funds = channel.exchange.funds(account)
        assert funds is not None
        total += funds.balance
    return total


def events_of(log: EventLog, kind: type) -> list:
    return [s for s in log if isinstance(s.event, kind)]


def test_a_misdeal_voids_the_market_and_the_next_game_is_a_new_deal() -> None:
    plan = IrregularityPlan(Irregularity(Kind.EXPOSED_HOLE_CARDS, (0,)))
    clock = VirtualClock()
    channel = Channel(HOLDEM, clock, Exchange(), decks=seeded_decks(3), irregularities=scripted({0: plan}))
    log = EventLog.attach(channel.bus)
    channel.start(games=2)
    clock.run()
    occurred = log.of_type(IrregularityOccurred)
    assert [(e.rule, e.outcome) for e in occurred] == [(1, "misdeal")]
    assert [e.status for e in log.of_type(GameEnded)] == ["VOID", "SETTLED"]
    market = channel.exchange.markets.get("holdem.0")
    voided = log.of_type(MarketVoided)
    assert len(voided) == 1 and "misdeal" in voided[0].reason
    assert market is not None and market.status is MarketStatus.VOID  # (the exchange keeps it closed, not forgotten)
    record = [d.to for d in log.of_type(DealRecorded)[0].cards]
    assert record == ["seat 1", "seat 1 exposed", "misdeal"]


def test_an_exposed_hole_card_is_replaced_and_the_game_goes_on() -> None:
    plan = IrregularityPlan(Irregularity(Kind.EXPOSED_HOLE_CARDS, (6,)))
    _channel, log, game = run_game(plan, seeded_decks(4), noise=0)
    (occurred,) = log.of_type(IrregularityOccurred)
    assert occurred.outcome == "deal goes on" and len(occurred.cards) == 1
    exposed = occurred.cards[0]
    assert game.public.exposed == (exposed,)
    assert all(exposed not in hand for hand in game.public.visible_hands()) and exposed not in game.public.board
    assert [e.status for e in log.of_type(GameEnded)] == ["SETTLED"]
    assert game.public.to_dict()["exposed"] == str(exposed)


def test_a_premature_turn_voids_the_bets_matched_after_it_and_the_game_goes_on() -> None:
    plan = IrregularityPlan(Irregularity(Kind.PREMATURE_TURN), at_permille=300, notice_ms=4_000)
    channel, log, game = run_game(plan, seeded_decks(11))
    (occurred,) = events_of(log, IrregularityOccurred)
    flop_window = game.windows[2]
    assert occurred.at_ms == flop_window.opens_ms + 9_000 and occurred.event.outcome == "bets voided"
    (voided,) = log.of_type(BetsVoided)
    assert voided.since_ms == occurred.at_ms
    suspended = [s for s in events_of(log, MarketSuspended) if flop_window.opens_ms <= s.at_ms < flop_window.closes_ms]
    assert [s.at_ms for s in suspended] == [occurred.at_ms + 4_000]  # suspended on notice, not again at the close
    matched_after = [s.event for s in events_of(log, Matched) if s.at_ms >= occurred.at_ms
                     and s.at_ms < flop_window.closes_ms]
    assert matched_after, "the noise traders trade in the notice delay: the test must see some matches"
    voided_ids = {e.match_id for e in log.of_type(MatchVoided)}
    assert {m.match_id for m in matched_after} == voided_ids
    assert all(s.at_ms < occurred.at_ms + 4_000 for s in events_of(log, Matched)
               if flop_window.opens_ms <= s.at_ms < flop_window.closes_ms)
    # the would-be river is the turn; the set-aside card came back only for the river
    turned = [e.street for e in log.of_type(BoardTurned)]
    assert turned == ["flop", "turn", "river"] and len(game.public.board) == 5
    assert balances(channel) == deposits(channel)
    channel.exchange._check()


def test_too_many_flop_cards_are_shown_then_shuffled_back() -> None:
    plan = IrregularityPlan(Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=1), shuffle_seed="x")
    _channel, log, _game = run_game(plan, seeded_decks(2), noise=0)
    (occurred,) = events_of(log, IrregularityOccurred)
    flop = next(s for s in events_of(log, BoardTurned) if s.event.street == "flop")
    assert occurred.seq < flop.seq and len(occurred.event.cards) == 4
    assert occurred.event.outcome == "deal goes on" and not log.of_type(BetsVoided)


def test_the_seeded_rate_replays_and_chooses_every_rule() -> None:
    source = seeded_irregularities("s", 0.5)
    plans = [source(n) for n in range(400)]
    assert plans == [seeded_irregularities("s", 0.5)(n) for n in range(400)]
    assert 150 < sum(p is not None for p in plans) < 250
    assert {p.kind.rule for p in plans if p is not None} == {1, 2, 3, 4, 5}
    exposed = [p.irregularity for p in plans if p is not None and len(p.irregularity.cards) == 2]
    assert exposed and all(list(i.cards) == sorted(i.cards) for i in exposed)  # in dealing order, as they are read
    assert all(i.describe().startswith(f"rule 1: exposed-hole-cards at card {i.cards[0] + 1}, ") for i in exposed)


irregular_plans = st.builds(
    IrregularityPlan,
    st.one_of(
        st.builds(lambda c: Irregularity(Kind.EXPOSED_HOLE_CARDS, tuple(c)),
                  st.lists(st.integers(0, 7), min_size=1, max_size=2, unique=True)),
        st.builds(lambda n: Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=n), st.integers(1, 2)),
        st.sampled_from([Irregularity(k) for k in PREMATURE_ROUND]),
        st.builds(lambda n: Irregularity(Kind.EXTRA_CARDS, count=n), st.integers(1, 2)),
    ),
    st.integers(0, 999),
    st.sampled_from([0, 500, 3_000, 40_000]),
    st.integers(0, 99),
)


def visible_too_early(log: EventLog, game: Game) -> Sequence[tuple[int, int]]:
    """The spans in which a card was seen before its time while bets could match: from an exposure made
    while the market was open (judged from the market's own open/suspend events) to that window's close."""
    spans = []
    active = False
    for stamped in log:
        if isinstance(stamped.event, MarketOpened | MarketSuspended):
            active = isinstance(stamped.event, MarketOpened)
        elif isinstance(stamped.event, IrregularityOccurred) and active:
            window = next(w for w in game.windows if w.opens_ms <= stamped.at_ms < w.closes_ms)
            spans.append((stamped.at_ms, window.closes_ms))
    return spans


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=irregular_plans, seed=st.integers(0, 10**6))
def test_no_bet_stays_matched_while_a_card_was_seen_early_and_money_is_conserved(
    plan: IrregularityPlan, seed: int
) -> None:
    channel, log, game = run_game(plan, seeded_decks(seed))
    assert game.over
    voided = {e.match_id for e in log.of_type(MatchVoided)}
    if plan.irregularity.misdeal:
        assert [e.status for e in log.of_type(GameEnded)] == ["VOID"]
        assert not log.of_type(WindowOpened) and not log.of_type(Matched)
    for start, end in visible_too_early(log, game):
        for stamped in events_of(log, Matched):
            if start <= stamped.at_ms < end:
                assert stamped.event.match_id in voided, f"match {stamped.event} kept though a card was seen"
    if not plan.irregularity.kind.premature:
        assert not voided  # nothing seen in a window: no bet is voided
    # the cards in play are 13 distinct cards, none of those seen early in a hand
    seen = {c for e in log.of_type(IrregularityOccurred) for c in e.cards}
    if game.phase.value == "FINISHED":
        hole = {c for hand in game.public.visible_hands() for c in hand}
        assert not seen & hole and len(hole | set(game.public.board)) == 13
    assert balances(channel) == deposits(channel)
    assert not [e for e in log.of_type(OrderCancelled) if e.size <= 0]  # every cancel cancels a remainder
    assert log.of_type(WindowClosed) or plan.irregularity.misdeal
    channel.exchange._check()


def test_a_match_in_the_millisecond_a_card_is_exposed_is_voided_only_if_it_came_after_the_card() -> None:
    """"Every bet matched after the exposure": what came first is the exchange's order of events, not the clock's
    millisecond, which two matches and the exposure can share (timers due at the same moment, a busy server)."""
    plan = IrregularityPlan(Irregularity(Kind.PREMATURE_TURN), at_permille=300, notice_ms=4_000)
    clock = VirtualClock()
    channel = Channel(HOLDEM, clock, Exchange(), decks=seeded_decks(11), irregularities=scripted({0: plan}))
    log = EventLog.attach(channel.bus)
    for name in ("al", "bo"):
        channel.open_account(name, BANKROLL)
    game = channel.start(games=1)
    exposed_ms = game.windows[2].opens_ms + 9_000  # 30 % into the Flop window
    matched: dict[str, int] = {}

    def cross(label: str) -> None:
        market = channel.exchange.markets["holdem.0"]
        selection = next(s for s, status in zip(market.selection_ids, market.selection_status, strict=True)
                         if status is SelectionStatus.IN_PLAY)
        events: list[object] = []
        for account, side in (("al", Side.BACK), ("bo", Side.LAY)):
            events += channel.exchange.execute(
                PlaceOrder(clock.now(), account, "holdem.0", selection, side, Decimal("3"), 500))
        (match,) = [e for e in events if isinstance(e, Matched)]
        matched[label] = match.match_id

    def before_the_card() -> None:  # due with the exposure, queued before it
        cross("before")
        clock.call_at(exposed_ms, lambda: cross("after"))  # due at the same moment, queued behind the exposure

    clock.call_at(exposed_ms, before_the_card)
    clock.run()
    (occurred,) = events_of(log, IrregularityOccurred)
    assert occurred.at_ms == exposed_ms and occurred.event.outcome == "bets voided"
    voided = {e.match_id for e in log.of_type(MatchVoided)}
    assert matched["after"] in voided and matched["before"] not in voided
    assert balances(channel) == 2 * BANKROLL
    channel.exchange._check()
