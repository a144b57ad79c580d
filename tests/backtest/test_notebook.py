"""notebooks/settlements.ipynb runs end to end on a small backtest's Parquet (fails on any cell error).

Once on one-game worlds and once on sessions, whose bankroll section has real paths to draw.
"""

from __future__ import annotations

import os

import pytest
from backtest_support import ROOT, Run


def run_notebook(run: Run, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    """Execute the notebook on ``run``'s output: its printed text and how many figures it drew."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("BACKTEST_DIR", str(run.out))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend keeps the figures
    notebook = nbformat.read(ROOT / "notebooks" / "settlements.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute(env=dict(os.environ))
    outputs = "".join(
        out.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    )
    images = sum("image/png" in out.get("data", {}) for cell in notebook.cells for out in cell.get("outputs", []))
    return outputs, images


def test_settlements_notebook_runs(small_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    outputs, images = run_notebook(small_run, monkeypatch)
    assert f"{small_run.config.games} games" in outputs
    assert "dead heats:" in outputs
    assert f"{small_run.config.games} sessions of up to 1 games" in outputs
    assert images >= 4


def test_settlements_notebook_draws_the_bankroll_of_sessions(session_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    outputs, images = run_notebook(session_run, monkeypatch)
    config = session_run.config
    ended = sum(o.ended_by is not None for o in session_run.result.sessions)
    assert f"{config.sessions} sessions of up to {config.games_per_session} games ({ended} ended early)" in outputs
    assert "risk of ruin (balance below the 2.00 minimum stake): 0.0% of sessions" in outputs
    assert "final bankroll: median" in outputs and "max drawdown: median" in outputs
    assert images >= 4
