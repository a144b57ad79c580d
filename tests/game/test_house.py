"""House liquidity: quotes bracket the exact fair price, a newcomer can match, the house never overdraws."""

from __future__ import annotations

import pytest

from exchange.agents.house import (
    MAKER_ACCOUNT,
    NOISE_ACCOUNT,
    MakerDesk,
    NoiseConfig,
    seat_house_makers,
    seat_noise_traders,
)
from exchange.agents.view import bettor_view
from exchange.clock import VirtualClock
from exchange.core import ladder
from exchange.core.events import LapseReason, Matched, OrderLapsed, OrderPlaced, OrderRejected
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import CHANNELS
from exchange.game.deal import seeded_decks
from exchange.game.events import EventLog
from exchange.game.rounds import Round
from tests.game.helpers import make_channel, place


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_maker_quotes_bracket_the_fair_price_in_every_window(seed: int) -> None:
    channel, clock, _ = make_channel(seeded_decks(seed), makers=1)
    game = channel.start(at_ms=0, games=1)
    checked = 0
    for window in game.windows:
        clock.run(until_ms=window.opens_ms + 1)
        view = bettor_view(channel, "alice")
        assert view is not None
        if not view.betting_open:
            break  # settled early
        for hand in view.live_hands:
            fair = hand.fair_odds
            assert fair is not None and hand.equity < 1
            back, lay = hand.best_to_back, hand.best_to_lay
            # Betfair's ladder: available to back ≤ fair ≤ available to lay (the maker earns the spread), both
            # sides quoted (none of these deals' fair prices is at the ladder's end).
            assert back is not None and lay is not None, (hand, fair)
            assert ladder.PRICE_X100[back] <= fair * 100
            assert back >= (ladder.tick_at_or_below(fair) or 0) - 2  # within a few ticks
            assert ladder.PRICE_X100[lay] >= fair * 100
            assert lay <= (ladder.tick_at_or_above(fair) or ladder.MAX_TICK) + 2
            checked += 1
    clock.run()
    assert checked >= 8


def quoted(tick: int | None) -> str | None:
    """A best price as text; None where the book quotes none."""
    return None if tick is None else ladder.price_str(tick)


def test_deal_window_fair_price_is_four_for_every_hand() -> None:
    channel, clock, _ = make_channel(seeded_decks(5), makers=1)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=100)
    view = bettor_view(channel)
    assert view is not None and view.round is Round.DEAL
    assert {h.fair_odds for h in view.hands} == {4}
    assert {(quoted(h.best_to_back), quoted(h.best_to_lay)) for h in view.hands} == {
        ("3.95", "4.1")
    }


@pytest.mark.parametrize("size", [200, 1_000, 5_000])
def test_a_newcomer_matches_two_to_fifty_within_a_few_ticks_of_fair(size: int) -> None:
    channel, clock, log = make_channel(seeded_decks(11), makers=1, noise=2)
    channel.start(at_ms=0, games=1)
    for rnd in (Round.DEAL, Round.PREFLOP, Round.FLOP, Round.TURN):  # Hold'em's four windows
        game = channel.game()
        assert game is not None
        if game.over:
            break
        clock.run(until_ms=game.windows[rnd - 1].opens_ms + 5_000)
        view = bettor_view(channel, "alice")
        assert view is not None
        if not view.betting_open:
            continue
        for hand in view.live_hands:
            if hand.fair_odds is None or hand.equity == 1:
                continue
            for side, tick in ((Side.BACK, hand.best_to_back), (Side.LAY, hand.best_to_lay)):
                if tick is None:
                    continue
                fair_tick = ladder.nearest_tick(hand.fair_odds)
                assert abs(tick - fair_tick) <= 3, (hand.hand, side, tick, fair_tick)
                placed = place(channel, "alice", hand.hand, side, str(ladder.price(tick)), size, int(rnd))
                assert isinstance(placed, OrderPlaced)
                order = channel.exchange.order_view("alice", placed.bet_id)
                assert order is not None and order.size_matched == size, (rnd, hand.hand, side)
                clock.run(until_ms=clock.now() + 10)  # the maker requotes after its fill
    clock.run()
    assert any(isinstance(s.event, Matched) for s in log)


def test_the_house_never_runs_into_insufficient_funds() -> None:
    channel, clock, log = make_channel(seeded_decks(21), makers=2, noise=3)
    channel.start(at_ms=0, games=4)
    clock.run()
    assert channel.games_finished == 4
    rejected = [s.event for s in log if isinstance(s.event, OrderRejected)]
    assert not [r for r in rejected if r.account_id.startswith("house-maker")], rejected[:3]
    fills = [s.event for s in log if isinstance(s.event, Matched)]
    assert fills, "the noise traders should have traded with the makers"
    funds = channel.exchange.funds("house-maker-0")
    assert funds is not None and funds.exposure == 0


def test_a_sampled_equity_is_quoted_wider_by_its_standard_error() -> None:
    from fractions import Fraction

    from exchange.agents.house import MakerConfig, desired_quotes
    from exchange.agents.view import BettorView, build_hands
    from exchange.core.market import MarketStatus
    from exchange.game.prospects import Prospects

    exact = Prospects.from_counts(100, [25] * 4, [0] * 4, [25] * 4)
    sampled = Prospects.from_counts(100, [25] * 4, [0] * 4, [25] * 4, exact=False)
    assert sampled.hands[0].stderr is not None and sampled.hands[0].stderr > Fraction(4, 100)

    def inner(prospects: Prospects) -> tuple[int, int]:
        hands = build_hands((None,) * 4, prospects.hands, None)
        view = BettorView("stud7", "stud7.0", 0, 0, Round.DEAL, None, True, MarketStatus.ACTIVE, hands, ())
        quotes = desired_quotes(view, MakerConfig())
        lay = max(t for (h, s, t) in quotes if h == 1 and s is Side.LAY)
        back = min(t for (h, s, t) in quotes if h == 1 and s is Side.BACK)
        return lay, back

    (exact_lay, exact_back), (wide_lay, wide_back) = inner(exact), inner(sampled)
    assert wide_lay < exact_lay and wide_back > exact_back  # both sides further from the fair 4.0
    stderr = sampled.hands[0].stderr
    assert Fraction(ladder.PRICE_X100[wide_lay], 100) <= 1 / (Fraction(1, 4) + 2 * stderr)  # odds of p + 2 se
    assert Fraction(ladder.PRICE_X100[wide_back], 100) >= 1 / (Fraction(1, 4) - 2 * stderr)  # odds of p - 2 se


def test_a_hand_the_sample_never_saw_win_is_quoted_by_its_error_and_one_proven_lost_is_not() -> None:
    """A Monte Carlo that never dealt a hand's win is not the cards: the hand (1/496 to win, say) is live, so the
    house lays it at the long odds its error band allows and offers no back (it was published as dead, and not
    quoted); one the sample saw win every deal is backed short, not laid. A hand the cards decide is not quoted."""
    from fractions import Fraction

    from exchange.agents.house import LADDER as PRICES
    from exchange.game.pricing import NO_QUOTE, QuoteSpec, quote_ticks
    from exchange.game.prospects import Prospects

    sampled = Prospects.from_counts(3_000, (2_000, 1_000, 0), (0, 0, 0), (2_000, 1_000, 0), exact=False)
    never = sampled.hands[2]
    assert never.equity == 0 and never.stderr is not None and never.stderr > 0
    spec = QuoteSpec(margin_ticks=1, levels=2)
    quoted = quote_ticks(PRICES, never.equity, spec, never.stderr)
    assert quoted.lay_ticks and not quoted.back_ticks  # the house lays it, long: it may yet win
    assert PRICES[quoted.lay_ticks[0]] <= 1 / (2 * never.stderr)  # at most the odds of two errors' equity
    assert quote_ticks(PRICES, Fraction(0), spec) is NO_QUOTE  # exact: the cards beat it
    always = quote_ticks(PRICES, Fraction(1), spec, never.stderr)
    assert always.back_ticks and not always.lay_ticks
    assert quote_ticks(PRICES, Fraction(1), spec) is NO_QUOTE


def test_a_hi_lo_games_two_makers_share_one_account_without_overdrawing_it() -> None:
    """One account quotes the High and the Low market; with a bankroll too small to quote both in full, each
    maker must budget what the other has already sent, so the house still never meets INSUFFICIENT_FUNDS."""
    clock = VirtualClock()
    channel = Channel(CHANNELS["omaha-hilo"], clock, Exchange(), decks=seeded_decks(5))
    log = EventLog.attach(channel.bus)
    channel.open_account(MAKER_ACCOUNT, 300_000)  # 3,000.00: less than the two markets' quotes would tie up
    seat_house_makers(channel, MAKER_ACCOUNT)
    channel.open_account(NOISE_ACCOUNT, 10_000_000)
    seat_noise_traders(channel, NOISE_ACCOUNT, "hi-lo")
    channel.start(at_ms=0, games=1)
    clock.run()
    placed = {s.market_id for s in log if isinstance(s.event, OrderPlaced) and s.event.account_id == MAKER_ACCOUNT}
    assert placed == {"omaha-hilo.0", "omaha-hilo.0-low"}
    rejected = [s.event for s in log if isinstance(s.event, OrderRejected) and s.event.account_id == MAKER_ACCOUNT]
    assert rejected == []
    funds = channel.exchange.funds(MAKER_ACCOUNT)
    assert funds is not None and funds.exposure == 0


def test_makers_of_one_desk_take_turns_whichever_channel_opens_its_window_first() -> None:
    """Three channels on one exchange and one desk, seated in the reverse of the order their windows open: the
    last maker seated quotes first, and the two waiting for its orders to land must still go one at a time, so
    the second budgets what the first has just sent and the house never meets INSUFFICIENT_FUNDS."""
    clock = VirtualClock()
    exchange = Exchange()
    channels = [Channel(CHANNELS[name], clock, exchange, decks=seeded_decks(i))
                for i, name in enumerate(("holdem", "omaha", "telesina"))]
    logs = [EventLog.attach(channel.bus) for channel in channels]
    channels[0].open_account(MAKER_ACCOUNT, 100_000)  # 1,000.00: far less than three markets' quotes would tie up
    desk = MakerDesk()
    for channel in reversed(channels):
        seat_house_makers(channel, MAKER_ACCOUNT, desk=desk)
    for channel in channels:
        channel.start(at_ms=0, games=1)
    clock.run()
    stamped = [s for log in logs for s in log]
    rejected = [s.event for s in stamped if isinstance(s.event, OrderRejected) and s.event.account_id == MAKER_ACCOUNT]
    assert rejected == []
    placed = {s.market_id for s in stamped if isinstance(s.event, OrderPlaced) and s.event.account_id == MAKER_ACCOUNT}
    assert placed == {"holdem.0", "omaha.0", "telesina.0"}


def test_a_noise_trader_short_of_funds_bets_within_them_and_stops_when_they_run_out() -> None:
    """The house's noise traders share one account across channels and markets: one low on money sizes its bets
    to what it has, and once it cannot afford the minimum stake it sends nothing the exchange must refuse."""
    clock, exchange = VirtualClock(), Exchange()
    channels = [Channel(CHANNELS[name].with_times(2_000, 100), clock, exchange, decks=seeded_decks(f"poor/{name}"))
                for name in ("holdem", "omaha-hilo")]
    logs = [EventLog.attach(channel.bus) for channel in channels]
    for n, channel in enumerate(channels):
        channel.open_account(MAKER_ACCOUNT, 0 if n else 10**9)
        seat_house_makers(channel, MAKER_ACCOUNT)
        channel.open_account(NOISE_ACCOUNT, 0 if n else 5_000)  # 50.00 for every channel and market
        seat_noise_traders(channel, NOISE_ACCOUNT, f"poor/{n}")
        channel.start(at_ms=0, games=6)
    clock.run()
    events = [s.event for log in logs for s in log]
    assert [e for e in events if isinstance(e, OrderRejected) and e.account_id == NOISE_ACCOUNT] == []
    assert any(isinstance(e, Matched) and NOISE_ACCOUNT in (e.back_account_id, e.lay_account_id) for e in events)
    funds = exchange.funds(NOISE_ACCOUNT)
    assert funds is not None and funds.balance >= 0 and funds.exposure == 0


def test_the_maker_quotes_again_when_an_operator_resumes_the_market_inside_its_window() -> None:
    """An operator's suspension lapses every resting order; once the market is resumed in the same window, the house
    must quote it again (a trader would otherwise meet an empty book until the next reveal)."""
    channel, clock, _ = make_channel(seeded_decks(5), config=CHANNELS["holdem"].with_times(2_000, 100))
    game = channel.start(at_ms=0, games=1)
    clock.run(until_ms=game.windows[1].opens_ms + 500)

    def resting() -> int:
        return len(channel.exchange.current_orders("house-maker-0", game.market_id, live_only=True))

    quoted = resting()
    assert quoted > 0
    game.operator_suspend("price feed down")
    clock.run(until_ms=clock.now() + 200)
    assert resting() == 0
    game.operator_resume()
    clock.run(until_ms=clock.now() + 200)
    assert game.round == Round.PREFLOP and resting() == quoted


def test_what_an_operator_suspends_lapses_as_suspended_and_what_the_window_close_lapses_as_closed() -> None:
    """The journal (and ``exchange-poker journal``) says why each unmatched bet lapsed: the house's quotes taken off
    by an operator's suspension inside the window lapse ``MARKET_SUSPENDED``, those quoted again after the resume
    lapse ``WINDOW_CLOSED`` when the window closes."""
    channel, clock, log = make_channel(seeded_decks(5), config=CHANNELS["holdem"].with_times(2_000, 100))
    game = channel.start(at_ms=0, games=1)
    window = game.windows[1]
    clock.run(until_ms=window.opens_ms + 500)
    game.operator_suspend("price feed down")
    suspended_ms = clock.now()
    clock.run(until_ms=suspended_ms + 200)
    game.operator_resume()
    clock.run(until_ms=window.closes_ms)
    lapsed = [(s.at_ms, s.event.reason) for s in log if isinstance(s.event, OrderLapsed) and s.at_ms > window.opens_ms]
    assert {reason for at, reason in lapsed if at == suspended_ms} == {LapseReason.MARKET_SUSPENDED}
    assert {reason for at, reason in lapsed if at == window.closes_ms} == {LapseReason.WINDOW_CLOSED}
    assert {at for at, _ in lapsed} == {suspended_ms, window.closes_ms}


def test_a_noise_trader_trades_a_window_resumed_by_an_operator_no_more_often_than_any_other() -> None:
    """A resume reopens the same window: the noise trader's moments for it are still to come, so it must not draw
    another window's worth on top (each suspension and resume would add ``trades_per_window`` more trades)."""
    channel, clock, log = make_channel(seeded_decks(5), config=CHANNELS["holdem"].with_times(2_000, 100))
    seat_house_makers(channel, MAKER_ACCOUNT)
    channel.open_account(NOISE_ACCOUNT, 10**7)
    seat_noise_traders(channel, NOISE_ACCOUNT, "resumed")
    game = channel.start(at_ms=0, games=1)
    window = game.windows[1]
    clock.run(until_ms=window.opens_ms + 10)
    for _ in range(3):  # an operator toggles the market three times early in the window
        game.operator_suspend("price feed down")
        clock.run(until_ms=clock.now() + 1)
        game.operator_resume()
        clock.run(until_ms=clock.now() + 1)
    clock.run(until_ms=window.closes_ms)
    placed = [s for s in log if isinstance(s.event, OrderPlaced) and s.event.account_id == NOISE_ACCOUNT
              and window.opens_ms <= s.at_ms < window.closes_ms]
    assert 0 < len(placed) <= NoiseConfig().trades_per_window
