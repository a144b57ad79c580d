"""The measurement scripts refuse bad input on one line, status 2, before they build or start anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
