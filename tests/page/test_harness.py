"""The page tests' live server moves to the start of the next game whatever the channel's number of windows.

No browser: only :class:`tests.page.harness.LiveServer`'s clock. 7-Card Stud has
five betting windows and 5-Card Draw two, not Hold'em's four; and a game settled
early is followed a playing window after the close that settled it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from exchange.game.channels import DRAW5, HOLDEM, STUD7
from tests.page.harness import WINDOW_MS, LiveServer


@pytest.mark.parametrize("channel", [STUD7.name, DRAW5.name, HOLDEM.name])
def test_the_next_game_is_reached_at_its_deal_window(tmp_path: Path, channel: str) -> None:
    live = LiveServer(tmp_path / "exchange.db", channel=channel)
    live.start()
    try:
        for number in (1, 2, 3):
            live.to_game_time(0, next_game=True)
            game = live.snapshot()["game"]
            assert (game["gameNumber"], game["roundName"], game["bettingOpen"]) == (number, "Deal", True), game
            assert game["bettingWindowRemainingMs"] > WINDOW_MS - 1_000  # the streams' conflation interval passed
    finally:
        live.stop()
