"""Bounded memory: a server left running keeps only ``keep_closed_markets`` closed markets, beside the core and in it.

An in-process server on a :class:`~exchange.clock.VirtualClock` plays a few
hundred games with the house market maker, a noise trader (an account that
never reads its cleared orders) and a client who bets every game and reads
``listClearedOrders`` now and then. At checkpoints every per-market structure
is held to the markets the core keeps: the core's markets, orders and cleared
orders, each account's cleared orders and results, the service's catalogue and
notes, the cleared-orders index and its change log. Sizes of structures only:
no process memory is measured here (``scripts/soak.py`` does that).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from exchange.agents.host import seat
from exchange.agents.house import MAKER_ACCOUNT, NoiseTrader
from exchange.clock import VirtualClock
from exchange.core.exchange import ExchangeConfig
from exchange.core.orders import BetStatus
from exchange.game.channels import get_channel
from exchange.server import cleared_index, keys
from exchange.server.fallback_equities import river_only_equities
from exchange.server.journal import Journal
from exchange.server.service import ExchangeService
from tests.server.helpers import START_MS, login, place, rpc, serving

KEEP = 20
GAMES = 240
CHECKPOINTS = (60, 150, GAMES)
LOG_LIMIT = 16  # the index's change log, cut small: cut entries name markets still kept


@pytest.fixture
async def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[TestClient]:
    monkeypatch.setattr(cleared_index, "LOG_LIMIT", LOG_LIMIT)
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), accounts=(), house=True, window_ms=100,
                       playing_ms=10, seed=3, keep_closed_markets=KEEP) as test_client:
        yield test_client


def _service(client: TestClient) -> ExchangeService:
    return client.app[keys.SERVICE]


def _check_bounded(service: ExchangeService) -> None:
    """Every per-market structure holds only the markets the core keeps, and the core keeps KEEP closed ones."""
    ex = service.exchange
    kept = set(ex.markets)
    closed = set(ex.closed)
    assert len(ex.closed) == KEEP and closed <= kept
    assert len(ex.open_markets) <= 1 and len(kept) <= KEEP + 1
    assert {o.market_id for o in ex.orders.values()} <= set(ex.open_markets)
    assert {c.market_id for c in ex.cleared.values()} <= closed
    for account in ex.accounts.values():
        assert set(account.cleared) <= closed and set(account.results) <= closed, account.account_id
        assert set(account.positions) <= set(ex.open_markets), account.account_id
    assert set(service.infos) <= kept
    assert len(service.ended.by_id) == KEEP and not set(service.ended.by_id) & kept  # as many again, forgotten ones
    assert all(MAKER_ACCOUNT not in e.cleared and "noise" in e.cleared for e in service.ended.by_id.values())
    notes = service.notes
    assert set(notes.created) <= kept and set(notes.versions) <= kept and set(notes.last_match) <= kept
    index = service.cleared_index
    assert len(index._changed) < LOG_LIMIT
    for rows in index._accounts.values():
        listed = kept | set(service.ended.by_id)  # the traders' bets on the markets remembered are listed too
        assert rows.markets <= listed and set(rows.by_market) <= listed and rows.pending <= rows.markets
        assert sum(len(listed) for listed in rows.by_status.values()) == sum(map(len, rows.by_market.values()))
    index._check()  # and the index, brought up to date, equals the core's own answer
    ex._check()


async def _bet(client: TestClient, token: str, service: ExchangeService) -> None:
    """Back hand 1 at 1.01 (it takes the house's best lay) and lay hand 2 at 1.01 (it rests, then lapses)."""
    game = service.current_game("holdem")
    if game is None or service.exchange.market_status(game.market_id) is None:
        return
    for selection, side in ((1, "BACK"), (2, "LAY")):
        await rpc(client, token, "placeOrders", place(game.market_id, selection, side, 1.01, 2))


async def test_a_long_run_keeps_only_the_newest_closed_markets(client: TestClient) -> None:
    service = _service(client)
    clock = service.clock
    assert isinstance(clock, VirtualClock)
    store = client.app[keys.STORE]
    store.add("alice", "pw", deposit=1_000_000)
    token = await login(client, "alice", "pw")
    channel = service.channels["holdem"]
    channel.open_account("noise", 1_000_000)
    seat(channel, NoiseTrader("noise"), "noise")
    window = channel.config.betting_window_ms
    settled_seen: set[str] = set()
    while channel.games_finished < GAMES:
        clock.advance(window // 2)  # into a window (or a playing window: then the bets are refused)
        await _bet(client, token, service)
        clock.advance(window // 2)
        await service.durable()
        if channel.games_finished % 2 == 0:  # alice reads often (each read starts a new log entry); "noise" never
            answer = await rpc(client, token, "listClearedOrders", {"betStatus": "SETTLED"})
            settled_seen |= {o["marketId"] for o in answer["result"]["clearedOrders"]}
        if channel.games_finished in CHECKPOINTS:
            _check_bounded(service)
    _check_bounded(service)
    assert service.cleared_index._base > 4 * LOG_LIMIT  # its change log was cut, many times
    assert len(settled_seen) > KEEP  # she saw more markets than are kept: they were forgotten meanwhile

    answers: dict[str, Any] = {}
    for status in BetStatus:
        answer = await rpc(client, token, "listClearedOrders", {"betStatus": status.value})
        answers[status.value] = answer["result"]["clearedOrders"]
    shown = {o["marketId"] for rows in answers.values() for o in rows}
    assert shown and shown <= set(service.exchange.closed) | set(service.ended.by_id)
    assert answers["SETTLED"] and answers["LAPSED"]
    catalogue = await rpc(client, token, "listMarketCatalogue", {"filter": {}, "maxResults": 1000})
    listed = [m["marketId"] for m in catalogue["result"]]
    assert set(listed) == set(service.live_market_ids())  # the catalogue lists open markets only, as Betfair's
    assert len(service.infos) <= KEEP + 1  # and the descriptions it keeps are bounded by the markets kept
    assert MAKER_ACCOUNT not in service.cleared_index._accounts


def test_a_channel_whose_markets_were_all_forgotten_numbers_on_after_its_last_game(tmp_path: Path) -> None:
    """Holdem plays, then only omaha for more than KEEP games (every holdem market forgotten), then holdem again:
    its next game is numbered after its last one (the notes' high-water mark), never reusing a market id."""
    journal = Journal.open(str(tmp_path / "ex.db"))
    clock = VirtualClock(start_ms=START_MS)

    def run(channel_name: str, games: int) -> ExchangeService:
        service = ExchangeService(journal, clock, [get_channel(channel_name).with_times(100, 10)], seed=5,
                                  equities=river_only_equities,
                                  exchange_config=ExchangeConfig(keep_closed_markets=KEEP))
        service.recover()
        service.start()
        channel = service.channels[channel_name]
        while channel.games_finished < games:
            clock.advance(100)
        service.stop()
        journal.flush()
        return service

    first = run("holdem", 3)
    last_holdem = max(first.notes.numbers["holdem"], 0)
    second = run("omaha", KEEP + 3)
    assert not [m for m in second.exchange.markets if m.startswith("holdem.")]  # all forgotten
    assert second.notes.numbers["holdem"] == last_holdem
    third = run("holdem", 1)
    assert min(int(m.split(".")[1]) for m in third.exchange.markets if m.startswith("holdem.")) > last_holdem
    journal.close()


def test_a_restart_that_keeps_more_closed_markets_lists_each_bet_once(tmp_path: Path) -> None:
    """A run keeps KEEP closed markets and journals those it forgets as ended; a restart that keeps more folds the
    journal into an exchange that still holds them. Their bets are then the exchange's, listed once (they were
    listed twice, the profit with them), and every settled bet of the run is listed."""
    journal = Journal.open(str(tmp_path / "ex.db"))
    clock = VirtualClock(start_ms=START_MS)

    def service_keeping(keep: int) -> ExchangeService:
        config = ExchangeConfig(keep_closed_markets=keep)
        service = ExchangeService(journal, clock, [get_channel("holdem").with_times(100, 10)], seed=5,
                                  equities=river_only_equities, exchange_config=config)
        service.recover()
        return service

    first = service_keeping(KEEP)
    first.start()
    channel = first.channels["holdem"]
    channel.open_account("noise", 1_000_000)
    seat(channel, NoiseTrader("noise"), "noise")
    while channel.games_finished < KEEP + 8:
        clock.advance(100)
    first.stop()
    journal.flush()
    remembered = set(first.ended.by_id)
    assert remembered and all("noise" in first.ended.by_id[m].cleared for m in remembered)
    settled = {o.bet_id for s in BetStatus for o in first.cleared_index.rows("noise", s)}

    again = service_keeping(1000)
    assert remembered <= set(again.exchange.closed) and not set(again.ended.by_id)
    listed = [o for s in BetStatus for o in again.cleared_index.rows("noise", s)]
    assert len(listed) == len({o.bet_id for o in listed})
    closed_before = set(first.exchange.closed) | remembered  # (the game the stop cut is voided by the restart)
    assert {o.bet_id for o in listed if o.market_id in closed_before} == settled
    again.cleared_index._check()
    journal.close()
