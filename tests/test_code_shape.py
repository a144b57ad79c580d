"""The code stays readable in pieces: no module over 600 lines, no function over 60 (the restructuring issue).

A reader should find a thing by its file name and see a function whole. The
module rule holds for the Python packages and for the trading page's
JavaScript modules (``exchange/page/static/*.js``, counted in lines only); the
function rule for the Python alone. The few exceptions are listed with their
reason; a new one needs one too.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "exchange", "scripts")
PAGE_SCRIPTS = ROOT / "exchange" / "page" / "static"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60

#: ``path:function`` -> why it may be longer.
LONG_FUNCTIONS = {
    "engine/_equity_kernels.py:score_tail": "a numba kernel: one compiled loop nest (split, the JIT inlines it back)",
}


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _page_scripts() -> list[Path]:
    return sorted(PAGE_SCRIPTS.glob("*.js"))


def _long_functions(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            key = f"{path.relative_to(ROOT).as_posix()}:{node.name}"
            if lines > MAX_FUNCTION_LINES and key not in LONG_FUNCTIONS:
                found.append(f"{key} ({lines} lines)")
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_module_and_functions_fit_on_a_screen(path: Path) -> None:
    lines = path.read_text().count("\n")
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by idea"
    assert _long_functions(path) == [], f"functions over {MAX_FUNCTION_LINES} lines"


@pytest.mark.parametrize("path", _page_scripts(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_script_fits_on_a_screen(path: Path) -> None:
    lines = path.read_text().count("\n")
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by idea"


def test_the_page_scripts_are_found() -> None:
    """The page's modules are where the rule looks: a move of the folder does not leave them unchecked."""
    assert "app.js" in {p.name for p in _page_scripts()}


def test_every_exception_still_exists() -> None:
    """An exception for a function that was shortened or removed is dropped from the list."""
    for key in LONG_FUNCTIONS:
        file, name = key.split(":")
        tree = ast.parse((ROOT / file).read_text())
        assert any(isinstance(n, ast.FunctionDef) and n.name == name for n in ast.walk(tree)), key


def test_the_import_contract_on_the_engines_private_modules_names_every_one() -> None:
    """The contract that keeps the exchange to the engine's public modules lists the private ones by name (the
    linter takes no ``engine._*``): a new one must join it."""
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = settings["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["name"] == "The exchange uses the engine's public modules only"]
    private = sorted(f"engine.{path.stem}" for path in (ROOT / "engine").glob("_*.py") if path.stem != "__init__")
    assert sorted(contract["forbidden_modules"]) == private
