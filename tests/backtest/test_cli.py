"""``exchange-poker backtest`` end to end, in-process."""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from pathlib import Path

import pytest

from exchange.cli import main
from exchange.tables.outputs import TABLES, read_tables
from tests.backtest.backtest_support import ROOT


def test_backtest_command_writes_tables_streams_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a terminal: the progress bar is drawn
    strategy = f"{ROOT / 'scripts' / 'flop_mover.py'}:FlopMover"
    code = main(["backtest", "--strategy", strategy, "--params", '{"stake": 500}', "--games", "3", "--seed", "4",
                 "--out", str(tmp_path)])  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    for line in ("games           3", "bets", "matched volume", "net P&L", "ROI", "commission", "max drawdown"):
        assert line in captured.out
    assert "game" in captured.err  # the progress bar is on stderr
    monkeypatch.undo()  # stderr captured, as a file or a pipe: no bar
    assert main(["backtest", "--strategy", strategy, "--games", "1", "--seed", "4", "--out", str(tmp_path / "quiet"),
                 "--no-streams"]) == 0
    assert capsys.readouterr().err == ""
    tables = read_tables(tmp_path)
    assert set(tables) == set(TABLES) and tables["games"].num_rows == 3
    assert sorted(p.name for p in (tmp_path / "streams").iterdir()) == ["holdem.0", "holdem.1", "holdem.2"]
    settlements = tables["settlements"].to_pylist()
    assert {"market_id", "account", "gross_profit", "commission", "net_profit"} <= set(settlements[0])


def test_the_folder_records_what_made_it_and_the_record_reruns_it(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``backtest.json``: the strategy (and its file's digest), its parameters and every choice the result
    depends on; the same for any number of workers; a run from its values gives the same tables."""
    source = ROOT / "scripts" / "flop_mover.py"
    argv = ["backtest", "--strategy", f"{source}:FlopMover", "--params", '{"stake": 500}', "--sessions", "2",
            "--games-per-session", "2", "--seed", "9", "--balance", "250.50", "--irregularity-rate", "0.5",
            "--latency-ms", "20", "--no-progress", "--no-streams"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    record = json.loads((tmp_path / "a" / "backtest.json").read_text(encoding="utf-8"))
    assert record == {
        "strategy": f"{source}:FlopMover", "params": {"stake": 500},
        "strategy_source_sha256": hashlib.sha256(source.read_bytes()).hexdigest(), "channel": "holdem",
        "games": 4, "sessions": 2, "games_per_session": 2, "seed": 9, "latency_ms": 20, "irregularity_rate": 0.5,
        "balance": 25_050, "record_streams": False, "version": record["version"],
    }
    assert "backtest.json" in capsys.readouterr().out  # named among the files written
    again = ["backtest", "--strategy", record["strategy"], "--params", json.dumps(record["params"]),
             "--sessions", str(record["sessions"]), "--games-per-session", str(record["games_per_session"]),
             "--seed", str(record["seed"]), "--balance", str(record["balance"] / 100),
             "--irregularity-rate", str(record["irregularity_rate"]), "--latency-ms", str(record["latency_ms"]),
             "--no-progress", "--no-streams", "--workers", "2", "--out", str(tmp_path / "b")]
    assert main(again) == 0
    for name in (*(spec.file_name for spec in TABLES.values()), "backtest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_module_references_and_channels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["backtest", "--strategy", "exchange.backtest.strategy:Strategy", "--channel", "omaha",
                 "--games", "1", "--seed", "2", "--out", str(tmp_path), "--no-progress", "--no-streams"])  # fmt: skip
    assert code == 0
    assert capsys.readouterr().err == ""
    games = read_tables(tmp_path)["games"].to_pylist()
    assert games[0]["market_id"] == "omaha.0" and len(games[0]["hand_1"].split()) == 4
    assert not (tmp_path / "streams").exists()


def test_a_missing_example_strategy_says_where_it_was_looked_for_and_where_the_examples_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's examples run from a clone's root; run elsewhere, the refusal only said the file did not exist."""
    monkeypatch.chdir(tmp_path)  # a folder with no scripts/: as where the package is only installed
    code = main(["backtest", "--strategy", "scripts/market_maker.py:MarketMaker", "--games", "1", "--seed", "1",
                 "--out", "out"])
    assert code == 2
    assert capsys.readouterr().err == (
        f"exchange-poker: error: strategy file 'scripts/market_maker.py' does not exist (looked for "
        f"{tmp_path / 'scripts' / 'market_maker.py'}); the example strategies of scripts/ come with a clone of the "
        "repository, not with the installed package: run from the clone's root\n")


@pytest.mark.parametrize(
    ("strategy", "params", "message"),
    [
        ("nowhere.py:Nope", "{}", "does not exist"),
        ("exchange.backtest.strategy:Missing", "{}", "has no class 'Missing'"),
        ("exchange.backtest.strategy:Strategy", "[1]", "JSON object"),
        ("exchange.backtest.strategy:Strategy", "{bad", "not valid JSON"),
        ("exchange.backtest.strategy:Strategy", '{"latency_ms": -5}', "latency"),
        ("exchange.backtest.strategy:Strategy", '{"latency_ms": 50.5}', "latency must be a whole number of ms"),
        ("exchange.backtest.strategy:Strategy", '{"latency_ms": true}', "latency must be a whole number of ms"),
        ("no_colon", "{}", "module:Class"),
    ],
)
def test_bad_strategies_fail_fast_with_a_reason(
    strategy: str, params: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["backtest", "--strategy", strategy, "--params", params, "--games", "1", "--seed", "1",
                 "--out", str(tmp_path)])  # fmt: skip
    assert code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("strategy", "params", "message"),
    [
        ("market_maker.py:MarketMaker", '{"edge_ticks": 1.5}', "edge_ticks must be a whole number of ticks"),
        ("market_maker.py:MarketMaker", '{"stake": 2.5}', "stake must be a whole number of pennies"),
        ("market_maker.py:MarketMaker", '{"stake": "300"}', "stake must be a whole number of pennies"),
        ("flop_mover.py:FlopMover", '{"stake": 12.5}', "stake must be a whole number of pennies"),
        ("value_backer.py:ValueBacker", '{"stake": 0}', "stake must be a whole number of pennies"),
        # "no" is text, true to Python: it would let every drifter run, the opposite of what was asked
        ("flop_mover.py:FlopMover", '{"let_drifters_run": "no"}', "let_drifters_run must be true or false, not 'no'"),
        ("market_maker.py:MarketMaker", '{"skip_deal": "false"}', "skip_deal must be true or false, not 'false'"),
        ("fixed_fraction.py:FixedFraction", '{"end_session": 0}', "end_session must be true or false, not 0"),
        ("value_backer.py:ValueBacker", '{"name": 5}', "name must be text, not 5"),
    ],
)
def test_the_example_strategies_refuse_parameters_that_cannot_work(
    strategy: str, params: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before any game: not a crash in the first window (a fractional tick), nor a thousand games of refused
    orders (a stake in currency units or as text)."""
    code = main(["backtest", "--strategy", str(ROOT / "scripts" / strategy), "--params", params, "--games", "1",
                 "--seed", "1", "--out", str(tmp_path), "--no-progress"])  # fmt: skip
    assert code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_a_class_that_is_not_a_strategy_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["backtest", "--strategy", "exchange.backtest.workers:InlineExecutor", "--games", "1", "--seed", "1",
                 "--out", str(tmp_path)])  # fmt: skip
    assert code == 2
    assert "not a subclass" in capsys.readouterr().err


UNINITIALISED = """
from exchange.backtest.strategy import Strategy

class Mine(Strategy):
    def __init__(self, stake=200):
        self.stake = stake  # no super().__init__(): no latency, no name
"""

LOW_ONLY = """
from exchange.backtest.strategy import Strategy
from exchange.game.layouts import MarketKind

class LowOnly(Strategy):
    markets = (MarketKind.LOW,)

class Muddled(Strategy):
    markets = "low"
"""


@pytest.mark.parametrize(
    ("source", "name", "channel", "message"),
    [
        # not an AttributeError about ``name`` from deep inside the seating: what to do
        (UNINITIALISED, "Mine", "holdem", "strategy Mine was not set up as a Strategy (it has no latency_ms): "
                                          "its __init__ must call super().__init__(**kwargs)"),
        # as the README says, a ValueError: from the command, not a worker's traceback from the first game
        (LOW_ONLY, "LowOnly", "holdem", "strategy LowOnly trades low markets; channel holdem has a win market only: "
                                        "set markets = None (the main market) or ALL_MARKETS"),
        (LOW_ONLY, "Muddled", "omaha-hilo",
         "strategy Muddled: markets is a tuple of market kinds (win, high, low), not the text 'low'"),
        # as a module that cannot be imported already is: the file and what is wrong, not the interpreter's traceback
        ("from exchange.backtest.strategy import Strategy\nclass Mine(Strategy)\n    pass\n", "Mine", "holdem",
         "strategy '{path}:Mine': expected ':' (mine.py, line 2)"),
        ("import no_such_module_here\n", "Mine", "holdem",
         "strategy '{path}:Mine': No module named 'no_such_module_here'"),
    ],
)
def test_a_strategy_that_cannot_run_is_refused_on_one_line_before_any_game(
    source: str, name: str, channel: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(source)
    out = tmp_path / "out"
    code = main(["backtest", "--strategy", f"{path}:{name}", "--channel", channel, "--games", "2", "--seed", "1",
                 "--workers", "2", "--out", str(out), "--no-progress"])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == f"exchange-poker: error: {message.format(path=path)}\n"
    assert not out.exists()


def _readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index("## Backtesting") :]


def test_the_readme_strategy_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    section = _readme_section()
    code = section[section.index("```python\n") + len("```python\n") :]
    (tmp_path / "fav.py").write_text(code[: code.index("```")], encoding="utf-8")
    out = tmp_path / "out"
    assert main(["backtest", "--strategy", f"{tmp_path / 'fav.py'}:BackTheFavourite", "--games", "2", "--seed", "3",
                 "--out", str(out), "--no-progress", "--no-streams"]) == 0  # fmt: skip
    assert "bets            2 placed" in capsys.readouterr().out


def test_the_readme_low_market_strategy_trades_the_low_market(tmp_path: Path) -> None:
    from exchange.tables.outputs import read_tables

    section = _readme_section()
    section = section[section.index("**The Low market of a Hi/Lo game.**") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    (tmp_path / "low.py").write_text(code[: code.index("```")], encoding="utf-8")
    out = tmp_path / "out"
    assert main(["backtest", "--strategy", f"{tmp_path / 'low.py'}:BackNoLow", "--channel", "omaha-hilo",
                 "--games", "2", "--seed", "3", "--out", str(out), "--no-progress", "--no-streams"]) == 0  # fmt: skip
    orders = read_tables(out, ["orders"])["orders"].to_pylist()
    mine = [(o["market_id"], o["selection_id"]) for o in orders if o["account"] == "strategy"]
    assert mine == [("omaha-hilo.0-low", 5), ("omaha-hilo.1-low", 5)]


def test_the_readme_example_commands_name_real_strategies() -> None:
    from exchange.backtest.loading import StrategySpec
    from exchange.backtest.strategy import Strategy

    commands = [line for line in _readme_section().splitlines() if line.startswith("exchange-poker backtest")]
    assert len(commands) == 6  # the two runs of the comparison's example among them
    for line in commands:
        words = shlex.split(line)
        reference = words[words.index("--strategy") + 1]
        path, name = reference.split(":")
        params = words[words.index("--params") + 1] if "--params" in words else "{}"
        assert isinstance(StrategySpec.parse(f"{ROOT / path}:{name}", params).build(), Strategy)


def test_scheduler_option_runs_on_a_dask_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("distributed")
    strategy = f"{ROOT / 'scripts' / 'flop_mover.py'}:FlopMover"
    args = ["backtest", "--strategy", strategy, "--games", "3", "--seed", "4", "--no-progress"]
    cluster_options = {"n_workers": 1, "threads_per_worker": 2, "processes": False, "dashboard_address": None}
    with distributed.LocalCluster(**cluster_options) as cluster:
        assert main([*args, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    capsys.readouterr()
    dask, local = read_tables(tmp_path / "dask"), read_tables(tmp_path / "local")
    assert all(dask[name].equals(local[name]) for name in TABLES)


def test_a_scheduler_that_cannot_be_reached_is_reported_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing listens on 127.0.0.1:1: the command says so and exits 2 (no traceback), before any game."""
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    strategy = f"{ROOT / 'scripts' / 'flop_mover.py'}:FlopMover"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code = main(["backtest", "--strategy", strategy, "--games", "1", "--seed", "4", "--no-progress",
                     "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("exchange-poker: error: cannot use the Dask scheduler tcp://127.0.0.1:1: ")
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
