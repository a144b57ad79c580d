"""Channels: the tables that run exchange games back to back.

A channel is *data*: which variant it deals, how many hands, how long each
betting window and each playing window lasts, the minimum stake and the
commission (in basis points: 250 = 2.5 %). The game code reads nothing else,
so a new table (a slower Omaha, a hyper-turbo Hold'em) is one more
:class:`ChannelConfig`, not new code.

>>> CHANNELS["holdem-turbo"].betting_window_ms
18000
>>> get_channel("omaha").hole_cards
4
>>> CHANNELS["holdem"].game_ms  # four 30 s windows, each followed by a 3 s playing window
132000
>>> CHANNELS["holdem"].market_id(42)
'holdem.42'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

# Hole cards per hand for the variants the exchange game deals.
HOLE_CARDS = MappingProxyType({"holdem": 2, "omaha": 4})
BOARD_STREETS = (3, 1, 1)


class UnknownChannel(KeyError):
    """No channel of that name is defined."""


@dataclass(frozen=True, slots=True)
class ChannelConfig:
    """Everything that differs between two tables. Times in integer milliseconds, money in minor units.

    ``betting_window_ms`` is the length of each of the four betting windows
    (Deal, Pre-flop, Flop, Turn); ``playing_window_ms`` the suspended pause
    after each, while cards are turned (after the Turn window: the river, the
    result and settlement, before the next game starts).
    """

    name: str
    title: str
    variant: str
    betting_window_ms: int = 30_000
    playing_window_ms: int = 3_000
    hands: int = 4
    min_stake: int = 200
    commission_bps: int = 250
    currency: str = "GBP"

    def __post_init__(self) -> None:
        if self.variant not in HOLE_CARDS:
            raise ValueError(f"variant {self.variant!r} is not dealt on the exchange; use one of {sorted(HOLE_CARDS)}")
        if self.betting_window_ms <= 0 or self.playing_window_ms < 0:
            raise ValueError(
                f"window lengths must be positive (betting {self.betting_window_ms} ms, "
                f"playing {self.playing_window_ms} ms)"
            )
        if not 2 <= self.hands <= 4:
            raise ValueError(f"an exchange game deals 2 to 4 hands, not {self.hands}")
        if self.min_stake <= 0:
            raise ValueError(f"minimum stake must be positive, not {self.min_stake}")
        if not 0 <= self.commission_bps < 10_000:
            raise ValueError(f"commission must be 0 to 9999 basis points, not {self.commission_bps}")

    @property
    def hole_cards(self) -> int:
        return HOLE_CARDS[self.variant]

    @property
    def round_ms(self) -> int:
        """One betting window plus the playing window after it."""
        return self.betting_window_ms + self.playing_window_ms

    @property
    def game_ms(self) -> int:
        """From one game's start to the next game's start."""
        return 4 * self.round_ms

    def market_id(self, game_number: int) -> str:
        """The market id of the channel's ``game_number``-th game: deterministic, unique per channel."""
        if game_number < 0:
            raise ValueError(f"game numbers start at 0, not {game_number}")
        return f"{self.name}.{game_number}"

    def with_times(self, betting_window_ms: int, playing_window_ms: int | None = None) -> ChannelConfig:
        """A copy with other window lengths (tests, fast demos)."""
        playing = self.playing_window_ms if playing_window_ms is None else playing_window_ms
        return replace(self, betting_window_ms=betting_window_ms, playing_window_ms=playing)


HOLDEM = ChannelConfig(name="holdem", title="Exchange Hold'em", variant="holdem")
HOLDEM_TURBO = ChannelConfig(
    name="holdem-turbo", title="Exchange Hold'em Turbo", variant="holdem", betting_window_ms=18_000
)
OMAHA = ChannelConfig(name="omaha", title="Exchange Omaha Hi", variant="omaha")

CHANNELS: MappingProxyType[str, ChannelConfig] = MappingProxyType(
    {channel.name: channel for channel in (HOLDEM, HOLDEM_TURBO, OMAHA)}
)


def get_channel(name: str) -> ChannelConfig:
    """The default channel called ``name``; raises :class:`UnknownChannel` naming the ones there are."""
    try:
        return CHANNELS[name]
    except KeyError:
        raise UnknownChannel(f"no channel {name!r}; channels are {', '.join(CHANNELS)}") from None
