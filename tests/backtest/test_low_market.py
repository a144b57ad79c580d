"""A Hi/Lo game's Low market in a backtest: strategies trade it, noise trades it, the files record it.

Three games of ``omaha-hilo`` dealt from seed 3 on one virtual clock: game 0 has no
low and its Low market settles at the flop, game 1 a low winner, game 2 no low
settled at the river. The Low market's winners are judged by the engine's showdown
of the final cards, and a strategy's settlement by an oracle in ``Fraction`` from
its fills (the dead-heat rule, one rounding of the account's total, commission on
a positive result) that shares no code with the exchange's settlement.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from exchange.backtest.agent import traded_markets
from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.runner import DEFAULT_BALANCE, EPOCH_MS
from exchange.backtest.strategy import ALL_MARKETS, GameEnd, GameStart, MarketHandle, Settlement, Strategy
from exchange.backtest.summary import max_drawdown, summarise
from exchange.backtest.world import GameSetup, HouseSpec, play_session
from exchange.betfair.stream import write_stream
from exchange.core import ladder
from exchange.core.events import OrderRejected
from exchange.core.market import MarketStatus
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.channels import get_channel
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round
from exchange.tables.outputs import TABLES, empty_tables
from tests.backtest.backtest_support import NO_LOW, expected_gross, flumine_replay, run_notebook
from tests.backtest.backtest_support import judged_low as support_judged_low

CHANNEL, SEED, GAMES = "omaha-hilo", 3, 3
Rows = dict[str, list[dict[str, Any]]]


def setup(record_streams: bool) -> GameSetup:
    return GameSetup(channel=CHANNEL, seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE, start_ms=EPOCH_MS,
                     latency_ms=None, record_streams=record_streams, house=HouseSpec(), equities=None,
                     games_per_session=GAMES)  # fmt: skip


@dataclass(frozen=True)
class Played:
    strategy: Any
    tables: Rows
    streams: list[tuple[str, str]]


def play(strategy: Strategy, record_streams: bool = False) -> Played:
    tables = empty_tables()
    outcome, streams = play_session(setup(record_streams), 0, strategy, tables)
    assert outcome.games == GAMES
    return Played(strategy, {name: t.to_arrow().to_pylist() for name, t in tables.items()}, streams)


class LowBacker(Strategy):
    """Trades the Low market only: backs every live selection ("No low" too) once a game, from the Pre-flop on."""

    markets = (MarketKind.LOW,)

    def __init__(self) -> None:
        super().__init__()
        self.starts: list[GameStart] = []
        self.ends: list[GameEnd] = []
        self.settled: list[tuple[str, Settlement]] = []
        self.backed: set[tuple[str, int]] = set()

    def on_game_start(self, game: GameStart) -> None:
        self.starts.append(game)

    def process_market_book(self, market: MarketHandle) -> None:
        if market.round is None or market.round < Round.PREFLOP:
            return
        for hand in market.view.live_hands:
            if hand.best_to_back is not None and (market.market_id, hand.hand) not in self.backed:
                self.backed.add((market.market_id, hand.hand))
                market.place_order(hand.hand, Side.BACK, ladder.price(hand.best_to_back), 200)

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        self.settled.append((market.market_id, settlement))

    def on_game_end(self, game: GameEnd) -> None:
        self.ends.append(game)


@pytest.fixture(scope="module")
def low_run() -> Played:
    return play(LowBacker(), record_streams=True)


def judged_low(game: dict[str, Any]) -> tuple[int, ...]:
    """The Low market's winners by the engine's showdown of the game's final cards (No low: selection 5)."""
    return support_judged_low(CHANNEL, game)


def test_the_low_market_settles_as_the_showdown_says(low_run: Played) -> None:
    games = low_run.tables["games"]
    assert [g["market_id"] for g in games] == [f"{CHANNEL}.{n}" for n in range(GAMES)]
    lows = [judged_low(g) for g in games]
    assert [",".join(map(str, w)) for w in lows] == [g["low_winners"] for g in games]
    assert (NO_LOW,) in lows and any(w != (NO_LOW,) for w in lows), "seed 3 deals games with and without a low"
    assert games[0]["low_early"], "game 0's Low market settles before the river"


def test_a_low_only_strategy_sees_and_trades_only_the_low_markets(low_run: Played) -> None:
    strategy: LowBacker = low_run.strategy
    lows = tuple(f"{CHANNEL}.{n}-low" for n in range(GAMES))
    assert [s.market_ids for s in strategy.starts] == [(m,) for m in lows]
    assert [e.market_ids for e in strategy.ends] == [(m,) for m in lows]
    assert [m for m, _ in strategy.settled] == list(lows)
    mine = [o for o in low_run.tables["orders"] if o["account"] == STRATEGY_ACCOUNT]
    assert mine and {o["market_id"] for o in mine} == set(lows)
    assert any(o["selection_id"] == NO_LOW and o["size_matched"] for o in mine), "it backed No low"


def test_a_low_bets_settlement_row_matches_the_exchange_and_an_oracle(low_run: Played) -> None:
    strategy: LowBacker = low_run.strategy
    tables = low_run.tables
    commission_bps = get_channel(CHANNEL).commission_bps
    winners = {g["low_market_id"]: judged_low(g) for g in tables["games"]}
    fills: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in tables["fills"]:
        if f["back_account"] == STRATEGY_ACCOUNT and not f["voided"]:
            fills[f["market_id"]].append({**f, "tick_price_x100": ladder.PRICE_X100[f["tick"]]})
    rows = {(r["market_id"], r["account"]): r for r in tables["settlements"]}
    hooked = dict(strategy.settled)
    balance = DEFAULT_BALANCE
    for game, end in zip(tables["games"], strategy.ends, strict=True):
        low = game["low_market_id"]
        row = rows[(low, STRATEGY_ACCOUNT)]
        gross = expected_gross(fills[low], winners[low])
        assert row["gross_profit"] == gross and fills[low], low
        assert row["commission"] == max(0, gross) * commission_bps // 10_000
        assert row["net_profit"] == row["gross_profit"] - row["commission"]
        settlement = hooked[low]
        assert settlement.winners == winners[low]
        assert (settlement.profit, settlement.commission) == (row["gross_profit"], row["commission"])
        assert sum(b.profit for b in settlement.bets) == row["gross_profit"]
        mine = [o for o in tables["orders"] if o["market_id"] == low and o["account"] == STRATEGY_ACCOUNT]
        assert sum(o["profit"] or 0 for o in mine) == row["gross_profit"]
        assert end.net_profit == row["net_profit"]
        high = rows[(game["market_id"], STRATEGY_ACCOUNT)]
        assert (high["gross_profit"], high["bets"]) == (0, 0), "it never traded the High market"
        balance += row["net_profit"]
        assert row["balance_after"] == end.bankroll.balance == balance
        for market in (game["market_id"], low):  # every market conserves money to the penny
            settled = [r for (m, _), r in rows.items() if m == market]
            assert sum(r["gross_profit"] + r["rounding_received"] for r in settled) == 0, market
            assert sum(r["commission"] for r in settled) == sum(r["commission_received"] for r in settled)


def test_the_noise_trader_trades_the_low_market(low_run: Played) -> None:
    noise = [o for o in low_run.tables["orders"] if o["account"].startswith("house-noise")]
    lows = {o["market_id"] for o in noise if o["market_id"].endswith("-low") and o["size_matched"]}
    highs = {o["market_id"] for o in noise if not o["market_id"].endswith("-low") and o["size_matched"]}
    assert len(lows) == len(highs) == GAMES


def test_a_games_row_gives_each_markets_matched_total_on_its_own(low_run: Played) -> None:
    """``total_matched`` is the High market's stake matched and not voided, ``low_total_matched`` the Low
    market's: the row summed both into ``total_matched``, which read as the High market's."""
    traded: dict[str, int] = defaultdict(int)
    for f in low_run.tables["fills"]:
        traded[f["market_id"]] += 0 if f["voided"] else f["size"]
    for game in low_run.tables["games"]:
        assert traded[game["market_id"]] > 0 and traded[game["low_market_id"]] > 0
        assert (game["total_matched"], game["low_total_matched"]) == (
            traded[game["market_id"]], traded[game["low_market_id"]])
        assert game["min_stake"] == get_channel(CHANNEL).min_stake


def test_the_stream_files_record_the_low_market_as_it_ended(low_run: Played, tmp_path: Path) -> None:
    betfairlightweight = pytest.importorskip("betfairlightweight")
    recorded = dict(low_run.streams)
    games = low_run.tables["games"]
    assert sorted(recorded) == sorted([g["market_id"] for g in games] + [g["low_market_id"] for g in games])
    trading = betfairlightweight.APIClient("username", "password", app_key="app-key")
    traded: dict[tuple[str, int], int] = defaultdict(int)
    for f in low_run.tables["fills"]:
        traded[(f["market_id"], f["selection_id"])] += 0 if f["voided"] else f["size"]
    for game in games:
        low = game["low_market_id"]
        listener = betfairlightweight.StreamListener(max_latency=None)
        path = write_stream(tmp_path, low, recorded[low])
        stream = trading.streaming.create_historical_generator_stream(file_path=str(path), listener=listener)
        books = [book for batch in stream.get_generator()() for book in batch]
        final = books[-1]
        assert final.status == "CLOSED" and final.market_definition.name.endswith("Low")
        assert [r.name for r in final.market_definition.runners][-1] == "No low"
        winners = judged_low(game)
        for runner in final.runners:
            assert runner.status == ("WINNER" if runner.selection_id in winners else "LOSER")
            assert round(runner.total_matched * 100) == traded.get((low, runner.selection_id), 0)


def test_a_flumine_replay_of_a_hilo_backtest_sees_both_markets(low_run: Played, tmp_path: Path) -> None:
    """flumine's own simulation over the recorded files closes both markets of every game, each by its winners.

    Run in a fresh process: importing flumine patches betfairlightweight's classes for the whole process.
    """
    assert importlib.util.find_spec("flumine") is not None, "flumine is missing: pip install '.[test]'"
    files = sorted(str(write_stream(tmp_path, market, text)) for market, text in low_run.streams)
    winners = {}
    for game in low_run.tables["games"]:
        winners[game["market_id"]] = int(game["winners"].split(",")[0])
        winners[game["low_market_id"]] = judged_low(game)[0]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        _, closed = pool.submit(flumine_replay, files, winners).result(timeout=120)
    assert set(closed) == set(winners)
    for orders in closed.values():
        assert all(status == "WINNER" for *_, status in orders)


class BothMarkets(Strategy):
    """Trades every market of the game and notes each hook with the market it was called for."""

    markets = ALL_MARKETS

    def __init__(self) -> None:
        super().__init__(latency_ms=0)
        self.calls: list[tuple[str, str]] = []
        self.starts: list[GameStart] = []
        self.ends: list[GameEnd] = []
        self.placed: set[str] = set()

    def on_game_start(self, game: GameStart) -> None:
        self.starts.append(game)
        self.calls.append(("on_game_start", ""))

    def on_market_open(self, market: MarketHandle) -> None:
        self.calls.append(("on_market_open", market.market_id))

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        self.calls.append(("on_window_open", market.market_id))
        assert market.view.market_status is not MarketStatus.SETTLED
        if round is Round.PREFLOP:
            market.place_order(market.view.live_hands[0].hand, Side.BACK, "2.03", 200)  # off the ladder: refused

    def process_market_book(self, market: MarketHandle) -> None:
        self.calls.append(("process_market_book", market.market_id))
        if market.round is not Round.PREFLOP or market.market_id in self.placed:
            return
        hand = market.view.live_hands[-1]  # "No low" in a Low market while it is live
        if hand.best_to_back is not None:
            market.place_order(hand.hand, Side.BACK, ladder.price(hand.best_to_back), 300)
            self.placed.add(market.market_id)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.calls.append(("process_orders", market.market_id))
        assert {o.market_id for o in orders} == {market.market_id}

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        self.calls.append(("on_order_rejected", market.market_id))
        assert rejection.market_id == market.market_id

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        self.calls.append(("on_window_close", market.market_id))

    def on_settlement(self, market: MarketHandle, settlement: Settlement) -> None:
        self.calls.append(("on_settlement", market.market_id))
        assert settlement.market_id == market.market_id

    def on_game_end(self, game: GameEnd) -> None:
        self.ends.append(game)
        self.calls.append(("on_game_end", ""))


def test_a_strategy_on_every_market_gets_each_hook_with_the_market_concerned() -> None:
    played = play(BothMarkets())
    strategy: BothMarkets = played.strategy
    both = [(f"{CHANNEL}.{n}", f"{CHANNEL}.{n}-low") for n in range(GAMES)]
    assert [s.market_ids for s in strategy.starts] == both
    assert [e.market_ids for e in strategy.ends] == both
    assert [tuple(s.market_id for s in e.settlements) for e in strategy.ends] == both
    every = {m for pair in both for m in pair}
    games: list[list[tuple[str, str]]] = [[]]
    for call in strategy.calls:
        games[-1].append(call)
        if call[0] == "on_game_end":
            games.append([])
    assert games.pop() == [] and len(games) == GAMES
    for (high, low), calls in zip(both, games, strict=True):  # once a game, around each market's hooks
        assert calls[:3] == [("on_game_start", ""), ("on_market_open", high), ("on_market_open", low)]
        ends = [call for call in calls if call[0] in ("on_settlement", "on_game_end")]  # as each market settled
        assert sorted(ends[:-1]) == [("on_settlement", high), ("on_settlement", low)]
        assert ends[-1] == ("on_game_end", "")
    hooks = ("on_market_open", "on_window_open", "process_market_book", "process_orders", "on_order_rejected",
             "on_window_close", "on_settlement")  # fmt: skip
    for hook in hooks:
        assert {m for h, m in strategy.calls if h == hook} == every, hook
    mine = [o for o in played.tables["orders"] if o["account"] == STRATEGY_ACCOUNT]
    assert {o["market_id"] for o in mine if o["error_code"] is None} == every
    assert {o["market_id"] for o in mine if o["error_code"] == "INVALID_ODDS"} == every
    rows = {r["market_id"]: r for r in played.tables["settlements"] if r["account"] == STRATEGY_ACCOUNT}
    for end in strategy.ends:
        assert end.net_profit == sum(rows[m]["net_profit"] for m in end.market_ids)
    # The summary's drawdown is over games (a game's High and Low results together), not over market rows.
    arrow = {name: pa.Table.from_pylist(table, schema=TABLES[name].schema) for name, table in played.tables.items()}
    summary = summarise(arrow, STRATEGY_ACCOUNT, DEFAULT_BALANCE)
    assert summary.net_profit == sum(e.net_profit for e in strategy.ends)
    assert summary.max_drawdown == max_drawdown([e.net_profit for e in strategy.ends])
    assert summary.sessions is not None and summary.sessions.final == (strategy.ends[-1].bankroll.balance,)
    # Game 0's Low market settled at the flop: it sat out the windows after, while the High market played on.
    windows: dict[str, int] = defaultdict(int)
    for hook, market in strategy.calls:
        windows[market] += hook == "on_window_open"
    assert windows[f"{CHANNEL}.0-low"] < windows[f"{CHANNEL}.0"] == len(get_channel(CHANNEL).layout.windows)


def test_a_strategy_names_markets_the_channel_has() -> None:
    class Lows(Strategy):
        markets = (MarketKind.LOW,)

    class Typo(Strategy):
        markets = ("lwo",)  # type: ignore[assignment]  # a misspelt name, on purpose

    assert traded_markets(Strategy(), get_channel(CHANNEL)) == (MarketKind.HIGH,)
    assert traded_markets(BothMarkets(), get_channel(CHANNEL)) == (MarketKind.HIGH, MarketKind.LOW)
    assert traded_markets(BothMarkets(), get_channel("holdem")) == (MarketKind.WIN,)
    with pytest.raises(ValueError, match="channel holdem has a win market only"):
        traded_markets(Lows(), get_channel("holdem"))
    with pytest.raises(ValueError, match="'lwo' is not a market kind; allowed: win, high, low"):
        traded_markets(Typo(), get_channel(CHANNEL))


#: Game 18 of ``omaha-hilo`` from seed 2: one High winner (hand 2), a Low dead heat between hands 2 and 4.
LOW_TIE_SEED, LOW_TIE_GAME = 2, 18


def test_a_dead_heat_on_the_low_market_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary counts the dead heats of every market (one on the Low market here, none on the High), and so
    does the notebook, which also shows how many winners each Low market had."""
    from exchange.tables.outputs import write_tables

    game_setup = GameSetup(channel=CHANNEL, seed=LOW_TIE_SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                           start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(),
                           equities=None)  # fmt: skip
    tables = empty_tables()
    play_session(game_setup, LOW_TIE_GAME, LowBacker(), tables)
    arrow = {name: t.to_arrow() for name, t in tables.items()}
    [game] = arrow["games"].to_pylist()
    assert (game["winners"], game["low_winners"]) == ("2", "2,4"), "the deal this test is about"
    assert judged_low(game) == (2, 4)
    summary = summarise(arrow, STRATEGY_ACCOUNT)
    assert summary.dead_heats == 1 and summary.low_dead_heats == 1
    assert "games           1 (1 dead heat (0 on High, 1 on Low))" in summary.text()  # on main: "1 dead heats"
    write_tables(tmp_path, arrow)
    outputs, _ = run_notebook(tmp_path, monkeypatch)
    assert "dead heats: 1 of 2 markets with a result (50.00%): 0 of 1 High, 1 of 1 Low; 0 voided" in outputs, outputs
