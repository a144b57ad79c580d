"""The measurement scripts refuse bad input on one line, status 2, before they build or start anything."""

from __future__ import annotations

import importlib.util
import os
import re
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
