"""Collection settings for the whole repository (the tests' own are in ``tests/conftest.py``).

The suite collects the doctests of ``engine/`` and ``exchange/`` (``--doctest-modules`` with
``--import-mode=importlib``, ``pyproject.toml``). In that mode pytest, asked for a module it has not
imported yet, imports the module's parent packages and then runs the file once more as a new module
object, although the package's ``__init__`` may just have imported it: two copies of every class and
function, and a doctest that pickles a record made by the first copy fails ("it's not the same object
as ..."). A whole folder hides this (an earlier file has imported the package); one file alone
(``pytest exchange/core/records.py``) shows it. So each module of the two packages is imported by its
name before pytest collects it, and pytest reuses that module.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent
_PACKAGES = ("engine", "exchange")


@pytest.hookimpl(tryfirst=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> None:
    """Import a module of ``engine/`` or ``exchange/`` by its dotted name before it is collected."""
    if file_path.suffix != ".py" or file_path.name == "__main__.py":
        return
    try:
        relative = file_path.resolve().relative_to(_ROOT)
    except ValueError:
        return
    if relative.parts[0] in _PACKAGES:
        importlib.import_module(".".join(relative.with_suffix("").parts).removesuffix(".__init__"))
