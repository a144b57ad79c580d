"""The measurement scripts refuse bad input on one line, status 2, before they build or start anything."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


MEASUREMENTS = ("bench_cards.py", "bench_engine.py", "bench_exchange.py", "bench_game.py", "bench_rankings.py",
                "bench_statement.py", "core_memory.py", "count_instructions.py", "load_heavy_reads.py")


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
        ("core_memory.py", ["--marks", "500,many"], "argument --marks: must be whole numbers from 1, comma-separated"),
        ("count_instructions.py", ["--small", "0"], "argument --small: must be a whole number from 1, not 0"),
    ],
)
def test_a_count_of_nothing_is_refused_before_measuring(name: str, argv: list[str], reason: str) -> None:
    result = run_script(name, *argv)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"{name}: error: {reason}")
