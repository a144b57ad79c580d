"""How each game is dealt on the exchange: its betting windows and what is dealt at each close.

A :class:`Layout` is data, one per variant (``spec/channels.md``, "Rounds"): the
names of the betting windows and one :class:`Step` per window. Step 0 is dealt
face down when the game starts and turned at the Deal close; step ``i`` is
dealt and shown at the close of window ``i`` (0-based); the last step goes
straight to settlement. The markets a game runs (one, or High and Low in hi/lo
games) are part of the layout too.

>>> LAYOUTS["stud7"].windows
('Deal', '3rd street', '4th street', '5th street', '6th street')
>>> [s.describe() for s in LAYOUTS["telesina"].steps]
['1 down + 1 up', 'burn, 1 up', 'burn, 1 up', 'burn, 1 up', 'burn, 1 to the board']
>>> LAYOUTS["triple-draw-27"].draws, [str(m) for m in LAYOUTS["omaha-hilo"].markets]
(3, ['high', 'low'])
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class StepKind(StrEnum):
    SEATS = "seats"  # cards to every seat, round the table, one at a time
    BOARD = "board"  # shared cards (a Hold'em street, Telesina's vela)
    DRAW = "draw"  # every seat discards by the policy and is dealt replacements


class MarketKind(StrEnum):
    """A game's market: the one market of most games, or the High and the Low half of a hi/lo game."""

    WIN = "win"
    HIGH = "high"
    LOW = "low"

    @property
    def suffix(self) -> str:
        """What the market id adds to the game's id (``omaha-hilo.17-low``)."""
        return "-low" if self is MarketKind.LOW else ""

    @property
    def label(self) -> str:
        """The market's name in a catalogue ("Winner", "High", "Low")."""
        return {MarketKind.WIN: "Winner", MarketKind.HIGH: "High", MarketKind.LOW: "Low"}[self]


NO_LOW_NAME = "No low"


@dataclass(frozen=True, slots=True)
class Step:
    """What one close deals: ``down``/``up`` cards to each seat, ``board`` cards, or a draw; after a burn or not."""

    kind: StepKind
    burn: bool
    down: int = 0
    up: int = 0
    board: int = 0
    name: str = ""

    @property
    def per_seat(self) -> int:
        return self.down + self.up

    def describe(self) -> str:
        parts = ["burn"] if self.burn else []
        if self.kind is StepKind.SEATS:
            dealt = [f"{n} {face}" for n, face in ((self.down, "down"), (self.up, "up")) if n]
            parts.append(" + ".join(dealt))
        elif self.kind is StepKind.BOARD:
            parts.append(f"{self.board} to the board")
        else:
            parts.append("draw")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Layout:
    """One variant's windows (names, in order) and the step dealt at the close of each."""

    variant: str
    windows: tuple[str, ...]
    steps: tuple[Step, ...]
    markets: tuple[MarketKind, ...] = (MarketKind.WIN,)
    settles_after: str = ""

    def __post_init__(self) -> None:
        if len(self.windows) != len(self.steps):
            raise ValueError(f"{self.variant}: {len(self.windows)} windows but {len(self.steps)} steps")
        if self.steps[0].kind is not StepKind.SEATS or self.steps[0].burn:
            raise ValueError(f"{self.variant}: the first step deals to the seats, without a burn")

    @property
    def seat_cards(self) -> int:
        """Cards each seat holds at the end."""
        return sum(s.per_seat for s in self.steps)

    @property
    def board_cards(self) -> int:
        return sum(s.board for s in self.steps)

    @property
    def draws(self) -> int:
        return sum(1 for s in self.steps if s.kind is StepKind.DRAW)

    def draws_after(self, steps_done: int) -> int:
        """Draws still to come once ``steps_done`` steps have been dealt."""
        return sum(1 for s in self.steps[steps_done:] if s.kind is StepKind.DRAW)

    @property
    def holdem_streets(self) -> bool:
        """Dealt as Hold'em is: hole cards face down, then a flop, a turn and a river, each after a burn.

        The dealer's irregularities (``irregularities.md``) are written for these games only.
        """
        first, *streets = self.steps
        return (first.up == 0 and [(s.kind, s.board, s.burn) for s in streets]
                == [(StepKind.BOARD, 3, True), (StepKind.BOARD, 1, True), (StepKind.BOARD, 1, True)])

    @property
    def hilo(self) -> bool:
        return MarketKind.LOW in self.markets

    def face_up(self) -> tuple[bool, ...]:
        """Whether each of a seat's cards, in the order dealt, is dealt face up (draws replace face down)."""
        out: list[bool] = []
        for step in self.steps:
            if step.kind is StepKind.SEATS:
                out += [False] * step.down + [True] * step.up
        return tuple(out)


def _seats(down: int = 0, up: int = 0, *, burn: bool = True, name: str = "") -> Step:
    return Step(StepKind.SEATS, burn, down=down, up=up, name=name)


def _board(n: int, name: str) -> Step:
    return Step(StepKind.BOARD, True, board=n, name=name)


def _draw(n: int) -> Step:
    return Step(StepKind.DRAW, True, name=f"draw {n}")


_HOLDEM_WINDOWS = ("Deal", "Pre-flop", "Flop", "Turn")
_BOARD_STEPS = (_board(3, "flop"), _board(1, "turn"), _board(1, "river"))
_STUD_WINDOWS = ("Deal", "3rd street", "4th street", "5th street", "6th street")
_STUD_STEPS = (
    _seats(2, 1, burn=False, name="3rd street"),
    _seats(up=1, name="4th street"),
    _seats(up=1, name="5th street"),
    _seats(up=1, name="6th street"),
    _seats(1, name="7th street"),
)
_FIVE_WINDOWS = ("Deal", "2 cards", "3 cards", "4 cards")
_FIVE_STEPS = (
    _seats(1, 1, burn=False, name="2 cards"),
    _seats(up=1, name="3 cards"),
    _seats(up=1, name="4 cards"),
    _seats(up=1, name="5 cards"),
)
_HI_LO = (MarketKind.HIGH, MarketKind.LOW)


def _holdem_like(variant: str, hole: int, markets: tuple[MarketKind, ...] = (MarketKind.WIN,)) -> Layout:
    return Layout(variant, _HOLDEM_WINDOWS, (_seats(hole, burn=False, name="hole cards"), *_BOARD_STEPS),
                  markets, "the river")


def _draw_game(variant: str, draws: int) -> Layout:
    windows = ("Deal", "Five cards", *(f"After draw {n}" for n in range(1, draws)))
    steps = (_seats(5, burn=False, name="five cards"), *(_draw(n) for n in range(1, draws + 1)))
    return Layout(variant, windows, steps, settles_after=f"draw {draws}, then the showdown")


LAYOUTS: MappingProxyType[str, Layout] = MappingProxyType({
    layout.variant: layout
    for layout in (
        _holdem_like("holdem", 2),
        _holdem_like("omaha", 4),
        _holdem_like("omaha-hilo", 4, _HI_LO),
        Layout("stud7", _STUD_WINDOWS, _STUD_STEPS, settles_after="7th street (down)"),
        Layout("stud7-hilo", _STUD_WINDOWS, _STUD_STEPS, _HI_LO, "7th street (down)"),
        Layout("soko", _FIVE_WINDOWS, _FIVE_STEPS, settles_after="the 5th card"),
        Layout("americana", _FIVE_WINDOWS, _FIVE_STEPS, settles_after="the 5th card"),
        Layout("telesina", (*_FIVE_WINDOWS, "5 cards"), (*_FIVE_STEPS, _board(1, "vela")),
               settles_after="the shared vela card"),
        _draw_game("draw5", 1),
        _draw_game("draw32", 1),
        _draw_game("triple-draw-27", 3),
    )
})


def check_layouts() -> None:
    """Raise ``ValueError`` unless each layout deals exactly its variant's cards (``engine.variants``): per seat
    and to the board, its draws, and hi/lo markets for a hi/lo game. A test calls it: run here at import, it would
    load the engine's rankings (numba, half a second) at every start of the server."""
    from engine.variants import get_variant

    for name, layout in LAYOUTS.items():
        variant = get_variant(name)
        if (layout.seat_cards, layout.board_cards, layout.draws) != (
            variant.hole_cards, variant.board_cards, len(variant.draws)
        ):
            raise ValueError(f"{name}: the layout deals {layout.seat_cards} + {layout.board_cards} cards and "
                             f"{layout.draws} draws; the game has {variant.hole_cards} + {variant.board_cards} "
                             f"and {len(variant.draws)}")
        if layout.hilo != variant.is_hilo:
            raise ValueError(f"{name}: hi/lo markets do not match the game")



def get_layout(variant: str) -> Layout:
    try:
        return LAYOUTS[variant]
    except KeyError:
        raise ValueError(f"variant {variant!r} is not dealt on the exchange; use one of {sorted(LAYOUTS)}") from None
