"""Seeded stress: several games with every agent type, invariants checked after every clock step."""

from __future__ import annotations

import pytest

from exchange.core.events import MarketSettled
from exchange.game.channels import DRAW32, HOLDEM_TURBO, OMAHA, STUD7_HILO, ChannelConfig
from exchange.game.deal import seeded_decks
from tests.game.helpers import make_channel


@pytest.mark.parametrize("config", [HOLDEM_TURBO, OMAHA, STUD7_HILO, DRAW32], ids=lambda c: c.name)
def test_invariants_hold_at_every_step(config: ChannelConfig) -> None:
    channel, clock, log = make_channel(seeded_decks(99), config=config, makers=2, noise=3)
    channel.start(at_ms=0, games=3)
    steps = 0
    while clock.step():
        steps += 1
        game = channel.game()
        assert game is not None
        game._check()
        if steps % 25 == 0:
            channel.exchange._check()
    channel.exchange._check()
    assert channel.games_finished == 3
    for settled in log.of_type(MarketSettled):
        total = sum(a.profit for a in settled.accounts) + settled.rounding
        assert total == 0
    house = sum(channel.exchange.accounts[a].balance for a in ("house-maker-0", "house-maker-1"))
    users = sum(channel.exchange.accounts[f"house-noise-{i}"].balance for i in range(3))
    commission = channel.exchange.accounts["HOUSE"].balance
    assert house + users + commission == 2 * 1_000_000_000 + 3 * 10_000_000
