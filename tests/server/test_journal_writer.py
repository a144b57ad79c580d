"""The journal's writer process at its edges: one that never says it is ready, a pipe that fails with another
error than a broken pipe, and a writer left behind by a server that was killed."""

from __future__ import annotations

import asyncio
import errno
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from exchange.server import journal_writer
from exchange.server.journal import Journal, JournalFailed
from exchange.server.journal_writer import WriterProcess

BOUND_S = 10  # every wait on a real process in these tests


def _silent_writer() -> WriterProcess:
    """A process in the writer's place that reads its input and never answers (stuck opening the database)."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.buffer.read()"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    return WriterProcess(proc)


def test_a_writer_that_never_says_it_is_ready_is_given_up_on_with_a_clear_error() -> None:
    """Before, ``wait_ready`` waited on the pipe with no bound: the server's start hung for good."""
    writer = _silent_writer()
    try:
        with pytest.raises(sqlite3.OperationalError, match="did not say it was ready within 0 s"):
            writer.wait_ready(timeout_s=0)
        assert writer._proc.wait(BOUND_S) != 0  # killed, not left running
        with pytest.raises(sqlite3.OperationalError, match="did not say it was ready"):
            writer.wait_ready(timeout_s=BOUND_S)  # asked again: the same answer, at once, reading nothing
    finally:
        writer.kill()


async def test_a_journal_whose_writer_never_gets_ready_fails_its_first_write_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(journal_writer, "READY_TIMEOUT_S", 0)
    monkeypatch.setattr(WriterProcess, "launch", classmethod(lambda cls, path, lock_fd=None: _silent_writer()))
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    journal.append("event", {"lost": 1}, ts_ms=0)
    with pytest.raises(JournalFailed, match="did not say it was ready"):
        await asyncio.wait_for(journal.sync(), BOUND_S)
    await asyncio.wait_for(journal.stop(), BOUND_S)
    assert list(journal.records()) == []
    journal.close()


async def test_an_os_error_writing_to_the_writer_fails_the_journal_at_once_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, only a broken pipe was caught: any other error left the callback registered, raising each time the
    pipe was writable (a busy loop of logged tracebacks) until the commit timeout failed the journal as stalled."""
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start(commit_timeout_ms=600_000)  # far beyond the test's bound: only the error itself may fail it
    journal.writer_ready()
    writer = journal._writer
    assert writer is not None
    calls = []

    def failing_write() -> bool:
        calls.append(1)
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(writer, "send", lambda rows: False)  # the pipe was full: the rest when it is writable
    monkeypatch.setattr(writer, "write_more", failing_write)
    journal.append("event", {"lost": 1}, ts_ms=0)
    with pytest.raises(JournalFailed, match="Input/output error"):
        await asyncio.wait_for(journal.sync(), BOUND_S)
    assert isinstance(journal.failure, OSError) and journal.failure.errno == errno.EIO
    assert calls == [1]
    await asyncio.wait_for(journal.stop(), BOUND_S)
    journal.close()
