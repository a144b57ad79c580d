"""The four betting rounds of an exchange game and their timetable.

A game is four timed betting windows, each followed by a suspended *playing
window* while cards are turned::

    | Deal (bet) | play | Pre-flop (bet) | play | Flop (bet) | play | Turn (bet) | play |
    ^ game start                                                                  next game ^

The timetable is a pure function of the channel's times and the game's start,
so the server and a backtest agree on every instant.

>>> from exchange.game.channels import HOLDEM
>>> [(w.round.label, w.opens_ms, w.closes_ms) for w in timetable(HOLDEM, 0)]
[('Deal', 0, 30000), ('Pre-flop', 33000, 63000), ('Flop', 66000, 96000), ('Turn', 99000, 129000)]
>>> Round.FLOP.reveal_at_close
'turn'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from exchange.game.channels import ChannelConfig


class Round(IntEnum):
    """A betting round; the value is its number, 1 to 4, as in the Exchange Games API."""

    DEAL = 1
    PREFLOP = 2
    FLOP = 3
    TURN = 4

    @property
    def label(self) -> str:
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
        return None if self is Round.TURN else Round(self + 1)


_LABELS = {Round.DEAL: "Deal", Round.PREFLOP: "Pre-flop", Round.FLOP: "Flop", Round.TURN: "Turn"}
_BOARD_VISIBLE = {Round.DEAL: 0, Round.PREFLOP: 0, Round.FLOP: 3, Round.TURN: 4}
_REVEAL = {Round.DEAL: "hole cards", Round.PREFLOP: "flop", Round.FLOP: "turn", Round.TURN: "river"}


@dataclass(frozen=True, slots=True)
class Window:
    """One betting window: open from ``opens_ms`` (inclusive) to ``closes_ms`` (exclusive)."""

    round: Round
    opens_ms: int
    closes_ms: int

    @property
    def length_ms(self) -> int:
        return self.closes_ms - self.opens_ms

    def percentage_complete(self, now_ms: int) -> int:
        """``bettingWindowPercentageComplete`` of the Exchange Games API: 0..100, clamped."""
        if now_ms <= self.opens_ms:
            return 0
        if now_ms >= self.closes_ms:
            return 100
        return (now_ms - self.opens_ms) * 100 // self.length_ms


def timetable(config: ChannelConfig, start_ms: int) -> tuple[Window, ...]:
    """The four betting windows of a game starting at ``start_ms``."""
    return tuple(
        Window(
            round=rnd,
            opens_ms=start_ms + (rnd - 1) * config.round_ms,
            closes_ms=start_ms + (rnd - 1) * config.round_ms + config.betting_window_ms,
        )
        for rnd in Round
    )
