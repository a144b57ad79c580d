"""Run the ``exchange-poker`` command in-process, as the CLI tests do, or as a process held to file permissions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from exchange.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``exchange-poker ARGV``: its exit status (argparse's ``SystemExit`` included), stdout and stderr."""
    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def as_a_user_held_to_permissions(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m exchange.cli ARGV`` as a process that file permissions hold (root is not: it is run without the
    capabilities that pass them, by util-linux's ``setpriv``)."""
    command = [sys.executable, "-m", "exchange.cli", *argv]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")  # util-linux, an essential package of Debian
        assert setpriv is not None, "running as root, the test needs setpriv (util-linux) to drop its capabilities"
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-all", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
