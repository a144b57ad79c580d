"""An order resubscription's final records of the markets that closed while the client was away, at scale.

A bot that resubscribes with its ``clk`` after a long absence (flumine does after every reconnect) is sent the
final records of its orders on every kept market that closed since (up to ``keep_closed_markets``, 1,000 by
default). Finding an account's cleared orders on one market walked every market the account had cleared
orders on, once per market: the work grew with the square of the closed markets. The test counts the Python
lines run (a measure of work that does not depend on the machine's speed), never the time.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from decimal import Decimal
from types import FrameType
from typing import Any

from aiohttp.test_utils import TestClient

from exchange.core.commands import CreateMarket, OpenMarket, PlaceOrder, SettleMarket
from exchange.core.side import Side
from exchange.server import keys
from tests.server.helpers import StreamServer, login

SMALL, LARGE = 50, 200  # closed markets


def _lines_run(call: Callable[[], Any]) -> tuple[int, Any]:
    """How many Python lines ``call()`` runs (every frame's), and what it returned."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        nonlocal count
        if event == "line":
            count += 1
        return trace

    sys.settrace(trace)
    try:
        result = call()
    finally:
        sys.settrace(None)
    return count, result


async def _closed_markets_with_a_bet_each(client: TestClient, markets: int) -> None:
    """``markets`` markets on which alice backed selection 1 for 2.00 (unmatched), each settled."""
    await login(client, "alice", "pw-alice")  # (her account opened in the exchange)
    service = client.app[keys.SERVICE]
    now = service.now()
    for n in range(markets):
        market_id = f"old.{n}"
        for command in (CreateMarket(now, market_id, (1, 2)), OpenMarket(now, market_id),
                        PlaceOrder(now, "alice", market_id, 1, Side.BACK, Decimal("2"), 200),
                        SettleMarket(now, market_id, (1,))):
            service.execute(command)


async def test_the_final_records_of_many_closed_markets_cost_work_linear_in_their_number(
    stream_server: StreamServer,
) -> None:
    work = {}
    for markets in (SMALL, LARGE):
        client = await stream_server(keep_closed_markets=LARGE)
        await _closed_markets_with_a_bet_each(client, markets)
        service = client.app[keys.SERVICE]
        lines, images = _lines_run(functools.partial(service.closed_order_images, "alice", 0))
        assert [image["id"] for image in images] == sorted(f"old.{n}" for n in range(markets))
        assert all(image["closed"] and len(image["orc"][0]["uo"]) == 1 for image in images)
        work[markets] = lines
    ratio = work[LARGE] / work[SMALL]
    assert ratio < 1.5 * LARGE / SMALL, f"{LARGE} markets cost {ratio:.1f} times the work of {SMALL} ({work})"
