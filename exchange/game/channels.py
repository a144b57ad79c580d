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
>>> CHANNELS["stud7-hilo"].market_ids(3)
('stud7-hilo.3', 'stud7-hilo.3-low')
>>> CHANNELS["stud7"].game_ms  # five windows
165000
>>> parse_market_id("omaha-hilo.17-low")
('omaha-hilo', 17, <MarketKind.LOW: 'low'>)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType

from exchange.game.layouts import LAYOUTS, NO_LOW_NAME, Layout, MarketKind

# Board cards turned at each street of the board games (Hold'em, Omaha).
BOARD_STREETS = (3, 1, 1)


class UnknownChannel(KeyError):
    """No channel of that name is defined."""


@dataclass(frozen=True, slots=True)
class ChannelConfig:
    """Everything that differs between two tables. Times in integer milliseconds, money in minor units.

    ``betting_window_ms`` is the length of each betting window (Hold'em's four:
    Deal, Pre-flop, Flop, Turn; each game's are in its :class:`~exchange.game.layouts.Layout`);
    ``playing_window_ms`` the suspended pause after each, while cards are turned
    (after the last window: the last cards, the result and settlement, before
    the next game starts).
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
        if self.variant not in LAYOUTS:
            raise ValueError(f"variant {self.variant!r} is not dealt on the exchange; use one of {sorted(LAYOUTS)}")
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
    def layout(self) -> Layout:
        return LAYOUTS[self.variant]

    @property
    def hole_cards(self) -> int:
        """Cards each hand holds at the end of a game (two in Hold'em, seven in 7-Card Stud)."""
        return self.layout.seat_cards

    @property
    def first_deal(self) -> int:
        """Cards the first step deals to all the hands together: the hole cards a dealer's error can expose
        (eight at a four-hand Hold'em table, four at a two-hand one).

        >>> replace(CHANNELS["holdem"], hands=2).first_deal, CHANNELS["holdem"].first_deal
        (4, 8)
        """
        return self.hands * self.layout.steps[0].per_seat

    @property
    def windows(self) -> int:
        """Betting windows per game."""
        return len(self.layout.windows)

    @property
    def markets(self) -> tuple[MarketKind, ...]:
        return self.layout.markets

    def selection_names(self, kind: MarketKind) -> tuple[str, ...]:
        """The runners of a market: Hand 1..n, and "No low" in a Low market."""
        hands = tuple(f"Hand {i}" for i in range(1, self.hands + 1))
        return (*hands, NO_LOW_NAME) if kind is MarketKind.LOW else hands

    def market_ids(self, game_number: int) -> tuple[str, ...]:
        """Every market id of a game, the main (or High) market first."""
        main = self.market_id(game_number)
        return tuple(main + kind.suffix for kind in self.markets)

    @property
    def round_ms(self) -> int:
        """One betting window plus the playing window after it."""
        return self.betting_window_ms + self.playing_window_ms

    @property
    def game_ms(self) -> int:
        """From one game's start to the next game's start."""
        return self.windows * self.round_ms

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
OMAHA_HILO = ChannelConfig(name="omaha-hilo", title="Exchange Omaha Hi/Lo", variant="omaha-hilo")
STUD7 = ChannelConfig(name="stud7", title="Exchange 7-Card Stud", variant="stud7")
STUD7_HILO = ChannelConfig(name="stud7-hilo", title="Exchange 7-Card Stud Hi/Lo", variant="stud7-hilo")
SOKO = ChannelConfig(name="soko", title="Exchange Soko", variant="soko")
AMERICANA = ChannelConfig(name="americana", title="Exchange Americana", variant="americana")
TELESINA = ChannelConfig(name="telesina", title="Exchange Telesina", variant="telesina")
DRAW5 = ChannelConfig(name="draw5", title="Exchange 5-Card Draw", variant="draw5")
TRIPLE_DRAW_27 = ChannelConfig(name="triple-draw-27", title="Exchange 2-7 Triple Draw", variant="triple-draw-27")
DRAW32 = ChannelConfig(name="draw32", title="Exchange 32-Card Draw", variant="draw32")

CHANNELS: MappingProxyType[str, ChannelConfig] = MappingProxyType({
    channel.name: channel
    for channel in (HOLDEM, HOLDEM_TURBO, OMAHA, OMAHA_HILO, STUD7, STUD7_HILO, SOKO, AMERICANA, TELESINA,
                    DRAW5, TRIPLE_DRAW_27, DRAW32)
})


@lru_cache(maxsize=4096)
def parse_market_id(market_id: str) -> tuple[str, int, MarketKind] | None:
    """``(channel, game number, market kind)`` of a market id such as ``holdem.17`` or ``omaha-hilo.17-low``.

    The kind of a main market is read from the channel when it is known (``HIGH``
    for a hi/lo channel), else ``WIN``. ``None`` if ``market_id`` is not of that form.

    >>> parse_market_id("holdem.17"), parse_market_id("omaha-hilo.17-low")
    (('holdem', 17, <MarketKind.WIN: 'win'>), ('omaha-hilo', 17, <MarketKind.LOW: 'low'>))
    >>> parse_market_id("holdem.²"), parse_market_id("holdem.17x"), parse_market_id("17")
    (None, None, None)
    """
    channel, _, rest = market_id.rpartition(".")
    kind = MarketKind.WIN
    if rest.endswith(MarketKind.LOW.suffix):
        rest, kind = rest[: -len(MarketKind.LOW.suffix)], MarketKind.LOW
    if not channel or not (rest.isascii() and rest.isdigit()):  # not "²": a digit int() refuses
        return None
    config = CHANNELS.get(channel)
    if kind is MarketKind.WIN and config is not None:
        kind = config.markets[0]
    return channel, int(rest), kind


def dealt_as_holdem(names: Iterable[str] = CHANNELS) -> list[str]:
    """The channels among ``names`` whose games are dealt as Hold'em is (hole cards, then flop, turn and river, each
    after a burn): the only ones the dealer's irregularity rules are written for.

    >>> dealt_as_holdem()
    ['holdem', 'holdem-turbo', 'omaha', 'omaha-hilo']
    """
    return [name for name in names if CHANNELS[name].layout.holdem_streets]


def get_channel(name: str) -> ChannelConfig:
    """The default channel called ``name``; raises :class:`UnknownChannel` naming the ones there are."""
    try:
        return CHANNELS[name]
    except KeyError:
        raise UnknownChannel(f"no channel {name!r}; channels are {', '.join(CHANNELS)}") from None
