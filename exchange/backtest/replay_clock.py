"""The replay's position: where ``exchange-poker replay`` is in the recorded games, and how fast it moves.

Apart from the app (:mod:`exchange.backtest.replay_server`), so the command line can state the speeds it takes
without loading aiohttp.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MIN_SPEED, MAX_SPEED = 0.1, 100.0


class ReplayClock:
    """The replay's position in ms since the first game's start: paused, or moving at ``speed`` × ``now()``."""

    def __init__(self, length_ms: int, now: Callable[[], float] = time.monotonic) -> None:
        self.length_ms = length_ms
        self._now = now
        self.speed = 1.0
        self.playing = False
        self._base_ms = 0  # the position (whole ms) when it last started, stopped or changed speed
        self._since = now()

    def position(self) -> int:
        moved = (self._now() - self._since) * 1000 * self.speed if self.playing else 0.0
        return int(min(self.length_ms, self._base_ms + moved))

    def _rebase(self) -> None:
        self._base_ms = self.position()
        self._since = self._now()

    def play(self) -> None:
        self._rebase()
        self.playing = True

    def pause(self) -> None:
        self._rebase()
        self.playing = False

    def set_speed(self, speed: float) -> None:
        self._rebase()
        self.speed = speed

    def seek(self, position_ms: int) -> None:
        self._base_ms = max(0, min(self.length_ms, position_ms))
        self._since = self._now()
