"""``kernels_cached``: whether a run finds the engine's kernels compiled by an earlier one (the server says "first
run" while it compiles them, which takes a while; the lookup arrays have a cache of their own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CHECK = """
import numpy as np
from engine.evaluator import kernels_cached
print(kernels_cached())
if sys.argv[1] == "compile":
    from engine._draw_kernels import _shuffle
    _shuffle(np.arange(4, dtype=np.int64), 4, np.array([1, 2], dtype=np.uint64))
    print(kernels_cached())
"""


def _run(cache: Path, what: str) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", "import sys\n" + CHECK, what], env=env, capture_output=True,
                          text=True, timeout=240, check=True)
    return done.stdout.split()


def test_kernels_are_cached_once_a_run_has_compiled_one_in_numba_s_cache_and_not_for_another_folder_s(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "numba"
    (cache / "elsewhere_0123").mkdir(parents=True)
    (cache / "elsewhere_0123" / "module.f-1.py311.nbi").touch()  # another project's kernels
    assert _run(cache, "look") == ["False"]
    assert _run(cache, "compile") == ["False", "True"]
    assert _run(cache, "look") == ["True"]  # the next run finds them
