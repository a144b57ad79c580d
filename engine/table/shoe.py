"""Where the table's cards come from: the stub of a shuffled deck, and the discards.

Draw games can run the stub dry. Then the discards made so far are shuffled (with
the table's own seeded ``random.Random``) and dealt, except this round's discards of
the receiving seat and of the seats still waiting for their cards, which stay aside:
so no seat receives its own discards of the round (``variants.md``, "Draw games").

A :class:`ScriptedShoe` deals a recorded hand again, card for card (reading a hand
history back).

>>> from engine.cards import parse_cards
>>> shoe = Shoe(parse_cards("As Kd Qh"), random.Random(0))
>>> [str(c) for c in shoe.take(2, seat=0)[0]], len(shoe)
(['As', 'Kd'], 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import Card
from engine.table.errors import TableError


class Shoe:
    """The stub (top card first) and the discards that may be reshuffled into it."""

    #: Whether cards are dealt as a recording says, beyond what the stub and discards account for (a replay).
    as_recorded = False

    def __init__(self, order: Sequence[Card], rng: random.Random) -> None:
        self._stub = list(reversed(order))  # the top card is popped from the end
        self._rng = rng
        self._discards: list[tuple[int, int, Card]] = []  # (round, seat, card)
        self._round = 0

    def __len__(self) -> int:
        return len(self._stub)

    def new_round(self) -> None:
        """Discards made from now on belong to the next draw round."""
        self._round += 1

    def discard(self, seat: int, cards: Sequence[Card]) -> None:
        self._discards.extend((self._round, seat, card) for card in cards)

    def take(
        self, count: int, seat: int | None = None, waiting: frozenset[int] = frozenset()
    ) -> tuple[tuple[Card, ...], int]:
        """``count`` cards for ``seat`` (``None``: board or burn), and how many were reshuffled
        in; ``waiting`` are the seats still to receive cards this round."""
        out: list[Card] = []
        reshuffled = 0
        for _ in range(count):
            if not self._stub:
                reshuffled += self._reshuffle(waiting | {seat} if seat is not None else waiting)
            out.append(self._stub.pop())
        return tuple(out), reshuffled

    def burn(self) -> Card:
        """The top card, face down to nobody."""
        return self.take(1)[0][0]

    def _usable(self, aside: frozenset[int]) -> list[tuple[int, int, Card]]:
        """The discards a reshuffle now brings in: all but this round's of the seats ``aside``."""
        return [d for d in self._discards if not (d[0] == self._round and d[1] in aside)]

    def _reshuffle(self, aside: frozenset[int]) -> int:
        usable = self._usable(aside)
        if not usable:
            raise TableError("the deck and the usable discards are empty: no card left to deal")
        self._discards = [d for d in self._discards if d not in usable]
        cards = [card for _, _, card in usable]
        self._rng.shuffle(cards)
        self._stub = cards
        return len(cards)

    def unseen(self) -> tuple[Card, ...]:
        """The cards still in the stub or the discards (for the state's card check)."""
        return (*self._stub, *(card for _, _, card in self._discards))


class ScriptedShoe(Shoe):
    """Deals the cards a hand history recorded: ``script`` maps each seat (``None``: the
    board) to the cards it received, in order.

    The stub is the whole pack, and each card dealt is taken out of it as a real shoe's
    is, so the history must be a deal a pack can make: a card is dealt once, and comes
    back only in a reshuffle once the stub is empty, as a real shoe brings it back (the
    discards, never to the seat that discarded it that round, nor to a seat still waiting
    for its cards). A dealer who burns before each draw (pokerkit's does) runs dry a card a
    draw sooner, and may reshuffle by other rules (burns, folded hands, a seat's own
    discards): a card dealt again with no more cards left in the stub than draws so far is
    that dealer's reshuffle, and from then on the cards are taken as recorded (the table
    still refuses a card held twice). A burn takes a card the rest of the script does not
    deal, if there is one.
    """

    def __init__(self, script: dict[int | None, list[Card]], deck: Sequence[Card]) -> None:
        super().__init__(deck, random.Random(0))
        self._script = {target: list(reversed(cards)) for target, cards in script.items()}

    def take(
        self, count: int, seat: int | None = None, waiting: frozenset[int] = frozenset()
    ) -> tuple[tuple[Card, ...], int]:
        queue = self._script.get(seat, [])
        who = "the board" if seat is None else f"seat {seat}"
        if len(queue) < count:
            raise TableError(f"the recorded hand deals {len(queue)} more cards to {who}, the table needs {count}")
        out: list[Card] = []
        reshuffled = 0
        for _ in range(count):
            card = queue.pop()
            aside = waiting | {seat} if seat is not None else waiting
            if not self._stub and not self.as_recorded and self._usable(aside):
                reshuffled += self._reshuffle(aside)
            if card in self._stub:
                self._stub.remove(card)
            elif self.as_recorded or len(self._stub) <= self._round + 1:  # a burn before each draw, this one's too
                self.as_recorded = True
            else:
                raise CardNotInStub(card, who)
            out.append(card)
        return tuple(out), reshuffled

    def burn(self) -> Card:
        """A card nobody sees: one the rest of the script does not deal, if the stub holds one."""
        if not self._stub:
            self._reshuffle(frozenset())
        dealt_later = {card for cards in self._script.values() for card in cards}
        card = next((c for c in reversed(self._stub) if c not in dealt_later), self._stub[-1])
        self._stub.remove(card)
        return card


class CardNotInStub(TableError):
    """A recorded deal no pack makes: ``card`` is dealt to ``who`` when it is not in the stub."""

    def __init__(self, card: Card, who: str) -> None:
        super().__init__(
            f"card {card} appears more than once: it is dealt to {who} when it is no longer in the stub (a card "
            "comes back only in a reshuffle of the draws' discards, once the stub is empty, and never to the seat "
            "that discarded it that round)"
        )
        self.card = card
