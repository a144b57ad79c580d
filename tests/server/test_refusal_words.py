"""Refusals say what was wrong in the client's terms: not Python's, and not a limit that reads as nonsense.

Each case here was answered before, but in words that misled: a 5000-digit number called "not JSON" with advice to
call ``sys.set_int_max_str_digits()``, a deep array "maximum recursion depth exceeded", a fractional id "must be a
string or number", an integer too large for 64 bits "must be an integer, not 1e+30", and a listMarketBook whose one
market weighed past the limit "at most 0 markets a call".
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.clock import VirtualClock
from exchange.server.errors import ApiError
from exchange.server.params import get_int
from tests.server.helpers import BETTING, headers, login, place, place_one, rpc, serving


@pytest.fixture
async def alice(tmp_path: Path, clock: VirtualClock) -> AsyncIterator[tuple[TestClient, str]]:
    async with serving(tmp_path / "ex.db", clock) as client:
        yield client, await login(client, "alice", "pw-alice")


async def raw_call(client: TestClient, token: str, body: str) -> dict[str, Any]:
    resp = await client.post(BETTING, data=body, headers=headers(token))
    assert resp.status == 200
    answer: dict[str, Any] = await resp.json()
    return answer


def call(method: str, params: str, request_id: str = "1") -> str:
    """A JSON-RPC call written out by hand (``params`` as JSON text: numbers no encoder writes)."""
    return f'{{"jsonrpc":"2.0","method":"SportsAPING/v1.0/{method}","params":{params},"id":{request_id}}}'


async def test_a_number_of_thousands_of_digits_is_said_so(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    answer = await raw_call(client, token, call("listCurrentOrders", '{"recordCount": ' + "9" * 5000 + "}"))
    assert answer["error"]["code"] == -32700
    message = answer["error"]["message"]
    assert message == "Parse error: the body holds a number of more than 4300 digits; none is taken", message


async def test_a_body_nested_too_deeply_is_said_so(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    depth = 2 * sys.getrecursionlimit()  # the server runs in this process: past what its parser can nest
    answer = await raw_call(client, token, "[" * depth + "]" * depth)
    assert answer["error"] == {"code": -32700, "message": "Parse error: the body is nested too deeply to be read (a "
                                                          "few hundred levels at most)"}


@pytest.mark.parametrize("request_id", ["1.5", "1" * 26, str(2**64), str(-(2**63) - 1)])
async def test_an_id_that_is_no_whole_number_says_what_an_id_is(alice: tuple[TestClient, str],
                                                                 request_id: str) -> None:
    client, token = alice
    answer = await raw_call(client, token, call("listCurrentOrders", "{}", request_id))
    assert answer["error"] == {"code": -32600, "message": "Invalid Request: id must be a string or a whole number of "
                                                          "64 bits"}


@pytest.mark.parametrize(("number", "shown"), [("1" + "0" * 30, "1e+30"),
                                               (str(-(10**20)), "-1e+20")])
async def test_an_integer_past_64_bits_is_said_too_long(alice: tuple[TestClient, str], number: str,
                                                        shown: str) -> None:
    client, token = alice
    answer = await raw_call(client, token, call("listCurrentOrders", '{"recordCount": ' + number + "}"))
    detail = answer["error"]["data"]["APINGException"]
    assert detail["errorCode"] == "INVALID_INPUT_DATA"
    assert detail["errorDetails"] == f"recordCount must be an integer of 64 bits, not {shown}"


def test_an_integer_past_64_bits_is_refused_whichever_parser_read_it() -> None:
    """A body with many brackets is read by the standard library's parser, which reads any integer exactly: the
    bounds are the same as where orjson's float gives the number away (unsigned 64 bits read exactly: a page past
    anything there is, fromRecord 2**64 - 1, is one)."""
    assert get_int({"fromRecord": 2**64 - 1}, "fromRecord") == 2**64 - 1
    assert get_int({"fromRecord": -(2**63)}, "fromRecord") == -(2**63)
    for number in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(ApiError, match=rf"fromRecord must be an integer of 64 bits, not {number}"):
            get_int({"fromRecord": number}, "fromRecord")


async def test_a_market_that_alone_weighs_past_the_limit_is_said_so(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    projection = {"priceData": ["EX_BEST_OFFERS"], "exBestOffersOverrides": {"bestPricesDepth": 1000}}
    answer = await rpc(client, token, "listMarketBook", {"marketIds": ["holdem.0"], "priceProjection": projection})
    detail = answer["error"]["data"]["APINGException"]
    assert detail["errorCode"] == "TOO_MUCH_DATA"
    assert "a call for a single market: ask for less of each" in detail["errorDetails"], detail
    assert "at most 0 markets" not in detail["errorDetails"]


async def test_an_id_too_long_is_said_too_long_not_of_the_wrong_type(alice: tuple[TestClient, str]) -> None:
    client, token = alice
    answer = await rpc(client, token, "listCurrentOrders", {"marketIds": ["holdem.0", "x" * 100_000]})
    detail = answer["error"]["data"]["APINGException"]
    assert detail["errorCode"] == "INVALID_INPUT_DATA"
    assert detail["errorDetails"] == "marketIds[1] is at most 256 characters, not 100000"
    answer = await rpc(client, token, "listCurrentOrders", {"marketIds": ["holdem.0", 7]})
    assert answer["error"]["data"]["APINGException"]["errorDetails"] == "marketIds[1] must be a string, not 7"


@pytest.mark.parametrize("size", [0, -5, 1e11])
async def test_a_stake_out_of_range_says_its_unit_and_limits(alice: tuple[TestClient, str], size: float) -> None:
    """It said "size 0 must be positive and at most 100000000": a bare number a trader could not read as pounds."""
    client, token = alice
    out = (await rpc(client, token, "placeOrders", place("holdem.0", 1, "BACK", 3.0, size)))["result"]
    [report] = out["instructionReports"]
    assert report["errorCode"] == "INVALID_BET_SIZE"
    assert ("must be more than 0 and at most 100,000,000.00: an amount of the account's currency (GBP: pounds and "
            "pence)") in out["errorMessage"], out


async def test_text_with_half_a_surrogate_pair_is_refused_before_anything_is_done(
    alice: tuple[TestClient, str],
) -> None:
    """A ``customerOrderRef`` of ``"x\\udc00"`` was placed, then stopped the Parquet recording of every game (no
    UTF-8 text holds half a pair). A whole pair (an emoji written as two escapes) is one character, and taken."""
    client, token = alice
    ref = '"customerOrderRef": "x\\udc00"'
    instruction = '{"selectionId": 1, "side": "BACK", "orderType": "LIMIT", "limitOrder": {"size": 2, "price": 3}, '
    answer = await raw_call(client, token, call("placeOrders", f'{{"marketId": "holdem.0", "instructions": '
                                                               f'[{instruction}{ref}}}]}}'))
    assert answer["error"] == {"code": -32700, "message": "Parse error: the body holds text that is not Unicode: "
                               "'x\\udc00' has half of a UTF-16 surrogate pair alone; send text as UTF-8 (or escape "
                               "a character past U+FFFF as its two halves together)"}
    resp = await client.post("/exchange/betting/rest/v1.0/placeOrders/", headers=headers(token),
                             data=f'{{"marketId": "holdem.0", "instructions": [{instruction}{ref}}}]}}')
    fault = await resp.json()
    assert resp.status == 400 and "not Unicode" in fault["detail"]["APINGException"]["errorDetails"], fault
    orders = await rpc(client, token, "listCurrentOrders", {})
    assert orders["result"]["currentOrders"] == []  # nothing placed
    emoji = '"customerStrategyRef": "\\ud83d\\ude00"'
    answer = await raw_call(client, token, call("placeOrders", f'{{"marketId": "holdem.0", "instructions": '
                                                               f'[{instruction[:-2]}}}], {emoji}}}'))
    assert answer["result"]["status"] == "SUCCESS", answer


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
async def test_a_number_that_is_not_finite_is_not_json(alice: tuple[TestClient, str], number: str) -> None:
    """Python's parser reads ``NaN`` and ``Infinity``, which JSON has not: the call was parsed and its instruction
    refused for its price, where any other malformed body is a parse error."""
    client, token = alice
    params = f'{{"marketId": "holdem.0", "instructions": [{{"selectionId": 1, "side": "BACK", "orderType": "LIMIT", ' \
             f'"limitOrder": {{"size": 2, "price": {number}, "persistenceType": "LAPSE"}}}}]}}'
    answer = await raw_call(client, token, call("placeOrders", params))
    assert answer["error"] == {"code": -32700, "message": f"Parse error: the body is not JSON: {number} is not a "
                               "JSON number (JSON has none that is not finite)"}, answer
    resp = await client.post("/exchange/betting/rest/v1.0/placeOrders/", headers=headers(token), data=params)
    fault = await resp.json()
    assert resp.status == 400 and f"{number} is not a JSON number" in fault["detail"]["APINGException"][
        "errorDetails"], fault
    assert (await rpc(client, token, "listCurrentOrders", {}))["result"]["currentOrders"] == []


async def test_a_key_given_twice_in_one_object_refuses_the_body(alice: tuple[TestClient, str]) -> None:
    """The parser kept the last of a repeated key: a limit order's ``size`` given as 2 and then 50 placed 50, and a
    cancel's ``sizeReduction`` given as 1 and then null cancelled the whole bet. JSON leaves open which counts, so
    the body is refused saying which key, and nothing is done."""
    client, token = alice
    bet = (await place_one(client, token, "holdem.0", 1, "BACK", 3, 5))["betId"]
    repeated = [
        call("placeOrders", '{"marketId": "holdem.0", "instructions": [{"selectionId": 1, "side": "BACK", '
                            '"orderType": "LIMIT", "limitOrder": {"size": 2, "price": 3, "size": 50, '
                            '"persistenceType": "LAPSE"}}]}'),
        call("cancelOrders", f'{{"marketId": "holdem.0", "instructions": [{{"betId": "{bet}", "sizeReduction": 1, '
                             '"sizeReduction": null}]}'),
    ]
    for body, key in zip(repeated, ("size", "sizeReduction"), strict=True):
        answer = await raw_call(client, token, body)
        assert answer["error"] == {"code": -32700, "message": f"Parse error: the body is ambiguous: one object gives "
                                   f"the key {key!r} twice; give each key once"}, answer
    resp = await client.post("/exchange/betting/rest/v1.0/placeOrders/", headers=headers(token),
                             data='{"marketId": "holdem.0", "marketId": "holdem.1", "instructions": []}')
    fault = await resp.json()
    assert resp.status == 400 and "the key 'marketId' twice" in fault["detail"]["APINGException"]["errorDetails"]
    (order,) = (await rpc(client, token, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert (order["betId"], order["sizeRemaining"], order["sizeCancelled"]) == (bet, 5.0, 0.0)


async def test_half_a_surrogate_pair_is_refused_in_a_utf16_body_too(alice: tuple[TestClient, str]) -> None:
    """The escapes were looked for in the bytes as UTF-8 writes them: a UTF-16 body (JSON allows reading one) went
    through and was placed."""
    client, token = alice
    body = call("listCurrentOrders", '{"customerOrderRefs": ["x\\udc00"]}').encode("utf-16-le")
    resp = await client.post(BETTING, data=body, headers=headers(token))
    answer = await resp.json()
    assert answer["error"]["code"] == -32700 and "not Unicode" in answer["error"]["message"], answer
