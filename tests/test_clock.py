from __future__ import annotations

import asyncio

from exchange.clock import VirtualClock, WallClock


def test_virtual_clock_orders_by_time_then_schedule_order() -> None:
    clock = VirtualClock(start_ms=100)
    seen: list[tuple[str, int]] = []
    clock.call_at(300, lambda: seen.append(("late", clock.now())))
    clock.call_at(200, lambda: seen.append(("first", clock.now())))
    clock.call_at(200, lambda: seen.append(("second", clock.now())))
    clock.run()
    assert seen == [("first", 200), ("second", 200), ("late", 300)]


def test_cancelled_timer_never_runs_and_past_times_run_now() -> None:
    clock = VirtualClock(start_ms=1000)
    seen: list[int] = []
    timer = clock.call_later(10, lambda: seen.append(1))
    timer.cancel()
    clock.call_at(5, lambda: seen.append(clock.now()))
    clock.run()
    assert seen == [1000]


def test_advance_stops_at_horizon_and_callbacks_can_schedule() -> None:
    clock = VirtualClock()
    ticks: list[int] = []

    def tick() -> None:
        ticks.append(clock.now())
        clock.call_later(100, tick)

    clock.call_later(100, tick)
    clock.advance(350)
    assert ticks == [100, 200, 300]
    assert clock.now() == 350
    assert clock.pending == 1


async def test_wall_clock_runs_on_the_loop() -> None:
    clock = WallClock()
    done = asyncio.Event()
    start = clock.now()
    clock.call_later(20, done.set)
    await asyncio.wait_for(done.wait(), 2)
    assert clock.now() - start >= 15
