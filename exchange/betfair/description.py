"""One market, one description: what REST, the live stream and the recordings all say a market is.

The server's catalogue and stream and the backtester's recordings build a
market's names, event and times here, and judge its in-play flag here, so a
client sees the same market whichever way it reads it.

* The event is the game: ``eventId`` is the game's id (``holdem.17``), the event
  name the channel's title and the game's number; a game's markets (a Hi/Lo game
  has two) share it.
* The market name is ``Game N``; its time (``marketTime``, ``openDate``) is the
  game's start; it suspends for good when the last betting window closes.
* A market is in play from the Pre-flop window on, once the hole cards are
  face up (round 2); the Deal window is before the off.
* Its type (``marketType``, ``marketTypeCodes``) is ``WIN`` for a game's market, and for the High market
  of a hi/lo game, which the best high hand wins; ``LOW`` for the Low market (``omaha-hilo.17-low``), which
  the best qualifying low hand wins, or "No low" (:func:`market_type_of`).
* Its ``version`` counts the changes of its definition, as Betfair's does: its
  creation, each window opening and closing, a selection settled, the market
  settled or voided (:func:`changes_definition`); fills and orders leave it.

>>> info = market_info("holdem.17", title="Exchange Hold'em", start_ms=0, suspend_ms=9, hands=2,
...                    commission_bps=250)
>>> info.event_id, info.event_name, info.market_name, info.commission_percent
('holdem.17', "Exchange Hold'em 17", 'Game 17', '2.5')
>>> [in_play(r) for r in (0, 1, 2, 4)]
[False, False, True, True]
"""

from __future__ import annotations

import re
from decimal import Decimal

from exchange.betfair.stream import MarketInfo
from exchange.core.events import (
    MarketCreated,
    MarketOpened,
    MarketSettled,
    MarketSuspended,
    MarketVoided,
    SelectionSettled,
)

#: The first round in play: Pre-flop, when the hole cards are face up.
IN_PLAY_ROUND = 2


def in_play(round: int) -> bool:
    """Whether a market whose betting round is ``round`` (0 before the first window) is in play."""
    return round >= IN_PLAY_ROUND


_DEFINITION_EVENTS = (MarketCreated, MarketOpened, MarketSuspended, SelectionSettled, MarketSettled, MarketVoided)


def changes_definition(event: object) -> bool:
    """Whether ``event`` changes its market's definition (status, in-play, a runner's status): a new version."""
    return isinstance(event, _DEFINITION_EVENTS)


def game_of(market_id: str) -> tuple[str, int]:
    """``(channel, game number)`` of a market id ``CHANNEL.N`` or ``CHANNEL.N-low`` (a market of game N; number 0
    if none): the markets of one game share it.

    >>> game_of("holdem-turbo.3"), game_of("omaha-hilo.17-low"), game_of("odd")
    (('holdem-turbo', 3), ('omaha-hilo', 17), ('odd', 0))
    """
    channel, _, number = market_id.partition(".")
    digits = re.match(r"\d+", number)
    return channel, int(digits.group()) if digits else 0


#: The market type code of a game's market (and of the High market of a hi/lo game).
WIN_MARKET_TYPE = "WIN"
#: The market type code of a hi/lo game's Low market.
LOW_MARKET_TYPE = "LOW"
#: Every market type code a market here can have.
MARKET_TYPES = (WIN_MARKET_TYPE, LOW_MARKET_TYPE)


def market_type_of(market_id: str) -> str:
    """A market's type code: ``LOW`` for a hi/lo game's Low market (its id ends ``-low``), else ``WIN``.

    >>> market_type_of("omaha-hilo.17"), market_type_of("omaha-hilo.17-low"), market_type_of("holdem.3")
    ('WIN', 'LOW', 'WIN')
    """
    return LOW_MARKET_TYPE if market_id.endswith("-low") else WIN_MARKET_TYPE


def event_id_of(market_id: str) -> str:
    """The event (the game) a market belongs to: ``CHANNEL.N``.

    >>> event_id_of("holdem.17")
    'holdem.17'
    """
    channel, number = game_of(market_id)
    return f"{channel}.{number}"


def market_info(market_id: str, *, title: str, start_ms: int, suspend_ms: int, hands: int,
                commission_bps: int, runner_names: tuple[str, ...] | None = None,
                market_label: str | None = None) -> MarketInfo:
    """The market's description from its channel's title, the game's times, its hands and commission.

    ``runner_names``: default Hand 1..``hands``; ``market_label``: what tells a game's markets apart in its
    name (a hi/lo game's "High" and "Low"), none for a game of one market.
    """
    _, number = game_of(market_id)
    return MarketInfo(
        market_id=market_id,
        event_id=event_id_of(market_id),
        event_name=f"{title} {number}",
        market_name=f"Game {number}" if market_label is None else f"Game {number} {market_label}",
        open_ms=start_ms,
        market_time_ms=start_ms,
        suspend_ms=suspend_ms,
        runner_names=runner_names if runner_names is not None else tuple(f"Hand {h}" for h in range(1, hands + 1)),
        commission_percent=str(Decimal(commission_bps) / 100),
        market_type=market_type_of(market_id),
    )
