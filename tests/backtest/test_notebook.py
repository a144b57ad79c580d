"""notebooks/settlements.ipynb runs end to end on a small backtest's Parquet (fails on any cell error)."""

from __future__ import annotations

import os

import pytest
from backtest_support import ROOT, Run


def test_settlements_notebook_runs(small_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("BACKTEST_DIR", str(small_run.out))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend keeps the figures
    notebook = nbformat.read(ROOT / "notebooks" / "settlements.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute(env=dict(os.environ))
    outputs = "".join(
        out.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    )
    assert f"{small_run.config.games} games" in outputs
    assert "dead heats:" in outputs
    images = sum("image/png" in out.get("data", {}) for cell in notebook.cells for out in cell.get("outputs", []))
    assert images >= 3
