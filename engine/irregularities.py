"""Dealer irregularities in Hold'em and the procedures that correct them (``irregularities.md``, rules 1-5).

An :class:`Irregularity` says what goes wrong and where; an :class:`IrregularDeal`
deals one Hold'em hand through a :class:`~engine.dealer.Dealer` with that
irregularity injected and applies the rule exactly as written:

========================  ====  ====================================================================
kind                      rule  what the dealer does
========================  ====  ====================================================================
``exposed-hole-cards``    1     the first card dealt exposed, or more than one: misdeal. One other:
                                the deal goes on; after it the card is replaced by the top card of
                                the deck and becomes the burn card (the flop is then dealt without
                                a burn of its own).
``too-many-flop-cards``   2, 3  the flop is redealt: board cards shuffled back into the deck, the
                                burn stays, cut, a new flop without a burn.
``premature-flop``        3     the flop turned before the betting is complete: the same redeal.
``premature-turn``        4     the card is set aside for the round; at its end the dealer burns and
                                turns the next card as the turn; then the set-aside card is shuffled
                                back (burns stay out), cut, and the river turned without a burn.
``premature-river``       4     the card is shuffled back into the deck, cut, and the river turned
                                without a burn at the end of the round.
``extra-cards``           5     one extra card to the first seat goes back as the burn card (the
                                flop then has no burn of its own); more than one: misdeal.
========================  ====  ====================================================================

Every step is in the dealer's card-by-card record (``"seat 2 exposed"``,
``"seat 1 extra"``, ``"exposed"``, ``"set aside"``, ``"deck"`` for a card shuffled
back, ``"burn"``, ``"misdeal"``), and every reshuffle draws from the ``rng``
given, so a game with an irregularity replays from its seeds.

>>> import random
>>> from engine.dealer import Dealer
>>> deal = IrregularDeal(Dealer.shuffled(random.Random(1)), Irregularity(Kind.EXPOSED_HOLE_CARDS, (3,)),
...                      random.Random(2))
>>> hole = deal.deal_hole(4, 2)
>>> hole.misdeal, [d.to for d in deal.dealer.record[3:5]], [d.to for d in deal.dealer.record[-2:]]
(None, ['seat 4', 'seat 4 exposed'], ['seat 4', 'burn'])
>>> flop, wrong = deal.turn_board(3)   # the exposed card was the burn: the flop has none of its own
>>> [d.to for d in deal.dealer.record][-5:]
['seat 4', 'burn', 'board', 'board', 'board']
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum

from engine.cards import Card, CardError
from engine.dealer import BOARD, BURN, Dealer

MISDEAL = "misdeal"


class Kind(StrEnum):
    """What the dealer does wrong."""

    EXPOSED_HOLE_CARDS = "exposed-hole-cards"
    TOO_MANY_FLOP_CARDS = "too-many-flop-cards"
    PREMATURE_FLOP = "premature-flop"
    PREMATURE_TURN = "premature-turn"
    PREMATURE_RIVER = "premature-river"
    EXTRA_CARDS = "extra-cards"

    @property
    def rule(self) -> int:
        """The rule of ``irregularities.md`` that corrects it."""
        return _RULES[self]

    @property
    def premature(self) -> bool:
        """A street turned before its betting round is complete (it happens inside a betting window)."""
        return self in (Kind.PREMATURE_FLOP, Kind.PREMATURE_TURN, Kind.PREMATURE_RIVER)


_RULES = {
    Kind.EXPOSED_HOLE_CARDS: 1,
    Kind.TOO_MANY_FLOP_CARDS: 2,
    Kind.PREMATURE_FLOP: 3,
    Kind.PREMATURE_TURN: 4,
    Kind.PREMATURE_RIVER: 4,
    Kind.EXTRA_CARDS: 5,
}

#: The street (index into flop, turn, river) each premature kind turns early.
PREMATURE_STREET = {Kind.PREMATURE_FLOP: 0, Kind.PREMATURE_TURN: 1, Kind.PREMATURE_RIVER: 2}


#: The kinds that say how many cards too many (``count``); every other kind keeps ``count`` 1.
COUNTED = frozenset({Kind.TOO_MANY_FLOP_CARDS, Kind.EXTRA_CARDS})


@dataclass(frozen=True, slots=True)
class Irregularity:
    """One dealer error.

    ``cards``: for ``exposed-hole-cards``, the positions in dealing order of the
    exposed hole cards (0 is the first card dealt). ``count``: for
    ``too-many-flop-cards`` and ``extra-cards``, how many cards too many.
    Refused when built (``ValueError`` naming the field and what it may be).

    >>> Irregularity(Kind.PREMATURE_TURN, count=2)
    Traceback (most recent call last):
    ...
    ValueError: count: only extra-cards and too-many-flop-cards take a count; premature-turn's is 1, not 2
    """

    kind: Kind
    cards: tuple[int, ...] = ()
    count: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.kind, Kind):
            raise ValueError(f"kind must be a Kind ({', '.join(Kind)}), not {self.kind!r}")
        if not isinstance(self.cards, tuple) or not all(type(c) is int for c in self.cards):
            raise ValueError(f"cards must be a tuple of hole card positions (whole numbers), not {self.cards!r}")
        if self.kind is Kind.EXPOSED_HOLE_CARDS:
            if not self.cards or len(set(self.cards)) != len(self.cards) or min(self.cards) < 0:
                raise ValueError(f"exposed hole cards need distinct positions from 0, not {self.cards!r}")
        elif self.cards:
            raise ValueError(f"{self.kind} takes no card positions")
        if type(self.count) is not int or self.count < 1:
            raise ValueError(f"count must be a whole number, at least 1, not {self.count!r}")
        if self.count != 1 and self.kind not in COUNTED:
            raise ValueError(f"count: only {' and '.join(sorted(COUNTED))} take a count; {self.kind}'s is 1, "
                             f"not {self.count}")

    def check_deal(self, hole_cards: int, deck_cards: int = 52) -> None:
        """Refuse (``ValueError``) what a deal of ``hole_cards`` hole cards from a pack of ``deck_cards`` cannot
        have: an exposed position past its last hole card, more cards too many than the pack has left.

        >>> Irregularity(Kind.EXPOSED_HOLE_CARDS, (8,)).check_deal(8)
        Traceback (most recent call last):
        ...
        ValueError: cards: a deal of 8 hole cards has positions 0 to 7, not (8,)
        """
        if self.cards and max(self.cards) >= hole_cards:
            raise ValueError(f"cards: a deal of {hole_cards} hole cards has positions 0 to {hole_cards - 1}, "
                             f"not {self.cards}")
        left = deck_cards - hole_cards - (4 if self.kind is Kind.TOO_MANY_FLOP_CARDS else 0)  # a burn, the flop
        if self.kind in COUNTED and self.count > left:
            raise ValueError(f"count: after {hole_cards} hole cards a pack of {deck_cards} has room for at most "
                             f"{left} {self.kind}, not {self.count}")

    @property
    def misdeal(self) -> bool:
        """Whether the rules make it a misdeal (the hand is void and dealt again)."""
        if self.kind is Kind.EXPOSED_HOLE_CARDS:
            return 0 in self.cards or len(self.cards) > 1
        return self.kind is Kind.EXTRA_CARDS and self.count > 1

    def describe(self) -> str:
        """One line for people: ``rule 1: exposed-hole-cards at card 4``."""
        where = f" at card {', '.join(str(c + 1) for c in self.cards)}" if self.cards else ""
        many = f" ({self.count})" if self.kind in (Kind.TOO_MANY_FLOP_CARDS, Kind.EXTRA_CARDS) else ""
        return f"rule {self.kind.rule}: {self.kind}{where}{many}"


@dataclass(frozen=True, slots=True)
class HoleDeal:
    """The hole cards dealt, the cards exposed on the way, and the misdeal if it was one."""

    hands: tuple[tuple[Card, ...], ...]
    exposed: tuple[Card, ...]
    misdeal: str | None


class IrregularDeal:
    """One Hold'em deal through ``dealer`` with ``irregularity`` (or none) injected and corrected."""

    def __init__(self, dealer: Dealer, irregularity: Irregularity | None, rng: random.Random) -> None:
        self.dealer = dealer
        self.irregularity = irregularity
        self._rng = rng
        self._burned_ahead = False  # the next street's burn card is already out (rules 1, 5)
        self._no_burn = False  # the next street is dealt without a burn (rules 3, 4)
        self._set_aside: list[Card] = []  # out of play until the river's reshuffle (rule 4)
        self._premature_done = False
        self._reshuffle_set_aside = False
        self._dead: list[Card] = []  # seen, then burned: out of play for the rest of the hand (rules 1, 5)

    @property
    def kind(self) -> Kind | None:
        return None if self.irregularity is None else self.irregularity.kind

    @property
    def dead(self) -> tuple[Card, ...]:
        """Cards seen by everyone and out of play for the rest of the hand: no later street can hold them.

        Only a card that becomes the burn card is dead: the exposed hole card
        (rule 1: "the exposed card becomes the burn card") and the one extra card
        (rule 5: it "goes back to the deck and is used as the burn card", so it
        goes back only to be burned). Cards that rules 3 and 4 shuffle back into
        the deck (a redealt flop, a premature river, the set-aside turn once the
        river is due) can be dealt again and are not dead; a misdeal deals again.

        >>> from engine.dealer import Dealer
        >>> deal = IrregularDeal(Dealer.shuffled(random.Random(1)), Irregularity(Kind.EXTRA_CARDS), random.Random(2))
        >>> hole = deal.deal_hole(4, 2)
        >>> deal.dead == hole.exposed and len(deal.dead) == 1
        True
        """
        return tuple(self._dead)

    def deal_hole(self, seats: int, per_seat: int) -> HoleDeal:
        """Deal the hole cards one at a time round the table, with rule 1 or 5 applied if injected."""
        irregular = self.irregularity
        exposing = set(irregular.cards) if irregular and irregular.kind is Kind.EXPOSED_HOLE_CARDS else set()
        hands: list[list[Card]] = [[] for _ in range(seats)]
        exposed: list[tuple[int, Card]] = []
        if exposing and max(exposing) >= seats * per_seat:
            raise CardError(f"hole card positions run 0..{seats * per_seat - 1}, not {sorted(exposing)}")
        for position in range(seats * per_seat):
            seat = position % seats
            card = self.dealer.draw(f"seat {seat + 1}")
            hands[seat].append(card)
            if position in exposing:
                self.dealer.mark(card, f"seat {seat + 1} exposed")
                exposed.append((seat, card))
                if position == 0 or len(exposed) > 1:
                    return self._misdeal(hands, [c for _, c in exposed], "more than one hole card exposed"
                                         if len(exposed) > 1 else "the first hole card exposed")
        if exposed:
            seat, card = exposed[0]
            hands[seat][hands[seat].index(card)] = self.dealer.draw(f"seat {seat + 1}")
            self.dealer.mark(card, BURN)
            self._burned_ahead = True
            self._dead.append(card)
        if irregular is not None and irregular.kind is Kind.EXTRA_CARDS:
            extra = [self.dealer.draw("seat 1 extra") for _ in range(irregular.count)]
            if len(extra) > 1:
                return self._misdeal(hands, extra, "more than one extra card dealt")
            self.dealer.mark(extra[0], BURN)
            self._burned_ahead = True
            self._dead.append(extra[0])
            return HoleDeal(tuple(map(tuple, hands)), tuple(extra), None)
        return HoleDeal(tuple(map(tuple, hands)), tuple(c for _, c in exposed), None)

    def _misdeal(self, hands: list[list[Card]], exposed: list[Card], why: str) -> HoleDeal:
        self.dealer.mark(exposed[-1], MISDEAL)
        return HoleDeal(tuple(map(tuple, hands)), tuple(exposed), f"misdeal ({why})")

    def expose_early(self, street: int) -> tuple[Card, ...]:
        """Rules 3 and 4: turn street ``street`` (0 flop, 1 turn, 2 river) before its time; returns what was seen.

        The cards are taken out of play at once (the flop and the river shuffled back,
        the turn set aside); the street is dealt when its time comes by :meth:`turn_board`.
        """
        if self.kind is None or PREMATURE_STREET.get(self.kind) != street or self._premature_done:
            raise CardError(f"no premature street {street} is injected in this deal")
        self._premature_done = True
        self._burn()
        cards = tuple(self.dealer.draw(BOARD) for _ in range(3 if street == 0 else 1))
        for card in cards:
            self.dealer.mark(card, "exposed")
        if street == 1:
            self._set_aside.extend(cards)
            for card in cards:
                self.dealer.mark(card, "set aside")
            return cards
        self.dealer.restack(cards, self._rng)
        self._no_burn = True
        return cards

    def turn_board(self, count: int) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Turn the next street (``count`` cards): ``(cards turned, cards seen and taken back)``.

        With ``too-many-flop-cards`` injected, the flop comes with extra cards, which
        rule 2 sends back to the deck before a new flop is dealt without a burn.
        """
        if self._reshuffle_set_aside:  # rule 4: the river after a premature turn
            self._reshuffle_set_aside = False
            self.dealer.restack(self._set_aside, self._rng)
            self._set_aside.clear()
            self._no_burn = True
        wrong: tuple[Card, ...] = ()
        irregular = self.irregularity
        wrong_flop = irregular is not None and irregular.kind is Kind.TOO_MANY_FLOP_CARDS and count == 3
        if irregular is not None and wrong_flop and not self._premature_done:
            wrong = self._wrong_flop(count + irregular.count)
        if self._no_burn:
            self._no_burn = False
        else:
            self._burn()
        cards = tuple(self.dealer.draw(BOARD) for _ in range(count))
        self._reshuffle_set_aside = bool(self._set_aside)
        return cards, wrong

    def _wrong_flop(self, count: int) -> tuple[Card, ...]:
        """Rules 2 and 3: a flop of ``count`` cards is turned, then shuffled back; the burn stays."""
        self._premature_done = True
        self._burn()
        wrong = tuple(self.dealer.draw(BOARD) for _ in range(count))
        for card in wrong:
            self.dealer.mark(card, "exposed")
        self.dealer.restack(wrong, self._rng)
        self._no_burn = True
        return wrong

    def _burn(self) -> None:
        if self._burned_ahead:
            self._burned_ahead = False
        else:
            self.dealer.burn()
