"""Playing a hand with bots: what a seat sees, what it may decide, and two simple bots.

A bot is any object with ``decide(view: SeatView) -> Decision``. The view holds only
what the seat may see (its own cards, everyone's up cards, the board, the chips, the
hand's actions so far with each draw as a count of cards) and :class:`Options`, what the
rules let it do now. :func:`play_hand` asks the bots in
turn until the hand is over::

    from engine.table.bots import CallingBot, Decision, Move, RandomBot, SeatView, play_hand

    class Aggressor:
        def decide(self, view: SeatView) -> Decision:
            if view.options.raise_sizes:
                return Decision(Move.BET_RAISE, amount=view.options.raise_sizes[-1])
            return CallingBot().decide(view)

    state = play_hand("holdem", [200, 200, 200], [Aggressor(), CallingBot(), RandomBot(seed=1)], seed=7)
    state.stacks

Seats are numbered from the first seat left of the button; the bots are given in seat
order. All randomness is the bots' own seeded ``random.Random`` and the deal's seed.

>>> state = play_hand("draw32", [40, 40, 40], [RandomBot(1), RandomBot(2), CallingBot()], seed=3)
>>> state.done, sum(state.stacks)
(True, 120)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from engine.cards import Card
from engine.table import actions as A
from engine.table.errors import IllegalActionError
from engine.table.phase import Phase
from engine.table.state import TableState
from engine.table.structures import Stakes, Structure
from engine.variants import Face, Variant


class Move(StrEnum):
    FOLD = "fold"
    CHECK_CALL = "check or call"
    BRING_IN = "post the bring-in"
    BET_RAISE = "bet, raise or complete"
    DRAW = "draw"
    OFFER_SPLIT = "offer to split"
    ACCEPT_SPLIT = "accept the split"
    REFUSE_SPLIT = "refuse the split"


@dataclass(frozen=True)
class Decision:
    """A move; ``amount`` is the total to bet or raise to, ``discards`` the cards to draw to."""

    move: Move
    amount: int | None = None
    discards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class Options:
    """What the seat to act may do now (``raise_sizes``: see :meth:`TableState.raise_sizes`)."""

    moves: tuple[Move, ...]
    to_call: int = 0
    raise_sizes: tuple[int, ...] = ()
    max_discards: int = 0


@dataclass(frozen=True)
class SeatView:
    """What one seat sees when it is its turn."""

    seat: int
    variant: Variant
    structure: Structure
    stakes: Stakes
    phase: Phase
    street: int
    cards: tuple[Card, ...]
    up_cards: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    live: tuple[bool, ...]
    pot: int
    options: Options
    #: The hand so far as every seat sees it (:func:`public_history`): forced bets, each seat's actions, how many
    #: cards each drew, shows and awards, in order; no card a seat may not see.
    history: tuple[A.Action, ...] = ()


class Bot(Protocol):
    def decide(self, view: SeatView) -> Decision: ...


def options(state: TableState) -> Options:
    """The moves open to the seat to act (empty when nobody is to act)."""
    if state.phase is Phase.DRAWING:
        return Options((Move.DRAW,), max_discards=state.variant.streets[state.street].count(Face.DRAW))
    if state.phase is Phase.SPLIT:
        return Options((Move.ACCEPT_SPLIT, Move.REFUSE_SPLIT))
    if state.actor is None:
        return Options(())
    if state.can_post_bring_in():
        return Options((Move.BRING_IN, Move.BET_RAISE), raise_sizes=state.raise_sizes())
    sizes = state.raise_sizes()
    moves = [Move.CHECK_CALL]
    if state.can_fold():
        moves.insert(0, Move.FOLD)
    if sizes:
        moves.append(Move.BET_RAISE)
    if state.can_offer_split():
        moves.append(Move.OFFER_SPLIT)
    return Options(tuple(moves), to_call=state.to_call(), raise_sizes=sizes)


def view(state: TableState) -> SeatView:
    """The view of the seat to act."""
    seat = state.actor
    if seat is None:
        raise ValueError("nobody is to act: the hand is over")
    return SeatView(
        seat,
        state.variant,
        state.structure,
        state.stakes,
        state.phase,
        state.street,
        tuple(state.cards[seat]),
        tuple(state.up_cards(s) for s in range(state.seats)),
        tuple(state.board),
        tuple(state.stacks),
        tuple(state.bets),
        tuple(state.live),
        state.pot,
        options(state),
        public_history(state.log),
    )


#: The records every seat sees as they are (the cards dealt are in the view's own fields; burns nobody sees).
_PUBLIC = (A.PostAnte, A.PostBlind, A.PostBringIn, A.Fold, A.CheckCall, A.BetRaise, A.Reshuffle, A.TimePassed,
           A.OfferSplit, A.AnswerSplit, A.Show, A.Award)


def public_history(log: Sequence[A.Action]) -> tuple[A.Action, ...]:
    """What every seat has seen of a hand's ``log``: its records but the deals and burns, each draw as how many
    cards the seat drew (:class:`~engine.table.actions.Drew`), not which.

    >>> from engine.table import TableState
    >>> state = TableState.start("draw5", [20, 20], seed=1)
    >>> _ = state.check_call(), state.check_call(), state.draw(state.cards[0][:2])
    >>> public_history(state.log)[-3:]
    (CheckCall(seat=1, amount=1), CheckCall(seat=0, amount=0), Drew(seat=0, count=2, timed_out=False))
    """
    return tuple(A.Drew(record.seat, len(record.discards), record.timed_out) if isinstance(record, A.Draw) else record
                 for record in log if isinstance(record, (A.Draw, *_PUBLIC)))


def apply(state: TableState, decision: Decision) -> None:
    """Carry out a decision for the seat to act; an illegal one raises ``IllegalActionError``
    (so does anything that is not a :class:`Decision` of one of the :class:`Move` s)."""
    if not isinstance(decision, Decision):
        raise IllegalActionError(f"a bot decides with a Decision, not {decision!r}")
    match decision.move:
        case Move.FOLD:
            state.fold()
        case Move.CHECK_CALL:
            state.check_call()
        case Move.BRING_IN:
            state.post_bring_in()
        case Move.BET_RAISE:
            state.bet_raise(decision.amount)
        case Move.DRAW:
            state.draw(decision.discards)
        case Move.OFFER_SPLIT:
            state.offer_split()
        case Move.ACCEPT_SPLIT | Move.REFUSE_SPLIT:
            state.answer_split(decision.move == Move.ACCEPT_SPLIT)
        case _:
            moves = ", ".join(move.value for move in Move)
            raise IllegalActionError(f"{decision.move!r} is not a move; the moves are {moves}")


def play_hand(
    variant: str | Variant,
    stacks: Sequence[int],
    bots: Sequence[Bot],
    *,
    seed: int = 0,
    structure: Structure = Structure.FIXED_LIMIT,
    stakes: Stakes | None = None,
) -> TableState:
    """Deal a hand from ``seed`` and let ``bots`` (one per seat, in seat order) play it out."""
    if len(bots) != len(stacks):
        raise ValueError(f"{len(stacks)} seats need {len(stacks)} bots, got {len(bots)}")
    state = TableState.start(variant, stacks, seed=seed, structure=structure, stakes=stakes)
    while not state.done:
        seat = state.actor or 0
        try:
            apply(state, bots[seat].decide(view(state)))
        except IllegalActionError as err:
            raise BotMoveError(seat, str(err)) from None
    return state


class BotMoveError(IllegalActionError):
    """A bot's decision the rules refused, with the seat whose bot made it (:func:`play_hand`)."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"the bot in seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason


class CallingBot:
    """Posts the bring-in, checks or calls to the end, stands pat, refuses splits."""

    def decide(self, view: SeatView) -> Decision:
        moves = view.options.moves
        if Move.DRAW in moves:
            return Decision(Move.DRAW)
        if Move.REFUSE_SPLIT in moves:
            return Decision(Move.REFUSE_SPLIT)
        if Move.BRING_IN in moves:
            return Decision(Move.BRING_IN)
        return Decision(Move.CHECK_CALL)


class RandomBot:
    """Picks one of its legal moves at random (raises and discards too), from its own seed.

    It folds only when there is something to call, and raises by a random legal amount.
    """

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: SeatView) -> Decision:
        rng, options = self.rng, view.options
        move = rng.choice(options.moves)
        if move is Move.BET_RAISE:
            sizes = options.raise_sizes
            fixed = view.structure is Structure.FIXED_LIMIT
            return Decision(move, rng.choice(sizes) if fixed else rng.randint(sizes[0], sizes[-1]))
        if move is Move.DRAW:
            count = rng.randint(0, min(options.max_discards, len(view.cards)))
            return Decision(move, discards=tuple(rng.sample(view.cards, count)))
        return Decision(move)
