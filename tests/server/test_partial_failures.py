"""cancelOrders, replaceOrders and updateOrders carry out each instruction on its own; when some are done and
some refused, the execution report's status is ``PROCESSED_WITH_ERRORS`` (API-NG's ExecutionReportStatus for
these three calls), not ``FAILURE``: a client reading ``status == "FAILURE"`` as "nothing was done" must not
think a cancel that happened did not. When every instruction is refused the call failed: ``FAILURE``.
"""

from __future__ import annotations

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import CancelOrders, ReplaceOrders, UpdateOrders

from tests.server.helpers import login, place_one, rpc

MARKET = "holdem.0"


async def test_a_call_partly_done_reports_processed_with_errors(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    first = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 2))["betId"]
    second = (await place_one(client, alice, MARKET, 2, "BACK", 3.0, 2))["betId"]

    answer = await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [
        {"betId": first}, {"betId": "999"}]})
    cancelled = CancelOrders(**answer["result"])  # as betfairlightweight reads it
    assert (cancelled.status, cancelled.error_code) == ("PROCESSED_WITH_ERRORS", "PROCESSED_WITH_ERRORS")
    assert [r.status for r in cancelled.cancel_instruction_reports] == ["SUCCESS", "FAILURE"]
    assert cancelled.cancel_instruction_reports[0].size_cancelled == 2.0

    answer = await rpc(client, alice, "replaceOrders", {"marketId": MARKET, "instructions": [
        {"betId": second, "newPrice": 4.0}, {"betId": first, "newPrice": 4.0}]})  # first is cancelled already
    replaced = ReplaceOrders(**answer["result"])
    assert (replaced.status, replaced.error_code) == ("PROCESSED_WITH_ERRORS", "PROCESSED_WITH_ERRORS")
    assert [r.status for r in replaced.replace_instruction_reports] == ["SUCCESS", "FAILURE"]

    answer = await rpc(client, alice, "cancelOrders", {"marketId": MARKET, "instructions": [{"betId": first}]})
    refused = CancelOrders(**answer["result"])  # nothing done: the call failed
    assert (refused.status, refused.error_code) == ("FAILURE", "BET_ACTION_ERROR")
    answer = await rpc(client, alice, "updateOrders", {"marketId": MARKET, "instructions": [
        {"betId": first, "newPersistenceType": "LAPSE"}]})
    assert UpdateOrders(**answer["result"]).status == "FAILURE"


async def test_a_bet_named_twice_in_one_call_refuses_the_call_with_duplicate_betids(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bet = (await place_one(client, alice, MARKET, 1, "BACK", 3.0, 10))["betId"]
    calls = {"cancelOrders": [{"betId": bet, "sizeReduction": 3}, {"betId": bet, "sizeReduction": 3}],
             "replaceOrders": [{"betId": bet, "newPrice": 4.0}, {"betId": int(bet), "newPrice": 5.0}]}
    for method, instructions in calls.items():
        report = (await rpc(client, alice, method, {"marketId": MARKET, "instructions": instructions}))["result"]
        assert (report["status"], report["errorCode"]) == ("FAILURE", "DUPLICATE_BETIDS"), method
        # each instruction failed with the call, in the call's order
        assert [(r["status"], r["errorCode"]) for r in report["instructionReports"]] == [
            ("FAILURE", "ERROR_IN_ORDER")] * 2, report
        echoed = [r.get("instruction") or r["cancelInstructionReport"]["instruction"]
                  for r in report["instructionReports"]]
        assert [e["betId"] for e in echoed] == [bet, str(int(bet))], report
    (order,) = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert (order["betId"], order["sizeRemaining"], order["priceSize"]["price"]) == (bet, 10.0, 3.0)  # untouched
