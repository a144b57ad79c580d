"""What the catalogue says of each market (:class:`MarketInfo`), made from its id, its channel and its game.

A market's description is made when its game begins (:func:`market_info` with the game) and, for one
met only in the journal (a restart) or no longer kept, again from its id and channel alone, as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from exchange.betfair import description
from exchange.betfair.stream import MarketInfo as RecorderInfo
from exchange.game.channels import ChannelConfig, parse_market_id
from exchange.game.table import Game


@dataclass(frozen=True, slots=True)
class MarketInfo:
    """What the catalogue says about a market: ids, names and times (epoch ms)."""

    market_id: str
    channel: str
    game_number: int
    event_id: str
    event_name: str
    market_name: str
    open_ms: int
    market_time_ms: int
    suspend_ms: int
    runner_names: tuple[str, ...]
    commission_percent: str
    market_type: str  # WIN, or LOW for a hi/lo game's Low market (description.market_type_of)


def market_info(configs: Mapping[str, ChannelConfig], market_id: str, start_ms: int, game: Game | None
                ) -> MarketInfo:
    """``market_id``'s description: its game's windows when ``game`` is given, else its channel's lengths from
    ``start_ms``; a channel not in ``configs`` gets the defaults (four hands, 2.5 % commission)."""
    channel = market_id.rsplit(".", 1)[0]
    config = configs.get(channel)
    parsed = parse_market_id(market_id)
    number = parsed[1] if parsed is not None and parsed[0] == channel else 0
    runners: tuple[str, ...] | None = None
    label = None
    if config is not None:
        kind = parsed[2] if parsed is not None else config.markets[0]
        runners = config.selection_names(kind)
        label = kind.label if len(config.markets) > 1 else None
    suspend = game.windows[-1].closes_ms if game is not None else start_ms + (config.game_ms if config else 0)
    described = description.market_info(
        market_id, title=config.title if config else channel, start_ms=start_ms, suspend_ms=suspend,
        hands=config.hands if config else 4, commission_bps=config.commission_bps if config else 250,
        runner_names=runners, market_label=label)
    return MarketInfo(
        market_id=market_id,
        channel=channel,
        game_number=number,
        event_id=described.event_id,
        event_name=described.event_name,
        market_name=described.market_name,
        open_ms=described.open_ms,
        market_time_ms=described.market_time_ms,
        suspend_ms=described.suspend_ms,
        runner_names=described.runner_names,
        commission_percent=described.commission_percent,
        market_type=described.market_type,
    )


def recorder_info_of(info: MarketInfo) -> RecorderInfo:
    """The stream recorder's description of a market: the catalogue's, without the channel and game number."""
    return RecorderInfo(
        market_id=info.market_id,
        event_id=info.event_id,
        event_name=info.event_name,
        market_name=info.market_name,
        open_ms=info.open_ms,
        market_time_ms=info.market_time_ms,
        suspend_ms=info.suspend_ms,
        runner_names=info.runner_names,
        commission_percent=info.commission_percent,
        market_type=info.market_type,
    )
