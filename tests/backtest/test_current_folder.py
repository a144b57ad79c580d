"""A strategy beside the user is found, and a file there named like a library does not replace the library.

``exchange-poker`` (a console script) puts the current folder on the import path for ``module:Class``. It put it
first, so a ``pyarrow.py`` (or ``pandas.py``) the user keeps there was imported by the backtest's own code in
pyarrow's place and the command failed. The current folder now comes last, and a ``module:Class`` whose name an
installed module takes says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.backtest.backtest_support import ROOT

BOUND_S = 120

# as the console script runs: the script's own folder first on the path, not the current one
AS_CONSOLE_SCRIPT = "import sys; sys.path.remove(''); from exchange.cli import main; sys.exit(main())"

DECOY = "raise SystemExit('the pyarrow.py of the current folder was imported')\n"
STRATEGY = "from exchange.backtest.strategy import Strategy\nclass Mine(Strategy):\n    pass\n"


def _backtest(folder: Path, strategy: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", AS_CONSOLE_SCRIPT, "backtest", "--strategy", strategy, "--games",
                           "1", "--seed", "1", "--no-progress", "--no-streams", "--out", str(folder / "out")],
                          capture_output=True, text=True, timeout=BOUND_S, cwd=folder, env=env, check=False)


def test_a_file_named_like_a_library_in_the_current_folder_does_not_replace_it(tmp_path: Path) -> None:
    (tmp_path / "pyarrow.py").write_text(DECOY)
    (tmp_path / "mine.py").write_text(STRATEGY)
    done = _backtest(tmp_path, "mine:Mine")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "games.parquet").is_file()


def test_a_strategy_named_like_an_installed_module_is_refused_saying_so(tmp_path: Path) -> None:
    (tmp_path / "random.py").write_text(STRATEGY)
    done = _backtest(tmp_path, "random:Mine")
    assert done.returncode == 2
    message = done.stderr.strip()
    assert message.startswith("exchange-poker: error: random has no class 'Mine'"), message
    assert message.endswith(f"not {tmp_path / 'random.py'}: rename the file, or give its path (random.py:ClassName)")
