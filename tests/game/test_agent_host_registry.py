"""The agents' registry keeps no channel alive: a channel nobody holds goes, with its agents, whether or not
anyone called :func:`exchange.agents.host.release` (only the backtest does; a notebook, a test or a live script
that seats agents does not)."""

from __future__ import annotations

import gc
import weakref

from exchange.agents import host
from exchange.game.deal import seeded_decks
from tests.game.helpers import make_channel


def _played_channel() -> weakref.ref[object]:
    channel, clock, _ = make_channel(seeded_decks(3), noise=1)  # a house maker and a noise trader seated
    channel.start(games=1)
    clock.run()
    assert host.host_of(channel).seats, "the agents are seated"
    return weakref.ref(channel)


def test_a_channel_nobody_holds_is_collected_with_its_agents_without_release() -> None:
    gone = _played_channel()
    gc.collect()
    assert gone() is None, "the registry kept the channel alive"


def test_a_channel_keeps_its_one_host_while_it_lives_and_release_forgets_it() -> None:
    channel, _, _ = make_channel(seeded_decks(3))
    first = host.host_of(channel)
    gc.collect()
    assert host.host_of(channel) is first  # held by the channel it listens to, not by the registry
    host.release(channel)
    assert host.host_of(channel) is not first
