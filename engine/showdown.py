"""Who wins the pot: :func:`showdown` for any variant.

``hands`` are each seat's cards at the showdown: the hole cards in board games, all
seven (or five) cards in stud games, the five own cards in Telesina (whose ``board``
is the vela), the final five in draw games. A dead heat returns every tied hand.

In hi/lo games the pot has two halves. When no hand makes a qualifying low, ``low``
is ``None`` and the high hand scoops the whole pot.

>>> r = showdown("telesina", ["Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d"], board="Jh")
>>> r.high.winners
(0,)
>>> r.to_dict()["high"]["hands"][0]
{'category': 'high card', 'cards': ['Ah', 'Qc', 'Jh', '9d', '8s']}
>>> r = showdown("omaha-hilo", ["As 2s Kd Kh", "3c 4c Qd Qh"], board="5h 6d 8c Ks Jd")
>>> r.high.winners, r.low.winners, [str(s) for s in r.shares()]
((0,), (0,), ['1', '0'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from engine._errors import EngineInputError, InvariantError
from engine.cards import Card, CardError, CardLike, check_distinct, group_names, parse_cards
from engine.wording import counted, or_list, with_article

if TYPE_CHECKING:  # the rankings import numba; ``import engine`` stays light without them
    from engine.rankings import HandValue, Ranking
    from engine.variants import Variant

CardsLike = str | Iterable[CardLike]


#: What :attr:`PotHalf.rule` says when Telesina's heads-up rule decided the pot.
HEADS_UP_RULE = "heads-up: the lowest straight flush (A-7-8-9-T of spades) beats the highest (T-A of hearts)"


class ShowdownError(EngineInputError):
    """The hands or board do not fit the game: wrong counts, foreign or repeated cards."""


@dataclass(frozen=True)
class PotHalf:
    """One ranking's verdict: the winners (every tied hand) and each hand's made hand.

    A hand that makes no hand in this ranking (no qualifying low) is ``None``. ``rule`` names a game's rule that
    decided the half against the ranking (Telesina's heads-up rule), else ``None``.
    """

    winners: tuple[int, ...]
    hands: tuple[HandValue | None, ...]
    rule: str | None = None

    def to_dict(self) -> dict[str, object]:
        """Winners and hands; ``rule`` too where one decided the half."""
        out: dict[str, object] = {
            "winners": list(self.winners), "hands": [None if h is None else h.to_dict() for h in self.hands]
        }
        if self.rule is not None:
            out["rule"] = self.rule
        return out


@dataclass(frozen=True)
class ShowdownResult:
    """The outcome of one showdown; ``low`` is ``None`` in high-only games and when no low qualifies."""

    variant: str
    high: PotHalf
    low: PotHalf | None

    def shares(self) -> tuple[Fraction, ...]:
        """Each hand's share of the pot (odd chips aside): halves in hi/lo, split among tied hands."""
        n = len(self.high.hands)
        out = [Fraction(0)] * n
        halves = [self.high] if self.low is None else [self.high, self.low]
        for half in halves:
            for i in half.winners:
                out[i] += Fraction(1, len(halves) * len(half.winners))
        return tuple(out)

    def payouts(self, pot: int, closest_first: Sequence[int] | None = None) -> tuple[int, ...]:
        """Split ``pot`` (whole smallest units, e.g. pennies) among the winners.

        Hi/lo games halve the pot, the odd unit going to the high half. Each part is
        shared equally by its winners; units left over go one each to the winners
        closest to the dealer box. ``closest_first`` lists the hands' indices
        clockwise from the button (default: the order given).

        >>> r = showdown("holdem", ["2c 3d", "2h 3s", "4c 5c"], board="As Ks Qs Js Ts")
        >>> r.payouts(100), r.payouts(100, closest_first=[2, 1, 0])
        ((34, 33, 33), (33, 33, 34))
        """
        if not isinstance(pot, int) or isinstance(pot, bool) or pot < 0:
            raise ShowdownError(f"the pot must be a whole, non-negative number of units, not {pot!r}")
        n = len(self.high.hands)
        order = list(range(n)) if closest_first is None else list(closest_first)
        if sorted(order) != list(range(n)):
            raise ShowdownError(f"closest_first must list each of the {n} hands once, got {order}")
        seat = {hand: place for place, hand in enumerate(order)}
        out = [0] * n
        parts = [(self.high, pot)] if self.low is None else [(self.high, pot - pot // 2), (self.low, pot // 2)]
        for half, amount in parts:
            winners = sorted(half.winners, key=seat.__getitem__)
            each, left = divmod(amount, len(winners))
            for place, hand in enumerate(winners):
                out[hand] += each + (1 if place < left else 0)
        return tuple(out)

    def _check(self) -> None:
        """Invariants: the winners hold the best hand of their half (bar Telesina's heads-up rule),
        every tied best hand is a winner, and the shares add up to the pot."""
        n = len(self.high.hands)
        for name, half in (("high", self.high), ("low", self.low)):
            if half is None:
                continue
            if len(half.hands) != n:
                raise InvariantError(f"{name}: {len(half.hands)} hands, the high half has {n}")
            if not half.winners or list(half.winners) != sorted(set(half.winners)):
                raise InvariantError(f"{name}: winners {half.winners} are not distinct hands in order")
            keys = [-1 if h is None else h.key for h in half.hands]
            if any(keys[w] < 0 for w in half.winners):
                raise InvariantError(f"{name}: a winner among {half.winners} makes no hand")
            if len({keys[w] for w in half.winners}) != 1:
                raise InvariantError(f"{name}: winners {half.winners} hold different hands")
            heads_up = half is self.high and self.variant == "telesina" and n == 2 and len(half.winners) == 1
            if not heads_up and (keys[half.winners[0]] != max(keys) or keys.count(max(keys)) != len(half.winners)):
                best = [i for i, k in enumerate(keys) if k == max(keys)]
                raise InvariantError(f"{name}: winners {half.winners}, but the best hands are {tuple(best)}")
        if sum(self.shares()) != 1:
            raise InvariantError(f"the shares add up to {sum(self.shares())} pots, not 1")

    def to_dict(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "high": self.high.to_dict(),
            "low": None if self.low is None else self.low.to_dict(),
        }


def parse_hand(cards: CardsLike, what: str = "") -> tuple[Card, ...]:
    """A hand given as ``"As Kd"``, ``"AsKd"`` or an iterable of cards, strings or ids.

    ``what`` (e.g. ``"hand 2"``) prefixes the error message.
    """
    try:
        return parse_cards(cards)
    except CardError as err:
        raise ShowdownError(f"{what}: {err}" if what else str(err)) from None


def listed_hands(hands: object) -> list[CardsLike]:
    """``hands`` as a list of hands, refusing a string (the cards run together) or anything not a list of them."""
    if isinstance(hands, str) or not isinstance(hands, Iterable):
        what = f"the string {hands!r}" if isinstance(hands, str) else repr(hands)
        raise ShowdownError(f"hands must be a list of hands, e.g. ['As Ks', 'Qd Qc'], not {what}")
    return list(hands)


def parse_hands(hands: object) -> list[tuple[Card, ...]]:
    """Each of ``hands`` parsed as by :func:`parse_hand`, an error naming the hand by its number from 1."""
    return [parse_hand(h, f"hand {i + 1}") for i, h in enumerate(listed_hands(hands))]


def check_cards(
    variant: Variant,
    hands: Sequence[Sequence[Card]],
    board: Sequence[Card],
    *,
    complete: bool = True,
    dead: Sequence[Card] = (),
) -> None:
    """Raise :class:`ShowdownError` unless the cards fit ``variant``.

    With ``complete`` (a showdown) every hand and the board must be full; otherwise
    (an equity question) they may be partly dealt.
    """
    n = len(hands)
    if not 2 <= n <= variant.max_seats:
        raise ShowdownError(f"{variant.title} needs 2 to {variant.max_seats} hands, got {n}")
    want, want_board = variant.hole_cards, variant.board_cards
    if complete and variant.shared_last_card and board:
        check_shared_card(variant, hands, dead, folds_unseen=True)
        want, want_board = want - 1, 1  # the pack ran short: one shared face-up last card
    for i, hand in enumerate(hands):
        if complete and len(hand) != want:
            has = f"hand {i + 1} has {counted(len(hand), 'card')}"
            raise ShowdownError(f"{has}; {with_article(variant.title)} hand has {want}")
        if not complete and len(hand) > want:
            raise ShowdownError(
                f"hand {i + 1} has {counted(len(hand), 'card')}; {with_article(variant.title)} hand has at most {want}"
            )
    what = "the vela" if variant.name == "telesina" else "the board"
    if complete and len(board) != want_board:
        raise ShowdownError(f"{what} has {counted(len(board), 'card')}; {variant.title} needs {want_board}")
    if not complete and len(board) > want_board:
        raise ShowdownError(f"{what} has {counted(len(board), 'card')}; {variant.title} has at most {want_board}")
    try:
        variant.deck.check(c for group in (*hands, board, dead) for c in group)
        check_distinct(*hands, board, dead, names=group_names(len(hands), board=what))
    except CardError as err:
        raise ShowdownError(str(err)) from None


def check_shared_card(variant: Variant, hands: Sequence[Sequence[Card]], dead: Sequence[Card] = (), *,
                      folds_unseen: bool = False) -> None:
    """Refuse a board in a stud game with a shared last card unless it can be that card: every hand at sixth
    street, and the cards left then (all but the hands' and ``dead``) too few to give each hand its own
    (``variants.md``: eight seats of 7-Card Stud, or fewer with cards out of play).

    With ``folds_unseen`` (a showdown, given the hands still in) seats that folded took cards not named here: the
    board card is refused only where the pack would give each hand its own even had every other seat folded at
    sixth street (up to four hands still in of 7-Card Stud's eight seats; five may have run it short)."""
    own = variant.hole_cards - 1
    why = (f"a board card in {variant.title} is the shared last card, dealt only when the pack cannot give every "
           "hand ")
    if any(len(h) != own for h in hands):
        held = or_list(sorted({len(h) for h in hands}))
        raise ShowdownError(f"{why}its own after sixth street: the hands hold {held} cards, not {own} each")
    left = variant.deck - sum(map(len, hands)) - len(dead)
    even = f"even had every other seat of {variant.max_seats} folded at sixth street, " if folds_unseen else ""
    if folds_unseen:
        left -= (variant.max_seats - len(hands)) * own
    if left >= len(hands):
        raise ShowdownError(
            f"{why}its own: {even}{counted(left, 'card')} {'was' if left == 1 else 'were'} left for "
            f"{counted(len(hands), 'hand')}"
        )


def made_hand(variant: Variant, ranking: Ranking, hand: Sequence[Card], board: Sequence[Card]) -> HandValue | None:
    """The best hand ``ranking`` allows from a seat's cards and the board, as the game forms hands."""
    from engine.variants import HandForm

    if variant.hand_form is HandForm.OMAHA:
        return ranking.best_omaha(hand, board)
    if variant.hand_form is HandForm.EXACT_FIVE:
        return ranking.evaluate(hand)
    return ranking.best((*hand, *board))


def _winners(values: Sequence[HandValue | None]) -> tuple[int, ...]:
    keys = [-1 if v is None else v.key for v in values]
    best = max(keys)
    return () if best < 0 else tuple(i for i, k in enumerate(keys) if k == best)


def showdown(variant: str | Variant, hands: Sequence[CardsLike], board: CardsLike = ()) -> ShowdownResult:
    """Decide the pot (both halves in hi/lo games) between complete hands.

    Raises :class:`ShowdownError` (a ``ValueError``) for cards that do not fit the
    game, and :class:`~engine.variants.UnknownVariantError` for an unknown name
    (both :class:`~engine.EngineInputError`).
    """
    from engine.variants import get_variant

    game = get_variant(variant)
    seats = parse_hands(hands)
    shared = parse_hand(board, "board")
    check_cards(game, seats, shared)

    highs: list[HandValue | None] = [made_hand(game, game.ranking, h, shared) for h in seats]
    winners = _winners(highs)
    heads_up = game.ranking.heads_up
    rule = None
    if heads_up is not None and len(seats) == 2:
        keys = [-1 if v is None else v.key for v in highs]
        override = heads_up(keys, [(*h, *shared) for h in seats])
        if override is not None:
            winner, played = override
            highs[winner] = game.ranking.evaluate(played)
            winners = (winner,)
            rule = HEADS_UP_RULE
    high = PotHalf(winners, tuple(highs), rule)

    low = None
    if game.low is not None:
        lows = tuple(made_hand(game, game.low, h, shared) for h in seats)
        low_winners = _winners(lows)
        if low_winners:
            low = PotHalf(low_winners, lows)
    return ShowdownResult(game.name, high, low)
