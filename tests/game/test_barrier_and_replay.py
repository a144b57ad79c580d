"""The information barrier (no card reaches an agent before it is turned) and byte-for-byte replays."""

from __future__ import annotations

import asyncio
import re

import pytest

from exchange.agents.host import seat
from exchange.agents.house import MarketMaker
from exchange.agents.trader import Agent, Trader
from exchange.agents.view import NOT_AVAILABLE, BettorView, CardNotVisible, bettor_view
from exchange.clock import WallClock
from exchange.core.events import OrderPlaced
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import HOLDEM, OMAHA
from exchange.game.deal import fixed_decks, seeded_decks
from exchange.game.events import EventLog, GameEnded, HoleCardsTurned, ResultDeclared, Stamped, WindowClosed
from exchange.game.rounds import Round
from exchange.game.table import Phase
from tests.game.helpers import deck, make_channel, one_deck

BOARD = "Ah7c2sTd3h"
HANDS_A = ("AsKs", "QdQc", "7h6h", "2c2d")
HANDS_B = ("9s9c", "JhTh", "5d4d", "KcQs")
CARD = re.compile(r'"([2-9TJQKA][cdhs])"|\["([2-9TJQKA][cdhs])')


def test_view_hides_hole_cards_until_the_deal_closes() -> None:
    channel, clock, _ = make_channel(one_deck(HANDS_A, BOARD), makers=0)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=1_000)
    view = bettor_view(channel, "alice")
    assert view is not None and view.round is Round.DEAL
    with pytest.raises(CardNotVisible):
        view.hole_cards(1)
    assert all(h.cards is None for h in view.hands) and view.board == ()
    hands = view.snapshot()["hands"]
    assert isinstance(hands, list)
    assert all(h["cards"] == NOT_AVAILABLE for h in hands)
    clock.run(until_ms=HOLDEM.round_ms + 1_000)
    view = bettor_view(channel, "alice")
    assert view is not None and view.round is Round.PREFLOP
    assert [str(c) for c in view.hole_cards(1)] == ["As", "Ks"]
    assert view.board == ()


def test_no_event_names_a_card_before_it_is_turned() -> None:
    channel, clock, log = make_channel(one_deck(HANDS_A, BOARD), makers=1, noise=1)
    channel.start(at_ms=0, games=1)
    clock.run()
    lines = log.json_lines()
    turned_at = next(i for i, s in enumerate(log) if isinstance(s.event, HoleCardsTurned))
    assert not [line for line in lines[:turned_at] if CARD.search(line)]
    # The flop appears first in the event that turns it, and so on.
    first_seen: dict[str, int] = {}
    for i, line in enumerate(lines):
        for match in CARD.finditer(line):
            first_seen.setdefault(match.group(1) or match.group(2), i)
    types = [s.type for s in log]
    for card in ("Ah", "Td", "3h"):
        assert types[first_seen[card]] == "BoardTurned"


def deal_window_quotes(hands: tuple[str, ...]) -> list[tuple[int, Side, int, int]]:
    channel, clock, log = make_channel(one_deck(hands, BOARD), makers=1)
    channel.start(at_ms=0, games=1)
    clock.run(until_ms=HOLDEM.betting_window_ms - 1)
    return [
        (e.selection_id, e.side, e.tick, e.size)
        for e in log.of_type(OrderPlaced)
    ]


def test_deal_window_quotes_do_not_depend_on_the_face_down_cards() -> None:
    a, b = deal_window_quotes(HANDS_A), deal_window_quotes(HANDS_B)
    assert a and a == b


class Probe(Agent):
    """Records what every hook saw, and backs the favourite once per window (a simple strategy)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Round | None, tuple[object, ...]]] = []

    def on_window_open(self, view: BettorView, trader: Trader) -> None:
        self.seen.append(("open", view.round, tuple(h.cards for h in view.hands)))
        live = [h for h in view.live_hands if h.best_to_back is not None]
        if live:
            best = max(live, key=lambda h: h.equity)
            tick = best.best_to_back
            assert tick is not None  # live holds only hands with a price to back
            trader.place(best.hand, Side.BACK, tick, 500)

    def on_reveal(self, view: BettorView, trader: Trader) -> None:
        self.seen.append(("reveal", view.round, tuple(h.cards for h in view.hands)))


def test_an_agent_sees_no_card_before_it_is_turned() -> None:
    channel, clock, _ = make_channel(one_deck(HANDS_A, BOARD), makers=1)
    probe = Probe()
    seat(channel, probe, "alice", latency_ms=100)
    channel.start(at_ms=0, games=1)
    clock.run()
    assert probe.seen[0] == ("open", Round.DEAL, (None, None, None, None))
    assert all(cards is not None for kind, rnd, hands in probe.seen[1:] for cards in hands)


def run_games(seed: int, games: int = 3) -> list[str]:
    channel, clock, log = make_channel(seeded_decks(seed), makers=1, noise=2)
    seat(channel, Probe(), "alice", latency_ms=100)
    channel.start(at_ms=1_700_000_000_000, games=games)
    clock.run()
    assert channel.games_finished == games
    return log.json_lines()


def test_a_replay_from_the_seed_is_identical_byte_for_byte() -> None:
    first, again = run_games(seed=42), run_games(seed=42)
    assert "\n".join(first) == "\n".join(again)
    assert run_games(seed=43, games=1) != first[: len(run_games(seed=43, games=1))]


def test_games_run_back_to_back_with_deterministic_market_ids() -> None:
    channel, clock, log = make_channel(seeded_decks(7), makers=1)
    channel.start(at_ms=0, games=3)
    clock.run()
    ended = [s for s in log if isinstance(s.event, GameEnded)]
    assert [s.market_id for s in ended] == ["holdem.0", "holdem.1", "holdem.2"]
    starts = [s.at_ms for s in log if s.type == "GameStarted"]
    # The next game deals one playing window after the last one ended.
    assert all(b - e.at_ms == HOLDEM.playing_window_ms for b, e in zip(starts[1:], ended, strict=False))


def test_an_omaha_game_plays_through() -> None:
    hands = ("AsKsQsJs", "AhKhQhJh", "2c3c4c5c", "9d9c8d8c")
    channel, clock, log = make_channel(fixed_decks([deck(hands, "Ad7h2s5dTc")]), config=OMAHA, makers=1, noise=1)
    channel.start(at_ms=0, games=1)
    clock.run()
    (result,) = log.of_type(ResultDeclared)
    assert result.winners
    assert [str(c) for c in result.board] == ["Ad", "7h", "2s", "5d", "Tc"]
    game = channel.game()
    assert game is not None and game.phase is Phase.FINISHED
    game._check()


async def test_the_same_game_runs_on_the_wall_clock() -> None:
    config = HOLDEM.with_times(betting_window_ms=60, playing_window_ms=20)
    clock = WallClock()
    channel = Channel(config, clock, Exchange(), decks=fixed_decks([deck(HANDS_A, BOARD)]))
    log = EventLog.attach(channel.bus)
    channel.open_account("house", 10**9)
    seat(channel, MarketMaker(), "house")
    done = asyncio.get_running_loop().create_future()

    def on_event(stamped: Stamped) -> None:
        if isinstance(stamped.event, GameEnded) and not done.done():
            done.set_result(stamped)

    channel.subscribe(on_event)
    channel.start(games=1)
    await asyncio.wait_for(done, timeout=60)  # the worker's first equities may load the engine's tables
    (result,) = log.of_type(ResultDeclared)
    assert result.winners == (4,)  # 2c2d makes a set of deuces
    assert [w.round for w in log.of_type(WindowClosed)] == [Round.DEAL, Round.PREFLOP, Round.FLOP, Round.TURN]


def test_a_trader_hands_out_no_public_route_to_the_channel() -> None:
    from exchange.agents.trader import Trader
    from exchange.clock import VirtualClock

    class _Gateway:
        clock = VirtualClock()

        def submit(self, command: object) -> list[object]:
            return []

        def view(self, account_id: str | None, **_: object) -> None:
            return None

        def order(self, account_id: str, bet_id: int) -> None:
            return None

    trader = Trader(_Gateway(), "someone")
    public = {name for name in dir(trader) if not name.startswith("_")}
    assert "gateway" not in public
    assert not any(isinstance(getattr(trader, name), _Gateway) for name in public)
