"""The game state machine alone: a recording market port and a stub equity function."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

from engine import InvariantError
from engine.cards import Card, parse_cards
from engine.dealer import Dealer, arrange_deck
from exchange.clock import VirtualClock
from exchange.game.channels import HOLDEM
from exchange.game.events import BoardTurned, EventBus, EventLog, WindowClosed, WindowOpened
from exchange.game.prospects import Prospects
from exchange.game.rounds import Round
from exchange.game.table import Game, Phase


class RecordingPort:
    market_id = "holdem.0"

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def _rec(self, *call: object) -> Sequence[object]:
        self.calls.append(call)
        return ()

    def create(self, at_ms: int) -> Sequence[object]:
        return self._rec("create", at_ms)

    def open_window(self, round: Round, at_ms: int) -> Sequence[object]:
        return self._rec("open", round, at_ms)

    def suspend(self, at_ms: int) -> Sequence[object]:
        return self._rec("suspend", at_ms)

    def hold(self, at_ms: int) -> Sequence[object]:
        return self._rec("hold", at_ms)

    def lapse(self, at_ms: int) -> Sequence[object]:
        return self._rec("lapse", at_ms)

    def settle_losers(self, hands: Sequence[int], at_ms: int) -> Sequence[object]:
        return self._rec("losers", tuple(hands), at_ms)

    def settle(self, winners: Sequence[int], at_ms: int) -> Sequence[object]:
        return self._rec("settle", tuple(winners), at_ms)

    def void(self, reason: str, at_ms: int) -> Sequence[object]:
        return self._rec("void", reason, at_ms)

    def resume(self, at_ms: int) -> Sequence[object]:
        return self._rec("resume", at_ms)

    def match_mark(self) -> int:
        return len(self.calls)

    def void_matched_since(self, since_ms: int, mark: int, reason: str, at_ms: int) -> Sequence[object]:
        return self._rec("void since", since_ms, at_ms)


def hand_one_wins_after_flop(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Prospects:
    if len(board) < 3:
        return Prospects.from_counts(4, (1, 1, 1, 1), (0, 0, 0, 0), (1, 1, 1, 1))
    if len(board) == 3:
        return Prospects.from_counts(2, (1, 1, 0, 0), (0, 0, 0, 0), (1, 1, 0, 0))
    return Prospects.from_counts(1, (1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))


DECK = arrange_deck([parse_cards(h) for h in ("AsKs", "QdQc", "7h6h", "2c2d")], parse_cards("Ah7c2s9d3h"))


def test_a_game_runs_its_timetable_and_settles_early_losers() -> None:
    clock, bus, port = VirtualClock(), EventBus(), RecordingPort()
    log = EventLog.attach(bus)
    finished: list[Game] = []
    game = Game(
        config=HOLDEM, number=0, dealer=Dealer(DECK), start_ms=1_000, clock=clock, port=port, bus=bus,
        equities=hand_one_wins_after_flop, on_finished=finished.append,
    )
    game.start()
    clock.run()
    assert finished == [game]
    assert game.phase is Phase.FINISHED
    game._check()
    assert port.calls == [
        ("create", 1_000),
        ("open", Round.DEAL, 1_000),
        ("suspend", 31_000), ("lapse", 31_000),
        ("open", Round.PREFLOP, 34_000),
        ("suspend", 64_000), ("lapse", 64_000),
        ("losers", (3, 4), 64_000),
        ("open", Round.FLOP, 67_000),
        ("suspend", 97_000), ("lapse", 97_000),
        ("settle", (1,), 97_000),
    ]
    opened = [e.round for e in log.of_type(WindowOpened)]
    assert opened == [Round.DEAL, Round.PREFLOP, Round.FLOP]
    assert len(log.of_type(WindowClosed)) == 3
    # Decided at the turn: the river is turned at once.
    assert [e.street for e in log.of_type(BoardTurned)] == ["flop", "turn", "river"]
    assert game.prospects.equity(1) == Fraction(1)


def test_void_stops_the_timetable() -> None:
    clock, bus, port = VirtualClock(), EventBus(), RecordingPort()
    game = Game(
        config=HOLDEM, number=0, dealer=Dealer(DECK), start_ms=0, clock=clock, port=port, bus=bus,
        equities=hand_one_wins_after_flop,
    )
    game.start()
    clock.run(until_ms=40_000)
    game.void("dealer fault")
    clock.run()
    assert game.phase is Phase.VOID
    assert port.calls[-1] == ("void", "dealer fault", 40_000)
    assert clock.pending == 0


PREFLOP_BETTING_MS = 40_000  # the pre-flop window is open, no board card turned yet


def _game_until(until_ms: int | None) -> Game:
    """The game of these tests run on a virtual clock until ``until_ms`` (to its end if ``None``)."""
    clock = VirtualClock()
    game = Game(
        config=HOLDEM, number=0, dealer=Dealer(DECK), start_ms=0, clock=clock, port=RecordingPort(), bus=EventBus(),
        equities=hand_one_wins_after_flop,
    )
    game.start()
    clock.run(until_ms=until_ms)
    game._check()
    return game


def _drop_the_river(game: Game) -> None:
    deal = game._require_deal()
    deal.public = dataclasses.replace(deal.public, board=deal.public.board[:4])


@pytest.mark.parametrize(
    ("until_ms", "corrupt", "match"),
    [
        (PREFLOP_BETTING_MS, lambda g: setattr(g, "round", None), "round None in phase BETTING"),
        (None, lambda g: g.settled.update({5: "LOSER"}), r"settled selections \[1, 2, 3, 4, 5\] of 4"),
        (None, lambda g: setattr(g.main, "winners", ()), r"finished with winners \(\), settled"),
        (None, lambda g: g.settled.pop(2), r"finished with winners \(1,\), settled \[1, 3, 4\] of 4 selections"),
        (None, _drop_the_river, "4 board cards after 4 deals, which show 5"),
        (PREFLOP_BETTING_MS, lambda g: setattr(g, "round", Round.TURN), "1 deals in round TURN, which shows 3"),
    ],
    ids=["round-without-phase", "unknown-hand-settled", "finished-without-winners", "finished-with-a-live-hand",
         "finished-without-river", "round-ahead-of-board"],
)
def test_a_corrupted_field_is_caught(until_ms: int | None, corrupt: Callable[[Game], object], match: str) -> None:
    game = _game_until(until_ms)
    corrupt(game)
    with pytest.raises(InvariantError, match=match):
        game._check()
