"""The Exchange Stream on its own TLS port, as Betfair serves it: CRLF JSON lines, the same hub as ``/stream``.

An in-process server on the test's clock listens for the stream on a free loopback port with a self-signed
certificate made at start; the test connects as betfairlightweight's ``BetfairStream`` does (TLS, no
certificate check) and reads lines with betfairlightweight's own ``StreamListener``.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from betfairlightweight.streaming.listener import StreamListener

from exchange.server import keys
from exchange.server.tls import TlsConfigError, self_signed, server_context
from tests.server.helpers import APP_KEY, login, place, rpc, virtual_clock, wanted

MARKET = "holdem.0"
#: The longest a line may take to come: a real server process just restarted on a loaded machine can take seconds.
LINE_WAIT_S = 15


class Lines:
    """A TLS connection to the stream port, as betfairlightweight opens it (no certificate check)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Lines:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return cls(*await asyncio.open_connection("127.0.0.1", port, ssl=context))

    async def send(self, message: dict[str, Any] | bytes) -> None:
        self.writer.write(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\r\n")
        await self.writer.drain()

    async def line(self) -> str:
        raw = await asyncio.wait_for(self.reader.readuntil(b"\n"), LINE_WAIT_S)
        assert raw.endswith(b"\r\n"), raw  # every message ends with CRLF
        return raw.decode()[:-2]

    async def receive(self, op: str, ct: str | None = None) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await self.line())
            if wanted(message, op, ct):
                return message

    async def close(self) -> None:
        self.writer.close()


async def test_tls_lines_carry_the_same_stream_as_the_websocket(tls_client: TestClient) -> None:
    clock = virtual_clock(tls_client)
    port = tls_client.app[keys.STREAM_PORT]
    alice, bob = await login(tls_client, "alice", "pw-alice"), await login(tls_client, "bob", "pw-bob")
    lines = await Lines.open(port)
    listener = StreamListener(max_latency=None)
    assert listener.on_data(await lines.line()) is None  # {"op": "connection", ...}
    assert listener.connection_id
    await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
    assert (await lines.receive("status"))["statusCode"] == "SUCCESS"
    await lines.send({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]},
                      "marketDataFilter": {"fields": ["EX_BEST_OFFERS", "EX_MARKET_DEF"]}, "clk": None})
    listener.register_stream(2, "marketSubscription")
    assert (await lines.receive("status"))["id"] == 2
    listener.on_data(json.dumps(await lines.receive("mcm", "SUB_IMAGE")))
    async with tls_client.ws_connect("/stream") as ws:  # a WebSocket subscriber of the same hub
        await ws.receive()
        await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": bob})
        await ws.receive()
        await ws.send_json({"op": "marketSubscription", "id": 2, "marketFilter": {"marketIds": [MARKET]},
                            "marketDataFilter": {"fields": ["EX_BEST_OFFERS", "EX_MARKET_DEF"]}})
        await ws.receive()
        await ws.receive()  # its image
        await rpc(tls_client, bob, "placeOrders", place(MARKET, 2, "LAY", 3.0, 10))
        clock.advance(tls_client.app[keys.HUB].conflate_ms)
        over_tls = await lines.receive("mcm")
        over_ws = json.loads((await ws.receive(timeout=3)).data)
    assert over_tls["mc"] == over_ws["mc"]  # the same change, whichever the transport
    listener.on_data(json.dumps(over_tls))
    book = listener.snap(market_ids=[MARKET])[0]
    runner = next(r for r in book.runners if r.selection_id == 2)
    assert runner.ex.available_to_back[0].price == 3.0 and runner.ex.available_to_back[0].size == 10.0
    await lines.send({"op": "heartbeat", "id": 9})
    assert (await lines.receive("status"))["id"] == 9
    await lines.close()


async def test_tls_lines_refuse_what_is_not_a_message(tls_client: TestClient) -> None:
    port = tls_client.app[keys.STREAM_PORT]
    lines = await Lines.open(port)
    await lines.line()
    await lines.send(b"not json\r\n")
    refused = json.loads(await lines.line())
    assert refused["errorCode"] == "INVALID_INPUT" and refused["connectionClosed"] is False
    await lines.send({"op": "orderSubscription", "id": 3})
    refused = await lines.receive("status")
    assert refused["errorCode"] == "NOT_AUTHORIZED" and refused["connectionClosed"] is True
    assert await asyncio.wait_for(lines.reader.read(), 3) == b""  # closed by the server
    too_long = await Lines.open(port)
    await too_long.line()
    await too_long.send(b"{" + b" " * 70_000 + b"}\r\n")
    refused = await too_long.receive("status")
    assert refused["errorCode"] == "INVALID_INPUT" and "at most 65536 bytes" in refused["errorMessage"]


async def test_tls_lines_take_a_message_of_the_largest_size_and_refuse_one_byte_more(tls_client: TestClient) -> None:
    """The limit is the message's: 65,536 bytes, whether a CRLF (as Betfair's protocol ends a message) or an LF
    ends it (a 65,536-byte message ended by CRLF was refused)."""
    port = tls_client.app[keys.STREAM_PORT]

    def heartbeat(size: int) -> bytes:
        head = b'{"op": "heartbeat", "id": 3'
        return head + b" " * (size - len(head) - 1) + b"}"

    for size, end, taken in ((65_536, b"\r\n", True), (65_536, b"\n", True), (65_537, b"\r\n", False),
                             (65_537, b"\n", False), (65_538, b"\n", False)):
        lines = await Lines.open(port)
        await lines.line()
        await lines.send(heartbeat(size) + end)
        status = await lines.receive("status")
        assert (status.get("errorCode"), status["connectionClosed"]) == (
            (None, False) if taken else ("INVALID_INPUT", True)), (size, end, status)
        await lines.close()


def test_a_certificate_given_is_used_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    cert, key = self_signed("exchange.test")
    (tmp_path / "c.pem").write_bytes(cert)
    (tmp_path / "k.pem").write_bytes(key)
    assert isinstance(server_context(str(tmp_path / "c.pem"), str(tmp_path / "k.pem")), ssl.SSLContext)
    with pytest.raises(TlsConfigError, match="cannot load the certificate"):
        server_context(str(tmp_path / "k.pem"), str(tmp_path / "c.pem"))
    with pytest.raises(TlsConfigError, match="both"):
        server_context(str(tmp_path / "c.pem"), None)


async def test_a_market_filter_narrows_the_subscription_by_event_and_by_what_markets_are(
    tls_client: TestClient,
) -> None:
    alice = await login(tls_client, "alice", "pw-alice")
    lines = await Lines.open(tls_client.app[keys.STREAM_PORT])
    await lines.line()
    await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": alice})
    await lines.receive("status")
    cases = [({"eventIds": [MARKET], "countryCodes": ["GB"], "marketTypes": ["WIN"]}, [MARKET]),
             ({"eventIds": ["holdem.9"]}, []), ({"marketTypes": ["PLACE"]}, []), ({"bspMarket": True}, []),
             ({"eventTypeIds": ["990001"], "turnInPlayEnabled": True}, [MARKET])]
    for i, (market_filter, expected) in enumerate(cases, start=2):
        await lines.send({"op": "marketSubscription", "id": i, "marketFilter": market_filter})
        assert (await lines.receive("status"))["statusCode"] == "SUCCESS"
        image = await lines.receive("mcm", "SUB_IMAGE")
        assert [mc["id"] for mc in image["mc"]] == expected, market_filter
    await lines.close()
