"""The stream after a journal failure: a subscription is answered at once, ``SERVICE_UNAVAILABLE``, and closed.

When the journal fails, every connection open is told ``SERVICE_UNAVAILABLE`` and closed
(:meth:`~exchange.server.stream.StreamHub.fail`), but the server keeps listening until it has stopped. A client
that connects meanwhile (betfairlightweight reconnects at once when its socket closes) and subscribes was sent
nothing: its subscription waited on a journal that would never hold anything again, returned without a word,
and the client learnt nothing until the idle timeout closed it 15 s later.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from aiohttp.test_utils import TestClient

from exchange.server import keys
from tests.server.helpers import APP_KEY, StreamServer, login, until
from tests.server.test_stream_socket import Lines

SUBSCRIPTIONS = {
    "marketSubscription": {"op": "marketSubscription", "id": 2, "marketFilter": {}},
    "orderSubscription": {"op": "orderSubscription", "id": 2},
}


@pytest.fixture
async def client(stream_server: StreamServer) -> TestClient:
    return await stream_server()


async def _fail_the_journal(client: TestClient) -> None:
    """Kill the journal's writer: the journal fails at once (its pipe closes), and the service with it."""
    pid = client.app[keys.JOURNAL].writer_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    service = client.app[keys.SERVICE]
    await until(lambda: service.failure is not None, "the journal failed")


async def _refused_and_closed(lines: Lines, request_id: int) -> None:
    status = await lines.receive("status")
    assert status["statusCode"] == "FAILURE" and status["errorCode"] == "SERVICE_UNAVAILABLE", status
    assert status["id"] == request_id and status["connectionClosed"] is True, status
    assert "journal" in status["errorMessage"], status
    assert await asyncio.wait_for(lines.reader.read(), 3) == b""  # and closed by the server, nothing else said


@pytest.mark.parametrize("op", sorted(SUBSCRIPTIONS))
async def test_a_subscription_after_a_journal_failure_is_refused_at_once_and_closed(client: TestClient,
                                                                                    op: str) -> None:
    """Not ``NOT_AUTHORIZED`` / "authenticate first" (which sends a bot to log in again, to no end)."""
    await _fail_the_journal(client)
    lines = await Lines.open(client.app[keys.STREAM_PORT])
    assert (await lines.receive("connection"))["connectionId"]
    await lines.send(SUBSCRIPTIONS[op])
    await _refused_and_closed(lines, 2)


@pytest.mark.parametrize("op", sorted(SUBSCRIPTIONS))
async def test_a_client_reconnecting_after_a_journal_failure_is_told_at_its_first_request(client: TestClient,
                                                                                         op: str) -> None:
    """As betfairlightweight starts a stream: authentication and subscription sent at once, each answered later.
    Before, the authentication succeeded and the subscription was never answered (the client waited for the
    idle timeout); now the authentication is refused and the connection closed."""
    alice = await login(client, "alice", "pw-alice")
    await _fail_the_journal(client)
    lines = await Lines.open(client.app[keys.STREAM_PORT])
    assert (await lines.receive("connection"))["connectionId"]
    await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
    await lines.send(SUBSCRIPTIONS[op])
    await _refused_and_closed(lines, 1)
