"""The replay of a game an operator voids mid-game: its matches shown until the void, voided from it.

The folder comes from ``tests/voided_backtest.py``: an Omaha Hi/Lo game voided a second into
its Turn window. The High market is voided whole: each of its matches on a hand still in play
is voided then (one ``MatchVoided`` each, at the market's void), while the matches on the
hands it had settled early as losers stand; the Low market, settled when the turn was turned,
keeps its result. The files and the replay at any instant are checked against the game's own
event log and the collector's fills and orders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.replay import RecordedGame, Timeline, game_snapshot, load_timeline
from exchange.core.events import MarketSettled, MarketVoided, MatchVoided, SelectionSettled
from tests.voided_backtest import Row, VoidedBacktest, pennies, rows, write_market_voided_backtest

HIGH, LOW = "omaha-hilo.0", "omaha-hilo.0-low"


@pytest.fixture(scope="module")
def voided(tmp_path_factory: pytest.TempPathFactory) -> VoidedBacktest:
    return write_market_voided_backtest(tmp_path_factory.mktemp("replay") / "market-voided")


@pytest.fixture(scope="module")
def timeline(voided: VoidedBacktest) -> Timeline:
    return load_timeline(voided.out)


def market_void_time(voided: VoidedBacktest) -> int:
    [at] = [s.at_ms for s in voided.log if isinstance(s.event, MarketVoided)]
    return at


def settled_early(voided: VoidedBacktest) -> set[int]:
    """The High market's hands settled (as losers) before the void, by the event log."""
    return {s.event.selection_id for s in voided.log
            if isinstance(s.event, SelectionSettled) and s.event.market_id == HIGH}  # fmt: skip


def strategy_fills(out: Path) -> list[Row]:
    return [f for f in rows(out, "fills") if STRATEGY_ACCOUNT in (f["back_account"], f["lay_account"])]


def orders_shown(game: RecordedGame, now_ms: int) -> dict[int, Row]:
    return {int(o["betId"]): o for o in game_snapshot(game, now_ms)["game"]["orders"]}


def markets_shown(game: RecordedGame, now_ms: int) -> dict[str, Row]:
    return {m["marketId"]: m for m in game_snapshot(game, now_ms)["game"]["markets"]}


def test_the_void_voids_each_match_on_a_hand_in_play_at_its_time(voided: VoidedBacktest) -> None:
    void_ms, early = market_void_time(voided), settled_early(voided)
    log_voids = {s.event.match_id: s.at_ms for s in voided.log if isinstance(s.event, MatchVoided)}
    fills = rows(voided.out, "fills")
    assert {f["match_id"]: f["voided_ms"] for f in fills if f["voided"]} == log_voids
    assert set(log_voids.values()) == {void_ms}
    for f in fills:
        voided_here = f["market_id"] == HIGH and f["selection_id"] not in early
        assert f["voided"] is voided_here and (f["voided_ms"] is not None) is voided_here, f
    assert [s.event.market_id for s in voided.log if isinstance(s.event, MarketSettled)] == [LOW]
    mine = strategy_fills(voided.out)
    assert any(f["voided"] for f in mine) and any(f["market_id"] == HIGH and not f["voided"] for f in mine), \
        "the strategy has matches the void takes back and matches on settled hands that stand"


def test_each_accounts_result_is_the_fills_that_stand(voided: VoidedBacktest) -> None:
    """What the settlements say of the voided market is the standing fills' result, hands settled early lost:
    a reader summing the fills that are not ``voided`` (the settlements notebook) gets the exchange's figure."""
    standing = [f for f in rows(voided.out, "fills") if f["market_id"] == HIGH and not f["voided"]]
    settled = [row for row in rows(voided.out, "settlements") if row["market_id"] == HIGH]
    assert standing and settled
    for row in settled:
        account = row["account"]
        result = sum(-f["size"] if f["back_account"] == account else f["size"]
                     for f in standing if account in (f["back_account"], f["lay_account"]))  # fmt: skip
        assert (row["gross_profit"], row["status"]) == (result, "VOID"), account
    assert any(row["gross_profit"] for row in settled)  # hands settled early lost something to someone


def test_the_strategys_orders_are_matched_until_the_void_and_voided_from_it(voided: VoidedBacktest,
                                                                          timeline: Timeline) -> None:
    game, void_ms = timeline.games[0], market_void_time(voided)
    orders = {o["bet_id"]: o for o in rows(voided.out, "orders") if o["account"] == STRATEGY_ACCOUNT}
    fills = strategy_fills(voided.out)
    instants = sorted({f["at_ms"] for f in fills} | {void_ms - 1, void_ms, game.end_ms - 1})
    for now_ms in instants:
        shown = orders_shown(game, now_ms)
        for bet_id, order in shown.items():
            mine = [f for f in fills if bet_id in (f["back_bet_id"], f["lay_bet_id"]) and f["at_ms"] <= now_ms]
            gone = [f for f in mine if f["voided"] and f["voided_ms"] <= now_ms]
            assert pennies(order["sizeMatched"]) == sum(f["size"] for f in mine if f not in gone), (bet_id, now_ms)
            assert pennies(order["sizeVoided"]) == sum(f["size"] for f in gone), (bet_id, now_ms)
    before, after = orders_shown(game, void_ms - 1), orders_shown(game, void_ms)
    taken = {bet_id: sum(f["size"] for f in fills if f["voided"] and bet_id in (f["back_bet_id"], f["lay_bet_id"]))
             for bet_id in after}  # fmt: skip
    assert sum(taken.values()) > 0
    for bet_id, order in after.items():
        assert pennies(before[bet_id]["sizeMatched"]) - pennies(order["sizeMatched"]) == taken[bet_id], bet_id
        assert pennies(order["sizeVoided"]) == taken[bet_id], bet_id
        assert order["sizeRemaining"] == 0, bet_id  # the void cancels what was unmatched
    for bet_id, order in orders_shown(game, game.end_ms - 1).items():
        row = orders[bet_id]
        assert (pennies(order["sizeMatched"]), pennies(order["sizeVoided"])) == (row["size_matched"],
                                                                                row["size_voided"]), bet_id


def test_the_market_is_void_from_the_void_and_its_traded_volume_is_what_stands(voided: VoidedBacktest,
                                                                               timeline: Timeline) -> None:
    game, void_ms, early = timeline.games[0], market_void_time(voided), settled_early(voided)
    fills = rows(voided.out, "fills")
    before, at = markets_shown(game, void_ms - 1), markets_shown(game, void_ms)
    assert (before[HIGH]["status"], before[HIGH]["marketStatus"]) == ("OPEN", "ACTIVE")
    assert (before[HIGH]["marketType"], before[LOW]["marketType"]) == ("WIN", "LOW")  # as API-NG and the stream
    assert (at[HIGH]["status"], at[HIGH]["marketStatus"]) == ("CLOSED", "VOID")
    assert all((m[LOW]["status"], m[LOW]["marketStatus"]) == ("CLOSED", "SETTLED") for m in (before, at))
    assert not game_snapshot(game, void_ms)["game"]["bettingOpen"]
    for now_ms in sorted({f["at_ms"] for f in fills if f["market_id"] == HIGH} | {void_ms - 1, void_ms}):
        market = markets_shown(game, now_ms)[HIGH]
        stood = [f for f in fills if f["market_id"] == HIGH and f["at_ms"] <= now_ms
                 and not (f["voided"] and f["voided_ms"] <= now_ms)]  # fmt: skip
        assert pennies(market["totalMatched"]) == sum(f["size"] for f in stood), now_ms
        for selection in market["selections"]:
            on = sum(f["size"] for f in stood if f["selection_id"] == selection["selectionId"])
            assert pennies(selection["totalMatched"]) == on, (now_ms, selection)
    for selection in at[HIGH]["selections"]:  # at the void: only the hands settled before it keep their volume
        assert (selection["status"] == "LOSER") is (selection["selectionId"] in early), selection
        if selection["selectionId"] not in early:
            assert (selection["totalMatched"], selection["lastPriceTraded"]) == (0, None), selection


def test_a_folder_without_void_times_replays_as_before(voided: VoidedBacktest, tmp_path: Path) -> None:
    """A folder written before fills had ``voided_ms``: the voided fills cannot be placed in time, so the replay
    leaves them out from the start, and each order still ends as the files say."""
    old = tmp_path / "old"
    shutil.copytree(voided.out, old)
    fills = pq.read_table(old / "fills.parquet")
    pq.write_table(fills.drop_columns(["voided_ms"]), old / "fills.parquet")
    game = load_timeline(old).games[0]
    void_ms = market_void_time(voided)
    kept = [f for f in strategy_fills(old) if not f["voided"]]
    for now_ms in (void_ms - 1, game.end_ms - 1):
        for bet_id, shown in orders_shown(game, now_ms).items():
            mine = [f for f in kept if bet_id in (f["back_bet_id"], f["lay_bet_id"]) and f["at_ms"] <= now_ms]
            assert pennies(shown["sizeMatched"]) == sum(f["size"] for f in mine), (bet_id, now_ms)
            assert shown["sizeVoided"] == 0, (bet_id, now_ms)
    assert markets_shown(game, void_ms)[HIGH]["marketStatus"] == "VOID"


def test_each_settlement_row_has_its_own_markets_status(voided: VoidedBacktest) -> None:
    """The game is void, but its Low market settled before the void: its rows say ``SETTLED`` (as the strategy's
    ``on_settlement`` says ``FINISHED``), the High market's ``VOID``; a reader filtering on the status keeps the
    Low market's result."""
    ended = {s.event.market_id: type(s.event) for s in voided.log if isinstance(s.event, (MarketSettled, MarketVoided))}
    assert ended == {LOW: MarketSettled, HIGH: MarketVoided}
    statuses = {(row["market_id"], row["status"]) for row in rows(voided.out, "settlements")}
    assert statuses == {(LOW, "SETTLED"), (HIGH, "VOID")}
    [game] = rows(voided.out, "games")
    assert game["status"] == "VOID"


def test_the_channel_list_names_the_markets_as_the_live_servers_does(timeline: Timeline) -> None:
    """The High market's type is WIN, as on the live server's channel list, in its snapshots and in API-NG (the
    replay's list said HIGH)."""
    assert timeline.channel_entry()["markets"] == ["WIN", "LOW"]
    markets = markets_shown(timeline.games[0], timeline.games[0].windows[0].opens_ms)
    assert [m["marketType"] for m in markets.values()] == ["WIN", "LOW"]
