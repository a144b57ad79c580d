"""Backtest sessions: one strategy instance and one account over consecutive games, the bankroll carried exactly.

The session backtest (``session_run``) is three sessions of five games of
``scripts/fixed_fraction.py`` staking a tenth of its bankroll from 100.00 and
stopping 25 % below its peak. What the tests hold it to: the same files on any
number of workers, balances that move by each game's net P&L to the penny (the
exchange's balances against the settlement events' P&L), the strategy seeing
the exchange's own figures, stakes that follow the bankroll, the drawdown stop,
and an account out of money refused ``INSUFFICIENT_FUNDS`` while its session
plays on.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from exchange.agents.host import seat
from exchange.agents.house import MAKER_ACCOUNT, MarketMaker
from exchange.backtest.agent import attach_strategy
from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import EPOCH_MS, BacktestConfig, run_backtest
from exchange.backtest.strategy import GameEnd, GameStart, MarketHandle, Strategy
from exchange.backtest.workers import DaskExecutor, InlineExecutor, ProcessExecutor
from exchange.backtest.world import HouseSpec, build_world
from exchange.clock import VirtualClock
from exchange.core import ladder
from exchange.core.exchange import Exchange
from exchange.core.side import Side
from exchange.game.channel import Channel
from exchange.game.channels import get_channel
from exchange.game.deal import seeded_decks
from exchange.game.rounds import Round
from exchange.tables.outputs import empty_tables
from tests.backtest.backtest_support import (
    GAMES_PER_SESSION,
    ROOT,
    SEED,
    SESSION_BALANCE,
    Run,
    assert_same_outputs,
    session_config,
)

FRACTION, MAX_DRAWDOWN = Fraction("0.1"), Fraction("0.25")


def by_session(rows: list[dict[str, Any]], account: str | None = None) -> dict[int, list[dict[str, Any]]]:
    """Rows grouped by session, each session's in game order (``account``: only that account's)."""
    grouped: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r["game_index"]):
        if account is None or row["account"] == account:
            grouped[row["session"]].append(row)
    return dict(grouped)


def starting_balances() -> dict[str, int]:
    house = HouseSpec()
    return {"strategy": SESSION_BALANCE, MAKER_ACCOUNT: house.maker_balance, "house-noise-1": house.noise_balance,
            "HOUSE": 0}  # fmt: skip


def test_sessions_write_the_same_files_on_two_worker_processes(session_run: Run, tmp_path: Path) -> None:
    with ProcessExecutor(2) as executor:
        result = run_backtest(session_run.config, executor, tmp_path, chunk_size=1)
    assert result.summary == session_run.result.summary
    assert result.sessions == session_run.result.sessions
    assert_same_outputs(session_run.out, tmp_path)


def test_sessions_write_the_same_files_on_a_dask_cluster(session_run: Run, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
        DaskExecutor(client) as executor,
    ):
        result = run_backtest(session_run.config, executor, tmp_path, chunk_size=2)
    assert result.sessions == session_run.result.sessions
    assert_same_outputs(session_run.out, tmp_path)


def test_a_session_is_consecutive_games_on_one_clock(session_run: Run) -> None:
    sessions = by_session(session_run.result.tables["games"].to_pylist())
    assert sorted(sessions) == list(range(session_run.config.sessions))
    game_ms = get_channel("holdem").game_ms
    for session, games in sessions.items():
        first = session * GAMES_PER_SESSION
        assert [g["game_index"] for g in games] == list(range(first, first + len(games)))
        assert [g["session_game"] for g in games] == list(range(len(games)))
        assert [g["market_id"] for g in games] == [f"holdem.{g['game_index']}" for g in games]
        assert games[0]["start_ms"] == EPOCH_MS + first * game_ms
        starts = [g["start_ms"] for g in games]
        # the next game starts one playing window after the last ended: at most a game's length later
        assert all(earlier < later <= earlier + game_ms for earlier, later in itertools.pairwise(starts))
    assert [o.games for o in session_run.result.sessions] == [len(sessions[s]) for s in sorted(sessions)]


def test_deals_follow_the_game_index_whatever_the_session_length(small_run: Run, session_run: Run) -> None:
    one_game = {g["game_index"]: g for g in small_run.result.tables["games"].to_pylist()}
    shared = [g for g in session_run.result.tables["games"].to_pylist() if g["game_index"] in one_game]
    assert len(shared) >= 5
    for game in shared:
        alone = one_game[game["game_index"]]
        assert [game[k] for k in ("hand_1", "hand_2", "hand_3", "hand_4", "board")] == [
            alone[k] for k in ("hand_1", "hand_2", "hand_3", "hand_4", "board")
        ]
        assert alone["session"] == alone["game_index"] and alone["session_game"] == 0


def test_the_bankroll_is_carried_to_the_penny(session_run: Run) -> None:
    """Balance after game n = balance after game n − 1 + the game's net P&L (the house: + what it received)."""
    rows = session_run.result.tables["settlements"].to_pylist()
    starting = starting_balances()
    moved = 0
    for session, games in by_session(rows).items():
        balance = dict(starting)
        for row in games:
            account = row["account"]
            received = row["net_profit"] + row["commission_received"] + row["rounding_received"]
            assert row["balance_after"] == balance[account] + received, (session, row)
            balance[account] = row["balance_after"]
            moved += row["account"] == "strategy" and row["net_profit"] != 0
        assert sum(balance.values()) == sum(starting.values()), f"session {session} created or lost money"
    assert moved >= 10, "the strategy's bankroll hardly moved: nothing is carried"


def test_the_example_stakes_a_fraction_of_its_bankroll(session_run: Run) -> None:
    tables = session_run.result.tables
    balance_before: dict[int, int] = {}
    for games in by_session(tables["settlements"].to_pylist(), "strategy").values():
        balance = SESSION_BALANCE
        for row in games:
            balance_before[row["game_index"]] = balance
            balance = row["balance_after"]
    stakes = {o["game_index"]: o["size"] for o in tables["orders"].to_pylist()
              if o["account"] == "strategy" and o["status"] != "REJECTED"}  # fmt: skip
    assert sorted(stakes) == sorted(balance_before), "one back a game"
    for game, stake in stakes.items():
        assert stake == math.floor(FRACTION * balance_before[game]), game
    assert len(set(stakes.values())) > len(stakes) // 2, "the stake did not follow the bankroll"


def test_the_drawdown_limit_ends_a_session_after_the_game_that_breached_it(session_run: Run) -> None:
    rows = session_run.result.tables["settlements"].to_pylist()
    outcomes = {o.session: o for o in session_run.result.sessions}
    ended = 0
    for session, games in by_session(rows, "strategy").items():
        peak, breached_at = SESSION_BALANCE, None
        for row in games:
            peak = max(peak, row["balance_after"])
            if breached_at is None and row["balance_after"] < peak * (1 - MAX_DRAWDOWN):
                breached_at = row["session_game"]
        if breached_at is None:
            assert len(games) == GAMES_PER_SESSION and outcomes[session].ended_by is None
        else:
            ended += 1
            assert len(games) == breached_at + 1 < GAMES_PER_SESSION, "games were dealt after the limit"
            assert (outcomes[session].ended_by or "").startswith("drawdown limit")
    assert 0 < ended < len(outcomes), "the seed must show a session that ends early and one that does not"
    assert session_run.result.summary.sessions is not None


class Watcher(Strategy):
    """Backs the pre-flop favourite for 3.00 each game; records the bankroll it is shown and the exchange's figure."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.exchange: Exchange | None = None
        self.starts: list[GameStart] = []
        self.ends: list[tuple[GameEnd, int]] = []
        self.seen: list[tuple[int, int, int]] = []
        self._backed = False

    def on_game_start(self, game: GameStart) -> None:
        self.starts.append(game)
        self._backed = False

    def process_market_book(self, market: MarketHandle) -> None:
        bankroll = market.bankroll
        self.seen.append((bankroll.balance, bankroll.starting_balance, bankroll.net_profit))
        live = [h for h in market.view.live_hands if h.best_to_back is not None]
        if market.round is Round.PREFLOP and live and not self._backed:
            favourite = max(live, key=lambda h: (h.equity, -h.hand))
            market.place_order(favourite.hand, Side.BACK, ladder.price(favourite.best_to_back or 0), 300)
            self._backed = True

    def on_game_end(self, game: GameEnd) -> None:
        assert self.exchange is not None
        funds = self.exchange.funds("strategy")
        assert funds is not None
        self.ends.append((game, funds.balance))


def test_the_strategy_sees_the_bankroll_the_exchange_holds() -> None:
    watcher = Watcher()
    world = build_world(session_config().setup(), 1, watcher)
    watcher.exchange = world.exchange
    world.run()
    tables = empty_tables()
    world.write(tables)
    rows = [r for r in tables["settlements"].to_arrow().to_pylist() if r["account"] == "strategy"]
    assert len(watcher.starts) == len(watcher.ends) == len(rows) == GAMES_PER_SESSION
    before = SESSION_BALANCE
    for start, (end, exchange_balance), row in zip(watcher.starts, watcher.ends, rows, strict=True):
        assert start.game_number == end.game_number == row["game_index"]
        assert start.market_ids == end.market_ids == (row["market_id"],)
        assert (start.bankroll.balance, start.bankroll.exposure, start.bankroll.available) == (before, 0, before)
        assert end.bankroll.balance == exchange_balance == row["balance_after"]
        assert end.net_profit == row["net_profit"] == end.bankroll.balance - before
        assert end.bankroll.net_profit == end.bankroll.balance - SESSION_BALANCE
        assert end.bankroll.games == row["session_game"] + 1
        assert [s.market_id for s in end.settlements] == [row["market_id"]]
        before = end.bankroll.balance
    assert len({r["net_profit"] for r in rows}) > 1, "the bankroll did not move"
    assert all(balance == starting + net for balance, starting, net in watcher.seen)
    assert {starting for _, starting, _ in watcher.seen} == {SESSION_BALANCE}


ALL_IN = """
from exchange.backtest.strategy import GameStart, MarketHandle, Strategy
from exchange.core import ladder
from exchange.core.side import Side
from exchange.game.rounds import Round


class SixPounds(Strategy):
    \"\"\"Backs the pre-flop favourite for 6.00 every game, whatever is left in the account.\"\"\"

    backed = False

    def on_game_start(self, game: GameStart) -> None:
        self.backed = False

    def process_market_book(self, market: MarketHandle) -> None:
        live = [h for h in market.view.live_hands if h.best_to_back is not None]
        if market.round is Round.PREFLOP and live and not self.backed:
            favourite = max(live, key=lambda h: (h.equity, -h.hand))
            market.place_order(favourite.hand, Side.BACK, ladder.price(favourite.best_to_back), 600)
            self.backed = True
"""


def test_an_account_out_of_money_is_refused_and_its_session_plays_on(tmp_path: Path) -> None:
    (tmp_path / "six.py").write_text(ALL_IN, encoding="utf-8")
    config = BacktestConfig(strategy=StrategySpec.parse(f"{tmp_path / 'six.py'}:SixPounds"), games=6,
                            games_per_session=6, seed=SEED, balance=1_000, record_streams=False)  # fmt: skip
    with InlineExecutor() as executor:
        result = run_backtest(config, executor, None)
    rows = by_session(result.tables["settlements"].to_pylist(), "strategy")[0]
    assert len(rows) == 6, "the session did not play on"
    orders = [o for o in result.tables["orders"].to_pylist() if o["account"] == "strategy"]
    broke = next((r["session_game"] for r in rows if r["balance_after"] < 600), None)
    assert broke is not None and broke < 5, "the seed must leave the account short of a 6.00 stake"
    for row in rows[broke + 1 :]:
        mine = [o for o in orders if o["game_index"] == row["game_index"]]
        assert [(o["status"], o["error_code"]) for o in mine] == [("REJECTED", "INSUFFICIENT_FUNDS")], row
        assert (row["bets"], row["net_profit"], row["balance_after"]) == (0, 0, rows[broke]["balance_after"])
    assert len({r["game_index"] for r in rows}) == 6


class Quitter(Strategy):
    """Ends its session as its first game starts; records every hook it is woken for."""

    def __init__(self) -> None:
        super().__init__(latency_ms=0)
        self.calls: list[tuple[str, int]] = []

    def on_game_start(self, game: GameStart) -> None:
        self.calls.append(("start", game.game_number))
        self.end_session("one game is enough")

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        self.calls.append(("window", market.view.game_number))

    def on_game_end(self, game: GameEnd) -> None:
        self.calls.append(("end", game.game_number))


def test_on_a_live_channel_a_strategy_that_ends_its_session_is_woken_no_more() -> None:
    config = get_channel("holdem")
    exchange = Exchange()
    clock = VirtualClock()
    channel = Channel(config, clock, exchange, decks=seeded_decks(SEED))
    channel.open_account(MAKER_ACCOUNT, 10_000_000)
    seat(channel, MarketMaker(), MAKER_ACCOUNT)
    channel.open_account("quitter", 10_000)
    quitter = Quitter()
    agent = attach_strategy(channel, quitter, "quitter", rng=random.Random(1))
    channel.start(games=3)
    clock.run()
    assert channel.games_finished == 3, "the channel plays on for everyone else"
    assert agent.retired
    assert quitter.calls[0] == ("start", 0) and quitter.calls[-1] == ("end", 0)
    assert {game for _, game in quitter.calls} == {0}
    assert ("window", 0) in quitter.calls


def test_the_command_runs_sessions_and_prints_their_bankrolls(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from exchange.cli import main
    from exchange.tables.outputs import read_tables

    code = main(["backtest", "--strategy", f"{ROOT / 'scripts' / 'fixed_fraction.py'}:FixedFraction",
                 "--sessions", "2", "--games-per-session", "2", "--balance", "50", "--seed", "3",
                 "--out", str(tmp_path), "--no-progress", "--no-streams"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "sessions        2, each from 50.00" in out and "final bankroll" in out and "ruined" in out
    games = read_tables(tmp_path, ["games"])["games"].to_pylist()
    assert [(g["session"], g["session_game"]) for g in games] == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_sessions_of_one_game_print_their_bankrolls_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--sessions 3 --games-per-session 1`` asks for sessions: the summary has their figures, as for longer ones
    (``--games 3``, the same games as one-game worlds, has none)."""
    from exchange.cli import main

    strategy = f"{ROOT / 'scripts' / 'fixed_fraction.py'}:FixedFraction"
    common = ["--params", '{"fraction": "0.1"}', "--balance", "50", "--seed", "3", "--no-progress", "--no-streams"]
    code = main(["backtest", "--strategy", strategy, "--sessions", "3", "--games-per-session", "1", *common,
                 "--out", str(tmp_path / "sessions")])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "sessions        3, each from 50.00" in out and "final bankroll" in out and "ruined" in out, out
    # the pooled drawdown (every game's P&L in a row) is told from the sessions' own, which start afresh
    assert "(of the P&L of every game in a row; each session's: below)" in out, out
    assert main(["backtest", "--strategy", strategy, "--games", "3", *common, "--out", str(tmp_path / "games")]) == 0
    out = capsys.readouterr().out
    assert "final bankroll" not in out and "every game in a row" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "4", "--sessions", "2", "--games-per-session", "2"], "not both"),
        (["--sessions", "2"], "go together"),
        (["--games-per-session", "2"], "go together"),
        ([], "give --games N"),
    ],
)
def test_the_command_refuses_a_muddle_of_games_and_sessions(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from exchange.cli import main

    code = main(["backtest", "--strategy", "exchange.backtest.strategy:Strategy", "--seed", "1",
                 "--out", str(tmp_path), *args])  # fmt: skip
    assert code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_summary_says_how_many_sessions_their_strategy_ended_early_and_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Sessions that ``end_session`` cut short are told apart from those that played every game: the games
    table holds fewer games for them, and the summary counts them with the reasons the strategy gave."""
    from exchange.cli import main
    from exchange.tables.outputs import read_tables

    code = main(["backtest", "--strategy", f"{ROOT / 'scripts' / 'fixed_fraction.py'}:FixedFraction",
                 "--params", '{"fraction": "0.1", "max_drawdown": "0.25"}', "--sessions", "4",
                 "--games-per-session", "6", "--balance", "50", "--seed", "3", "--out", str(tmp_path),
                 "--no-progress", "--no-streams"])  # fmt: skip
    assert code == 0
    games = read_tables(tmp_path, ["games"])["games"].to_pylist()
    played = Counter(g["session"] for g in games)
    short = sum(n < 6 for n in played.values())
    assert 0 < short < 4, played  # the seed must end some sessions early and not others
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("ended early")]
    assert line.startswith(f"ended early     {short} of 4 sessions (end_session): '"), line
    given = re.findall(r"'drawdown limit: the balance [^']+' (\d+)", line)  # each reason, how many gave it
    assert given and sum(map(int, given)) == short, line
