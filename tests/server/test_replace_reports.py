"""A refused replaceOrders instruction's ``placeInstructionReport`` names the bet it would have placed.

A replace is a cancel and a new bet on the same runner and side at the new price. When the new bet is not
placed (a stale ``marketVersion``, a price off the ladder) the report still describes it by the old bet's
runner and side, as betfairlightweight reads them; when the old bet was cancelled and the new one not placed,
the replace is ``CANCELLED_NOT_PLACED``, as API-NG names that case. A bet the caller does not have (unknown, or
someone else's) has no runner or side to name: its cancel fails with ``INVALID_BET_ID`` and its place report is a
bare failure, ``RELATED_ACTION_FAILED`` with no instruction, rather than one with invented values (selection 0,
BACK).
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient
from betfairlightweight.resources.bettingresources import ReplaceOrders

from tests.server.helpers import login, place, place_one, rpc

MARKET = "holdem.0"


async def _replace(client: TestClient, token: str, instruction: dict[str, Any], **params: Any) -> ReplaceOrders:
    out = await rpc(client, token, "replaceOrders", {"marketId": MARKET, "instructions": [instruction], **params})
    return ReplaceOrders(**out["result"])


async def test_a_replace_lapsed_by_a_stale_version_names_the_bets_runner_and_side(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bet = await place_one(client, alice, MARKET, 3, "LAY", 3.0, 2)
    replaced = await _replace(client, alice, {"betId": bet["betId"], "newPrice": 2.5}, marketVersion={"version": 0})
    assert (replaced.status, replaced.error_code) == ("FAILURE", "BET_ACTION_ERROR")  # no new bet, as Betfair's
    report = replaced.replace_instruction_reports[0]
    assert report.error_code == "CANCELLED_NOT_PLACED"  # the old bet is cancelled, the new one not placed
    assert report.cancel_instruction_reports.status == "SUCCESS"
    assert report.cancel_instruction_reports.size_cancelled == 2.0
    placed = report.place_instruction_reports
    assert placed.status == "FAILURE" and placed.error_code == "BET_TAKEN_OR_LAPSED"
    assert (placed.instruction.selection_id, placed.instruction.side) == (3, "LAY")


async def test_a_stale_replace_of_a_bet_matched_meanwhile_cancels_nothing_and_says_so(client: TestClient) -> None:
    """Nothing was left to cancel, so the replace is not "cancelled, not placed": its cancel's own refusal."""
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    bet = await place_one(client, alice, MARKET, 3, "LAY", 3.0, 2)
    await place_one(client, bob, MARKET, 3, "BACK", 3.0, 2, matched=2.0)
    report = (await _replace(client, alice, {"betId": bet["betId"], "newPrice": 2.5},
                             marketVersion={"version": 0})).replace_instruction_reports[0]
    assert report.error_code == "BET_TAKEN_OR_LAPSED"
    assert (report.cancel_instruction_reports.status, report.cancel_instruction_reports.error_code) == (
        "FAILURE", "BET_TAKEN_OR_LAPSED")


async def test_a_replace_refused_by_the_exchange_names_the_bets_runner_and_side(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bet = await place_one(client, alice, MARKET, 2, "BACK", 3.0, 2)
    replaced = await _replace(client, alice, {"betId": "999999", "newPrice": 3.0})
    report = (await _replace(client, alice, {"betId": bet["betId"], "newPrice": 3.03})).replace_instruction_reports[0]
    assert report.error_code == "CANCELLED_NOT_PLACED"  # a price off the ladder: Betfair cancels first all the same
    placed = report.place_instruction_reports
    assert (placed.error_code, placed.instruction.selection_id, placed.instruction.side) == ("INVALID_ODDS", 2, "BACK")
    assert replaced.replace_instruction_reports[0].error_code == "INVALID_BET_ID"


async def test_a_replace_of_someone_elses_bet_names_no_runner(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    bob = await login(client, "bob", "pw-bob")
    bet = await place_one(client, alice, MARKET, 2, "BACK", 3.0, 2)
    answer = await rpc(client, bob, "replaceOrders", {"marketId": MARKET,
                                                       "instructions": [{"betId": bet["betId"], "newPrice": 4.0}]})
    (raw,) = answer["result"]["instructionReports"]
    assert raw["placeInstructionReport"] == {"status": "FAILURE", "errorCode": "RELATED_ACTION_FAILED"}
    report = ReplaceOrders(**answer["result"]).replace_instruction_reports[0]  # betfairlightweight reads it
    assert report.error_code == "INVALID_BET_ID"
    assert (report.cancel_instruction_reports.error_code, report.cancel_instruction_reports.instruction.bet_id) == (
        "INVALID_BET_ID", bet["betId"])
    assert report.place_instruction_reports.instruction is None  # nothing of alice's bet is told to bob


async def test_a_replace_of_an_unknown_bet_invents_no_new_bet(client: TestClient) -> None:
    alice = await login(client, "alice", "pw-alice")
    answer = await rpc(client, alice, "replaceOrders", {"marketId": MARKET,
                                                         "instructions": [{"betId": "999999", "newPrice": 4.0}]})
    result = answer["result"]
    assert (result["status"], result["errorCode"]) == ("FAILURE", "BET_ACTION_ERROR")
    (raw,) = result["instructionReports"]
    assert raw["cancelInstructionReport"] == {"status": "FAILURE", "errorCode": "INVALID_BET_ID",
                                              "instruction": {"betId": "999999"}}
    assert raw["placeInstructionReport"] == {"status": "FAILURE", "errorCode": "RELATED_ACTION_FAILED"}


async def test_a_stale_replace_to_odds_off_the_ladder_is_answered_as_a_current_one_is(client: TestClient) -> None:
    """A new price the ladder does not have: the bet is cancelled and the new one refused INVALID_ODDS, whatever the
    marketVersion (the stale path answered BET_TAKEN_OR_LAPSED for the new bet)."""
    alice = await login(client, "alice", "pw-alice")
    answers = []
    for version in ({"version": 0}, None):  # stale, then none given (current)
        bet = await place_one(client, alice, MARKET, 2, "BACK", 3.0, 2)
        extra = {} if version is None else {"marketVersion": version}
        out = await rpc(client, alice, "replaceOrders", {"marketId": MARKET, **extra,
                                                         "instructions": [{"betId": bet["betId"], "newPrice": 3.01}]})
        answers.append(out["result"])
    stale, current = ([{**r, "cancelInstructionReport": {**r["cancelInstructionReport"], "instruction": None}}
                       for r in answer["instructionReports"]] for answer in answers)  # bet ids apart
    assert stale == current
    assert (answers[0]["status"], stale[0]["errorCode"], stale[0]["placeInstructionReport"]["errorCode"]) == (
        "FAILURE", "CANCELLED_NOT_PLACED", "INVALID_ODDS")
    orders = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    assert [o["sizeRemaining"] for o in orders] == [0, 0]


async def test_the_new_bets_instruction_carries_the_customer_order_ref_it_keeps(client: TestClient) -> None:
    """The new bet keeps the old one's customerOrderRef (listCurrentOrders shows it); the report's echo of its
    instruction left it out, as no placeOrders report does."""
    alice = await login(client, "alice", "pw-alice")
    params = place(MARKET, 1, "BACK", 3.0, 2)
    params["instructions"][0]["customerOrderRef"] = "mine-7"
    (placed,) = (await rpc(client, alice, "placeOrders", params))["result"]["instructionReports"]
    assert placed["instruction"]["customerOrderRef"] == "mine-7"
    report = (await _replace(client, alice, {"betId": placed["betId"], "newPrice": 3.5})).replace_instruction_reports[0]
    new = report.place_instruction_reports
    assert new.status == "SUCCESS" and new.instruction.customer_order_ref == "mine-7"
    current = (await rpc(client, alice, "listCurrentOrders", {"betIds": [new.bet_id]}))["result"]["currentOrders"]
    assert [order["customerOrderRef"] for order in current] == ["mine-7"]


async def test_the_new_bets_status_is_the_bets_own(client: TestClient) -> None:
    """A new bet that rests is ``EXECUTABLE``, one matched in part too, one matched whole ``EXECUTION_COMPLETE``:
    what listCurrentOrders says of it. The old bet's cancel, among the replace's events, was once read as a
    fill-or-kill's and made every new bet ``EXPIRED``."""
    alice, bob = await login(client, "alice", "pw-alice"), await login(client, "bob", "pw-bob")
    await place_one(client, bob, MARKET, 2, "BACK", 3.0, 4)  # 4.00 to lay at 3.0 on hand 2
    rests, part, whole = [(await place_one(client, alice, MARKET, sel, "LAY", 2.5, size))["betId"]
                          for sel, size in ((1, 10), (2, 10), (2, 2))]
    statuses = {}
    for bet in (rests, whole, part):  # the whole one takes 2.00 of bob's back, the part one the 2.00 left
        new = (await _replace(client, alice, {"betId": bet, "newPrice": 3.0})).replace_instruction_reports[0]
        current = await rpc(client, alice, "listCurrentOrders", {"betIds": [new.place_instruction_reports.bet_id]})
        (order,) = current["result"]["currentOrders"]
        statuses[bet] = (new.place_instruction_reports.order_status, order["status"], order["sizeMatched"])
    assert statuses == {rests: ("EXECUTABLE", "EXECUTABLE", 0.0), part: ("EXECUTABLE", "EXECUTABLE", 2.0),
                        whole: ("EXECUTION_COMPLETE", "EXECUTION_COMPLETE", 2.0)}


async def test_a_replace_the_account_cannot_cover_is_cancelled_not_placed(client: TestClient) -> None:
    """As Betfair's: the cancel is done first and is not taken back when the new bet cannot be placed. A lay moved
    to a price whose liability the account cannot cover leaves no bet, and says so: ``CANCELLED_NOT_PLACED``, the
    cancel done in full, the new bet refused ``INSUFFICIENT_FUNDS``; the call's other new bets are not placed either
    (all or none), their cancels standing."""
    alice = await login(client, "alice", "pw-alice")  # 1000.00
    lay = await place_one(client, alice, MARKET, 3, "LAY", 2.0, 900)  # liability 900.00
    back = await place_one(client, alice, MARKET, 1, "BACK", 5.0, 10)
    out = await rpc(client, alice, "replaceOrders", {"marketId": MARKET, "instructions": [
        {"betId": back["betId"], "newPrice": 6.0}, {"betId": lay["betId"], "newPrice": 3.0}]})  # liability 1800.00
    replaced = ReplaceOrders(**out["result"])
    assert (replaced.status, replaced.error_code) == ("FAILURE", "BET_ACTION_ERROR")
    moved, refused = replaced.replace_instruction_reports
    assert (moved.error_code, moved.cancel_instruction_reports.status, moved.place_instruction_reports.error_code) == (
        "CANCELLED_NOT_PLACED", "SUCCESS", "RELATED_ACTION_FAILED")
    assert (refused.status, refused.error_code) == ("FAILURE", "CANCELLED_NOT_PLACED")
    assert refused.cancel_instruction_reports.status == "SUCCESS"
    assert refused.cancel_instruction_reports.size_cancelled == 900.0
    placed = refused.place_instruction_reports
    assert (placed.status, placed.error_code) == ("FAILURE", "INSUFFICIENT_FUNDS")
    assert (placed.instruction.selection_id, placed.instruction.side) == (3, "LAY")
    orders = (await rpc(client, alice, "listCurrentOrders", {}))["result"]["currentOrders"]
    live = {(o["selectionId"], o["side"], o["priceSize"]["price"]) for o in orders if o["sizeRemaining"]}
    assert live == set()  # both cancelled: no lay at 3.0, and no back at 6.0 either
    assert "instruction 1: CANCELLED_NOT_PLACED: the new price needs 900.00 more" in out["result"]["errorMessage"]
