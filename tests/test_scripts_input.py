"""The measurement scripts refuse bad input on one line, status 2, before they build or start anything."""

from __future__ import annotations

import importlib.util
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


def test_soak_restarts_only_on_a_missing_database_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "kept" / "soak.db"
    missing.parent.mkdir()
    result = run_script("soak.py", "--restarts-only", str(missing))
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == f"soak.py: error: argument --restarts-only: no database at {missing}"
    assert "Traceback" not in result.stderr
    assert list(missing.parent.iterdir()) == []  # sqlite3.connect made an empty soak.db there


MEASUREMENTS = ("bench_cards.py", "bench_engine.py", "bench_exchange.py", "bench_game.py", "bench_journal.py",
                "bench_rankings.py", "bench_snapshot.py", "bench_statement.py", "bench_table.py", "core_memory.py",
                "count_instructions.py", "load_heavy_reads.py", "soak.py")


@pytest.mark.parametrize("name", MEASUREMENTS)
def test_a_measurement_imports_the_checkout_it_is_run_from(name: str, tmp_path: Path) -> None:
    """Run from anywhere, without PYTHONPATH, a script measures its own checkout, not an installed copy."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-v", str(ROOT / "scripts" / name), "--help"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    package = r"(/\S*?)/(?:engine|exchange)/(?:__pycache__/)?__init__"
    roots = {Path(found) for found in re.findall(package, result.stderr)}
    assert roots == {ROOT}, roots  # the engine and the exchange it measures are the checkout's


@pytest.mark.parametrize(
    ("name", "argv", "reason"),
    [
        ("bench_cards.py", ["--repeats", "0"], "argument --repeats: must be a whole number from 1, not 0"),
        ("bench_engine.py", ["--peer-repeats", "0"], "argument --peer-repeats: must be a whole number from 1, not 0"),
        ("bench_exchange.py", ["--ops", "0"], "argument --ops: must be a whole number from 1, not 0"),
        ("bench_game.py", ["--games", "0"], "argument --games: must be a whole number from 1, not 0"),
        ("bench_rankings.py", ["--hands", "-5"], "argument --hands: must be a whole number from 1, not -5"),
        ("bench_statement.py", ["--repeats", "0"], "argument --repeats: must be a whole number from 1, not 0"),
        ("bench_journal.py", ["--markets", "0"], "argument --markets: must be a whole number from 1, not 0"),
        ("core_memory.py", ["--marks", "500,many"], "argument --marks: must be whole numbers from 1, comma-separated"),
        ("count_instructions.py", ["--small", "0"], "argument --small: must be a whole number from 1, not 0"),
        ("count_instructions.py", ["--small", "500", "--large", "500"],
         "argument --large: must be more than --small (500), not 500"),
        ("load_heavy_reads.py", ["--seconds", "60"], "argument --seconds: must be a number from 1 to 30, not 60"),
        ("load_heavy_reads.py", ["--repeats", "0"], "argument --repeats: must be a whole number from 1 to 10, not 0"),
        ("load_heavy_reads.py", ["--repeats", "11"], "argument --repeats: must be a whole number from 1 to 10, not 11"),
        ("load_heavy_reads.py", ["--clients", "0"], "argument --clients: must be a whole number from 1, not 0"),
        ("soak.py", ["--games", "0"], "argument --games: must be a whole number from 1, not 0"),
        ("soak.py", ["--marks", "1000,x"], "argument --marks: must be whole numbers from 1, comma-separated"),
        ("soak.py", ["--window-seconds", "0"], "argument --window-seconds: must be a number of seconds from 0.001"),
        ("soak.py", ["--time-limit", "-1"], "argument --time-limit: must be a number of seconds from 0.001"),
        ("soak.py", ["--repeats", "0"], "argument --repeats: must be a whole number from 1, not 0"),
        ("bench_snapshot.py", ["--markets", "0"], "argument --markets: must be a whole number from 1, not 0"),
        ("bench_snapshot.py", ["--repeats", "-1"], "argument --repeats: must be a whole number from 1, not -1"),
        ("bench_table.py", ["--hands", "0"], "argument --hands: must be a whole number from 1, not 0"),
        ("bench_table.py", ["--repeats", "0"], "argument --repeats: must be a whole number from 1, not 0"),
        ("bench_table.py", ["--seats", "1"], "argument --seats: must be a whole number of seats from 2, not 1"),
        ("bench_table.py", ["--games", "holdem", "nosuch"], "argument --games: invalid choice: 'nosuch'"),
        ("bench_backtest.py", ["--games", "0"], "argument --games: must be a whole number from 1, not 0"),
        ("bench_backtest.py", ["--games", "-5"], "argument --games: must be a whole number from 1, not -5"),
        ("bench_backtest.py", ["--repeats", "0"], "argument --repeats: must be a whole number from 1, not 0"),
        ("bench_backtest.py", ["--workers", "0"], "argument --workers: must be a whole number from 1, not 0"),
        ("bench_backtest.py", ["--workers", "1", "-1"], "argument --workers: must be a whole number from 1, not -1"),
        ("bench_backtest.py", ["--sessions", "0"], "argument --sessions: must be a whole number from 1, not 0"),
        ("bench_backtest.py", ["--sessions", "-2"], "argument --sessions: must be a whole number from 1, not -2"),
        ("bench_backtest.py", ["--games", "4", "--sessions", "3"],
         "argument --sessions: must divide --games (4), not 3"),
        ("bench_backtest.py", ["--strategy", "no/such.py:Maker"], "strategy file 'no/such.py' does not exist"),
        ("bench_backtest.py", ["--strategy", f"{ROOT}/scripts/market_maker.py:NoSuchClass"],
         f"{ROOT}/scripts/market_maker.py has no class 'NoSuchClass' (its classes: MarketMaker)"),
        ("bench_backtest.py", ["--params", "{bad"], "--params is not valid JSON"),
        ("count_instructions.py", ["--selections", "1"],
         "argument --selections: must be a whole number from 2 to 8, not 1"),
        ("count_instructions.py", ["--selections", "9"],
         "argument --selections: must be a whole number from 2 to 8, not 9"),
        ("bench_recording.py", ["--dir", f"{ROOT}/no-such-folder"],
         f"argument --dir: no folder at {ROOT}/no-such-folder: give a folder that is there"),
        ("bench_recording.py", ["--dir", __file__],
         f"argument --dir: {__file__} is a file, not a folder: give a folder that is there"),
        ("load_http.py", ["--clients", "-5"], "argument --clients: must be a whole number from 1 to 1024, not -5"),
        ("load_http.py", ["--seconds", "0"], "argument --seconds: must be a number from 1 to 60, not 0"),
        ("load_http.py", ["--repeats", "-1"], "argument --repeats: must be a whole number from 1 to 20, not -1"),
        ("load_http.py", ["--max-requests", "0"],
         "argument --max-requests: must be a whole number from 1 to 2000000, not 0"),
        ("core_memory.py", ["--markets", "100", "--marks", "50,500,3000"],
         "argument --marks: must be from 1 to --markets (100), not 500,3000"),
        ("ended_memory.py", ["--games", "1", "--keep", "5"], "argument --games: must be more than --keep (5), not 1"),
        ("ended_memory.py", ["--games", "5", "--keep", "5"], "argument --games: must be more than --keep (5), not 5"),
    ],
)
def test_a_count_of_nothing_is_refused_before_measuring(name: str, argv: list[str], reason: str) -> None:
    result = run_script(name, *argv)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"{name}: error: {reason}")


def _script_module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_script_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_load_scripts_run_the_checkouts_server_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """load_http.py and load_heavy_reads.py (which starts the server with load_http's helpers) run the command line
    of their own checkout: run from a folder that holds another ``exchange`` package, they must not run that one."""
    decoy = tmp_path / "elsewhere" / "exchange" / "cli"
    decoy.mkdir(parents=True)
    for package in (decoy.parent, decoy):
        (package / "__init__.py").write_text("")
    (decoy / "__main__.py").write_text("import sys\nsys.exit('the exchange package of the current folder ran')\n")
    monkeypatch.chdir(decoy.parent.parent)
    load_http = _script_module("load_http")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    db = str(tmp_path / "load.db")
    load_http.add_load_account(db, env)  # on main: CalledProcessError, the decoy's exit
    log = tmp_path / "server.log"
    port = load_http.free_port()
    with log.open("wb") as out:
        server = load_http.start_exchange(db, port, env, out, None)
        try:
            load_http.wait_up(f"http://127.0.0.1:{port}/openapi.json", server, log)
            assert load_http.login(f"http://127.0.0.1:{port}", "load", "load")
        finally:
            load_http.stop(server)


def test_the_load_scripts_first_orders_find_their_market_open(tmp_path: Path) -> None:
    """The server answers HTTP while it still warms the poker engine, before its first game creates the market the
    load scripts bet on: a phase started then counted every order as a failure (INVALID_MARKET_ID). The scripts wait
    for that market to open; the orders sent next all succeed."""
    load_http = _script_module("load_http")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    db = str(tmp_path / "load.db")
    load_http.add_load_account(db, env)
    log = tmp_path / "server.log"
    port = load_http.free_port()
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        server = load_http.start_exchange(db, port, env, out, None)
        try:
            load_http.wait_up(f"{base}/openapi.json", server, log)
            headers = {"X-Application": "load", "X-Authentication": load_http.login(base, "load", "load")}
            load_http.wait_open(base, headers, server, log)
            load = load_http.run_python(port, headers, 1, 30.0, 3, None)  # three orders, one connection
        finally:
            load_http.stop(server)
    assert (load.requests, load.failures) == (3, 0)


def test_bench_cards_measures_every_workload_at_its_smallest_counts() -> None:
    """``--loops 1`` is accepted, so low_ranks (run a tenth as many loops) still runs once and prints its row."""
    result = run_script("bench_cards.py", "--loops", "1", "--repeats", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = result.stdout.splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["Card.rank", "Card.suit", "low_ranks"]


def test_bench_backtest_times_its_checkouts_market_maker_from_any_folder(tmp_path: Path) -> None:
    """The default strategy is the checkout's scripts/market_maker.py, not one relative to the current folder."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_backtest.py"), "--games", "2",
                             "--repeats", "1", "--workers", "1", "--no-streams"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "scripts/market_maker.py:MarketMaker" in result.stdout
    assert [line.split()[:2] for line in result.stdout.splitlines() if line.startswith("worlds")] == [["worlds", "1"]]


def test_count_instructions_without_valgrind_says_it_is_needed_before_counting(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # a PATH with no valgrind on it
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "count_instructions.py")], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith(
        "count_instructions.py: error: valgrind is needed to count instructions and is not on the PATH")


def test_soak_restarts_only_on_a_file_that_is_no_database_is_refused_on_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    result = run_script("soak.py", "--restarts-only", str(text))
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith(
        f"soak.py: error: argument --restarts-only: {text} is not a SQLite database")
    assert list(tmp_path.iterdir()) == [text]


def test_soak_names_a_restart_that_passed_its_snapshots_over_a_full_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database whose snapshots were taken with another exchange config (the run's --keep-closed-markets) restarts
    by a full replay: the restart's row says so, as its recovery line does, not "snapshot + tail"."""
    soak = _script_module("soak")
    passed_over = ("full replay of 5749 journal records (seq 1-5749) (no snapshot); snapshots passed over (damaged, "
                   "from an older version or other settings): snapshot at seq 5707: it was taken with another "
                   "exchange config")

    class Server:
        def __init__(self, db: Path, args: list[str], log: Path) -> None:
            self.db = db

        def start(self, timeout_s: float) -> float:
            return 0.5

        def recovery_line(self) -> str:
            return passed_over if "restart" in self.db.name else "full replay of 0 journal records (no snapshot)"

        def stop(self) -> None:
            pass

    monkeypatch.setattr(soak, "Server", Server)
    db = tmp_path / "kept.db"
    conn = sqlite3.connect(db)
    conn.executescript("CREATE TABLE journal (seq INTEGER); CREATE TABLE snapshots (seq INTEGER);")
    conn.close()
    starts = soak.time_starts(tmp_path, db, [], [])
    assert [start.name for start in starts] == ["restart (full replay: snapshots passed over)",
                                                "restart (full replay, snapshots removed)",
                                                "fresh start, empty database"]
    assert soak.restart_name("snapshot at seq 9000 + 12 journal records (seq 9001-9012)") == \
        "restart (snapshot + tail)"


def test_load_http_reports_a_cpu_ratio_too_short_to_time_as_unmeasurable(capsys: pytest.CaptureFixture[str]) -> None:
    """A phase of one request may show no CPU tick: the ratio is n/a, not a ZeroDivisionError."""
    load_http = _script_module("load_http")
    names = ("bare", "exchange")
    phases = [load_http.Phase(name, 1, 0.01, 1.0, 1.0, 0, 0.0, 0.0, 0.1) for name in names]
    load_http.summarise(phases, names)
    out = capsys.readouterr().out
    assert "by server CPU per request: n/a: phase too short to time" in out
    assert "by event-loop CPU per request: n/a: phase too short to time" in out


def test_core_memory_reports_within_fewer_markets_than_the_default_marks() -> None:
    """Without --marks, a run of fewer markets than the default marks still reports (at its last market)."""
    result = run_script("core_memory.py", "--markets", "100", "--keep", "50", "--orders", "20")
    assert result.returncode == 0, result.stderr[-2000:]
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["market    100"]


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("count_instructions.py", ["Prints both and their", "(default 35000)", "2 to 8"]),
        ("bench_recording.py", ["Printed: min / median / max", "(default 100)", "(default 5)"]),
        ("core_memory.py", ["At each mark it prints", "markets played one after another, each settled (default 3000)"]),
        ("ended_memory.py", ["bytes a market", "(default 260)", "(default 100)"]),
        ("bench_backtest.py", ["(default 1000)", "(default 3)", "repository root", "wherever it is run from"]),
        ("soak.py", ["give the same serve options", "__pycache__", "passed to serve (default 0.15)"]),
    ],
)
def test_help_says_what_a_script_prints_and_its_options_defaults(name: str, says: list[str]) -> None:
    result = run_script(name, "--help")
    assert result.returncode == 0, result.stderr[-2000:]
    text = " ".join(result.stdout.split())  # as argparse wraps it for the terminal's width
    for phrase in says:
        assert phrase in text, phrase
