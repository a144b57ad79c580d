"""One hand of any of the eleven games, as a state machine (pure: no clock, no I/O).

:meth:`TableState.start` takes the seats' stacks and a seed (or a deck order), posts
the forced bets and deals the first street; from then on the seat named by
:attr:`TableState.actor` acts, through one of the actions below, until
:attr:`TableState.done`. Dealing, showdown and awarding are done by the state
itself between actions. Each action comes three ways: ``verify_x`` raises
:class:`~engine.table.IllegalActionError` saying why it is not allowed now, ``can_x``
answers yes or no, and ``x`` does it and returns its frozen record (also appended
to :attr:`TableState.log`).

Chips are conserved: at every step the stacks plus the chips in the pot equal the
starting stacks (``_check``), and the pot is paid out whole, odd chips included
(:mod:`engine.table.pots`).

>>> state = TableState.start("stud7", [100, 100], seed=3)
>>> state.can_post_bring_in(), state.can_check_call()
(True, False)
>>> state.verify_check_call()
Traceback (most recent call last):
...
engine.table.errors.IllegalActionError: seat 1 must post the bring-in (2) or complete to 4 first
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from numbers import Integral, Real

from engine._errors import InvariantError
from engine.cards import Card, CardError, CardLike, check_distinct, parse_cards
from engine.table import actions as A
from engine.table.betting import Betting
from engine.table.errors import IllegalActionError, TableError
from engine.table.order import best_up_seat, clockwise_from
from engine.table.phase import Phase
from engine.table.settle import divide, remaining_pots, settle
from engine.table.shoe import ScriptedShoe, Shoe
from engine.table.structures import Stakes, Structure
from engine.variants import Face, ForcedBets, Variant, get_variant

DRAW_SECONDS = 30.0
"""The draw time (``variants.md``, "Draw games"): past it a seat stands pat, penalised."""


class TableState(Betting):
    """The whole hand: seats' cards and chips, the board, whose turn it is, the log."""

    def __init__(
        self,
        variant: str | Variant,
        stacks: Sequence[int],
        shoe: Shoe,
        *,
        structure: Structure = Structure.FIXED_LIMIT,
        stakes: Stakes | None = None,
        draw_seconds: float = DRAW_SECONDS,
    ) -> None:
        self.variant = get_variant(variant)
        self.structure = Structure(structure)
        self.stakes = Stakes.default(self.variant) if stakes is None else stakes
        self.stakes.check(self.variant)
        n = len(stacks)
        if not 2 <= n <= self.variant.max_seats:
            raise TableError(f"{self.variant.title} seats 2 to {self.variant.max_seats}, not {n}")
        if any(not isinstance(s, Integral) or isinstance(s, bool) or s <= 0 for s in stacks):
            raise TableError(f"every seat needs a whole, positive stack, got {list(stacks)}")
        stacks = [int(s) for s in stacks]
        if not isinstance(draw_seconds, int | float) or isinstance(draw_seconds, bool) or not draw_seconds > 0:
            raise TableError(f"the draw time is a positive number of seconds, not {draw_seconds!r}")
        self.seats = n
        self.starting = tuple(stacks)
        self.stacks = list(stacks)
        self.contributed = [0] * n
        self.live = [True] * n
        self.cards: list[list[Card]] = [[] for _ in range(n)]
        self.up: list[list[bool]] = [[] for _ in range(n)]
        self.board: list[Card] = []
        self.burned: list[Card] = []
        self.mucked: list[Card] = []
        self.log: list[A.Action] = []
        self.phase = Phase.BETTING
        self.street = -1
        self.paid = 0
        self.draw_seconds = draw_seconds
        self.shoe = shoe
        self._drawers: deque[int] = deque()
        self._clock = 0.0
        self._replace: list[tuple[int, int]] = []
        self._penalised_next: set[int] = set()
        self._split_open = False
        self._answers: deque[int] = deque()
        self._accepted: set[int] = set()
        self._refused = False
        self.divided = [0] * n
        self._shown: dict[int, tuple[Card, ...]] = {}
        self._shared_card = False
        self._init_betting(n)
        self._begin_hand()

    @classmethod
    def start(
        cls,
        variant: str | Variant,
        stacks: Sequence[int],
        *,
        seed: int = 0,
        deck: Sequence[Card] | str | None = None,
        structure: Structure = Structure.FIXED_LIMIT,
        stakes: Stakes | None = None,
        draw_seconds: float = DRAW_SECONDS,
    ) -> TableState:
        """A hand dealt from ``deck`` (top card first) or, by default, the pack shuffled with ``seed`` (0 or more).

        The same seed also shuffles the discards if a draw runs the deck dry.
        """
        if isinstance(seed, Integral) and seed < 0:
            raise ValueError(f"seed must be 0 or more, not {seed}: a negative seed would deal as {-seed} does")
        game = get_variant(variant)
        rng = random.Random(int(seed) if isinstance(seed, Integral) else seed)  # random.Random refuses numpy's
        if deck is None:
            order = list(game.deck.cards())
            rng.shuffle(order)
        else:
            order = list(parse_cards(deck))
            check_distinct(order)
            game.deck.check(order)
            _whole_pack(order, game.deck.cards())
        shoe = Shoe(order, rng)
        return cls(game, stacks, shoe, structure=structure, stakes=stakes, draw_seconds=draw_seconds)

    @classmethod
    def replay(
        cls,
        variant: str | Variant,
        stacks: Sequence[int],
        dealt: dict[int | None, list[Card]],
        *,
        structure: Structure = Structure.FIXED_LIMIT,
        stakes: Stakes | None = None,
    ) -> TableState:
        """A hand that deals exactly ``dealt`` (each seat's cards in order, ``None`` the board's)."""
        game = get_variant(variant)
        return cls(game, stacks, ScriptedShoe(dealt, game.deck.cards()), structure=structure, stakes=stakes)

    # ------------------------------------------------------------------ reading the state

    @property
    def done(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def actor(self) -> int | None:
        """The seat whose turn it is (to bet, draw or answer a split offer), or ``None``."""
        if self.phase is Phase.BETTING:
            return self.actors[0] if self.actors else None
        if self.phase is Phase.DRAWING:
            return self._drawers[0] if self._drawers else None
        if self.phase is Phase.SPLIT:
            return self._answers[0] if self._answers else None
        return None

    @property
    def shared_card(self) -> bool:
        """Whether the deck could not give every seat its last card, and one shared card was dealt instead (stud)."""
        return self._shared_card

    @property
    def pot(self) -> int:
        """Chips in the middle: everything put in and not yet paid out."""
        return sum(self.contributed) - self.paid

    def up_cards(self, seat: int) -> tuple[Card, ...]:
        return tuple(c for c, face_up in zip(self.cards[seat], self.up[seat], strict=True) if face_up)

    def _record(self, action: A.Action) -> None:
        self.log.append(action)

    def _awaiting(self) -> str:
        seat = self.actor
        if self.phase is Phase.DONE:
            return "the hand is over"
        if self.phase is Phase.DRAWING:
            limit = self.variant.streets[self.street].count(Face.DRAW)
            return f"seat {seat} is to draw (discard up to {limit} cards, or none to stand pat)"
        if self.phase is Phase.SPLIT:
            return f"seat {seat} is to accept or refuse the split offer"
        if self.bring_in_due:
            return f"seat {seat} is to post the bring-in or complete"
        return f"seat {seat} is to bet (fold, check or call, bet or raise)"

    # ------------------------------------------------------------------ forced bets and dealing

    def _begin_hand(self) -> None:
        stakes = self.stakes
        if self.variant.forced_bets is ForcedBets.ANTE_BRING_IN:
            for seat in range(self.seats):
                self._post(seat, min(stakes.ante, self.stacks[seat]), bet=False)
                self._record(A.PostAnte(seat, self.contributed[seat]))
        else:
            small, big = (1, 0) if self.seats == 2 else (0, 1)
            for seat, amount in ((small, stakes.small_blind), (big, stakes.big_blind)):
                self._post(seat, min(amount, self.stacks[seat]), bet=True)
                self._record(A.PostBlind(seat, self.bets[seat]))
        self._next_street()

    def _post(self, seat: int, amount: int, *, bet: bool) -> None:
        self.stacks[seat] -= amount
        self.contributed[seat] += amount
        if bet:
            self.bets[seat] += amount

    def _take(self, count: int, seat: int | None, waiting: frozenset[int] = frozenset()) -> tuple[Card, ...]:
        cards, reshuffled = self.shoe.take(count, seat, waiting)
        if reshuffled:
            self._record(A.Reshuffle(seat, reshuffled))
        return cards

    def _burn(self) -> None:
        card = self.shoe.burn()
        self.burned.append(card)
        self._record(A.Burn(None, card))

    def _deal_street(self, index: int) -> bool:
        """Deal street ``index``'s cards; ``False`` when it is a draw (the seats act first).

        Seats get their cards one at a time round the table. In 7-Card Stud, when the
        stub cannot give every seat its last card, one shared card goes face up to
        the board instead (and that round has no betting: see ``_no_betting``).
        """
        street = self.variant.streets[index]
        seats = [s for s in range(self.seats) if self.live[s]]
        for deal in street.deals:
            if deal.face is Face.DRAW:
                return False
            if deal.face is Face.BOARD:
                self._burn()
                cards = self._take(deal.count, None)
                self.board.extend(cards)
                self._record(A.Deal(None, cards))
                continue
            last = index == len(self.variant.streets) - 1
            if last and self.variant.shared_last_card and len(self.shoe) < len(seats) * deal.count:
                cards = self._take(1, None)
                self.board.extend(cards)
                self._record(A.Deal(None, cards))
                self._shared_card = True
                continue
            got: list[list[Card]] = [[] for _ in range(self.seats)]
            for _ in range(deal.count):
                for seat in seats:
                    got[seat].extend(self._take(1, seat))
            face_up = deal.face is Face.UP
            for seat in seats:
                self.cards[seat].extend(got[seat])
                self.up[seat].extend([face_up] * deal.count)
                self._record(A.Deal(seat, tuple(got[seat]), (face_up,) * deal.count))
        return True

    def _next_street(self) -> None:
        self.street += 1
        if self.street == len(self.variant.streets):
            self._showdown()
            return
        if self._deal_street(self.street):
            self._open_round()
            return
        self.phase = Phase.DRAWING
        self._drawers = deque(s for s in range(self.seats) if self.live[s])
        self._clock = 0.0

    def _open_round(self) -> None:
        """Start the betting round of the street just dealt (or pass it when nobody can bet)."""
        self.phase = Phase.BETTING
        if self._shared_card or bool(self._shown):
            self._close_round()
            return
        first = self._first_actor()
        bring_in = self.street == 0 and self.variant.bring_in is not None
        self.penalised = self._penalised_next
        self._penalised_next = set()
        self._split_open = self.variant.split_offer and self.street == len(self.variant.streets) - 1
        self._begin_betting(first, bring_in)
        if not self.actors:
            self._close_round()

    def _first_actor(self) -> int:
        variant = self.variant
        if variant.bring_in is None:
            if self.street == 0:
                return (2 if self.seats > 2 else 1) % self.seats
            return 0
        if self.street == 0:
            seats = [s for s in range(self.seats) if self.live[s]]
            return seats[variant.bring_in.seat([self.up_cards(s)[-1] for s in seats])]
        ups = [self.up_cards(s) if self.live[s] else None for s in range(self.seats)]
        return best_up_seat(ups, variant.name)

    def _round_over(self) -> None:
        """After each betting action: close the round when nobody is left to act."""
        if not self.actors or sum(self.live) == 1:
            self._close_round()

    def _close_round(self) -> None:
        self.actors.clear()
        self.bets = [0] * self.seats
        live = [s for s in range(self.seats) if self.live[s]]
        if len(live) == 1:
            self._finish()
            return
        draws_left = any(d.face is Face.DRAW for st in self.variant.streets[self.street + 1 :] for d in st.deals)
        with_chips = sum(1 for s in live if self.stacks[s] > 0)
        if with_chips <= 1 and not draws_left and not self._shown:
            self._show()
        self._next_street()

    # ------------------------------------------------------------------ draws

    def verify_draw(self, discards: Sequence[CardLike] | str = ()) -> tuple[Card, ...]:
        """Raise unless the seat to draw may discard ``discards`` (none: stand pat); return them parsed."""
        if self.phase is not Phase.DRAWING:
            raise IllegalActionError(f"no draw now: {self._awaiting()}")
        seat = self._drawers[0]
        if not isinstance(discards, str | Iterable):
            raise IllegalActionError(
                f"seat {seat} names no card: discards are cards or their names (none: stand pat), not {discards!r}"
            )
        try:
            cards = parse_cards(discards)
        except CardError as err:
            raise IllegalActionError(f"seat {seat} names no card: {err}") from None
        limit = self.variant.streets[self.street].count(Face.DRAW)
        if len(set(cards)) != len(cards):
            raise IllegalActionError(f"seat {seat} names a discard twice: {' '.join(map(str, cards))}")
        foreign = [str(c) for c in cards if c not in self.cards[seat]]
        if foreign:
            raise IllegalActionError(f"seat {seat} does not hold {' '.join(foreign)}; it may discard only its cards")
        if len(cards) > limit:
            raise IllegalActionError(f"seat {seat} may discard at most {limit} cards, not {len(cards)}")
        return cards

    def can_draw(self, discards: Sequence[CardLike] | str = ()) -> bool:
        try:
            self.verify_draw(discards)
        except (IllegalActionError, ValueError):
            return False
        return True

    def draw(self, discards: Sequence[CardLike] | str = ()) -> A.Draw:
        """Discard ``discards`` (the replacements come once every seat has drawn); none stands pat."""
        cards = self.verify_draw(discards)
        return self._draw(cards, timed_out=False)

    def _draw(self, cards: tuple[Card, ...], *, timed_out: bool) -> A.Draw:
        seat = self._drawers.popleft()
        for card in cards:
            index = self.cards[seat].index(card)
            del self.cards[seat][index]
            del self.up[seat][index]
        self.shoe.discard(seat, cards)
        if cards:
            self._replace.append((seat, len(cards)))
        if timed_out:
            self._penalised_next.add(seat)
        record = A.Draw(seat, cards, timed_out)
        self._record(record)
        self._clock = 0.0
        if not self._drawers:
            self._replace_discards()
        return record

    def verify_pass_time(self, seconds: float) -> None:
        if self.phase is not Phase.DRAWING:
            raise IllegalActionError(f"the draw time runs only while a seat is to draw: {self._awaiting()}")
        if not isinstance(seconds, Real) or isinstance(seconds, bool):
            raise IllegalActionError(f"time passes in seconds, a number, not {seconds!r}")
        if not seconds >= 0:
            raise IllegalActionError(f"time passes forward: {seconds!r} seconds is not allowed")

    def can_pass_time(self, seconds: float) -> bool:
        try:
            self.verify_pass_time(seconds)
        except IllegalActionError:
            return False
        return True

    def pass_time(self, seconds: float) -> A.TimePassed | A.Draw:
        """``seconds`` pass while the seat to draw thinks; at the draw time it stands pat and
        may not bet or raise in the next round (it may still check, call or fold)."""
        self.verify_pass_time(seconds)
        self._clock += seconds
        if self._clock >= self.draw_seconds:
            return self._draw((), timed_out=True)
        record = A.TimePassed(self._drawers[0], seconds, self.draw_seconds - self._clock)
        self._record(record)
        return record

    def _replace_discards(self) -> None:
        for k, (seat, count) in enumerate(self._replace):
            cards = self._take(count, seat, frozenset(s for s, _ in self._replace[k:]))
            self.cards[seat].extend(cards)
            self.up[seat].extend([False] * count)
            self._record(A.Deal(seat, cards, (False,) * count))
        self._replace = []
        self.shoe.new_round()
        self._open_round()

    # ------------------------------------------------------------------ the 32-Card Draw split offer

    def verify_offer_split(self) -> None:
        if not self.variant.split_offer:
            raise IllegalActionError(f"{self.variant.title} has no split offer: only 32-Card Draw has one")
        if not (self.phase is Phase.BETTING and self._split_open):
            raise IllegalActionError("a split may be offered only by the first seat to act after the draw")

    def can_offer_split(self) -> bool:
        return self.phase is Phase.BETTING and self._split_open

    def offer_split(self) -> A.OfferSplit:
        """The first seat after the draw offers to divide the pot equally; the offer passes seat to seat."""
        self.verify_offer_split()
        seat = self.actors[0]
        self.phase = Phase.SPLIT
        self._split_open = False
        self._answers = deque(s for s in clockwise_from(seat, self.seats)[1:] if self.live[s])
        self._accepted, self._refused = {seat}, False
        record = A.OfferSplit(seat)
        self._record(record)
        return record

    def verify_answer_split(self) -> None:
        if self.phase is not Phase.SPLIT:
            raise IllegalActionError(f"there is no split offer to answer: {self._awaiting()}")

    def can_answer_split(self) -> bool:
        return self.phase is Phase.SPLIT

    def answer_split(self, accept: bool) -> A.AnswerSplit:
        """Accept or refuse the offer. If every live seat accepts, every pot is divided
        equally among its seats and the hand ends. Without side pots one refusal ends the
        offer and the betting starts. With side pots every seat answers, and each pot all of
        whose seats accepted is divided; the betting goes on for the rest."""
        self.verify_answer_split()
        seat = self._answers.popleft()
        record = A.AnswerSplit(seat, accept)
        self._record(record)
        if accept:
            self._accepted.add(seat)
        else:
            self._refused = True
            if len(remaining_pots(self)) == 1:
                self._answers.clear()
        if self._answers:
            return record
        awards = divide(self, self._accepted)
        if not self._refused:
            self._pay(awards)
            return record
        left = [c - d for c, d in zip(self.contributed, self.divided, strict=True)]
        for pot in remaining_pots(self):
            if set(pot.eligible) <= self._accepted:
                self.divided = [d + share for d, share in zip(self.divided, pot.shares(left), strict=True)]
        self._pay(awards, finish=False)
        self.phase = Phase.BETTING
        return record

    # ------------------------------------------------------------------ showdown

    def _show(self) -> None:
        """Every live seat shows, in the rules' order (``settle.show_order``); a seat shows
        again only if it holds cards it has not shown (7-Card Stud's last card after an all-in)."""
        from engine.table.settle import show_order

        for seat in show_order(self):
            cards = tuple(self.cards[seat])
            if cards != self._shown.get(seat):
                self._shown[seat] = cards
                self._record(A.Show(seat, cards))

    def _showdown(self) -> None:
        """Every live seat shows (again, if it got cards face down since it showed), then the pots are paid."""
        self._show()
        self._finish()

    def _finish(self) -> None:
        self._pay(settle(self))

    def _pay(self, awards: Sequence[A.Award], *, finish: bool = True) -> None:
        for award in awards:
            if award.seat is None:
                raise InvariantError(f"an award of {award.amount} to no seat")
            self.stacks[award.seat] += award.amount
            self.paid += award.amount
            self._record(award)
        if finish:
            self.actors.clear()
            self.phase = Phase.DONE

    # ------------------------------------------------------------------ invariants

    def _check(self) -> None:
        """Chips conserved, no card twice, the turn held by a live seat; raises InvariantError."""
        if sum(self.stacks) + self.pot != sum(self.starting):
            raise InvariantError(f"stacks {self.stacks} and pot {self.pot} do not add up to {sum(self.starting)}")
        for seat in range(self.seats):
            if self.stacks[seat] < 0 or self.bets[seat] < 0 or self.bets[seat] > self.contributed[seat]:
                raise InvariantError(
                    f"seat {seat}: stack {self.stacks[seat]}, bet {self.bets[seat]}, in {self.contributed[seat]}"
                )
        if self.done and self.pot:
            raise InvariantError(f"the hand is over with {self.pot} still in the pot")
        held = [c for hand in self.cards for c in hand] + self.board
        try:
            check_distinct(held)
        except ValueError as err:
            raise InvariantError(f"a card is held twice: {err}") from None
        every = sorted([*held, *self.burned, *self.mucked, *self.shoe.unseen()])
        if not self.shoe.as_recorded and every != list(self.variant.deck.cards()):
            raise InvariantError("the held, burned, mucked, stub and discarded cards are not the pack once")
        actor = self.actor
        if actor is not None and not self.live[actor]:
            raise InvariantError(f"seat {actor} is to act but has folded")
        if self.phase is Phase.BETTING and actor is not None and self.stacks[actor] == 0:
            raise InvariantError(f"seat {actor} is to bet but is all in")


def _whole_pack(order: Sequence[Card], pack: Sequence[Card]) -> None:
    """Refuse a deck order that leaves out cards of the pack (it would run dry, or fail ``_check``)."""
    if len(order) != len(pack):
        named = set(order)
        missing = [str(card) for card in pack if card not in named]
        shown = " ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise TableError(f"a deck order names all {len(pack)} cards of the pack, not {len(order)}; missing {shown}")
