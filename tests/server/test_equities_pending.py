"""The Games API never pairs the cards just turned with equities of other cards.

A reveal's equities are computed beside the loop (a worker thread on the server); until they are in, the snapshot
showed the new cards with the last reveal's figures, still marked exact (``equityExact "1/4"`` beside hole cards
just turned). Now each market says ``equitiesPending`` and its selections carry no equity meanwhile. A game on a
virtual clock whose equity runner answers when the test hands the result over.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from exchange.clock import VirtualClock
from exchange.core.commands import SuspendMarket
from exchange.core.exchange import Exchange
from exchange.game.channel import Channel
from exchange.game.channels import HOLDEM, OMAHA_HILO
from exchange.game.deal import seeded_decks
from exchange.server.game_view import channel_snapshot
from exchange.server.service import ExchangeService
from tests.game.helpers import Later

EQUITY_FIELDS = {"equity", "equityExact", "equityStderr"}


def _snapshot(channel: Channel) -> dict[str, Any]:
    service = cast(ExchangeService, SimpleNamespace(channels={channel.config.name: channel}))
    snapshot = channel_snapshot(service, channel.config.name)
    assert snapshot is not None and snapshot["game"] is not None
    game: dict[str, Any] = snapshot["game"]
    return game


def test_the_cards_just_turned_come_without_equities_until_theirs_are_in() -> None:
    runner = Later()
    clock = VirtualClock(start_ms=0)
    channel = Channel(HOLDEM, clock, Exchange(), decks=seeded_decks(3), runner=runner)
    channel.start(games=1)
    game = channel.current
    assert game is not None
    clock.run(until_ms=game.windows[0].opens_ms)  # the Deal window: every hand's 1/4, the cards face down
    before = _snapshot(channel)
    [market] = before["markets"]
    assert market["equitiesPending"] is False
    assert [s["equityExact"] for s in market["selections"]] == ["1/4"] * 4
    clock.run(until_ms=game.windows[0].closes_ms)  # the Deal window closes: the hole cards are turned
    assert len(runner.jobs) == 1  # and priced beside the loop
    turned = _snapshot(channel)
    [market] = turned["markets"]
    assert all("NOT AVAILABLE" not in hand["cards"] for hand in turned["gameData"]["hands"]), turned
    assert market["equitiesPending"] is True
    assert all(not EQUITY_FIELDS & selection.keys() for selection in market["selections"]), market
    runner.deliver()
    [market] = _snapshot(channel)["markets"]
    assert market["equitiesPending"] is False
    shares = [selection["equityExact"] for selection in market["selections"]]
    assert len(set(shares)) > 1 and "1/4" not in shares  # the hole cards' own figures


class Ticking(VirtualClock):
    """A clock a millisecond later at every read once ``ticking`` is set, as a busy loop's wall clock can be between
    two reads."""

    ticking = False

    def now(self) -> int:
        now = super().now()
        if self.ticking:
            self._now += 1
        return now


def test_a_snapshot_shows_every_market_at_one_instant_at_the_windows_edge() -> None:
    """A hi/lo game's High market suspended alone (as one settled early is closed) and its Low market open, read a
    millisecond before the window's close on a clock that moves at every read: betting is open with 1 ms left, not
    closed beside 1 ms left because the Low market's view was read a millisecond later."""
    clock = Ticking(start_ms=0)
    channel = Channel(OMAHA_HILO, clock, Exchange(), decks=seeded_decks(3))
    channel.start(games=1)
    game = channel.current
    assert game is not None
    clock.run(until_ms=game.windows[0].closes_ms - 1)
    channel.exchange.execute(SuspendMarket(clock.now(), game.market_id))
    clock.ticking = True
    snapshot = _snapshot(channel)
    assert [market["marketStatus"] for market in snapshot["markets"]] == ["SUSPENDED", "ACTIVE"]
    assert (snapshot["bettingWindowRemainingMs"], snapshot["bettingOpen"]) == (1, True)
