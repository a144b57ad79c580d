"""A connection's outbox drops a client that stopped reading, and never one still taking a large image.

The transport here is a peer that takes what it is sent at the pace the test reads: ``send_text`` returns at
once, as aiohttp's WebSocket writer does, and what the peer has not read yet is ``buffered()``.
"""

from __future__ import annotations

import asyncio

import pytest

from exchange.server.stream_transport import Outbox

LIMIT = 1_000


class Peer:
    """A client that reads when the test says so."""

    def __init__(self) -> None:
        self.closed = False
        self.aborted = False
        self.unread = 0

    async def send_text(self, text: str) -> None:
        self.unread += len(text)

    async def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def buffered(self) -> int:
        return self.unread

    def read(self, size: int) -> None:
        self.unread = max(0, self.unread - size)


async def test_a_client_still_reading_a_large_image_is_not_dropped_for_the_next_change() -> None:
    # A resubscription's image of every market closed since its clock can pass the limit on its own (about 1.2 kB
    # a market, up to 1,000 kept): the client reading it is kept, the deltas that follow it queued.
    peer = Peer()
    outbox = Outbox(peer, max_bytes=LIMIT)
    assert outbox.put("i" * (LIMIT + 500))
    await asyncio.sleep(0)  # written: the peer has it to read
    peer.read(400)
    assert outbox.put("d" * 50) and not peer.aborted
    peer.read(LIMIT)
    for _ in range(10):
        assert outbox.put("d" * 50)
        await asyncio.sleep(0)
        peer.read(50)
    assert not peer.aborted


async def test_a_client_that_stops_reading_is_dropped_within_its_largest_message_and_the_limit() -> None:
    peer = Peer()
    outbox = Outbox(peer, max_bytes=LIMIT)
    assert outbox.put("i" * (LIMIT + 500))
    for _ in range(200):  # bounded: the client reads nothing
        await asyncio.sleep(0)
        if not outbox.put("d" * 50):
            break
    assert peer.aborted and outbox.gone
    assert LIMIT + 500 + LIMIT - 50 < peer.unread <= LIMIT + 500 + LIMIT


async def test_a_dropped_client_s_outbox_finishes_quietly_and_a_writer_s_own_failure_is_raised() -> None:
    # The connection's release awaits finish() after the drop: the writer's cancellation was the abort's, and once
    # escaped from finish() and skipped the rest of the release (the place on the stream port was never freed).
    peer = Peer()
    outbox = Outbox(peer, max_bytes=LIMIT)
    assert outbox.put("i" * (LIMIT + 500))
    await asyncio.sleep(0)
    assert not outbox.put("d" * (LIMIT + 1)) and peer.aborted
    await outbox.finish()

    class Broken(Peer):
        async def send_text(self, text: str) -> None:
            raise ValueError("a bug in the writer")

    broken = Outbox(Broken(), max_bytes=LIMIT)
    assert broken.put("x")
    with pytest.raises(ValueError, match="a bug in the writer"):
        await broken.finish()
