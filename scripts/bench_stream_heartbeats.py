"""What the stream hub's heartbeats and idle timeouts cost: CPU time a second of clock, by connections and heartbeat.

Each connection holds a quiet market subscription (nothing else is sent it, so it is sent a heartbeat every
``heartbeatMs``), the subscriptions' last messages spread evenly over one period, as a live server's are (any
message moves a subscription's time). The hub runs on a virtual clock moved through ``--seconds`` of time, its
looks at the connections planned as the server plans them (:meth:`StreamHub.check_by`); messages are queued on
the connections' outboxes and dropped (a transport that takes everything at once). The figure is the median of
``--repeats`` runs: CPU seconds per second of clock (0.01 is 1 % of a core), and the looks taken.

    python scripts/bench_stream_heartbeats.py [--seconds 10] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's exchange, not an installed copy

from exchange.cli.options import positive
from exchange.clock import VirtualClock
from exchange.server.stream import StreamHub
from exchange.server.stream_subscription import Subscription

CASES = ((100, 500), (1000, 500), (1000, 5000), (2000, 5000))  # (connections, heartbeatMs)


class _Taker:
    """A transport that takes every message at once."""

    closed = False

    async def send_text(self, text: str) -> None:
        return None

    async def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def buffered(self) -> int:
        return 0


class _Service:
    """What the hub asks of the exchange service for heartbeats: its clock and whether it has failed."""

    failure = None

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock

    def now(self) -> int:
        return self.clock.now()


class _Sessions:
    def alive(self, token: str) -> bool:
        return True


async def run(connections: int, heartbeat_ms: int, seconds: int) -> tuple[float, int]:
    """CPU seconds per second of clock, and the looks taken, for ``connections`` quiet subscribers."""
    clock = VirtualClock(start_ms=1_000_000)
    hub = StreamHub(_Sessions(), _Service(clock), max_queued_bytes=1 << 30)  # type: ignore[arg-type]
    for i in range(connections):
        conn = hub.connect(_Taker())
        conn.token, conn.account = "token", f"a{i}"
        conn.market_sub = Subscription(id=1, heartbeat_ms=heartbeat_ms)
        conn.market_sub.last_sent_ms = clock.now() - i * heartbeat_ms // connections
        hub.check_by(conn.next_check_ms())
    looks = 0
    beat = hub.beat

    def counted() -> None:
        nonlocal looks
        looks += 1
        beat()

    hub.beat = counted  # type: ignore[method-assign]
    started = time.process_time()
    clock.advance(seconds * 1000)
    spent = time.process_time() - started
    await hub.close()
    return spent / seconds, looks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=positive, default=10, help="seconds of clock a run (default 10)")
    parser.add_argument("--repeats", type=positive, default=5, help="runs a case, the median shown (default 5)")
    args = parser.parse_args(argv)
    print(f"{'connections':>11} {'heartbeatMs':>11} {'CPU s / s of clock':>18} {'looks / s':>9}")
    for connections, heartbeat_ms in CASES:
        runs = [asyncio.run(run(connections, heartbeat_ms, args.seconds)) for _ in range(args.repeats)]
        cpu = statistics.median(spent for spent, _ in runs)
        looks = statistics.median(looks for _, looks in runs) / args.seconds
        print(f"{connections:>11} {heartbeat_ms:>11} {cpu:>18.4f} {looks:>9.1f}")


if __name__ == "__main__":
    main()
