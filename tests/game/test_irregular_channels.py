"""Dealer irregularities and operator actions on the twelve channels: Hold'em-dealt layouts only, every market."""

from __future__ import annotations

import random

import pytest

from engine.dealer import Dealer
from engine.irregularities import Irregularity, Kind
from exchange.agents.house import NoiseConfig, seat_house_makers, seat_noise_traders
from exchange.clock import VirtualClock
from exchange.core.events import MarketOpened, MarketSuspended, MarketVoided, Matched, MatchVoided
from exchange.core.exchange import Exchange
from exchange.core.market import MarketStatus
from exchange.game.channel import Channel
from exchange.game.channels import CHANNELS
from exchange.game.deal import GameDeal, seeded_decks
from exchange.game.events import EventLog, GameEnded
from exchange.game.irregular import BetsVoided, IrregularityOccurred, IrregularityPlan, scripted
from exchange.game.layouts import LAYOUTS
from exchange.game.table import Game, GameStateError

BANKROLL = 100_000_000
BUSY_NOISE = NoiseConfig(trades_per_window=12, min_size=200, max_size=2_000, size_step=100)
HOLDEM_DEALT = {"holdem", "omaha", "omaha-hilo"}


def test_only_hold_em_dealt_layouts_have_streets() -> None:
    assert {name for name, layout in LAYOUTS.items() if layout.holdem_streets} == HOLDEM_DEALT


@pytest.mark.parametrize("variant", sorted(set(LAYOUTS) - HOLDEM_DEALT))
def test_a_deal_refuses_an_irregularity_its_layout_does_not_fit(variant: str) -> None:
    with pytest.raises(ValueError, match=f"Hold'em dealing error; {variant} is not dealt"):
        GameDeal(Dealer.shuffled(random.Random(1)), hands=2, layout=LAYOUTS[variant],
                 irregularity=Irregularity(Kind.PREMATURE_FLOP))


def test_an_omaha_deal_takes_an_exposed_hole_card() -> None:
    deal = GameDeal(seeded_decks(5)(0), hands=4, layout=LAYOUTS["omaha"],
                    irregularity=Irregularity(Kind.EXPOSED_HOLE_CARDS, (9,)))
    assert deal.misdeal is None and len(deal.public.exposed) == 1
    deal.turn_hole_cards()
    hands = deal.public.visible_hands()
    assert [len(h) for h in hands] == [4, 4, 4, 4] and deal.public.exposed[0] not in {c for h in hands for c in h}
    flop = deal.deal_next().board  # the exposed card was the burn: the flop comes without one of its own
    assert len(flop) == 3 and [d.to for d in deal.record()][-5:] == ["seat 2", "burn", "board", "board", "board"]


def test_a_channel_refuses_irregularities_for_a_stud_game() -> None:
    with pytest.raises(ValueError, match=r"stud7.*dealer irregularities apply only"):
        Channel(CHANNELS["stud7"], VirtualClock(), Exchange(), decks=seeded_decks(1),
                irregularities=scripted({}))


def hilo_channel(plan: IrregularityPlan | None, seed: int) -> tuple[VirtualClock, Channel, EventLog]:
    clock = VirtualClock()
    channel = Channel(CHANNELS["omaha-hilo"], clock, Exchange(), decks=seeded_decks(seed),
                      irregularities=scripted({0: plan} if plan else {}))
    log = EventLog.attach(channel.bus)
    channel.open_account("house", BANKROLL)
    seat_house_makers(channel, "house")
    channel.open_account("noise", BANKROLL)
    traders = seat_noise_traders(channel, "noise", "noise", BUSY_NOISE)  # one per market
    assert len(traders) == 2
    return clock, channel, log


def total_balance(channel: Channel) -> int:
    total = 0
    for account in channel.exchange.accounts:
        funds = channel.exchange.funds(account)
        assert funds is not None
        total += funds.balance
    return total


def test_a_misdeal_voids_both_markets_of_a_hi_lo_game() -> None:
    clock, channel, log = hilo_channel(IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=2)), 3)
    channel.start(games=1)
    clock.run()
    assert sorted(s.event.market_id for s in log if isinstance(s.event, MarketVoided)) == ["omaha-hilo.0",
                                                                                           "omaha-hilo.0-low"]
    assert [e.status for e in log.of_type(GameEnded)] == ["VOID"]
    assert [e.outcome for e in log.of_type(IrregularityOccurred)] == ["misdeal"]
    assert total_balance(channel) == 2 * BANKROLL


def test_an_early_turn_voids_the_matches_since_it_on_both_markets() -> None:
    plan = IrregularityPlan(Irregularity(Kind.PREMATURE_TURN), at_permille=300, notice_ms=4_000)
    clock, channel, log = hilo_channel(plan, 11)
    game = channel.start(games=1)
    clock.run()
    (occurred,) = [s for s in log if isinstance(s.event, IrregularityOccurred)]
    flop = game.windows[2]
    ids = ("omaha-hilo.0", "omaha-hilo.0-low")
    after = {s.event.match_id: s.market_id for s in log if isinstance(s.event, Matched)
             and occurred.at_ms <= s.at_ms < flop.closes_ms}
    voided = {s.event.match_id: s.market_id for s in log if isinstance(s.event, MatchVoided)}
    assert set(after.values()) == set(ids), "the noise traders trade both markets in the notice delay"
    assert voided == after
    notes = {s.market_id: s.event for s in log if isinstance(s.event, BetsVoided)}
    assert set(notes) == set(ids)
    assert all(n.matches == sum(1 for m in voided.values() if m == market) for market, n in notes.items())
    suspended = sorted(s.event.market_id for s in log if isinstance(s.event, MarketSuspended)
                       and s.at_ms == occurred.at_ms + 4_000)
    assert suspended == list(ids)
    assert total_balance(channel) == 2 * BANKROLL
    channel.exchange._check()


def live_hilo_game() -> tuple[VirtualClock, Channel, Game, EventLog]:
    clock, channel, log = hilo_channel(None, 7)
    game = channel.start(games=1)
    clock.run(until_ms=game.windows[1].opens_ms + 1_000)
    assert game.round == 2 and game.phase == "BETTING"
    return clock, channel, game, log


def test_an_operator_suspends_and_resumes_every_market_of_the_game() -> None:
    clock, channel, game, log = live_hilo_game()
    ids = [m.market_id for m in game.markets]
    low = channel.game("omaha-hilo.0-low")
    assert low is game
    game.operator_suspend("feed down")
    assert [channel.exchange.markets[m].status for m in ids] == [MarketStatus.SUSPENDED] * 2
    with pytest.raises(GameStateError, match="only an open market can be suspended"):
        game.operator_suspend("again")
    clock.run(until_ms=clock.now() + 1_000)
    opened_before = len([s for s in log if isinstance(s.event, MarketOpened)])
    game.operator_resume()
    assert [channel.exchange.markets[m].status for m in ids] == [MarketStatus.ACTIVE] * 2
    assert len([s for s in log if isinstance(s.event, MarketOpened)]) == opened_before + 2
    game.operator_void("fault")
    clock.run()
    assert sorted(s.event.market_id for s in log if isinstance(s.event, MarketVoided)) == ids
    assert total_balance(channel) == 2 * BANKROLL


@pytest.mark.parametrize("hands", [2, 3])
def test_the_seeded_rate_exposes_only_hole_cards_a_short_handed_deal_has(hands: int) -> None:
    """A two- or three-hand Hold'em deal has 4 or 6 hole cards: every exposure the seeded rate places is one of
    them, and a channel dealing the games that expose the highest positions plays them to the end."""
    from dataclasses import replace

    from exchange.game.irregular import seeded_irregularities

    hole = 2 * hands
    source = seeded_irregularities("short", 1.0, hole_cards=hole)
    plans = [source(n) for n in range(200)]
    exposed = [max(p.irregularity.cards) for p in plans if p is not None and p.kind is Kind.EXPOSED_HOLE_CARDS]
    assert len(exposed) > 20 and max(exposed) == hole - 1
    first_high = next(n for n, p in enumerate(plans)
                      if p is not None and p.kind is Kind.EXPOSED_HOLE_CARDS and max(p.irregularity.cards) == hole - 1)
    plan = plans[first_high]
    assert plan is not None
    clock = VirtualClock()
    channel = Channel(replace(CHANNELS["holdem"], hands=hands), clock, Exchange(), decks=seeded_decks(5),
                      irregularities=scripted({0: plan}))
    log = EventLog.attach(channel.bus)
    channel.start(games=1)
    clock.run()
    status = "VOID" if plan.irregularity.misdeal else "SETTLED"
    assert [s.event.status for s in log if isinstance(s.event, GameEnded)] == [status]


def test_the_seeded_rate_exposes_every_hole_card_of_a_full_table_by_default() -> None:
    from exchange.game.irregular import seeded_irregularities

    plans = [seeded_irregularities("s", 0.5)(n) for n in range(200)]
    exposed = {c for p in plans if p is not None and p.kind is Kind.EXPOSED_HOLE_CARDS for c in p.irregularity.cards}
    assert exposed == set(range(8))
