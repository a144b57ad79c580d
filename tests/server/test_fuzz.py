"""Hypothesis throws arbitrary JSON at the betting endpoint: every answer is JSON-RPC, never a 500
and never an UNEXPECTED_ERROR."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.helpers import BETTING, headers, login

METHODS = ["placeOrders", "cancelOrders", "replaceOrders", "listCurrentOrders", "listClearedOrders",
           "listMarketBook", "listMarketCatalogue"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                    st.text(max_size=8), st.sampled_from(["holdem.0", "BACK", "LAY", "LIMIT", "LAPSE", "1"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.sampled_from(
                                                           ["marketId", "instructions", "selectionId", "side",
                                                            "orderType", "limitOrder", "size", "price", "betId",
                                                            "newPrice", "sizeReduction", "marketIds", "betStatus",
                                                            "maxResults", "filter", "priceProjection", "groupBy"]),
                                                           inner, max_size=5)), max_leaves=12)
params = st.dictionaries(st.sampled_from(["marketId", "instructions", "betIds", "marketIds", "betStatus",
                                          "maxResults", "priceProjection", "groupBy", "orderProjection",
                                          "fromRecord", "recordCount", "filter"]), values, max_size=5)


async def test_fuzzed_bodies_never_500(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    seen: list[Any] = []

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(method=st.sampled_from(METHODS), body=params)
    def build(method: str, body: dict[str, Any]) -> None:
        seen.append({"jsonrpc": "2.0", "method": f"SportsAPING/v1.0/{method}", "params": body, "id": 1})

    build()
    for request in seen:
        resp = await client.post(BETTING, data=json.dumps(request), headers=headers(token))
        assert resp.status == 200, (request, await resp.text())
        answer = await resp.json()
        assert "result" in answer or answer["error"]["code"] in (-32700, -32600, -32601, -32602, -32099)
        if "error" in answer and answer["error"]["code"] == -32099:
            assert answer["error"]["data"]["APINGException"]["errorCode"] != "UNEXPECTED_ERROR", request
