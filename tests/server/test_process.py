"""A real server process on a free loopback port: betfairlightweight unmodified, and crash recovery.

The crash test SIGKILLs the server while a betting window is open, restarts
it on the same database and checks that every acknowledged order is there
(voided with its game, as Betfair voided games on a technical fault) and
every balance is what the journal says.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import betfairlightweight
import pytest
import requests
from betfairlightweight import filters

from exchange.server.ledger import balances_from_db
from tests.server.helpers import wait_until
from tests.server.serverproc import ServerProcess, cli, gone

APP_KEY = "bflw-app"


def _client(server: ServerProcess, name: str, password: str) -> betfairlightweight.APIClient:
    """A betfairlightweight client, unmodified but for its two base URLs, logged in to ``server``."""
    client = betfairlightweight.APIClient(name, password, app_key=APP_KEY, lightweight=False)
    client.identity_uri = f"{server.url}/api/"
    client.api_uri = f"{server.url}/exchange/"
    client.login_interactive()
    return client


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    db = tmp_path / "exchange.db"
    cli("accounts", "--db", str(db), "add", "alice", "--password", "pw-a", "--balance", "1000", check=True)
    cli("accounts", "--db", str(db), "add", "bob", "--password", "pw-b", "--balance", "500.50", check=True)
    with ServerProcess(db) as srv:
        yield srv


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_clean_stop_ends_the_journal_writer_too_and_says_what_the_next_start_voids(
    server: ServerProcess, stop: signal.Signals,
) -> None:
    game = wait_until(server.game_in_early_window, timeout_s=30, what="the first game's window open")
    (writer,) = server.children()
    assert server.proc is not None
    server.proc.send_signal(stop)
    assert server.proc.wait(timeout=30) == 0
    wait_until(lambda: gone(writer), timeout_s=10, what="the journal writer exiting after the server")
    log = server.log()
    left_open = re.search(r"stopping: no more games are dealt; markets left open \(voided at the next start\): (.*)",
                          log)
    assert left_open is not None and game["id"] in left_open[1].split(", "), log[-2000:]
    assert log.rstrip().endswith(f"INFO exchange.cli.serve: stopped on {stop.name}"), log[-1000:]
    server.start()  # a clean stop released the lock: the next start does not take it for a crash
    voided = re.search(r"recovery: .*; markets voided: (.*)", server.log())
    assert voided is not None and voided[1].split(", ") == left_open[1].split(", ")
    assert "did not stop cleanly" not in server.log()


def test_betfairlightweight_resources_work_unmodified(server: ServerProcess) -> None:
    alice, bob = _client(server, "alice", "pw-a"), _client(server, "bob", "pw-b")
    assert alice.session_token
    catalogue = alice.betting.list_market_catalogue(
        filter=filters.market_filter(), max_results=5,
        market_projection=["EVENT", "EVENT_TYPE", "MARKET_START_TIME", "MARKET_DESCRIPTION", "RUNNER_DESCRIPTION"])
    market_id = catalogue[0].market_id
    assert [r.runner_name for r in catalogue[0].runners] == ["Hand 1", "Hand 2", "Hand 3", "Hand 4"]
    assert catalogue[0].description.betting_type == "ODDS"

    lay = alice.betting.place_orders(market_id, [filters.place_instruction(
        "LIMIT", 1, "LAY", limit_order=filters.limit_order(size=10, price=3.0, persistence_type="LAPSE"))])
    assert lay.status == "SUCCESS"
    lay_id = lay.place_instruction_reports[0].bet_id
    back = bob.betting.place_orders(market_id, [filters.place_instruction(
        "LIMIT", 1, "BACK", limit_order=filters.limit_order(size=4, price=2.5, persistence_type="LAPSE"))])
    assert back.place_instruction_reports[0].size_matched == 4.0

    books = alice.betting.list_market_book([market_id], price_projection=filters.price_projection(
        price_data=["EX_BEST_OFFERS", "EX_TRADED"]), order_projection="ALL", match_projection="ROLLED_UP_BY_PRICE")
    runner = books[0].runners[0]
    assert runner.ex.available_to_back[0].price == 3.0 and runner.orders[0].bet_id == lay_id
    assert runner.matches[0].size == 4.0

    orders = alice.betting.list_current_orders()
    assert [o.bet_id for o in orders.orders] == [lay_id] and orders.orders[0].size_remaining == 6.0
    replaced = alice.betting.replace_orders(market_id, [{"betId": lay_id, "newPrice": 3.5}])
    new_id = replaced.replace_instruction_reports[0].place_instruction_reports.bet_id
    cancelled = alice.betting.cancel_orders(market_id, [filters.cancel_instruction(new_id, size_reduction=1.0)])
    assert cancelled.cancel_instruction_reports[0].size_cancelled == 1.0
    funds = alice.account.get_account_funds()
    # Hand 1 winning is alice's worst case: 4 matched at 3.0 lose 8.00, the 5 left at 3.5 would lose 12.50.
    assert (funds.exposure, funds.available_to_bet_balance) == (-20.5, 979.5)
    cleared = alice.betting.list_cleared_orders(bet_status="SETTLED")
    assert cleared.orders == []
    assert alice.keep_alive().status == "SUCCESS"
    assert alice.logout().status == "SUCCESS"
    alice.session_token = "expired"
    with pytest.raises(betfairlightweight.exceptions.APIError, match="INVALID_SESSION_INFORMATION"):
        alice.betting.list_current_orders()


def test_crash_during_an_open_window_recovers_every_acknowledged_order(server: ServerProcess) -> None:
    alice, bob = _client(server, "alice", "pw-a"), _client(server, "bob", "pw-b")
    market_id = "holdem.0"
    # each order and what the void makes of it: matched (even in part) is VOIDED, never matched is CANCELLED
    acked: dict[str, tuple[str, str]] = {}
    for price, side, client, size, after_void in ((3.0, "LAY", alice, 10, "VOIDED"), (2.5, "BACK", bob, 4, "VOIDED"),
                                                  (1000, "BACK", alice, 2, "CANCELLED"),
                                                  (20, "LAY", bob, 3, "CANCELLED")):
        report = client.betting.place_orders(market_id, [filters.place_instruction(
            "LIMIT", 2, side, limit_order=filters.limit_order(size=size, price=price, persistence_type="LAPSE"))])
        assert report.status == "SUCCESS"
        acked[report.place_instruction_reports[0].bet_id] = (client.username, after_void)
    assert requests.get(f"{server.url}/games/v1/channels/holdem/snapshot").json()["game"]["round"] == 1
    (writer,) = server.children()
    killed = server.pid
    server.kill()  # SIGKILL in the middle of the Deal window
    wait_until(lambda: gone(writer), timeout_s=10, what="the journal writer exiting after a SIGKILLed server")

    journal_balances = balances_from_db(str(server.db))
    server.start()
    assert f"the server on {server.db} before this one (process {killed}) did not stop cleanly" in server.log()
    alice, bob = _client(server, "alice", "pw-a"), _client(server, "bob", "pw-b")
    for client, opening in ((alice, 1000.0), (bob, 500.5)):
        funds = client.account.get_account_funds()
        assert funds.available_to_bet_balance == opening and funds.exposure == 0
        assert journal_balances[client.username] == round(opening * 100)
        for status in ("VOIDED", "CANCELLED", "LAPSED"):  # the window was open when it died: nothing lapsed
            mine = {bet for bet, owner_status in acked.items() if owner_status == (client.username, status)}
            seen = {o.bet_id for o in client.betting.list_cleared_orders(bet_status=status).orders}
            assert seen == mine, (client.username, status, seen, mine)
        assert client.betting.list_current_orders().orders == []
    snapshot = requests.get(f"{server.url}/games/v1/channels/holdem/snapshot").json()
    assert snapshot["game"]["id"] == "holdem.1"
    listed = cli("accounts", "--db", str(server.db), "list", check=True).stdout
    rows = {name: (balance, role) for name, balance, _, role in (line.split() for line in listed.splitlines()[1:])}
    assert rows["alice"] == ("1000.00", "trader") and rows["bob"] == ("500.50", "trader")
    # the server's own accounts too (commission, the house's funded traders), so the listing holds every penny
    assert {name for name, (_, role) in rows.items() if role == "house"} == set(journal_balances) - {"alice", "bob"}
    assert sum(Decimal(balance) for balance, _ in rows.values()) * 100 == sum(journal_balances.values())
