"""Bots at the table: what a seat sees, and what a decision the rules cannot carry out is told."""

from __future__ import annotations

import pytest

from engine.cards import Card
from engine.table import IllegalActionError, Phase, TableState
from engine.table import actions as A
from engine.table.bots import (
    BotMoveError,
    CallingBot,
    Decision,
    Move,
    RandomBot,
    SeatView,
    apply,
    play_hand,
    view,
)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (Decision("call"), "'call' is not a move; the moves are fold, check or call,"),  # type: ignore[arg-type]  # a text that is no move
        (None, "a bot decides with a Decision, not None"),
        ("fold", "a bot decides with a Decision, not 'fold'"),
    ],
)
def test_a_decision_that_is_no_move_is_refused_not_ignored(answer: object, message: str) -> None:
    state = TableState.start("holdem", [50, 50], seed=1)
    with pytest.raises(IllegalActionError, match=message):
        apply(state, answer)  # type: ignore[arg-type]  # no Decision, on purpose
    assert len(state.log) == 4 and state.actor == 1  # nothing done: the blinds and the deal only


def test_a_seat_sees_its_own_cards_and_only_the_up_cards_of_others() -> None:
    state = TableState.start("stud7", [100, 100, 100], seed=7)
    seen = view(state)
    seat = seen.seat
    assert seat == state.actor and seen.cards == tuple(state.cards[seat])
    for other in range(3):
        assert seen.up_cards[other] == state.up_cards(other) and len(seen.up_cards[other]) == 1
    assert seen.options.moves == (Move.BRING_IN, Move.BET_RAISE) and seen.options.raise_sizes == (4,)
    apply(state, Decision(Move.BRING_IN))
    assert view(state).options.moves == (Move.FOLD, Move.CHECK_CALL, Move.BET_RAISE)
    assert view(state).options.to_call == 2 and view(state).pot == 5


def test_calling_bots_play_a_draw_hand_out() -> None:
    state = play_hand("draw5", [40, 40, 40], [CallingBot()] * 3, seed=2)
    assert state.done and state.phase is Phase.DONE and sum(state.stacks) == 120


class Folder:
    """Folds even when it may check: an illegal move for the big blind after a call."""

    def decide(self, view: SeatView) -> Decision:
        return Decision(Move.FOLD) if view.seat == 0 else CallingBot().decide(view)


def test_play_hand_names_the_seat_whose_bot_moved_illegally() -> None:
    with pytest.raises(BotMoveError, match="the bot in seat 0: seat 0 has nothing to call") as caught:
        play_hand("holdem", [50, 50], [Folder(), CallingBot()], seed=1)
    assert caught.value.seat == 0 and caught.value.reason.startswith("seat 0 has nothing to call")


def test_a_move_given_as_its_text_is_that_move() -> None:
    state = TableState.start("draw32", [40, 40, 40], seed=4)
    while state.street == 0 or state.phase is Phase.DRAWING:
        apply(state, Decision(Move.DRAW) if state.phase is Phase.DRAWING else Decision("check or call"))  # type: ignore[arg-type]  # a move as text
    apply(state, Decision("offer to split"))  # type: ignore[arg-type]  # a move as text, on purpose
    apply(state, Decision("accept the split"))  # type: ignore[arg-type]  # a move as text, on purpose
    apply(state, Decision("accept the split"))  # type: ignore[arg-type]  # a move as text, on purpose
    assert state.done and [a.half for a in state.log if isinstance(a, A.Award)] == ["split"] * 3



def _cards_in(record: A.Action) -> list[Card]:
    """Every card a record names, in any field."""
    out: list[Card] = []
    for name in record.__slots__:
        value = getattr(record, name)
        out += [value] if isinstance(value, Card) else [v for v in value if isinstance(v, Card)] \
            if isinstance(value, tuple) else []
    return out


@pytest.mark.parametrize("variant", ["holdem", "draw5", "triple-draw-27", "draw32", "stud7", "telesina"])
def test_a_seat_sees_the_hand_so_far_with_no_card_it_may_not_see(variant: str) -> None:
    """Each seat's view holds every forced bet and every seat's action so far, in order, each draw as how many cards
    were drawn, and names no card: a seat learns others' down cards and discards from nothing in it."""
    for seed in range(15):
        seats = 3 if "draw" in variant else 4
        bots = [RandomBot(seed * 10 + s) for s in range(seats)]
        state = TableState.start(variant, [60] * seats, seed=seed)
        while not state.done:
            seen = view(state)
            acted = [r for r in state.log if not isinstance(r, A.Deal | A.Burn | A.Reshuffle | A.Draw)]
            drawn = [(r.seat, len(r.discards)) for r in state.log if isinstance(r, A.Draw)]
            assert [r for r in seen.history if not isinstance(r, A.Drew | A.Reshuffle)] == acted
            assert [(r.seat, r.count) for r in seen.history if isinstance(r, A.Drew)] == drawn
            assert [card for record in seen.history for card in _cards_in(record)] == []
            apply(state, bots[seen.seat].decide(seen))
