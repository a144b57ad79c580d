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
