"""``customerRef`` de-duplicates a repeated placeOrders, cancelOrders or replaceOrders call for 60 seconds, as
Betfair documents it.

A client that gets no answer (a timeout, a dropped connection) and sends the same call again with the same
``customerRef`` must not have its bets placed twice: the repeat is refused with ``DUPLICATE_TRANSACTION``
and places nothing. Time is the server's virtual clock.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import PlaceOrders, ReplaceOrders

from exchange.clock import VirtualClock
from tests.server.helpers import login, place, rpc

MARKET = "holdem.0"


async def _bets(client: TestClient, token: str) -> list[str]:
    out = await rpc(client, token, "listCurrentOrders", {})
    return sorted(o["betId"] for o in out["result"]["currentOrders"])


def _call(ref: str | None, price: float = 3.0) -> dict[str, Any]:
    params = place(MARKET, 1, "BACK", price, 2)
    if ref is not None:
        params["customerRef"] = ref
    return params


def _replace_refused(bet: str) -> dict[str, Any]:
    """A replace's report when its call is refused whole: its cancel and its new bet failed with the call."""
    return {"status": "FAILURE", "errorCode": "ERROR_IN_ORDER",
            "cancelInstructionReport": {"status": "FAILURE", "errorCode": "ERROR_IN_ORDER",
                                        "instruction": {"betId": bet}},
            "placeInstructionReport": {"status": "FAILURE", "errorCode": "ERROR_IN_ORDER"}}


async def test_a_repeated_call_within_the_minute_places_nothing(client: TestClient, clock: VirtualClock) -> None:
    alice = await login(client, "alice", "pw-alice")
    first = (await rpc(client, alice, "placeOrders", _call("retry-1")))["result"]
    assert first["status"] == "SUCCESS" and first["customerRef"] == "retry-1", first
    clock.advance(1_000)  # a second later, still inside the window
    again = (await rpc(client, alice, "placeOrders", _call("retry-1")))["result"]
    assert again["status"] == "FAILURE" and again["errorCode"] == "DUPLICATE_TRANSACTION", again
    assert again["customerRef"] == "retry-1"
    # each instruction reported failed with the call, in order (a client pairs them by position)
    assert again["instructionReports"] == [{"status": "FAILURE", "errorCode": "ERROR_IN_ORDER",
                                            "instruction": first["instructionReports"][0]["instruction"]}], again
    assert "customerRef 'retry-1'" in again["errorMessage"], again
    [refused] = PlaceOrders(**again).place_instruction_reports  # as betfairlightweight reads it
    assert (refused.status, refused.error_code, refused.instruction.selection_id) == ("FAILURE", "ERROR_IN_ORDER", 1)
    assert await _bets(client, alice) == [first["instructionReports"][0]["betId"]]


async def test_refs_are_per_account_and_a_new_ref_or_none_places(client: TestClient) -> None:
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    for token, ref in ((alice, "r"), (bob, "r"), (alice, "r2"), (alice, None), (alice, None)):
        out = (await rpc(client, token, "placeOrders", _call(ref)))["result"]
        assert out["status"] == "SUCCESS", (ref, out)
    assert len(await _bets(client, alice)) == 4 and len(await _bets(client, bob)) == 1


async def test_a_ref_is_free_again_after_sixty_seconds(client: TestClient, clock: VirtualClock) -> None:
    alice = await login(client, "alice", "pw-alice")
    assert (await rpc(client, alice, "placeOrders", _call("r")))["result"]["status"] == "SUCCESS"
    clock.advance(59_999)  # holdem.0 is long over by now: the repeat is refused before its market is looked at
    late = (await rpc(client, alice, "placeOrders", _call("r")))["result"]
    assert late["errorCode"] == "DUPLICATE_TRANSACTION", late
    clock.advance(1)
    free = (await rpc(client, alice, "placeOrders", _call("r")))["result"]
    assert free["errorCode"] != "DUPLICATE_TRANSACTION" and free["instructionReports"], free  # a new call, judged


async def test_a_refused_call_leaves_its_ref_free(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    refused = (await rpc(client, alice, "placeOrders", _call("r", price=3.01)))["result"]  # off the ladder
    assert refused["instructionReports"][0]["errorCode"] == "INVALID_ODDS", refused
    fixed = (await rpc(client, alice, "placeOrders", _call("r")))["result"]
    assert fixed["status"] == "SUCCESS", fixed


async def test_a_customer_order_ref_too_long_refuses_its_instruction_not_the_call(client: TestClient) -> None:
    """An instruction's ``customerOrderRef`` over 32 characters is that instruction's ``INVALID_CUSTOMER_ORDER_REF``
    (API-NG's instruction code: "the supplied customer order reference is too long"), in a report: placeOrders
    being atomic, the others are ``RELATED_ACTION_FAILED`` and nothing is placed. A ref of the wrong type is
    malformed, and refuses the call."""
    alice = await login(client, "alice", "pw-alice")
    params = place(MARKET, 1, "BACK", 3.0, 2, customerOrderRef="r" * 33)
    params["instructions"].append({**params["instructions"][0], "selectionId": 2, "customerOrderRef": "r" * 32})
    report = (await rpc(client, alice, "placeOrders", params))["result"]
    assert report["status"] == "FAILURE" and report["errorCode"] == "BET_ACTION_ERROR", report
    assert [r["errorCode"] for r in report["instructionReports"]] == ["INVALID_CUSTOMER_ORDER_REF",
                                                                       "RELATED_ACTION_FAILED"]
    assert report["instructionReports"][0]["instruction"]["customerOrderRef"] == "r" * 33
    assert await _bets(client, alice) == []
    wrong_type = await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 3.0, 2, customerOrderRef=7))
    assert wrong_type["error"]["data"]["APINGException"]["errorCode"] == "INVALID_INPUT_DATA"


async def test_a_reference_is_one_line_of_text(client: TestClient) -> None:
    """A control character (a newline, NUL, a tab) or a line separator in a reference would break the line it is
    written on (a log, a table's CSV, the page): ``customerOrderRef`` refuses its instruction
    (``INVALID_CUSTOMER_ORDER_REF``, nothing placed), ``customerRef`` and ``customerStrategyRef`` the call
    (``INVALID_INPUT_DATA``). Any other character is taken."""
    alice = await login(client, "alice", "pw-alice")
    report = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 3.0, 2, customerOrderRef="a\nb")))[
        "result"]
    [refused] = report["instructionReports"]
    assert (refused["errorCode"], report["errorMessage"]) == (
        "INVALID_CUSTOMER_ORDER_REF", "instruction 0: INVALID_CUSTOMER_ORDER_REF: customerOrderRef must be one line "
        "of text, without control characters ('\\n' here)"), report
    for name, ref in (("customerRef", "retry\x00"), ("customerStrategyRef", "mm\u2028"), ("customerRef", "\t")):
        params = {**place(MARKET, 1, "BACK", 3.0, 2), name: ref}
        error = (await rpc(client, alice, "placeOrders", params))["error"]["data"]["APINGException"]
        assert error["errorCode"] == "INVALID_INPUT_DATA" and f"{name} must be one line" in error["errorDetails"]
    assert await _bets(client, alice) == []
    cancel = await rpc(client, alice, "cancelOrders", {"customerRef": "x\ry"})
    assert "customerRef must be one line" in cancel["error"]["data"]["APINGException"]["errorDetails"], cancel
    taken = {**place(MARKET, 1, "BACK", 3.0, 2, customerOrderRef="ordre \u00e9t\u00e9 \u202e\U0001f600"),
             "customerRef": "r\u00e9f", "customerStrategyRef": "strat\u00e9gie"}
    assert (await rpc(client, alice, "placeOrders", taken))["result"]["status"] == "SUCCESS"


async def test_a_repeated_cancel_or_replace_is_refused_and_changes_nothing(client: TestClient,
                                                                          clock: VirtualClock) -> None:
    """cancelOrders and replaceOrders de-duplicate too: a cancel of 2.00 of a bet, sent again for want of an answer,
    reduced it by 4.00; a repeated replace failed with a confusing refusal of the bet it had just moved."""
    alice = await login(client, "alice", "pw-alice")
    placed = (await rpc(client, alice, "placeOrders", place(MARKET, 1, "BACK", 3.0, 6)))["result"]
    bet = placed["instructionReports"][0]["betId"]
    reduce = {"marketId": MARKET, "customerRef": "cut-1", "instructions": [{"betId": bet, "sizeReduction": 2}]}
    first = (await rpc(client, alice, "cancelOrders", reduce))["result"]
    assert first["status"] == "SUCCESS", first
    clock.advance(1_000)
    again = (await rpc(client, alice, "cancelOrders", reduce))["result"]
    assert (again["errorCode"], again["instructionReports"]) == ("DUPLICATE_TRANSACTION", [
        {"status": "FAILURE", "errorCode": "ERROR_IN_ORDER", "instruction": {"betId": bet, "sizeReduction": 2}}]), again
    assert "cancelOrders call" in again["errorMessage"]
    [order] = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert order["sizeRemaining"] == 4.0  # reduced once
    move = {"marketId": MARKET, "customerRef": "cut-1", "instructions": [{"betId": bet, "newPrice": 3.5}]}
    moved = (await rpc(client, alice, "replaceOrders", move))["result"]  # the same ref, another operation: carried out
    assert moved["status"] == "SUCCESS", moved
    repeat = (await rpc(client, alice, "replaceOrders", move))["result"]
    assert (repeat["errorCode"], repeat["instructionReports"]) == (
        "DUPLICATE_TRANSACTION", [_replace_refused(bet)]), repeat
    [report] = ReplaceOrders(**repeat).replace_instruction_reports
    assert (report.error_code, report.cancel_instruction_reports.error_code) == ("ERROR_IN_ORDER", "ERROR_IN_ORDER")
    clock.advance(60_000)  # the window has passed: the same call is judged afresh (the bet has moved on)
    late = (await rpc(client, alice, "replaceOrders", move))["result"]
    assert late["errorCode"] != "DUPLICATE_TRANSACTION", late


async def test_a_repeated_replace_that_only_cancelled_is_a_duplicate(client: TestClient, clock: VirtualClock) -> None:
    """A replace sent against a stale marketVersion cancels the bet and places none (CANCELLED_NOT_PLACED): the
    call did something, so a retry with its ref is DUPLICATE_TRANSACTION. It was carried out afresh and answered
    BET_TAKEN_OR_LAPSED, which tells a bot its bet was matched when its own first call had cancelled it."""
    alice = await login(client, "alice", "pw-alice")
    placed = (await rpc(client, alice, "placeOrders", place(MARKET, 3, "LAY", 3.0, 2)))["result"]
    bet = placed["instructionReports"][0]["betId"]
    call = {"marketId": MARKET, "customerRef": "mv-1", "marketVersion": {"version": 0},  # stale: the market is past 0
            "instructions": [{"betId": bet, "newPrice": 2.5}]}
    first = (await rpc(client, alice, "replaceOrders", call))["result"]
    assert (first["status"], first["instructionReports"][0]["errorCode"]) == (
        "FAILURE", "CANCELLED_NOT_PLACED"), first
    clock.advance(1_000)
    again = (await rpc(client, alice, "replaceOrders", call))["result"]
    assert (again["errorCode"], again["instructionReports"]) == (
        "DUPLICATE_TRANSACTION", [_replace_refused(bet)]), again
