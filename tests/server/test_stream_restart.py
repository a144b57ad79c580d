"""A stream client across a crash of the server: it reconnects to the restarted server with its clocks and its
caches learn how the game the crash interrupted ended.

A real server process on loopback with the stream's TLS port is killed (SIGKILL) while a betting window is open
and started again on the same database and ports; the restart voids the interrupted game. The client keeps its
betfairlightweight listeners (as betfairlightweight and flumine do across a reconnect), logs in again (sessions
do not outlive the process) and resubscribes with each listener's ``initialClk`` and ``clk``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import requests
from betfairlightweight.streaming.listener import StreamListener

from tests.server.helpers import APP_KEY
from tests.server.serverproc import ServerProcess, cli
from tests.server.test_stream_socket import Lines

MARKET = "holdem.0"
MS, OS = "marketSubscription", "orderSubscription"


def _login(server: ServerProcess) -> str:
    answer = requests.post(f"{server.url}/api/login", data={"username": "alice", "password": "pw-a"},
                           headers={"X-Application": APP_KEY}, timeout=5).json()
    return str(answer["token"])


def _place_resting_back(server: ServerProcess, token: str) -> str:
    """A back at 1000 that nothing will match: it rests executable until the window closes."""
    params = {"marketId": MARKET, "instructions": [{"selectionId": 1, "side": "BACK", "orderType": "LIMIT",
                                                    "limitOrder": {"size": 2, "price": 1000,
                                                                   "persistenceType": "LAPSE"}}]}
    answer = requests.post(f"{server.url}/exchange/betting/json-rpc/v1", timeout=5,
                           headers={"X-Authentication": token, "X-Application": APP_KEY},
                           json={"jsonrpc": "2.0", "id": 1, "method": "SportsAPING/v1.0/placeOrders",
                                 "params": params}).json()
    assert answer["result"]["status"] == "SUCCESS", answer
    return str(answer["result"]["instructionReports"][0]["betId"])


async def _subscribe(port: int, token: str, listener: StreamListener, op: str, clocks: dict[str, Any]
                     ) -> dict[str, Any]:
    """Connect, authenticate and subscribe (``op``, with ``clocks`` if any); the image, fed to ``listener``."""
    lines = await Lines.open(port)
    try:
        await lines.receive("connection")
        await lines.send({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": token})
        assert (await lines.receive("status"))["statusCode"] == "SUCCESS"
        await lines.send({"op": op, "id": 2, **({"marketFilter": {}} if op == MS else {}), **clocks})
        assert (await lines.receive("status"))["statusCode"] == "SUCCESS"
        image = await lines.receive("mcm" if op == MS else "ocm", "SUB_IMAGE")
    finally:
        await lines.close()
    listener.on_data(json.dumps(image))
    return image


def _clocks(listener: StreamListener) -> dict[str, Any]:
    return {"initialClk": listener.initial_clk, "clk": listener.clk}


async def test_a_resubscription_after_a_crash_shows_the_interrupted_game_closed_and_its_orders_ended(
        tmp_path: Path) -> None:
    db = tmp_path / "ex.db"
    cli("accounts", "--db", str(db), "add", "alice", "--password", "pw-a", "--balance", "100", check=True)
    server = ServerProcess(db, stream=True)  # 30 s windows: the Deal window is open throughout
    markets, orders = StreamListener(max_latency=None), StreamListener(max_latency=None)
    markets.register_stream(2, MS)
    orders.register_stream(2, OS)
    with server:
        token, port = _login(server), server.stream_port
        assert port is not None
        bet_id = _place_resting_back(server, token)
        await _subscribe(port, token, markets, MS, {})
        await _subscribe(port, token, orders, OS, {})
        assert [(b.market_id, b.status) for b in markets.snap()] == [(MARKET, "OPEN")]
        assert [(o.bet_id, o.status) for b in orders.snap() for o in b.orders] == [(bet_id, "EXECUTABLE")]
        server.kill()
        server.start()  # the same database and ports: the crash's game is voided, the next one dealt
        token, port = _login(server), server.stream_port  # (the same port, unless another process took it)
        assert port is not None
        await _subscribe(port, token, markets, MS, _clocks(markets))
        await _subscribe(port, token, orders, OS, _clocks(orders))
    assert {b.market_id: b.status for b in markets.snap()}[MARKET] == "CLOSED"
    assert orders.stream._caches[MARKET].closed is True
    (order,) = [o for book in orders.snap() for o in book.orders if o.market_id == MARKET]
    assert (order.bet_id, order.status, order.size_cancelled, order.size_remaining) == (
        bet_id, "EXECUTION_COMPLETE", 2.0, 0.0)  # never matched: the void cancelled it
