"""What the catalogue says of each market (:class:`MarketInfo`), made from its id, its channel and its game.

A market's description is made when its game begins (:func:`market_info` with the game) and, for one
met only in the journal (a restart) or no longer kept, again from its id and channel alone, as it was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from exchange.betfair import description
from exchange.betfair.stream import MarketInfo as RecorderInfo
from exchange.game.channels import ChannelConfig, parse_market_id
from exchange.game.table import Game


@dataclass(frozen=True, slots=True)
class MarketInfo(RecorderInfo):
    """What the catalogue says about a market: the stream's description of it (ids, names, times in epoch ms,
    commission, type) and the channel and game it belongs to."""

    channel: str = ""
    game_number: int = 0


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
    fields = {f.name: getattr(described, f.name) for f in dataclasses.fields(described)}
    return MarketInfo(**fields, channel=channel, game_number=number)
