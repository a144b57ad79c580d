"""The betting rounds of an exchange game and their timetable.

A game is a few timed betting windows (four in Hold'em, five in 7-Card Stud:
the channel's :class:`~exchange.game.layouts.Layout` names them), each followed
by a suspended *playing window* while cards are turned::

    | Deal (bet) | play | Pre-flop (bet) | play | Flop (bet) | play | Turn (bet) | play |
    ^ game start                                                                  next game ^

The timetable is a pure function of the channel's times and the game's start,
so the server and a backtest agree on every instant.

>>> from exchange.game.channels import HOLDEM
>>> [(w.round.label, w.opens_ms, w.closes_ms) for w in timetable(HOLDEM, 0)]
[('Deal', 0, 30000), ('Pre-flop', 33000, 63000), ('Flop', 66000, 96000), ('Turn', 99000, 129000)]
>>> Round.FLOP.reveal_at_close
'turn'
>>> from exchange.game.channels import STUD7
>>> [w.round.number for w in timetable(STUD7, 0)], round_name(STUD7, Round.FIFTH)
([1, 2, 3, 4, 5], '6th street')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from exchange.game.channels import ChannelConfig


class Round(IntEnum):
    """A betting round; the value is its number, 1 to 5, as in the Exchange Games API.

    The member names are Hold'em's (a stud game's third window is ``Round.FLOP``,
    its 4th street); :func:`round_name` gives each game's own name for a round.
    """

    DEAL = 1
    PREFLOP = 2
    FLOP = 3
    TURN = 4
    FIFTH = 5

    @property
    def number(self) -> int:
        return int(self)

    @property
    def label(self) -> str:
        """Hold'em's name for the round (see :func:`round_name` for any game)."""
        return _LABELS[self]

    @property
    def board_cards_visible(self) -> int:
        """Board cards face up while this round's window is open."""
        return _BOARD_VISIBLE[self]

    @property
    def hole_cards_visible(self) -> bool:
        """Whether hole cards are face up while this round's window is open."""
        return self is not Round.DEAL

    @property
    def reveal_at_close(self) -> str:
        """What is turned when the window closes."""
        return _REVEAL[self]

    @property
    def next(self) -> Round | None:
        """The next round in Hold'em (``None`` after the Turn); :func:`next_round` for any game."""
        return None if self >= Round.TURN else Round(self + 1)


_LABELS = {Round.DEAL: "Deal", Round.PREFLOP: "Pre-flop", Round.FLOP: "Flop", Round.TURN: "Turn", Round.FIFTH: "Fifth"}
_BOARD_VISIBLE = {Round.DEAL: 0, Round.PREFLOP: 0, Round.FLOP: 3, Round.TURN: 4, Round.FIFTH: 5}
_REVEAL = {Round.DEAL: "hole cards", Round.PREFLOP: "flop", Round.FLOP: "turn", Round.TURN: "river",
           Round.FIFTH: "last cards"}


def round_name(config: ChannelConfig, rnd: Round) -> str:
    """The game's name for a round: "Pre-flop" in Hold'em, "4th street" in 7-Card Stud."""
    return config.layout.windows[rnd - 1]


def next_round(config: ChannelConfig, rnd: Round) -> Round | None:
    """The round after ``rnd`` in this channel's game, ``None`` after its last window."""
    return Round(rnd + 1) if rnd < config.windows else None


@dataclass(frozen=True, slots=True)
class Window:
    """One betting window: open from ``opens_ms`` (inclusive) to ``closes_ms`` (exclusive)."""

    round: Round
    opens_ms: int
    closes_ms: int

    @property
    def length_ms(self) -> int:
        return self.closes_ms - self.opens_ms

    def open_at(self, now_ms: int) -> bool:
        """Whether ``now_ms`` falls in the window.

        >>> window = Window(Round.DEAL, opens_ms=1_000, closes_ms=31_000)
        >>> window.open_at(999), window.open_at(1_000), window.open_at(30_999), window.open_at(31_000)
        (False, True, True, False)
        """
        return self.opens_ms <= now_ms < self.closes_ms

    def percentage_complete(self, now_ms: int) -> int:
        """``bettingWindowPercentageComplete`` of the Exchange Games API: 0..100, clamped."""
        if now_ms <= self.opens_ms:
            return 0
        if now_ms >= self.closes_ms:
            return 100
        return (now_ms - self.opens_ms) * 100 // self.length_ms


def timetable(config: ChannelConfig, start_ms: int) -> tuple[Window, ...]:
    """The betting windows of a game starting at ``start_ms`` (as many as the channel's game has)."""
    return tuple(
        Window(
            round=rnd,
            opens_ms=start_ms + (rnd - 1) * config.round_ms,
            closes_ms=start_ms + (rnd - 1) * config.round_ms + config.betting_window_ms,
        )
        for rnd in (Round(n) for n in range(1, config.windows + 1))
    )
