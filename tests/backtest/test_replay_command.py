"""``exchange-poker replay DIR``: its address is announced only once it listens there."""

from __future__ import annotations

import socket

import pytest

from exchange.cli import main
from tests.backtest.backtest_support import Run


def test_a_port_in_use_prints_only_why(small_run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["replay", str(small_run.out), "--port", str(port)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""  # no "Replay of ... on http://127.0.0.1:PORT/" for a page that is not there
    assert err.count("\n") == 1 and err.startswith(f"exchange-poker: error: cannot listen on 127.0.0.1:{port}: "), err
