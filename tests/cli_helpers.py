"""Run the ``exchange-poker`` command in-process, as the CLI tests do."""

from __future__ import annotations

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
