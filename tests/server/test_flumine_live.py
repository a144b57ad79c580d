"""flumine live, unmodified from PyPI, trades against a real server process over Betfair's TLS stream.

The server runs with house liquidity and short windows on the wall clock; flumine logs in with its default
certificate login (any certificate files do; the replace and cancel test logs in interactively, as the README's
example), reads its account details, opens its order and market streams
on the server's stream port, backs a hand, and stops once its order stream shows the bet matched. Run in a
spawned process: importing flumine patches betfairlightweight for the whole process.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import multiprocessing
from pathlib import Path

import pytest

from tests.server.flumine_live import run_flumine_live, run_flumine_replace_cancel
from tests.server.serverproc import ServerProcess

FLUMINE_TIMEOUT_S = 60  # the watchdog: flumine is stopped then whatever happened (a game lasts about 12 s here)


@pytest.fixture
def cert_dir(tmp_path: Path) -> str:
    """Certificate files as flumine's cert login wants them; the simulator does not read them."""
    folder = tmp_path / "certs"
    folder.mkdir()
    (folder / "client-2048.crt").write_text("not a real certificate\n")
    (folder / "client-2048.key").write_text("not a real key\n")
    return str(folder)


@pytest.mark.parametrize(("strategy_ref", "async_place"), [(None, False), ("flumine-live", False), (None, True)])
def test_flumine_live_places_is_matched_and_sees_it_on_the_order_stream(
        tmp_path: Path, cert_dir: str, strategy_ref: str | None, async_place: bool) -> None:
    """With flumine's default (no ``customer_strategy_ref``: orders carry the strategy's name and the order
    stream is not filtered), with one set (orders carry it and the order stream is filtered on it), and with
    asynchronous placement (the report is PENDING without a bet id: flumine learns it from the order stream)."""
    assert importlib.util.find_spec("flumine") is not None, "flumine is missing: pip install '.[test]'"
    with ServerProcess(tmp_path / "ex.db", "--demo", window_s=2, playing_s=0.3, house=True, stream=True) as server:
        stream_port = server.stream_port
        assert stream_port is not None and f"TLS on port {stream_port}" in server.out.read_text()
        spawn = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
            seen = pool.submit(run_flumine_live, server.url, stream_port, "demo", "demo", cert_dir, strategy_ref,
                               FLUMINE_TIMEOUT_S, async_place).result(timeout=FLUMINE_TIMEOUT_S + 60)
    assert seen["account_currency"] == "GBP"  # getAccountDetails answered at start
    assert seen["books"] > 0 and seen["placed"], seen
    assert seen["matched"] is not None, f"no fill came through the order stream: {seen}"
    market_id, selection_id, size_matched, bet_id = seen["matched"]
    assert (market_id, selection_id) in {(m, s) for m, s, _ in seen["placed"]}
    assert size_matched == 2.0 and bet_id.isdigit()
    status, reported_id = seen["place_report"]
    if async_place:  # no bet id in the report: flumine took the stream's
        assert (status, reported_id) == ("PENDING", None)
    else:
        assert reported_id == bet_id and status != "PENDING"
    assert seen["order_stream"]["status"] == "EXECUTION_COMPLETE" and seen["order_stream"]["rfo"]
    expected_ref = strategy_ref if strategy_ref is not None else "BackOnce"  # flumine's default: the strategy name
    assert seen["order_stream"]["rfs"] == expected_ref


def test_flumine_live_replaces_and_cancels_through_api_ng(tmp_path: Path) -> None:
    """flumine's replace and cancel read replaceOrders' and cancelOrders' reports: the replaced bet ends, its
    replacement joins flumine's blotter with the new bet id, and the cancelled replacement ends with its whole
    stake cancelled. No house and no noise traders: nothing takes the bets. flumine logs in interactively, with
    no certificates, as the README's example does."""
    with ServerProcess(tmp_path / "ex.db", "--demo", "--noise-traders", "0", window_s=10, playing_s=0.3,
                       stream=True) as server:
        assert server.stream_port is not None
        spawn = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
            seen = pool.submit(run_flumine_replace_cancel, server.url, server.stream_port, "demo", "demo", None,
                               2 * FLUMINE_TIMEOUT_S).result(timeout=3 * FLUMINE_TIMEOUT_S)
    assert "done" in seen, f"the replacement was not seen cancelled: {seen}"
    assert seen["done"] == {"bet_id": seen["cancel"], "size_cancelled": 2.0, "cancel_report": "SUCCESS"}
    assert seen["cancel"] != seen["replace"]  # the replacement is a new bet
    assert seen["original"] == [(seen["replace"], "Execution complete", 2.0)]
