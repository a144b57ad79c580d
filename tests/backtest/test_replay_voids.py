"""The replay of a game where a dealer's error voids matches: each match shown when it was made, voided at the void.

The folder comes from ``tests/voided_backtest.py``: the turn is seen at the opening of the
Flop window and noticed at its close, so every match of that window is voided then. The
replay at any instant is checked against the game's own event log (each ``MatchVoided``
and its time) and the collector's tables (each fill's time and void time, each order's
final matched and voided sizes): an order's matched size, its exact average price and
the market's traded volume include a match from its time until its void, and not after.
"""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.replay import RecordedGame, Timeline, game_snapshot, load_timeline
from exchange.core.events import MatchVoided
from exchange.game.irregular import BetsVoided
from tests.voided_backtest import Row, VoidedBacktest, pennies, rows, write_voided_backtest


@pytest.fixture(scope="module")
def voided(tmp_path_factory: pytest.TempPathFactory) -> VoidedBacktest:
    return write_voided_backtest(tmp_path_factory.mktemp("replay") / "voided")


@pytest.fixture(scope="module")
def timeline(voided: VoidedBacktest) -> Timeline:
    return load_timeline(voided.out)


def standing(fills: list[Row], now_ms: int) -> list[Row]:
    """The fills matched by ``now_ms`` and not voided by then."""
    return [f for f in fills if f["at_ms"] <= now_ms and not (f["voided"] and f["voided_ms"] <= now_ms)]


def void_time(voided: VoidedBacktest) -> int:
    [at] = {s.at_ms for s in voided.log if isinstance(s.event, MatchVoided)}
    return at


def orders_shown(game: RecordedGame, now_ms: int) -> dict[int, Row]:
    return {int(o["betId"]): o for o in game_snapshot(game, now_ms)["game"]["orders"]}


def test_each_fill_records_when_the_game_voided_it(voided: VoidedBacktest) -> None:
    voids = {s.event.match_id: s.at_ms for s in voided.log if isinstance(s.event, MatchVoided)}
    fills = rows(voided.out, "fills")
    assert {f["match_id"]: f["voided_ms"] for f in fills if f["voided"]} == voids
    assert all(f["voided_ms"] is None for f in fills if not f["voided"])
    [notice] = [s for s in voided.log if isinstance(s.event, BetsVoided)]
    [row] = rows(voided.out, "irregularities")
    assert set(voids.values()) == {notice.at_ms} and row["matches_voided"] == len(voids)
    assert all(row["at_ms"] <= f["at_ms"] < notice.at_ms for f in fills if f["voided"])  # made after the exposure


def test_a_voided_match_is_matched_from_its_time_and_voided_from_the_voids(voided: VoidedBacktest,
                                                                         timeline: Timeline) -> None:
    game, void_ms = timeline.games[0], void_time(voided)
    orders = {o["bet_id"]: o for o in rows(voided.out, "orders") if o["account"] == STRATEGY_ACCOUNT}
    fills = [f for f in rows(voided.out, "fills") if STRATEGY_ACCOUNT in (f["back_account"], f["lay_account"])]
    hit = {b for f in fills if f["voided"] for b in (f["back_bet_id"], f["lay_bet_id"]) if b in orders}
    assert hit, "the strategy has matches the irregularity voided"
    for bet_id in hit:
        order = orders[bet_id]
        mine = [f for f in fills if bet_id in (f["back_bet_id"], f["lay_bet_id"])]
        instants = {f["at_ms"] for f in mine} | {void_ms - 1, void_ms, game.end_ms - 1}
        for now_ms in sorted(instants):
            shown = orders_shown(game, now_ms)[bet_id]
            stood = standing(mine, now_ms)
            gone = [f for f in mine if f["voided"] and f["voided_ms"] <= now_ms]
            assert pennies(shown["sizeMatched"]) == sum(f["size"] for f in stood), (bet_id, now_ms)
            assert pennies(shown["sizeVoided"]) == sum(f["size"] for f in gone), (bet_id, now_ms)
            average = (sum(Fraction(f["size"]) * Fraction(str(f["price"])) for f in stood)
                       / sum(f["size"] for f in stood)) if stood else Fraction(0)  # fmt: skip
            assert shown["averagePriceMatched"] == round(float(average), 4), (bet_id, now_ms)
        before, after = orders_shown(game, void_ms - 1)[bet_id], orders_shown(game, void_ms)[bet_id]
        taken = sum(f["size"] for f in mine if f["voided"])
        assert pennies(before["sizeMatched"]) - pennies(after["sizeMatched"]) == taken > 0
        assert pennies(before["sizeRemaining"]) == pennies(after["sizeRemaining"])  # voided, not unmatched again
        last = orders_shown(game, game.end_ms - 1)[bet_id]
        assert (pennies(last["sizeMatched"]), pennies(last["sizeVoided"])) == (order["size_matched"],
                                                                              order["size_voided"])


def test_the_strategys_position_by_fill_price_is_its_standing_fills(voided: VoidedBacktest, timeline: Timeline) -> None:
    """``game.positions`` (the order stream's ``mb``/``ml`` per selection) holds the strategy's fills standing at
    each instant, at their own prices: a voided match until its void, not after."""
    game, void_ms = timeline.games[0], void_time(voided)
    mine = {o["bet_id"] for o in rows(voided.out, "orders") if o["account"] == STRATEGY_ACCOUNT}
    fills = [f for f in rows(voided.out, "fills") if mine & {f["back_bet_id"], f["lay_bet_id"]}]
    assert any(f["voided"] for f in fills)
    for now_ms in sorted({f["at_ms"] for f in fills} | {void_ms - 1, void_ms, game.end_ms - 1}):
        [position] = game_snapshot(game, now_ms)["game"]["positions"]
        shown = {(r["id"], side, price): pennies(size) for r in position["orc"] for side in ("mb", "ml")
                 for price, size in r[side]}
        expected: dict[tuple[int, str, float], int] = {}
        for f in standing(fills, now_ms):
            for key, side in (("back_bet_id", "mb"), ("lay_bet_id", "ml")):
                if f[key] in mine:
                    at = (f["selection_id"], side, f["price"])
                    expected[at] = expected.get(at, 0) + f["size"]
        assert shown == expected, now_ms


def test_the_markets_traded_volume_and_last_price_go_back_at_the_void(voided: VoidedBacktest,
                                                                      timeline: Timeline) -> None:
    game, void_ms = timeline.games[0], void_time(voided)
    fills = rows(voided.out, "fills")
    instants = sorted({f["at_ms"] for f in fills} | {void_ms - 1, void_ms, game.end_ms - 1})
    for now_ms in instants:
        market = game_snapshot(game, now_ms)["game"]["markets"][0]
        stood = standing(fills, now_ms)
        assert pennies(market["totalMatched"]) == sum(f["size"] for f in stood), now_ms
        for selection in market["selections"]:
            on = [f for f in stood if f["selection_id"] == selection["selectionId"]]
            assert pennies(selection["totalMatched"]) == sum(f["size"] for f in on), (now_ms, selection)
            last = max(on, key=lambda f: f["match_id"])["price"] if on else None
            assert selection["lastPriceTraded"] == last, (now_ms, selection)
    before = game_snapshot(game, void_ms - 1)["game"]["markets"][0]["totalMatched"]
    after = game_snapshot(game, void_ms)["game"]["markets"][0]["totalMatched"]
    assert pennies(before) - pennies(after) == sum(f["size"] for f in fills if f["voided"]) > 0


def test_a_folder_without_void_times_leaves_voided_matches_out_as_before(voided: VoidedBacktest,
                                                                        tmp_path: Path) -> None:
    """A folder written before fills had ``voided_ms``: its voided fills cannot be placed in time, so the replay
    shows them nowhere; each order still ends as the files say, with nothing left unmatched."""
    old = tmp_path / "old"
    shutil.copytree(voided.out, old)
    fills = pq.read_table(old / "fills.parquet")
    pq.write_table(fills.drop_columns(["voided_ms"]), old / "fills.parquet")
    game = load_timeline(old).games[0]
    orders = {o["bet_id"]: o for o in rows(old, "orders") if o["account"] == STRATEGY_ACCOUNT}
    void_ms = void_time(voided)
    kept = [f for f in fills.to_pylist() if STRATEGY_ACCOUNT in (f["back_account"], f["lay_account"])
            and not f["voided"]]  # fmt: skip
    for bet_id, shown in orders_shown(game, void_ms - 1).items():
        mine = [f for f in kept if bet_id in (f["back_bet_id"], f["lay_bet_id"])]
        assert pennies(shown["sizeMatched"]) == sum(f["size"] for f in mine if f["at_ms"] < void_ms)
        assert shown["sizeVoided"] == 0
    for bet_id, shown in orders_shown(game, game.end_ms - 1).items():
        assert pennies(shown["sizeMatched"]) == orders[bet_id]["size_matched"]
        assert shown["sizeRemaining"] == 0
