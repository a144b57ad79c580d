"""``exchange-poker replay``: a backtest's folder read back as the table a spectator saw, and its player.

The timeline is checked against the backtest's own files, which were written
by the live game: each card appears exactly when its window closes, the
equities are the ones every fill recorded at its instant, and the strategy's
orders and results at a game's end are those of ``orders.parquet`` and
``settlements.parquet``.
"""

from __future__ import annotations

import gzip
import shutil
from fractions import Fraction
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from aiohttp.test_utils import TestClient, TestServer

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.replay import NOT_AVAILABLE, ReplayError, Timeline, game_snapshot, load_timeline
from exchange.backtest.replay_clock import ReplayClock
from exchange.backtest.replay_market import RecordedMarket, exact_average, orders_at
from exchange.backtest.replay_server import PLAYER, Player, create_replay_app
from exchange.game.channels import get_channel
from exchange.game.layouts import MarketKind
from exchange.game.rounds import timetable
from tests.backtest.backtest_support import Run


@pytest.fixture(scope="module")
def timeline(small_run: Run) -> Timeline:
    return load_timeline(small_run.out)


def rows(run: Run, name: str) -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = pq.read_table(run.out / f"{name}.parquet").to_pylist()
    return table


def test_each_card_is_shown_from_the_close_of_its_window_and_never_before(small_run: Run, timeline: Timeline) -> None:
    for row in rows(small_run, "games"):
        game = next(g for g in timeline.games if g.market_id == row["market_id"])
        deal, preflop, flop, turn = timetable(game.channel, row["start_ms"])
        hands = [row[f"hand_{i}"].split() for i in range(1, 5)]
        board = row["board"].split()
        for at_ms, hole_up, board_up, betting in (
            (deal.opens_ms, False, 0, True), (deal.closes_ms - 1, False, 0, True),
            (deal.closes_ms, True, 0, False), (preflop.opens_ms, True, 0, True),
            (preflop.closes_ms - 1, True, 0, True), (preflop.closes_ms, True, 3, False),
            (flop.closes_ms - 1, True, 3, True), (flop.closes_ms, True, 4, False),
            (turn.closes_ms - 1, True, 4, True), (turn.closes_ms, True, 5, False),
        ):
            shown = game_snapshot(game, at_ms)["game"]
            cards = [hand["cards"] for hand in shown["gameData"]["hands"]]
            assert cards == (hands if hole_up else [[NOT_AVAILABLE] * 2] * 4), (row["market_id"], at_ms)
            assert shown["gameData"]["communityCards"] == board[:board_up] + [NOT_AVAILABLE] * (5 - board_up)
            assert shown["bettingOpen"] is (betting and row["status"] == "SETTLED"), (row["market_id"], at_ms)


def test_the_equities_shown_are_those_the_live_game_published_at_every_fill(small_run: Run,
                                                                           timeline: Timeline) -> None:
    fills = [f for f in rows(small_run, "fills") if not f["voided"]]
    assert len(fills) > 50
    for fill in fills:
        game = next(g for g in timeline.games if g.market_id == fill["market_id"])
        selection = game_snapshot(game, fill["at_ms"])["game"]["markets"][0]["selections"][fill["selection_id"] - 1]
        assert Fraction(selection["equityExact"]) == Fraction(fill["equity_exact"]), fill


def test_the_strategys_orders_and_results_at_the_end_are_those_of_the_files(small_run: Run,
                                                                            timeline: Timeline) -> None:
    placed = [o for o in rows(small_run, "orders") if o["account"] == STRATEGY_ACCOUNT and not o["error_code"]]
    assert placed
    for game in timeline.games:
        mine = {str(o["bet_id"]): o for o in placed if o["market_id"] == game.market_id}
        shown = {o["betId"]: o for o in game_snapshot(game, game.end_ms - 1)["game"]["orders"]}
        assert shown.keys() == mine.keys()
        for bet_id, order in mine.items():
            assert round(shown[bet_id]["sizeMatched"] * 100) == order["size_matched"]
            assert shown[bet_id]["sizeRemaining"] == 0
            if order["size_matched"]:
                assert shown[bet_id]["averagePriceMatched"] == pytest.approx(order["average_price_matched"], abs=1e-4)
            before = game_snapshot(game, order["placed_ms"] - 1)["game"]["orders"]
            assert bet_id not in {o["betId"] for o in before}
    settled = {r["market_id"]: r for r in rows(small_run, "settlements") if r["account"] == STRATEGY_ACCOUNT}
    results = timeline.settled_before(timeline.length_ms)
    # the markets with a bet settled, as listClearedOrders lists a live account's (every market was listed, most of
    # them "0 bets, £0.00")
    assert {r["marketId"] for r in results} == {market for market, row in settled.items() if row["bets"]}
    for result in results:
        row = settled[result["marketId"]]
        assert (round(result["profit"] * 100), round(result["commission"] * 100)) == (row["gross_profit"],
                                                                                      row["commission"])


def test_a_market_the_strategy_had_no_bet_settled_on_is_not_among_its_settled_markets(small_run: Run,
                                                                                       tmp_path: Any) -> None:
    """The replay's page listed every game as a settled market of "0 bets, £0.00" where the live page, reading
    listClearedOrders, lists only the markets with a bet settled."""
    shutil.copytree(small_run.out, tmp_path / "out")
    table = pq.read_table(small_run.out / "settlements.parquet")
    market = next(r["market_id"] for r in table.to_pylist() if r["account"] == STRATEGY_ACCOUNT and r["bets"])
    none = [0 if (r["account"], r["market_id"]) == (STRATEGY_ACCOUNT, market) else r["bets"]
            for r in table.to_pylist()]  # as a market it only lapsed bets on
    pq.write_table(table.set_column(table.schema.get_field_index("bets"), "bets", pa.array(none, pa.int64())),
                   tmp_path / "out" / "settlements.parquet")
    timeline = load_timeline(tmp_path / "out")
    listed = {r["marketId"] for r in timeline.settled_before(timeline.length_ms)}
    assert market not in listed and listed


def test_the_average_matched_price_is_exact_and_rounded_only_as_the_live_api_rounds_it(
    small_run: Run, timeline: Timeline
) -> None:
    """Each order's average from its fills' decimal prices (an independent reference: no ladder ticks), rounded to
    four places as API-NG's ``averagePriceMatched`` is."""
    fills = [f for f in rows(small_run, "fills") if not f["voided"]]
    for game in timeline.games:
        for shown in game_snapshot(game, game.end_ms - 1)["game"]["orders"]:
            mine = [f for f in fills if f["market_id"] == shown["marketId"]
                    and int(shown["betId"]) in (f["back_bet_id"], f["lay_bet_id"])]
            if not mine:
                assert shown["averagePriceMatched"] == 0.0
                continue
            exact = sum(Fraction(f["size"]) * Fraction(str(f["price"])) for f in mine) / sum(f["size"] for f in mine)
            assert shown["averagePriceMatched"] == round(float(exact), 4), shown


def test_an_order_matched_at_several_prices_shows_the_exact_average_to_four_places() -> None:
    """1.00 matched at 1.01 and 2.00 at 1.02: 61/60, shown 1.0167 as the live API shows it (not 1.02)."""
    fills = [{"size": 100, "tick": 0, "at_ms": 10, "back_bet_id": 7, "lay_bet_id": 1},
             {"size": 200, "tick": 1, "at_ms": 20, "back_bet_id": 7, "lay_bet_id": 2}]
    order = {"bet_id": 7, "placed_ms": 5, "round": 1, "selection_id": 1, "side": "BACK", "price": 1.01, "size": 500,
             "size_cancelled": 0, "size_lapsed": 200, "size_voided": 0, "cancels": [], "lapsed_ms": 30}
    market = RecordedMarket("holdem.0", MarketKind.WIN, ("Hand 1",), [], frozenset(), False, False,
                            orders=[order], fills=fills)
    windows = timetable(get_channel("holdem"), 0)
    [first] = orders_at(market, 15, windows, 10**6)
    [both] = orders_at(market, 25, windows, 10**6)
    [lapsed] = orders_at(market, 30, windows, 10**6)
    assert (first["averagePriceMatched"], first["sizeMatched"], first["sizeRemaining"]) == (1.01, 1.0, 4.0)
    assert exact_average(fills) == Fraction(61, 60)
    assert (both["averagePriceMatched"], both["sizeMatched"], both["sizeRemaining"]) == (1.0167, 3.0, 2.0)
    assert (lapsed["sizeRemaining"], lapsed["sizeLapsed"], lapsed["status"]) == (0.0, 2.0, "EXECUTION_COMPLETE")
    assert exact_average([]) is None


def test_a_folder_without_a_backtest_is_refused_with_what_is_missing(tmp_path: Any) -> None:
    with pytest.raises(ReplayError, match=r"games\.parquet is missing"):
        load_timeline(tmp_path)


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_the_player_plays_pauses_changes_speed_and_skips_and_refuses_bad_controls(timeline: Timeline) -> None:
    time = FakeTime()
    app = create_replay_app(timeline, clock=ReplayClock(timeline.length_ms, now=time))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        async def control(body: object, status: int = 200) -> dict[str, Any]:
            resp = await client.post("/replay/v1/control", data=body if isinstance(body, str) else None,
                                     json=None if isinstance(body, str) else body)
            assert resp.status == status
            answer: dict[str, Any] = await resp.json()
            return answer

        async with client.ws_connect("/games/v1/stream") as ws:
            first = await ws.receive_json(timeout=3)
            assert first["op"] == "channels" and first["replay"]["playing"] is False
            assert (await ws.receive_json(timeout=3))["snapshot"]["game"]["id"] == timeline.games[0].market_id
        assert (await control({"action": "play", "speed": 2}))["playing"] is True
        time.now += 10
        assert app[PLAYER].clock.position() == 20_000
        assert (await control({"action": "pause"}))["positionMs"] == 20_000
        time.now += 10
        state = await control({"action": "next"})
        assert state == {"playing": False, "speed": 2, "positionMs": timeline.games[1].start_ms - timeline.origin_ms,
                         "lengthMs": timeline.length_ms, "position": f"game 2 of {len(timeline.games)}",
                         "account": None}  # the README's list: whose bets, None for a backtest's strategy
        snapshot = await (await client.get("/games/v1/channels/holdem/snapshot")).json()
        assert snapshot["game"]["id"] == timeline.games[1].market_id
        for bad, words in (({"speed": 0}, "speed must be a number from 0.1 to 100"),
                           ({"action": "rewind"}, "action must be play, pause or next"),
                           ({"volume": 3}, 'send a JSON object with "action"'), ("{", "the body is not JSON")):
            refusal = await control(bad, 400)
            assert refusal["error"] == "INVALID_INPUT_DATA" and words in refusal["details"]
        # encoded bodies as the live server decodes them (exchange.page.body_coding): aiohttp decoded them here, and
        # a deflate body that did not decode, arriving after its head, left the route waiting for ever
        for encoding, data, status, code in (("gzip", gzip.compress(b'{"action": "pause"}'), 200, None),
                                             ("deflate", b"{}", 400, "BAD_REQUEST"),
                                             ("x-rot13", b'{"action": "pause"}', 415, "UNSUPPORTED_MEDIA_TYPE")):
            asked = await client.post("/replay/v1/control", data=data, headers={"Content-Encoding": encoding})
            answer = await asked.json()
            assert asked.status == status and answer.get("error") == code, answer
        unknown = await client.get("/games/v1/channels/omaha/snapshot")  # as the live server's Games API answers
        assert (unknown.status, await unknown.json()) == (
            404, {"error": "CHANNEL_NOT_FOUND", "details": "no channel 'omaha'; channels are holdem"})
        for path, takes in (("/games/v1/channels?x=1", "['x']; the channel list takes none"),
                            ("/games/v1/channels/holdem/snapshot?at=5", "['at']; a snapshot takes none")):
            asked = await client.get(path)
            details = f"unknown query parameters {takes}"
            assert (asked.status, await asked.json()) == (400, {"error": "INVALID_INPUT_DATA", "details": details})


def test_the_command_refuses_a_folder_that_is_no_backtest_in_one_line(tmp_path: Any,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from exchange.cli import main

    assert main(["replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"exchange-poker: error: {tmp_path} is not a backtest's output or a server's "
                                       "recording: games.parquet is missing (write one with 'exchange-poker backtest "
                                       "--out DIR' or 'exchange-poker serve --record DIR')\n")
    assert main(["replay", str(tmp_path), "--speed", "0"]) == 2
    assert "--speed: must be a number from 0.1 to 100, not 0" in capsys.readouterr().err


def test_a_table_file_for_the_folder_or_a_damaged_table_is_said_so_in_one_line(
    small_run: Run, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The games file given for its folder was 'games.parquet is missing'; a damaged table gave pyarrow's words
    alone ('Parquet magic bytes not found in footer')."""
    from exchange.cli import main

    table = small_run.out / "games.parquet"
    assert main(["replay", str(table)]) == 2
    assert capsys.readouterr().err == (f"exchange-poker: error: {table} is a file: give the folder of a backtest's "
                                       f"output or a server's recording (the folder holding it: {small_run.out})\n")
    damaged = tmp_path / "damaged"
    shutil.copytree(small_run.out, damaged)
    (damaged / "games.parquet").write_bytes(b"not a parquet file at all")
    assert main(["replay", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"exchange-poker: error: {damaged / 'games.parquet'} is not a games table this program "
                          "wrote, or it is damaged: ") and err.count("\n") == 1


def test_the_players_position_counts_the_games_of_the_folder(small_run: Run, tmp_path: Any) -> None:
    """A backtest in sessions whose strategy ended some of them early has gaps in its game numbers (here games 0,
    4 and 8 of the folder): the player says it is at game 3 of 3 at the end, not 'game 9 of 3', and plays them
    a playing window apart (the games not dealt are not waited out)."""
    shutil.copytree(small_run.out, tmp_path / "out")
    games = pq.read_table(small_run.out / "games.parquet")
    kept = games.filter(pc.is_in(games.column("game_index"), pa.array([0, 4, 8])))
    pq.write_table(kept, tmp_path / "out" / "games.parquet")
    timeline = load_timeline(tmp_path / "out")
    player = Player(timeline, ReplayClock(timeline.length_ms))
    positions, position = [], 0
    for game in timeline.games:
        player.clock.seek(position)
        positions.append(player.state()["position"])
        assert timeline.recorded_ms(position) == game.start_ms
        position = timeline.next_start(position) or timeline.length_ms
    assert positions == ["game 1 of 3", "game 2 of 3", "game 3 of 3"]
    game_ms, playing_ms = timeline.channel.game_ms, timeline.channel.playing_window_ms
    assert timeline.length_ms == 3 * game_ms + 2 * playing_ms


def test_the_command_names_a_folder_that_is_not_there(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """On main: "... is not a backtest output folder: games.parquet is missing", as if the folder were there."""
    from exchange.cli import main

    assert main(["replay", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == (f"exchange-poker: error: {tmp_path / 'nowhere'}: no such folder; give a "
                                       "backtest's output folder (its --out) or a server's recording (its --record)\n")
