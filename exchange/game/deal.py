"""Dealer integration: the hidden side of one game and the public cards it has turned.

:class:`GameDeal` owns the :class:`~engine.dealer.Dealer` for one game. It
deals the first cards face down at the start, turns them at the Deal close,
and deals each later step of the game's layout (board streets, stud streets,
draws) at the close of its window. Whatever has been turned is
copied into a :class:`PublicCards` value: the *only* thing about cards that
the rest of the system (views, agents, equities, events) ever receives. A
face-down card never leaves this module before it is turned.

Where decks come from is a :data:`DeckSource`: seeded (``seeded_decks``,
reproducible from the channel seed and the game number) or fixed
(``fixed_decks``, for tests and replays of a known deal).

>>> from engine.cards import parse_cards
>>> from engine.dealer import arrange_deck
>>> deck = arrange_deck([parse_cards(h) for h in ("AsKs", "QdQc", "7h6h", "2c2d")], parse_cards("Ah7c2s9d3h"))
>>> deal = GameDeal(fixed_decks([deck])(0), hands=4, layout=LAYOUTS["holdem"])
>>> deal.public.hands
(None, None, None, None)
>>> deal.turn_hole_cards()
>>> [format_cards(h) for h in deal.public.hands if h is not None]
['As Ks', 'Qd Qc', '7h 6h', '2c 2d']
>>> format_cards(deal.deal_next().board)
'Ah 7c 2s'
>>> format_cards(deal.public.board)
'Ah 7c 2s'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from engine.cards import Card, format_cards
from engine.dealer import Dealer, Dealt
from engine.irregularities import IrregularDeal, Irregularity
from exchange.game.layouts import LAYOUTS, Layout, Step, StepKind

DeckSource = Callable[[int], Dealer]
"""Given a game number, the dealer (with its deck in order) for that game."""

__all__ = ["LAYOUTS", "DeckSource", "GameDeal", "PublicCards", "StepDealt", "fixed_decks", "format_cards",
           "seeded_decks"]


def seeded_decks(seed: int | str, *, cut: bool = True) -> DeckSource:
    """Shuffle (and cut) a fresh 52-card pack per game from ``random.Random(f"{seed}/{game_number}")``.

    String seeds hash with SHA-512 inside ``random``, so the deal does not depend
    on ``PYTHONHASHSEED`` or on the order games are played in.

    >>> a, b = seeded_decks(7)(3), seeded_decks(7)(3)
    >>> a.remaining == b.remaining != seeded_decks(7)(4).remaining
    True
    """

    def source(game_number: int) -> Dealer:
        return Dealer.shuffled(random.Random(f"{seed}/{game_number}"), cut=cut)

    return source


def fixed_decks(decks: Sequence[Sequence[Card]], *, cycle: bool = False) -> DeckSource:
    """Deal game ``n`` from ``decks[n]`` (top card first), e.g. from :func:`engine.dealer.arrange_deck`.

    Past the last deck: start again if ``cycle``, else raise ``IndexError``.
    """
    frozen = [tuple(deck) for deck in decks]
    if not frozen:
        raise ValueError("fixed_decks needs at least one deck")

    def source(game_number: int) -> Dealer:
        if game_number >= len(frozen) and not cycle:
            raise IndexError(f"no fixed deck for game {game_number}; {len(frozen)} deck(s) given")
        return Dealer(frozen[game_number % len(frozen)])

    return source


@dataclass(frozen=True, slots=True)
class PublicCards:
    """The cards face up to bettors: each hand's cards (``None`` until the Deal close) and the board.

    ``up`` marks, per hand and card, whether the card was dealt face up (the poker
    meaning: bettors see every dealt card, but a page draws the table as the
    players see it); empty means all down. Draw games keep each hand's
    ``dealt`` five and, per draw, what it ``discarded`` and what it ``drawn``;
    ``hands`` is what it holds now. ``exposed``: cards a dealer's error showed
    before their time (out of play, or shuffled back into the deck): everyone
    has seen them. ``out_of_play``: those of them out of play for the rest of the
    game (a dealer's error made them the burn card): every later deal is dealt
    without them, so every equity counts them :attr:`dead`.
    """

    hands: tuple[tuple[Card, ...] | None, ...]
    board: tuple[Card, ...] = ()
    up: tuple[tuple[bool, ...], ...] = ()
    dealt: tuple[tuple[Card, ...], ...] = ()
    discarded: tuple[tuple[tuple[Card, ...], ...], ...] = ()
    drawn: tuple[tuple[tuple[Card, ...], ...], ...] = ()
    exposed: tuple[Card, ...] = ()
    out_of_play: tuple[Card, ...] = ()

    @property
    def hole_cards_visible(self) -> bool:
        return all(hand is not None for hand in self.hands)

    def visible_hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every hand's cards; raises ``LookupError`` while they are face down."""
        if not self.hole_cards_visible:
            raise LookupError("hole cards are face down until the Deal window closes")
        return tuple(hand for hand in self.hands if hand is not None)

    def faces(self, hand: int) -> tuple[bool, ...]:
        """Face-up flags of hand ``hand``'s cards (0-based index), all ``False`` where none is up."""
        cards = self.hands[hand]
        if cards is None:
            return ()
        return self.up[hand] if self.up else (False,) * len(cards)

    @property
    def dead(self) -> tuple[Card, ...]:
        """Every card seen and out of play: exposed then burned, or discarded and not back in a hand.

        (A draw's reshuffle may deal a discard again; a card a dealer's error took
        out of play never comes back.)
        """
        held = {c for hand in self.hands if hand is not None for c in hand}
        discards = tuple(c for seat in self.discarded for draw in seat for c in draw if c not in held)
        return self.out_of_play + discards

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "hands": [None if hand is None else format_cards(hand) for hand in self.hands],
            "board": format_cards(self.board),
        }
        if self.exposed:
            out["exposed"] = format_cards(self.exposed)
        if self.out_of_play:
            out["out_of_play"] = format_cards(self.out_of_play)
        return out


@dataclass(frozen=True, slots=True)
class StepDealt:
    """What one step turned: ``cards`` per seat (new cards; replacements in a draw) or to the ``board``."""

    step: Step
    cards: tuple[tuple[Card, ...], ...] = ()
    board: tuple[Card, ...] = ()
    discarded: tuple[tuple[Card, ...], ...] = ()


class GameDeal:
    """One game's cards, dealt card by card as its :class:`~exchange.game.layouts.Layout` says.

    The first step is dealt face down at once and turned by :meth:`turn_hole_cards`
    (at the Deal close); each later step is dealt and shown by :meth:`deal_next`,
    after a burn where the game burns. A draw asks :mod:`engine.draw_policy` what
    each hand throws.

    ``irregularity``: a dealer's error injected and corrected as
    ``irregularities.md`` says (:mod:`engine.irregularities`, reshuffles drawn
    from ``rng``). Those rules are written for hole cards then board streets, so
    only a layout with :attr:`~exchange.game.layouts.Layout.holdem_streets` takes
    one; any other raises ``ValueError``.
    """

    def __init__(
        self, dealer: Dealer, *, hands: int, layout: Layout,
        irregularity: Irregularity | None = None, rng: random.Random | None = None,
    ) -> None:
        self._dealer = dealer
        self.layout = layout
        first = layout.steps[0]
        #: The misdeal (``"misdeal (...)"``) if the deal was one: the game is then void.
        self.misdeal: str | None = None
        self._irregular: IrregularDeal | None = None
        exposed: tuple[Card, ...] = ()
        out_of_play: tuple[Card, ...] = ()
        if irregularity is None:
            self._hole = dealer.deal_seats(hands, first.per_seat, burn=False)
        else:
            if not layout.holdem_streets:
                raise ValueError(f"{irregularity.describe()} is a Hold'em dealing error; {layout.variant} is not "
                                 "dealt as hole cards then a flop, turn and river")
            self._irregular = IrregularDeal(dealer, irregularity, rng or random.Random(0))
            hole = self._irregular.deal_hole(hands, first.per_seat)
            self._hole, self.misdeal, exposed = list(hole.hands), hole.misdeal, hole.exposed
            out_of_play = self._irregular.dead
        self._first_up = (False,) * first.down + (True,) * first.up
        self.steps_done = 1
        self.public = PublicCards(hands=(None,) * hands, exposed=exposed, out_of_play=out_of_play)
        #: The cards a dealer's error showed while the last street was turned (too many flop cards).
        self.last_seen: tuple[Card, ...] = ()

    @property
    def stock(self) -> int:
        """Cards left in the deck."""
        return len(self._dealer.remaining)

    @property
    def complete(self) -> bool:
        return self.steps_done == len(self.layout.steps) and self.public.hole_cards_visible

    def turn_hole_cards(self) -> None:
        """Turn every hand's first cards face up (at the Deal close)."""
        if self.public.hole_cards_visible:
            raise RuntimeError("hole cards are already face up")
        hands = tuple(self._hole)
        self.public = PublicCards(hands=hands, board=self.public.board, up=(self._first_up,) * len(hands),
                                  dealt=hands if self.layout.draws else (), exposed=self.public.exposed,
                                  out_of_play=self.public.out_of_play)

    def deal_next(self) -> StepDealt:
        """Deal the next step and show it; returns what it turned."""
        if not self.public.hole_cards_visible:
            raise RuntimeError("later cards are dealt only after the first cards are turned")
        if self.steps_done >= len(self.layout.steps):
            raise RuntimeError("every step of the game has been dealt")
        step = self.layout.steps[self.steps_done]
        self.steps_done += 1
        public = self.public
        hands = public.visible_hands()
        self.last_seen = ()
        if step.kind is StepKind.BOARD:
            if self._irregular is None:
                board = self._dealer.deal_board(step.board, burn=step.burn)
            else:
                board, self.last_seen = self._irregular.turn_board(step.board)
            self.public = replace(public, board=public.board + board, exposed=public.exposed + self.last_seen)
            return StepDealt(step, board=board)
        if step.kind is StepKind.SEATS:
            cards = self._dealer.deal_seats(len(hands), step.per_seat, burn=step.burn)
            faces = (False,) * step.down + (True,) * step.up
            up = tuple(public.faces(i) + faces for i in range(len(hands)))
            self.public = replace(public, hands=tuple(h + c for h, c in zip(hands, cards, strict=True)), up=up)
            return StepDealt(step, cards=tuple(cards))
        return self._draw(step, hands)

    def _draw(self, step: Step, hands: tuple[tuple[Card, ...], ...]) -> StepDealt:
        from engine.draw_policy import discards  # the rankings (numba) load with the engine, not at import

        thrown = tuple(discards(self.layout.variant, hand) for hand in hands)
        got = tuple(self._dealer.replace(thrown, burn=step.burn))
        now = tuple(tuple(c for c in h if c not in t) + g for h, t, g in zip(hands, thrown, got, strict=True))
        public = self.public
        seats = range(len(hands))
        self.public = replace(
            public,
            hands=now,
            up=tuple((False,) * 5 for _ in seats),
            discarded=tuple((public.discarded[i] if public.discarded else ()) + (thrown[i],) for i in seats),
            drawn=tuple((public.drawn[i] if public.drawn else ()) + (got[i],) for i in seats),
        )
        return StepDealt(step, cards=got, discarded=thrown)

    def expose_early(self, street: int) -> tuple[Card, ...]:
        """A premature street (0 flop, 1 turn, 2 river): turn it now and take it out of play as the rules say."""
        if self._irregular is None:
            raise RuntimeError("no irregularity is injected in this deal")
        seen = self._irregular.expose_early(street)
        self.public = replace(self.public, exposed=self.public.exposed + seen)
        return seen

    def record(self) -> tuple[Dealt, ...]:
        """Every card that has left the deck, in order, burns included. Publish only after the game."""
        return tuple(self._dealer.record)


def arrange_game_deck(
    layout: Layout,
    seats: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    replacements: Sequence[Sequence[Sequence[Card]]] = (),
    *,
    pack: Sequence[Card] | None = None,
) -> list[Card]:
    """A deck order from which :class:`GameDeal` deals exactly these cards (tests, replays of a known deal).

    ``seats``: each seat's cards in the order dealt (7-Card Stud: two down, one up,
    4th to 6th street, 7th; a draw game: its five dealt cards). ``board``: the board
    (Telesina: the vela). ``replacements[d][i]``: the cards seat ``i`` is dealt at
    draw ``d``, as many as the policy throws (checked; draws not given are dealt
    off the rest). Burns and the rest of the deck are the other cards of ``pack``
    (default: the variant's), in id order.

    >>> from engine.cards import parse_cards
    >>> seats = [parse_cards("As Ks Qs Js Ts 9s 8s"), parse_cards("2c 3c 4c 5c 6c 7c 8c")]
    >>> deck = arrange_game_deck(LAYOUTS["stud7"], seats)
    >>> deal = GameDeal(Dealer(deck), hands=2, layout=LAYOUTS["stud7"])
    >>> deal.turn_hole_cards()
    >>> for _ in range(4):
    ...     _ = deal.deal_next()
    >>> format_cards(deal.public.visible_hands()[1]), deal.public.faces(1)
    ('2c 3c 4c 5c 6c 7c 8c', (False, False, True, True, True, True, False))
    """
    from engine.variants import get_variant

    named = [c for s in seats for c in s] + list(board) + [c for d in replacements for s in d for c in s]
    if len(set(named)) != len(named):
        raise ValueError("a card is named twice")
    deck_cards = list(get_variant(layout.variant).deck.cards() if pack is None else pack)
    spare = [c for c in deck_cards if c not in set(named)]
    order: list[Card] = []
    position = [0] * len(seats)
    held: list[list[Card]] = [[] for _ in seats]
    board_at = 0
    draw = 0
    for step in layout.steps:
        if step.burn:
            order.append(spare.pop(0))
        if step.kind is StepKind.SEATS:
            for _ in range(step.per_seat):
                for i, seat in enumerate(seats):
                    order.append(seat[position[i]])
                    held[i].append(seat[position[i]])
                    position[i] += 1
        elif step.kind is StepKind.BOARD:
            order.extend(board[board_at : board_at + step.board])
            board_at += step.board
        else:
            if draw >= len(replacements):  # the rest comes off the deck as it lies
                break
            order.extend(_replace(layout.variant, held, replacements[draw], draw))
            draw += 1
    return order + spare


def _replace(variant: str, held: list[list[Card]], given: Sequence[Sequence[Card]], draw: int) -> list[Card]:
    """One draw of :func:`arrange_game_deck`: check each seat is given as many cards as it throws, update ``held``."""
    from engine.draw_policy import discards as policy_discards

    order: list[Card] = []
    for i, got in enumerate(given):
        thrown = policy_discards(variant, held[i])
        if len(got) != len(thrown):
            raise ValueError(f"seat {i + 1} throws {format_cards(thrown)} at draw {draw + 1}; "
                             f"{len(got)} replacement(s) given")
        held[i] = [c for c in held[i] if c not in thrown] + list(got)
        order.extend(got)
    return order
