"""Every ``_check()`` raises explicitly (never a bare ``assert``), so the checks still run under ``python -O``.

The corruption tests of each check live beside the module's other tests
(``test_a_corrupted_..._is_caught``; the exchange core's in tests/exchange/test_checks.py).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KNOWN = {
    "engine/_equity_result.py",
    "engine/showdown.py",
    "engine/_hilo_result.py",
    "engine/variants.py",
    "engine/table/state.py",
    "exchange/game/prospects.py",
    "exchange/game/table.py",
    "exchange/core/accounts.py",
    "exchange/core/book.py",
    "exchange/core/market.py",
    "exchange/core/orders.py",
    "exchange/core/positions.py",
}


def check_methods() -> Iterator[tuple[str, ast.FunctionDef]]:
    """``(path, function)`` for every ``def _check`` in engine/ and exchange/."""
    for package in ("engine", "exchange"):
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=where)):
                if isinstance(node, ast.FunctionDef) and node.name == "_check":
                    yield where, node


def test_the_scan_finds_the_checks() -> None:
    assert {where for where, _ in check_methods()} >= KNOWN


def test_no_check_uses_a_bare_assert() -> None:
    asserts = [
        f"{where}:{node.lineno}"
        for where, check in check_methods()
        for node in ast.walk(check)
        if isinstance(node, ast.Assert)
    ]
    assert not asserts, f"these _check() lines vanish under python -O; raise InvariantError instead: {asserts}"


OPTIMISED = """
import dataclasses, sys
from engine import InvariantError
from engine.variants import get_variant
from exchange.game.prospects import Prospects

assert sys.flags.optimize, "not running under -O"
assert False, "assert statements run: not under -O"  # stripped under -O
uniform = Prospects.uniform(2)
corrupted = [
    dataclasses.replace(uniform, hands=(dataclasses.replace(uniform.hands[0], win=1), uniform.hands[1])),
    dataclasses.replace(get_variant("holdem"), max_seats=24),
]
for structure in corrupted:
    try:
        structure._check()
    except InvariantError:
        continue
    sys.exit(f"{type(structure).__name__}._check() let a corrupted field through under -O")
"""


def test_checks_raise_under_python_dash_o() -> None:
    run = subprocess.run([sys.executable, "-O", "-c", OPTIMISED], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
