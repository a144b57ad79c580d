"""SIGTERM raises Terminated once in a command: a second one, while the first one's cleanup runs, is ignored."""

from __future__ import annotations

import os
import signal

import pytest

from exchange.cli.stopping import Terminated, terminated_as_interrupted


def test_only_the_first_sigterm_raises_and_the_handler_is_given_back() -> None:
    """A backtest with workers had two of them signal at once: the second SIGTERM broke off the cleanup of the
    first and left .backtest-in-progress in --out."""
    before = signal.getsignal(signal.SIGTERM)
    cleaned = False
    with pytest.raises(Terminated), terminated_as_interrupted():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # the second, during the cleanup: nothing raised here
            cleaned = True
    assert cleaned
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_worker_stopped_alone_ends_the_command_on_one_line(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """SIGTERM sent to one of a backtest's workers (not the command) stops its chunk: the error comes back to the
    command as ``ChunkStopped``, which printed a traceback; it ends the command as a SIGTERM would."""
    import exchange.cli as cli
    from exchange.backtest.workers import ChunkStopped

    def stopped(args: object) -> int:
        raise ChunkStopped("the command stopped its workers")

    def parser(command: str | None) -> object:
        class Parsed:
            @staticmethod
            def parse_args(argv: object) -> object:
                return type("Args", (), {"command": "backtest", "run": staticmethod(stopped)})()

        return Parsed()

    monkeypatch.setattr(cli, "build_parser", parser)
    assert cli.main(["backtest"]) == cli.TERMINATED
    assert capsys.readouterr().err == "exchange-poker: terminated\n"
