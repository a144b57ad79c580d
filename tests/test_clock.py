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


async def test_virtual_clock_under_asyncio_runs_callbacks_inside_advance_and_they_may_use_the_loop() -> None:
    """What the in-process server tests rely on: nothing runs before the test advances, then all that is due."""
    clock = VirtualClock(start_ms=5_000)
    loop = asyncio.get_running_loop()
    seen: list[tuple[str, int]] = []
    done = asyncio.Event()

    async def later(tag: str) -> None:
        seen.append((tag, clock.now()))
        done.set()

    clock.call_later(50, lambda: loop.create_task(later("task")))  # what the stream's conflated flush does
    clock.call_later(50, lambda: seen.append(("sync", clock.now())))
    await asyncio.sleep(0)
    assert seen == []  # the loop turning does not move a virtual clock
    clock.advance(49)
    assert seen == [] and clock.now() == 5_049
    clock.advance(1)
    assert seen == [("sync", 5_050)]  # ran inside advance; the task it started runs when the test awaits
    await asyncio.wait_for(done.wait(), 2)
    assert seen == [("sync", 5_050), ("task", 5_050)]
