"""``exchange-poker backtest`` stopped by Ctrl-C or SIGTERM: one line saying how far it had gone and that ``--out`` is
untouched, the signal's status, nothing of the run left.

A strategy sends the signal at an exact moment (its first window), so nothing depends on timing. Left to its
default, SIGTERM ended the command at once, leaving ``.backtest-in-progress`` in ``--out`` and, with workers, the
chunks under way running on; a worker's own Ctrl-C printed a traceback of its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.backtest.backtest_support import ROOT
from tests.processes import alive

BOUND_S = 120  # every wait in these tests

SIGNALLER = """
import multiprocessing, os, signal
from pathlib import Path
from exchange.backtest.strategy import Strategy

class Signals(Strategy):
    def __init__(self, signum, pids):
        super().__init__()
        self.signum, self.pids = signum, pids

    def on_window_open(self, market, round):
        with open(self.pids, "a") as out:
            out.write(f"{os.getpid()}\\n")
        if self.signum == signal.SIGINT:  # one Ctrl-C in a terminal: every process of the group, once
            try:
                os.close(os.open(self.pids + ".ctrl-c", os.O_CREAT | os.O_EXCL))
            except FileExistsError:  # another worker pressed it
                return
            os.killpg(0, signal.SIGINT)
        else:
            os.kill(os.getpid() if multiprocessing.parent_process() is None else os.getppid(), self.signum)
"""


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(("signum", "said"), [(signal.SIGTERM, "terminated"), (signal.SIGINT, "interrupted")])
def test_a_stop_signal_ends_a_backtest_on_one_line_and_removes_its_unfinished_output(
    tmp_path: Path, workers: int, signum: signal.Signals, said: str
) -> None:
    strategy = tmp_path / "signals.py"
    strategy.write_text(SIGNALLER)
    pids = tmp_path / "pids"
    out = tmp_path / "out"
    params = f'{{"signum": {int(signum)}, "pids": "{pids}"}}'
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "exchange.cli", "backtest", "--strategy", f"{strategy}:Signals", "--params", params,
         "--games", "40", "--seed", "1", "--workers", str(workers), "--no-progress", "--out", str(out)],
        capture_output=True, text=True, timeout=BOUND_S, cwd=tmp_path, env=env,
        start_new_session=True,  # a group of its own, as a terminal's job: the Ctrl-C reaches it and its workers
    )
    how_far = f"0 of 40 games were done; {out} is as it was (a backtest writes there once every game is played)"
    assert (done.returncode, done.stderr) == (128 + signum, f"exchange-poker: {said}: {how_far}\n")
    assert not out.exists()  # made for the run and taken away: no table, no .backtest-in-progress, no folder
    strategy_pids = {int(p) for p in pids.read_text().split()}
    assert not any(alive(pid) for pid in strategy_pids)  # no worker runs its chunk on


@pytest.mark.parametrize(("stopped", "said"), [
    ("_publish", "every game was played, and its files were being moved into {out}: remove them before another "
                 "run into it"),
    ("read_for_summary", "every game was played and {out} holds the run's files; its summary was not printed"),
])
def test_a_stop_once_every_game_is_played_says_what_is_in_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stopped: str, said: str
) -> None:
    """Past the games, the files are moved into --out and read back for the summary: a Ctrl-C there does not leave
    the folder as it was, and the line says so (it said the folder was as it was, which held the new tables)."""
    from exchange.backtest import runner
    from exchange.cli import INTERRUPTED, main

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, stopped, interrupted)
    out = tmp_path / "out"
    argv = ["backtest", "--strategy", "exchange.backtest.strategy:Strategy", "--games", "2", "--seed", "1",
            "--out", str(out), "--no-progress", "--no-streams"]
    assert main(argv) == INTERRUPTED
    assert capsys.readouterr().err == f"exchange-poker: interrupted: {said.format(out=out)}\n"
    assert out.is_dir()
