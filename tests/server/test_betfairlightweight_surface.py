"""Every betfairlightweight betting and account method, unmodified, against a real server process.

Each call goes through betfairlightweight's own request and parsing (``lightweight=False``), and the test
checks the parsed resources against what it did: two accounts trade on the first game (alice backs, bob lays,
at prices of their choosing, so every figure is known), the game plays out on the wall clock with short
windows, and the settlement shows up in cleared orders and in the account statement.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import betfairlightweight
import pytest
from betfairlightweight import filters

from tests.server.helpers import wait_until
from tests.server.serverproc import ServerProcess, cli

APP_KEY = "bflw-surface"
#: The trading below (eleven calls, three of them waiting for the journal) must all land in the window it starts in,
#: three quarters of it at least: 4.5 s, where 2.25 s could run out on a loaded machine.
WINDOW_S = 6


def _client(server: ServerProcess, name: str, password: str, cert_dir: Path) -> betfairlightweight.APIClient:
    client = betfairlightweight.APIClient(name, password, app_key=APP_KEY, lightweight=False, certs=str(cert_dir))
    client.identity_uri = client.identity_cert_uri = f"{server.url}/api/"
    client.api_uri = f"{server.url}/exchange/"
    client.login()  # Betfair's certificate login
    return client


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    db = tmp_path / "exchange.db"
    cli("accounts", "--db", str(db), "add", "alice", "--password", "pw-a", "--balance", "1000", check=True)
    cli("accounts", "--db", str(db), "add", "bob", "--password", "pw-b", "--balance", "1000", check=True)
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "client.crt").write_text("any\n")
    (tmp_path / "certs" / "client.key").write_text("any\n")
    with ServerProcess(db, window_s=WINDOW_S, playing_s=0.3) as srv:
        yield srv


def _window_just_opened(server: ServerProcess) -> bool:
    """An in-play window (after the Deal's) with three quarters of it left."""
    game = server.game_in_early_window()
    return game is not None and game["round"] >= 2


def test_every_betting_and_account_method_answers_with_what_betfairlightweight_parses(
        server: ServerProcess, tmp_path: Path) -> None:
    alice = _client(server, "alice", "pw-a", tmp_path / "certs")
    bob = _client(server, "bob", "pw-b", tmp_path / "certs")
    everything = filters.market_filter()

    # Navigation: one event type, a game per event, WIN markets in GB, no competitions or venues.
    (event_type,) = alice.betting.list_event_types(filter=everything)
    assert event_type.event_type.name == "Exchange Poker" and event_type.market_count >= 1
    events = alice.betting.list_events(filter=everything)
    assert events and all(e.event.id.startswith("holdem.") and e.market_count == 1 for e in events)
    assert alice.betting.list_competitions(filter=everything) == []
    assert alice.betting.list_venues(filter=everything) == []
    (market_type,) = alice.betting.list_market_types(filter=everything)
    (country,) = alice.betting.list_countries(filter=everything)
    assert (market_type.market_type, country.country_code) == ("WIN", "GB")
    ranges = alice.betting.list_time_ranges(filter=everything, granularity="MINUTES")
    assert sum(r.market_count for r in ranges) == event_type.market_count
    assert all(r.time_range.to - r.time_range._from == datetime.timedelta(minutes=1) for r in ranges)

    wait_until(lambda: _window_just_opened(server), timeout_s=60, what="an in-play window opening")
    (market,) = alice.betting.list_market_catalogue(
        filter=filters.market_filter(in_play_only=True, market_type_codes=["WIN"]), max_results=10,
        sort="FIRST_TO_START", market_projection=["EVENT", "MARKET_DESCRIPTION", "RUNNER_DESCRIPTION"])
    market_id = market.market_id
    assert market.event.id == market_id and market.description.market_type == "WIN"
    assert alice.betting.list_market_catalogue(filter=filters.market_filter(in_play_only=False),
                                               max_results=10) == []  # the only open market is in play

    # Orders: bob lays 10.00 on hand 1 at 3.0; alice backs 4.00 of it, with a strategy ref; alice rests a lay.
    limit = filters.limit_order
    lay = bob.betting.place_orders(market_id, [filters.place_instruction(
        "LIMIT", 1, "LAY", limit_order=limit(size=10, price=3.0, persistence_type="LAPSE"))])
    assert lay.status == "SUCCESS"
    back = alice.betting.place_orders(market_id, [filters.place_instruction(
        "LIMIT", 1, "BACK", limit_order=limit(size=4, price=3.0, persistence_type="LAPSE"))],
        customer_strategy_ref="surface")
    report = back.place_instruction_reports[0]
    assert (report.status, report.order_status, report.size_matched) == ("SUCCESS", "EXECUTION_COMPLETE", 4.0)
    resting = alice.betting.place_orders(market_id, [filters.place_instruction(
        "LIMIT", 2, "LAY", limit_order=limit(size=2, price=1.5, persistence_type="LAPSE"))])
    resting_id = resting.place_instruction_reports[0].bet_id

    (runner_book,) = alice.betting.list_runner_book(market_id, 1, price_projection=filters.price_projection(
        price_data=["EX_BEST_OFFERS"]), order_projection="ALL")
    (runner,) = runner_book.runners
    assert runner.selection_id == 1 and runner.ex.available_to_lay == [] and runner.ex.available_to_back[0].size == 6
    assert [o.size_matched for o in runner.orders] == [4.0]
    (pnl,) = alice.betting.list_market_profit_and_loss([market_id], include_settled_bets=True)
    assert {p.selection_id: p.if_win for p in pnl.profit_and_losses} == {1: 8.0, 2: -4.0, 3: -4.0, 4: -4.0}
    mine = alice.betting.list_current_orders(customer_strategy_refs=["surface"]).orders
    assert [(o.bet_id, o.customer_strategy_ref) for o in mine] == [(report.bet_id, "surface")]

    update = alice.betting.update_orders(market_id, [filters.update_instruction(resting_id, "PERSIST")])
    assert update.status == "FAILURE" and update.update_instruction_reports[0].error_code == "INVALID_PERSISTENCE_TYPE"
    replaced = alice.betting.replace_orders(market_id, [filters.replace_instruction(resting_id, 1.4)])
    new_id = replaced.replace_instruction_reports[0].place_instruction_reports.bet_id
    assert replaced.status == "SUCCESS" and new_id != resting_id
    cancelled = alice.betting.cancel_orders(market_id, [filters.cancel_instruction(new_id)])
    assert cancelled.cancel_instruction_reports[0].size_cancelled == 2.0

    wait_until(lambda: market_id not in {e.event.id for e in alice.betting.list_events(filter=everything)},
               timeout_s=4 * (WINDOW_S + 1) + 10, what=f"{market_id} settling")
    cleared = alice.betting.list_cleared_orders(bet_status="SETTLED", group_by="SIDE",
                                                 include_item_description=True)
    (side,) = cleared.orders
    assert (side.market_id, side.selection_id, side.side, side.bet_count) == (market_id, 1, "BACK", 1)
    assert side.item_description.runner_desc == "Hand 1" and side.size_settled == 4.0
    won = side.profit > 0
    assert side.profit == (8.0 if won else -4.0)

    funds = alice.account.get_account_funds()
    details = alice.account.get_account_details()
    assert details.currency_code == "GBP"
    statement = alice.account.get_account_statement(include_item="ALL")
    items = statement.account_statement
    assert items[-1].amount == 1000.0 and items[-1].legacy_data.transaction_type == "ACCOUNT_CREDIT"
    assert items[0].balance == funds.available_to_bet_balance  # newest first; nothing is at risk now
    assert sum(i.amount for i in items) == pytest.approx(funds.available_to_bet_balance)
    assert {i.legacy_data.win_lose for i in items} >= {"RESULT_WON" if won else "RESULT_LOST"}
    (rate,) = alice.account.list_currency_rates()
    assert (rate.currency_code, rate.rate) == ("GBP", 1.0)
