"""What a stream resubscription with an old clock costs the loop: the hub's work to image every market closed since.

A server's service plays ``--games`` Hold'em games on a virtual clock (short windows, noise traders, the river-only
prices of the server tests, so the games cost little), keeping every closed market. A stream hub then images, for a
subscription resuming from before the first game, every market closed since (``images_in_step``), ``--repeats``
times: the first builds each closed market's image, the others find them built. Printed: milliseconds of CPU for
the first and the median of the others, and the markets imaged.

    python scripts/bench_resubscribe.py [--games 500] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's exchange, not an installed copy

from exchange.agents.host import seat
from exchange.agents.house import NoiseTrader
from exchange.cli.options import positive
from exchange.clock import VirtualClock
from exchange.core.exchange import ExchangeConfig
from exchange.game.channels import get_channel
from exchange.server.fallback_equities import river_only_equities
from exchange.server.journal import Journal
from exchange.server.service import ExchangeService
from exchange.server.stream import StreamHub
from exchange.server.stream_subscription import Subscription

START_MS = 1_700_000_000_000
WINDOW_MS, PLAYING_MS = 2_000, 100


def played(games: int) -> ExchangeService:
    clock = VirtualClock(START_MS)
    channel_config = get_channel("holdem").with_times(WINDOW_MS, PLAYING_MS)
    service = ExchangeService(Journal.open(":memory:"), clock, [channel_config], seed=1,
                              equities=river_only_equities, exchange_config=ExchangeConfig(keep_closed_markets=games))
    service.recover()
    service.start()
    channel = service.channels["holdem"]
    for name in ("noise-1", "noise-2"):
        channel.open_account(name, 1_000_000)
        seat(channel, NoiseTrader(name), name)
    game_ms = 4 * WINDOW_MS + 4 * PLAYING_MS
    clock.run(until_ms=START_MS + games * game_ms)
    return service


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench_resubscribe.py", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive, default=500)
    parser.add_argument("--repeats", type=positive, default=5)
    args = parser.parse_args()
    service = played(args.games)
    hub = StreamHub(None, service)  # type: ignore[arg-type]  # no sessions: no connection is made
    sub = Subscription(id=1, heartbeat_ms=5_000)
    times, imaged = [], 0
    for _ in range(args.repeats + 1):
        began = time.process_time()
        _, images = hub.images_in_step(sub, START_MS)
        times.append((time.process_time() - began) * 1000)
        imaged = len(images)
    print(f"markets imaged: {imaged}")
    print(f"first resubscription: {times[0]:.1f} ms CPU; the next (median of {args.repeats}): "
          f"{statistics.median(times[1:]):.1f} ms CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
