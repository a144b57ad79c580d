"""Hypothesis throws arbitrary JSON at the betting endpoint: every answer is JSON-RPC, never a 5xx
and never an UNEXPECTED_ERROR.

Each example starts a fresh server on a fresh event loop (``asyncio.run``) and a clock standing at
the same moment (``holdem.0`` just dealt), logs in, sends one to three fuzzed calls and checks
every answer before the example ends, so a failing example replays from the same state, whatever
the machine's load, and hypothesis can shrink it. ``@given`` cannot wrap an ``async def`` test,
hence the synchronous test driving its own loop.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.errors import ApingCode
from exchange.server.jsonrpc import APING_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from tests.server.helpers import BETTING, HEARTBEAT_MS, START_MS, headers, login, serving

METHODS = ["placeOrders", "cancelOrders", "replaceOrders", "listCurrentOrders", "listClearedOrders",
           "listMarketBook", "listMarketCatalogue"]
KEYS = ["marketId", "instructions", "selectionId", "side", "orderType", "limitOrder", "size", "price", "betId",
        "newPrice", "sizeReduction", "marketIds", "betStatus", "maxResults", "filter", "priceProjection", "groupBy"]
PARAMS = ["marketId", "instructions", "betIds", "marketIds", "betStatus", "maxResults", "priceProjection",
          "groupBy", "orderProjection", "fromRecord", "recordCount", "filter"]

# JSON's numbers are finite: json.dumps would write an infinity as Infinity, a parse error (test_refusal_words)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                    st.sampled_from(["holdem.0", "BACK", "LAY", "LIMIT", "LAPSE", "1"]))
values = st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner,
                                                                                  max_size=5)), max_leaves=12)
params = st.dictionaries(st.sampled_from(PARAMS), values, max_size=5)
calls = st.lists(st.tuples(st.sampled_from(METHODS), params), min_size=1, max_size=3)

ERROR_CODES = {PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, APING_ERROR}
REFUSALS = {str(code) for code in ApingCode} - {str(ApingCode.UNEXPECTED_ERROR)}


async def exchange_answers(db_path: str, bodies: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """``(HTTP status, body text)`` of each call, sent in order by the demo account to a new server."""
    # holdem.0 dealt; the clock stands still from here
    async with serving(Path(db_path), VirtualClock(start_ms=START_MS), accounts=(), heartbeat_ms=HEARTBEAT_MS,
                       demo=True) as client:
        config = client.app[keys.CONFIG]
        token = await login(client, config.demo_account, config.demo_password)
        answers = []
        for body in bodies:
            resp = await client.post(BETTING, data=json.dumps(body), headers=headers(token))
            answers.append((resp.status, await resp.text()))
        return answers


def assert_documented_shape(request: dict[str, Any], answer: Any) -> None:
    """A JSON-RPC 2.0 response to ``request``: a result, or an error as ``exchange.server.jsonrpc`` builds it."""
    assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0" and answer.get("id") == request["id"], answer
    assert ("result" in answer) != ("error" in answer), answer
    if "result" in answer:
        return
    error = answer["error"]
    assert error["code"] in ERROR_CODES and isinstance(error["message"], str), error
    if error["code"] == APING_ERROR:
        assert error["message"].startswith("ANGX-"), error
        assert error["data"]["exceptionname"] == "APINGException", error
        detail = error["data"]["APINGException"]
        assert detail["errorCode"] in REFUSALS, error  # never UNEXPECTED_ERROR: that is a bug caught and logged
        assert isinstance(detail["errorDetails"], str) and detail["requestUUID"], error


# No health check is suppressed: the test takes no function-scoped fixture and generation is cheap.
# deadline=None because each example starts a real server and its sockets and threads, whose time
# varies with the machine's load; max_examples keeps the file to a few seconds.
@settings(max_examples=60, deadline=None)
@given(calls=calls)
def test_fuzzed_bodies_get_a_json_rpc_answer_never_a_5xx(calls: list[tuple[str, dict[str, Any]]]) -> None:
    bodies = [{"jsonrpc": "2.0", "method": f"SportsAPING/v1.0/{method}", "params": body, "id": i}
              for i, (method, body) in enumerate(calls, start=1)]
    with tempfile.TemporaryDirectory() as tmp:
        answers = asyncio.run(exchange_answers(str(Path(tmp) / "ex.db"), bodies))
    for request, (status, text) in zip(bodies, answers, strict=True):
        assert status == 200, (request, status, text)
        assert_documented_shape(request, json.loads(text))
