"""A module's doctests pass when that one file is run alone, as they do in the whole suite.

``pytest exchange/core/records.py`` is how one checks a docstring after editing it. The suite collects
doctests with ``--import-mode=importlib`` (``pyproject.toml``); a module that its package's ``__init__``
imports must then not be loaded a second time as another module object, or a doctest that pickles one of
its records fails with "it's not the same object as ...".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("module", ["exchange/core/records.py", "exchange/core/cleared.py"])
def test_the_doctests_of_one_module_pass_when_it_is_run_alone(module: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    # 0: every test collected passed, and there was one at least (none collected is status 5)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
