"""SIGTERM raises Terminated, SIGINT KeyboardInterrupt, once in a command: a second stop signal, while the first
one's cleanup runs, is ignored."""

from __future__ import annotations

import os
import signal

import pytest

from exchange.cli.stopping import Terminated, terminated_as_interrupted


@pytest.mark.parametrize(("first", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)])
@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
def test_a_second_stop_signal_during_the_cleanup_is_ignored(
    first: signal.Signals, raised: type[BaseException], second: signal.Signals,
) -> None:
    """A backtest with two workers, each passing the signal on to the command: the second SIGTERM broke off the
    cleanup of the first and left .backtest-in-progress in --out, and CI saw the second SIGINT (Ctrl-C) leave the
    --out folder behind."""
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    cleaned = False
    with pytest.raises(raised), terminated_as_interrupted():
        try:
            os.kill(os.getpid(), first)
        finally:
            os.kill(os.getpid(), second)
            cleaned = True
    assert cleaned
    assert {signum: signal.getsignal(signum) for signum in before} == before


def test_a_sigint_ignored_at_the_start_stays_ignored() -> None:
    """A command started in the background of a script ignores Ctrl-C, as the shell set it: it is not made to
    stop on one."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with terminated_as_interrupted():
            os.kill(os.getpid(), signal.SIGINT)  # nothing raised
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


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
