"""The betting round: fold, check or call, bring-in, bet, raise or complete (a part of the table state).

Rules held here (``variants.md``, "Betting order" and "Stud games"; the rest *standard*):

* the round's smallest bet is the small bet, or in fixed limit the big bet on the
  later streets; a raise adds at least the last full bet or raise;
* fixed limit allows a bet and three raises a round (a completion is the bet, and in
  the first round of a blind game the big blind: the blinds are live bets); an
  open pair on 7-Card Stud's fourth street allows the big bet there too;
* pot limit allows raising to the pot after the call; no limit to the whole stack;
* an all-in for less than a full raise does not reopen the betting to seats that
  have acted: a seat that has acted (a check included) may raise again only once
  what it faces since its last action adds up to a full raise (several such
  all-ins may), the least a raise may add; a full completion of the bring-in
  reopens it; before the flop the blinds are live bets, so an all-in there short
  of a full raise over the big blind reopens nothing;
* in stud the bring-in seat must post the bring-in or complete to the small bet;
  an all-in above the bring-in but short of the small bet leaves the completion to
  be made: the next seats may call it or complete to the small bet (such an all-in
  is no bet toward the fixed-limit cap: the completion is the round's bet);
* a seat that stood pat when its draw time ran out may not bet or raise in the
  round after the draw.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from numbers import Integral
from typing import TYPE_CHECKING

from engine.cards import Card
from engine.table import actions as A
from engine.table.errors import IllegalActionError
from engine.table.order import clockwise_from
from engine.table.phase import Phase
from engine.table.structures import MAX_BETS_FIXED_LIMIT, Stakes, Structure

if TYPE_CHECKING:
    from engine.variants import Variant


class Betting(ABC):
    """The betting half of :class:`~engine.table.TableState` (kept apart to be read alone)."""

    seats: int
    stacks: list[int]
    contributed: list[int]
    live: list[bool]
    cards: list[list[Card]]
    up: list[list[bool]]
    mucked: list[Card]
    variant: Variant
    structure: Structure
    stakes: Stakes
    street: int
    paid: int
    phase: Phase
    _split_open: bool

    def _init_betting(self, seats: int) -> None:
        self.bets = [0] * seats
        self.actors: deque[int] = deque()
        self.faced: dict[int, int] = {}  # per seat that has acted this round: the top bet once it had
        self.raises = 0
        self.last_raise = 0
        self.bring_in_due = False
        self.completing = False
        self.aggressor: int | None = None
        self.penalised: set[int] = set()
        self.round_min = 0
        self.double_limit = False
        self.open_pair_big_bet = False  # a bet or raise above the small bet on an open pair: 7-Card Stud's own rule

    @abstractmethod
    def _record(self, action: A.Action) -> None:
        """Append an action to the hand's record (the table state keeps it)."""

    @abstractmethod
    def _awaiting(self) -> str:
        """What the hand waits for now, said in a refusal (the table state knows every phase)."""

    @abstractmethod
    def _round_over(self) -> None:
        """Move on once a betting round is complete (the table state knows what comes next)."""

    def _begin_betting(self, first: int, bring_in: bool) -> None:
        fixed = self.structure is Structure.FIXED_LIMIT
        big = self.variant.streets[self.street].big_bet and fixed
        self.round_min = self.stakes.big_bet if big else self.stakes.small_bet
        self.double_limit = (
            fixed
            and self.variant.open_pair_double_limit
            and self.street == 1
            and any(self.live[s] and _open_pair(self.cards[s], self.up[s]) for s in range(self.seats))
        )
        # the blinds are live bets (variants.md): in the first round the big blind is its bet, and three raises the
        # most a fixed-limit round allows after it (2, 4, 6, 8 at 1/2), as after any bet
        self.raises = 1 if max(self.bets) > 0 else 0
        self.last_raise = 0
        self.faced = {}
        self.aggressor = None
        self.bring_in_due = self.completing = bring_in
        order = clockwise_from(first, self.seats)
        self.actors = deque(s for s in order if self._can_lose_more(s))
        if len(self.actors) == 1 and self.bets[self.actors[0]] >= max(self.bets):
            self.actors.clear()

    def _can_lose_more(self, seat: int) -> bool:
        """Whether a live seat could still put in chips that another seat can match: one whose
        bet already covers every other seat's chips has nothing to decide this round."""
        if not self.live[seat] or not self.stacks[seat]:
            return False
        others = [self.bets[s] + self.stacks[s] for s in range(self.seats) if s != seat and self.live[s]]
        return max(others) > self.bets[seat]

    # ------------------------------------------------------------------ who may do what

    def _turn(self, what: str) -> int:
        if self.phase is not Phase.BETTING or not self.actors:
            raise IllegalActionError(f"nobody may {what} now: {self._awaiting()}")
        return self.actors[0]

    def _not_bring_in(self, seat: int) -> None:
        if self.bring_in_due:
            stakes = self.stakes
            raise IllegalActionError(
                f"seat {seat} must post the bring-in ({stakes.bring_in}) or complete to {stakes.small_bet} first"
            )

    def to_call(self) -> int:
        """What the seat to act must put in to call (its stack, if that is less)."""
        if self.phase is not Phase.BETTING or not self.actors:
            return 0
        seat = self.actors[0]
        return min(self.stacks[seat], max(self.bets) - self.bets[seat])

    def verify_fold(self) -> None:
        seat = self._turn("fold")
        self._not_bring_in(seat)
        if self.bets[seat] >= max(self.bets):
            raise IllegalActionError(f"seat {seat} has nothing to call; it may check, so it may not fold")

    def can_fold(self) -> bool:
        return self._betting() and not self.bring_in_due and self.bets[self.actors[0]] < max(self.bets)

    def fold(self) -> A.Fold:
        self.verify_fold()
        seat = self._pop()
        self.live[seat] = False
        self.mucked.extend(self.cards[seat])
        self.cards[seat] = []
        self.up[seat] = []
        record = A.Fold(seat)
        self._record(record)
        self._round_over()
        return record

    def verify_check_call(self) -> None:
        self._not_bring_in(self._turn("check or call"))

    def can_check_call(self) -> bool:
        return self._betting() and not self.bring_in_due

    def check_call(self) -> A.CheckCall:
        self.verify_check_call()
        amount = self.to_call()
        seat = self._pop()
        self._put(seat, amount)
        record = A.CheckCall(seat, amount)
        self._record(record)
        self._round_over()
        return record

    def verify_post_bring_in(self) -> None:
        seat = self._turn("post the bring-in")
        if not self.bring_in_due:
            raise IllegalActionError(f"seat {seat} has no bring-in to post: only the first stud round opens with one")

    def can_post_bring_in(self) -> bool:
        return self._betting() and self.bring_in_due

    def post_bring_in(self) -> A.PostBringIn:
        self.verify_post_bring_in()
        seat = self._pop()
        amount = min(self.stacks[seat], self.stakes.bring_in)
        self._put(seat, amount)
        self.bring_in_due = False
        record = A.PostBringIn(seat, amount)
        self._record(record)
        self._round_over()
        return record

    def _raise_refusal(self) -> str | None:
        """Why the seat to act may not bet or raise now, or ``None`` if it may."""
        if not self._betting():
            return f"nobody may bet or raise now: {self._awaiting()}"
        seat = self.actors[0]
        call = max(self.bets) - self.bets[seat]
        if seat in self.penalised:
            return f"seat {seat} stood pat when its draw time ran out; it may only check, call or fold this round"
        if self.structure is Structure.FIXED_LIMIT and self.raises >= MAX_BETS_FIXED_LIMIT:
            return "the betting is capped: a bet and three raises are the most a fixed-limit round allows"
        if seat in self.faced and max(self.bets) - self.faced[seat] < self._full_raise():
            return (f"seat {seat} has acted, and the all-ins since add up to less than a full raise; it may only call "
                    "or fold")
        if self.stacks[seat] <= call:
            return f"seat {seat} has {self.stacks[seat]} chips, not more than the {call} to call; it may only call"
        top = max(self.bets)
        if not any(s != seat and self.live[s] and self.stacks[s] + self.bets[s] > top for s in range(self.seats)):
            return "every other seat still in is all in: there is nobody to bet or raise against"
        return None

    def raise_sizes(self) -> tuple[int, ...]:
        """The totals the seat may bet or raise to: in fixed limit each allowed size, in pot
        and no limit the smallest and the largest; empty when it may not bet or raise."""
        if self._raise_refusal() is not None:
            return ()
        seat = self.actors[0]
        cap = self.stacks[seat] + self.bets[seat]
        top = max(self.bets)
        base = 0 if self.completing else top
        least = min(cap, base + self._full_raise())
        if self.structure is Structure.FIXED_LIMIT:
            big = min(cap, top + self.stakes.big_bet)
            return (least, big) if self.double_limit and big > least else (least,)
        if self.structure is Structure.POT_LIMIT:
            pot = sum(self.contributed) - self.paid
            return least, min(cap, max(least, 2 * top - self.bets[seat] + pot))
        return least, cap

    def verify_bet_raise(self, to: int | None = None) -> int:
        """Raise unless the seat may bet or raise to a total of ``to`` this round (default:
        the smallest allowed); return the total."""
        refusal = self._raise_refusal()
        if refusal is not None:
            raise IllegalActionError(refusal)
        sizes = self.raise_sizes()
        if to is None:
            return sizes[0]
        if not isinstance(to, Integral) or isinstance(to, bool):
            raise IllegalActionError(f"a bet is a whole number of chips, not {to!r}")
        to = int(to)
        if self.structure is Structure.FIXED_LIMIT and to not in sizes:
            allowed = " or ".join(map(str, sizes))
            raise IllegalActionError(f"in fixed limit seat {self.actors[0]} may bet or raise to {allowed}, not {to}")
        if self.structure is not Structure.FIXED_LIMIT and not sizes[0] <= to <= sizes[-1]:
            raise IllegalActionError(
                f"seat {self.actors[0]} may bet or raise to {sizes[0]} up to {sizes[-1]} ({self.structure}), not {to}"
            )
        return to

    def can_bet_raise(self, to: int | None = None) -> bool:
        try:
            self.verify_bet_raise(to)
        except IllegalActionError:
            return False
        return True

    def bet_raise(self, to: int | None = None) -> A.BetRaise:
        """Bet, raise or complete to a total of ``to`` chips this round (default: the least allowed)."""
        to = self.verify_bet_raise(to)
        if self.double_limit and to > self.raise_sizes()[0]:
            self.open_pair_big_bet = True
        top = max(self.bets)
        base = 0 if self.completing else top  # a completion is a whole bet, not a raise of the bring-in
        seat = self._pop()
        self._put(seat, to - self.bets[seat])
        raised = to - top
        full = to - base >= self._full_raise()
        if full or not self.completing:  # an all-in short of the completion is no bet: the completion will be
            self.raises += 1
        self.bring_in_due = False
        self.completing = self.completing and not full  # an all-in short of the completion leaves it to be made
        self.actors = deque(s for s in clockwise_from(seat, self.seats)[1:] if self.live[s] and self.stacks[s] > 0)
        self.aggressor = seat
        if full:  # a full bet or raise: the betting is open again to every other seat
            self.faced = {}
        self.faced[seat] = to
        self.last_raise = max(self.last_raise, raised)
        record = A.BetRaise(seat, to)
        self._record(record)
        self._round_over()
        return record

    # ------------------------------------------------------------------ helpers

    def _full_raise(self) -> int:
        """The least a bet or raise adds (over the top bet; a completion, over nothing): the smallest bet, or the
        last raise if larger. One that adds less is an all-in short of a full raise."""
        return max(self.last_raise, self.round_min)

    def _betting(self) -> bool:
        return self.phase is Phase.BETTING and bool(self.actors)

    def _pop(self) -> int:
        """The seat to act, taken off the queue: it has acted, facing the top bet there is now (a bet or raise sets
        what it faced to its own new total; the bring-in seat's is 0 until then, the bring-in being no bet)."""
        seat = self.actors.popleft()
        self.faced[seat] = max(self.bets)
        self._split_open = False
        return seat

    def _put(self, seat: int, amount: int) -> None:
        self.stacks[seat] -= amount
        self.bets[seat] += amount
        self.contributed[seat] += amount


def _open_pair(cards: list[Card], up: list[bool]) -> bool:
    """Whether two of the face-up cards are a pair."""
    ranks = [c.rank for c, face_up in zip(cards, up, strict=True) if face_up]
    return len(set(ranks)) < len(ranks)
