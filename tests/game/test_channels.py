"""Every channel plays whole games on the virtual clock; every selection's result is judged by a showdown.

The judge is :func:`engine.showdown.showdown` on the final cards, which shares no
code with the equity kernels that settle the game early; bets are checked one
by one (a back wins exactly when its selection is among the winners).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.cards import Card, parse_cards
from engine.dealer import Dealer
from engine.showdown import showdown
from exchange.agents.host import seat
from exchange.agents.house import NoiseTrader, seat_house_makers
from exchange.clock import VirtualClock
from exchange.core.events import MarketSettled, OrderPlaced, SelectionSettled
from exchange.core.exchange import Exchange
from exchange.core.orders import BetOutcome
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import CHANNELS, ChannelConfig
from exchange.game.deal import DeckSource, arrange_game_deck, fixed_decks, seeded_decks
from exchange.game.events import DrawMade, EventLog, HandsCannotWin, ResultDeclared
from exchange.game.layouts import MarketKind
from exchange.game.table import Game
from tests.game.helpers import HOUSE_BANKROLL, USER_BANKROLL

FAST = 2_000  # betting window (ms) of these tests: the clock is virtual, only the order of things matters


def play(config: ChannelConfig, decks: DeckSource, games: int) -> tuple[Channel, EventLog, list[Game]]:
    """Run ``games`` games with the house maker on every market and a noise trader on each."""
    clock = VirtualClock()
    channel = Channel(config.with_times(FAST, 500), clock, Exchange(), decks=decks)
    log = EventLog.attach(channel.bus)
    played: list[Game] = []
    channel.on_new_game(played.append)
    channel.open_account("house", HOUSE_BANKROLL)
    seat_house_makers(channel, "house")
    for k, kind in enumerate(config.markets):
        channel.open_account(f"noise-{k}", USER_BANKROLL)
        seat(channel, NoiseTrader(seed=k), f"noise-{k}", market=None if k == 0 else kind)
    channel.start(at_ms=0, games=games)
    clock.run()
    channel.exchange._check()
    return channel, log, played


def judged_winners(game: Game) -> dict[str, tuple[int, ...]]:
    """Each market's winners by an independent showdown of the game's final cards (selections from 1)."""
    public = game.public
    result = showdown(game.config.variant, list(public.visible_hands()), list(public.board))
    out = {game.markets[0].market_id: tuple(i + 1 for i in result.high.winners)}
    if len(game.markets) > 1:
        no_low = game.config.hands + 1
        low = (no_low,) if result.low is None else tuple(i + 1 for i in result.low.winners)
        out[game.markets[1].market_id] = low
    return out


def check_against_showdown(log: EventLog, games: Sequence[Game]) -> None:
    sides = {e.bet_id: e.side for e in log.of_type(OrderPlaced)}
    declared = {s.market_id: s.event.winners for s in log if isinstance(s.event, ResultDeclared)}
    settled = {e.market_id: e for e in log.of_type(MarketSettled)}
    bets = [b for e in log.of_type(MarketSettled, SelectionSettled)
            if isinstance(e, MarketSettled | SelectionSettled) for b in e.bets]
    winners_of = {}
    for game in games:
        for market_id, winners in judged_winners(game).items():
            assert declared[market_id] == winners, market_id
            assert settled[market_id].winners == winners
            winners_of[market_id] = winners
    market_of = {e.bet_id: e.market_id for e in log.of_type(OrderPlaced)}
    for bet in bets:
        won = (bet.selection_id in winners_of[market_of[bet.bet_id]]) != (sides[bet.bet_id] is Side.LAY)
        assert bet.outcome is (BetOutcome.WON if won else BetOutcome.LOST)
    for e in log.of_type(MarketSettled):
        assert sum(a.profit for a in e.accounts) + e.rounding == 0


@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_every_channel_settles_as_the_showdown_says(name: str) -> None:
    config = CHANNELS[name]
    channel, log, games = play(config, seeded_decks(f"channels/{name}"), games=2)
    assert channel.games_finished == 2
    check_against_showdown(log, games)
    for game in games:
        assert game.public.hole_cards_visible and len(game.public.visible_hands()[0]) == config.hole_cards
        game._check()
    traded = {e.market_id for e in log.of_type(OrderPlaced)}
    assert {m for g in games for m in config.market_ids(g.number)} <= traded  # the house quoted every market


def _seats(*hands: str) -> list[tuple[Card, ...]]:
    return [parse_cards(h) for h in hands]


def test_stud_dead_heat_pays_both_hands() -> None:
    # Hands 1 and 2 both make a six-high straight; 3 and 4 hold less.
    seats = _seats("2c 3d Kh 4s 5c 6d 9h", "2d 3c Ks 4h 5d 6c 9s", "Ac Qd Jh 8s 7c Td 4d", "Ah Qs Js 8c 7d Tc 4c")
    deck = arrange_game_deck(CHANNELS["stud7"].layout, seats)
    _, log, games = play(CHANNELS["stud7"], fixed_decks([deck]), games=1)
    (result,) = log.of_type(ResultDeclared)
    assert result.winners == (1, 2)
    check_against_showdown(log, games)


def test_stud_hilo_with_no_low_pays_no_low_and_settles_it_early_where_it_can() -> None:
    # Nobody can make an eight-or-better low: "No low" (selection 5) wins the Low market.
    seats = _seats("Kc Kd Qh Js Tc 9d 9h", "Qc Qd Jh Ts 9c Kh 8s", "Jc Jd Th 9s Ks Qs 3s", "Ac Ad Td 8c 8d 7c 2c")
    deck = arrange_game_deck(CHANNELS["stud7-hilo"].layout, seats)
    _, log, games = play(CHANNELS["stud7-hilo"], fixed_decks([deck]), games=1)
    low_id = games[0].markets[1].market_id
    low_results = [s.event for s in log if isinstance(s.event, ResultDeclared) and s.market_id == low_id]
    assert [r.winners for r in low_results] == [(5,)]
    cannot = [s.event.hands for s in log if isinstance(s.event, HandsCannotWin) and s.market_id == low_id]
    assert cannot and set(cannot[0]) == {1, 2, 3}  # three high cards of their first three: no five low ranks
    check_against_showdown(log, games)


def test_stud_hilo_no_low_loses_once_a_low_is_made() -> None:
    # Hand 1 holds A-2-3-4-5 by 5th street: "No low" loses at that reveal, before 7th street; so does hand 4
    # (2, 7, 6 and two cards to come), which may still make a low but never one as good: hand 1 has won the
    # Low market then (hands 2 and 3 went at the Deal close: too few low ranks).
    seats = _seats("As 2d 3h 4c 5s Kd Kh", "Kc Qd Jh Ts 9c 9h 9s", "Qc Qs Jd Td 8c 8h 7s", "Jc Js 2h 7d 6c 6h Ad")
    deck = arrange_game_deck(CHANNELS["stud7-hilo"].layout, seats)
    _, log, games = play(CHANNELS["stud7-hilo"], fixed_decks([deck]), games=1)
    low_id = games[0].markets[1].market_id
    windows = games[0].windows
    cannot = [(s.at_ms, s.event.hands) for s in log if isinstance(s.event, HandsCannotWin) and s.market_id == low_id]
    assert cannot == [(windows[0].closes_ms, (2, 3))]
    (low,) = [s for s in log if isinstance(s.event, ResultDeclared) and s.market_id == low_id]
    assert isinstance(low.event, ResultDeclared) and low.event.winners == (1,) and low.event.early
    assert low.at_ms == windows[2].closes_ms  # the 4th-street window's close deals 5th street
    no_low = [s for s in log if isinstance(s.event, MarketSettled) and s.market_id == low_id]
    assert [s.at_ms for s in no_low] == [windows[2].closes_ms]
    check_against_showdown(log, games)


def test_stud_hilo_a_hand_that_can_no_longer_be_best_low_loses_in_a_sampled_window() -> None:
    # At 5th street (a sampled window) hand 1 holds 7-5-4-2-A. Hand 3 (8, 7, 6 and two cards to come) can at
    # best make 8-7-6-2-A, worse: it can no longer be best low and loses then (channels.md), not a street later.
    # Hand 4 (2, 3, 6 and two to come) can still make 6-4-3-2-A, better, and does: it stays in play and wins.
    seats = _seats("As 2d 4h 5c 7s Kd Kh", "Kc Qd Jh Ts 9c 9h 9s", "8c 7d 6h Qs Jd 3c 2c", "2h 3d 6c Jc Js 4s Ad")
    deck = arrange_game_deck(CHANNELS["stud7-hilo"].layout, seats)
    _, log, games = play(CHANNELS["stud7-hilo"], fixed_decks([deck]), games=1)
    low_id = games[0].markets[1].market_id
    fifth_street = games[0].windows[2].closes_ms  # the 4th-street window's close deals 5th street
    lost = [(s.at_ms, s.event.hands) for s in log if isinstance(s.event, HandsCannotWin) and s.market_id == low_id]
    assert (fifth_street, (3, 5)) in lost and not any(4 in hands for _, hands in lost)
    assert games[0].markets[1].winners == (4,)
    check_against_showdown(log, games)


def test_omaha_hilo_flop_without_low_cards_decides_the_low_market_at_once() -> None:
    seats = _seats("As 2s 3d 4d", "Ac 2c 5h 6h", "Kd Kh 7c 8c", "Qd Qh Tc 9c")
    config = CHANNELS["omaha-hilo"]
    deck = arrange_game_deck(config.layout, seats, parse_cards("Ks Qs Js 4h 5c"))
    _, log, games = play(config, fixed_decks([deck]), games=1)
    low_id = games[0].markets[1].market_id
    (low,) = [s for s in log if isinstance(s.event, ResultDeclared) and s.market_id == low_id]
    assert isinstance(low.event, ResultDeclared) and low.event.winners == (5,) and low.event.early
    assert low.at_ms == games[0].windows[1].closes_ms  # the flop (K Q J) leaves no room for three low cards
    check_against_showdown(log, games)


def test_americana_quads_settle_early_in_the_last_window() -> None:
    seats = _seats("As Ah Ad Ac 7c", "Ks Qh Jd 9c 8h", "Kh Qd Jc 9s 8d", "Kd Qc Js 9h 8c")
    config = CHANNELS["americana"]
    deck = arrange_game_deck(config.layout, seats)
    _, log, games = play(config, fixed_decks([deck]), games=1)
    (result,) = log.of_type(ResultDeclared)
    assert result.winners == (1,) and result.early
    check_against_showdown(log, games)


def test_draw_game_discards_by_the_policy_and_settles_on_the_cards_held() -> None:
    config = CHANNELS["draw5"]
    seats = _seats("As Ad 7c 4h 2s", "Kc Kd Ks 9s 3d", "Jh Th 9h 8h 2c", "Qs Jd 9c 6d 3c")
    replacements = [_seats("Ah 5d 6s", "7d 8d", "4s", "Qd 8c 7h 5h")]
    deck = arrange_game_deck(config.layout, seats, replacements=replacements)
    _, log, games = play(config, fixed_decks([deck]), games=1)
    (draw,) = log.of_type(DrawMade)
    assert [" ".join(map(str, d)) for d in draw.discarded] == ["7c 4h 2s", "9s 3d", "2c", "Jd 9c 6d 3c"]
    assert games[0].public.visible_hands()[0] == parse_cards("As Ad Ah 5d 6s")
    check_against_showdown(log, games)


def test_draw32_reshuffles_the_discards_and_never_returns_a_seats_own() -> None:
    # Four king-high hands each keep the king and throw four: 16 replacements, 11 cards in the stock after the burn.
    config = CHANNELS["draw32"]
    seats = _seats("Kc Qd 9h 8s 7c", "Kd Qc 9s 8h 7d", "Kh Qs 9c 8d 7s", "Ks Qh 9d 8c 7h")
    deck = arrange_game_deck(config.layout, seats)
    _, log, games = play(config, fixed_decks([deck]), games=1)
    (draw,) = log.of_type(DrawMade)
    for thrown, got in zip(draw.discarded, draw.drawn, strict=True):
        assert len(got) == len(thrown) == 4 and not set(thrown) & set(got)
    final = [c for hand in games[0].public.visible_hands() for c in hand]
    assert len(set(final)) == 20
    check_against_showdown(log, games)


def test_a_32_card_game_deals_from_a_52_card_shuffle_cut_down_to_its_pack() -> None:
    dealer = Dealer(parse_cards(" ".join(f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs")))
    short = dealer.restricted(parse_cards(" ".join(f"{r}{s}" for r in "789TJQKA" for s in "cdhs")))
    assert len(short.remaining) == 32 and all(c.rank >= 7 for c in short.remaining)
    assert MarketKind.LOW not in CHANNELS["telesina"].markets


def test_every_layout_deals_its_variants_cards() -> None:
    from exchange.game.layouts import check_layouts

    check_layouts()


def test_omaha_hilo_shared_low_and_a_different_high_winner_settle_each_market_apart() -> None:
    # The flop 3s 4s 5c gives hands 1 and 2 the same wheel low (A-2 each): the Low market is a dead heat decided
    # at the flop. The turn Ks gives hand 3 a king-high flush that no
    # river beats (no pair on the board, no straight flush): the High market is decided then, for hand 3 alone.
    hands, board = ("As2d9c9h", "Ac2hTdTc", "KcKdJsTs", "QdQhJhJc"), "3s4s5cKs8d"
    deck = arrange_game_deck(CHANNELS["omaha-hilo"].layout, [parse_cards(h) for h in hands], parse_cards(board))
    _, log, games = play(CHANNELS["omaha-hilo"], fixed_decks([deck]), games=1)
    high_id, low_id = (m.market_id for m in games[0].markets)
    results = {s.market_id: s.event for s in log if isinstance(s.event, ResultDeclared)}
    assert results[low_id].winners == (1, 2) and len(results[low_id].board) == 3
    assert results[high_id].winners == (3,) and len(results[high_id].board) == 4
    cannot = [s.event.hands for s in log if isinstance(s.event, HandsCannotWin) and s.market_id == low_id]
    assert cannot == [(3, 4)]  # no two low hole cards: settled at the Deal close; "No low" falls with the flop
    check_against_showdown(log, games)
