"""Random hands of every game and structure: the state's invariants after every action, the
chips conserved, the hand history read back and replayed to the same hand, the same seed
giving the same hand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.table import Phase, Structure, TableState
from engine.table import actions as A
from engine.table.bots import RandomBot, apply, view
from engine.table.phh import dumps, loads
from engine.variants import VARIANTS


@st.composite
def hands(draw: st.DrawFn) -> tuple[str, Structure, list[int], int]:
    name = draw(st.sampled_from(sorted(VARIANTS)))
    structure = draw(st.sampled_from(list(Structure)))
    seats = draw(st.integers(2, VARIANTS[name].max_seats))
    stacks = draw(st.lists(st.integers(1, 120), min_size=seats, max_size=seats))
    return name, structure, stacks, draw(st.integers(0, 2**32 - 1))


def play(name: str, structure: Structure, stacks: list[int], seed: int, *, check: bool) -> TableState:
    state = TableState.start(name, stacks, seed=seed, structure=structure)
    bots = [RandomBot(seed + seat) for seat in range(len(stacks))]
    while not state.done:
        seat = state.actor
        assert seat is not None and state.live[seat]
        if state.phase is Phase.DRAWING and bots[seat].rng.random() < 0.1:
            state.pass_time(state.draw_seconds)  # the draw time runs out now and then
        else:
            apply(state, bots[seat].decide(view(state)))
        if check:
            state._check()
    return state


@settings(max_examples=300, deadline=None)
@given(hands())
def test_random_hands_keep_invariants_and_replay(hand: tuple[str, Structure, list[int], int]) -> None:
    name, structure, stacks, seed = hand
    state = play(name, structure, stacks, seed, check=True)
    assert sum(state.stacks) == sum(stacks) and state.pot == 0
    won = sum(a.amount for a in state.log if isinstance(a, A.Award))
    assert won == sum(state.contributed)
    text = dumps(state)
    replayed = loads(text).replay()
    replayed._check()
    assert replayed.stacks == state.stacks and dumps(replayed) == text
    assert dumps(play(name, structure, stacks, seed, check=False)) == text
