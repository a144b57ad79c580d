"""A server channel of fewer than four hands deals the seeded dealer errors its deal can have.

A two-hand Hold'em table deals four hole cards; the seeded irregularity rate must expose only those
(``ChannelConfig.first_deal``), or a game whose error names a fifth card cannot be dealt and the channel stops.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from exchange.clock import VirtualClock
from exchange.game.channels import get_channel
from exchange.server.fallback_equities import river_only_equities
from exchange.server.journal import Journal
from exchange.server.service import ExchangeService

START_MS = 1_000_000
GAMES = 40  # at rate 1.0 every game has an error; a third of them expose hole cards, some the last ones


def test_a_two_hand_channel_plays_every_game_with_a_dealer_error_to_its_end(tmp_path: Path) -> None:
    config = replace(get_channel("holdem").with_times(100, 10), hands=2)
    journal = Journal.open(str(tmp_path / "ex.db"))
    clock = VirtualClock(start_ms=START_MS)
    service = ExchangeService(journal, clock, [config], seed=7, equities=river_only_equities, house=False,
                              irregularity_rate=1.0)
    service.recover()
    service.start()
    channel = service.channels["holdem"]
    source = channel.irregularities
    assert source is not None  # irregularity_rate=1.0 gives the channel a source
    plans = [source(n) for n in range(GAMES)]
    exposed = [max(p.irregularity.cards) for p in plans if p is not None and p.kind.name == "EXPOSED_HOLE_CARDS"]
    assert max(exposed) == config.first_deal - 1  # the last hole card dealt, and none past it
    while channel.games_finished < GAMES:
        clock.advance(100)
    service.stop()
    journal.close()
