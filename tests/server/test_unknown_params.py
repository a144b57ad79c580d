"""A parameter API-NG does not define is refused, never ignored: a typo must not change what a call does.

``cancelOrders`` with ``sizeReductio`` (a typo) used to cancel the whole bet, as if no reduction had been
asked; ``placeOrders`` with ``custmerStrategyRef`` placed a bet with no strategy ref. Every method now
checks its parameters, and the instructions of the four order methods theirs (and a limit order's), against
what API-NG defines, and refuses an unknown one with ``INVALID_INPUT_DATA`` naming it and what is allowed.
betfairlightweight's every method sends only names in those lists (checked here against its signatures).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from betfairlightweight.endpoints import account, betting
from betfairlightweight.utils import to_camel_case

from exchange.server.api_params import METHOD_PARAMETERS
from tests.server.helpers import ACCOUNT, login, place, rpc

MARKET = "holdem.0"


def _error(answer: dict[str, Any]) -> tuple[str, str]:
    data = answer["error"]["data"]
    detail = data[data["exceptionname"]]
    return detail["errorCode"], detail["errorDetails"]


@pytest.mark.parametrize(("method", "params", "named"), [
    ("listCurrentOrders", {"foo": 1}, "'foo'"),
    ("listMarketBook", {"marketIds": [MARKET], "pricePojection": {}}, "'pricePojection'"),
    ("listClearedOrders", {"betStatus": "SETTLED", "marketId": MARKET}, "'marketId'"),
    ("placeOrders", {**place(MARKET, 1, "BACK", 1000, 2), "customerStrategyRefs": ["s"]}, "'customerStrategyRefs'"),
    ("placeOrders", place(MARKET, 1, "BACK", 1000, 2, custmerStrategyRef="s"), "instructions[0]: 'custmerStrategyRef'"),
    ("cancelOrders", {"marketId": MARKET, "instructions": [{"betId": "1", "sizeReductio": 1.0}]},
     "instructions[0]: 'sizeReductio'"),
    ("replaceOrders", {"marketId": MARKET, "instructions": [{"betId": "1", "newprice": 5}]}, "'newprice'"),
    ("updateOrders", {"marketId": MARKET, "instructions": [{"betId": "1", "persistenceType": "LAPSE"}]},
     "'persistenceType'"),
])
async def test_an_unknown_parameter_is_refused_naming_it(client: TestClient, method: str, params: dict[str, Any],
                                                         named: str) -> None:
    token = await login(client, "alice", "pw-alice")
    code, details = _error(await rpc(client, token, method, params))
    assert code == "INVALID_INPUT_DATA" and named in details and "allowed" in details, details


async def test_a_limit_order_key_misspelt_is_refused_and_no_bet_is_placed(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    params = place(MARKET, 1, "BACK", 1000, 2)
    params["instructions"][0]["limitOrder"]["timeInForse"] = "FILL_OR_KILL"
    code, details = _error(await rpc(client, token, "placeOrders", params))
    assert code == "INVALID_INPUT_DATA" and "instructions[0].limitOrder: 'timeInForse'" in details
    assert (await rpc(client, token, "listCurrentOrders"))["result"]["currentOrders"] == []


async def test_the_account_endpoint_checks_its_parameters_too(client: TestClient) -> None:
    token = await login(client, "alice", "pw-alice")
    code, details = _error(await rpc(client, token, "getAccountFunds", {"walet": "UK"}, path=ACCOUNT))
    assert code == "INVALID_INPUT_DATA" and "'walet'" in details


def test_every_parameter_betfairlightweight_sends_is_allowed() -> None:
    for cls in (betting.Betting, account.Account):
        for name, fn in inspect.getmembers(cls, inspect.isfunction):
            method = "".join(part.capitalize() if i else part for i, part in enumerate(name.split("_")))
            if method not in METHOD_PARAMETERS:
                continue
            sent = {to_camel_case(p) for p in inspect.signature(fn).parameters} - {"self", "session", "lightweight"}
            assert sent <= METHOD_PARAMETERS[method], (method, sent - METHOD_PARAMETERS[method])
