"""The journal's group commit: nothing is acknowledged before it is on disk, batches really batch,
and a failed write fails every waiter and refuses what comes after."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from exchange.server.journal import MAX_ROWS_PER_STATEMENT, Journal, JournalFailed
from tests.processes import alive


def _on_disk(path: Path) -> int:
    """Records another connection sees: what a crash would leave."""
    conn = sqlite3.connect(path)
    try:
        (count,) = conn.execute("SELECT COUNT(*) FROM journal").fetchone()
        return int(count)
    finally:
        conn.close()


async def test_sixty_four_concurrent_writers_share_fsyncs_and_see_their_records_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal.open(str(path))
    journal.start()
    seen: list[int] = []

    async def client(i: int) -> None:
        for n in range(20):
            seq = journal.append("event", {"client": i, "n": n}, ts_ms=n)
            await journal.sync()
            assert journal.durable_seq >= seq
            seen.append(_on_disk(path) >= seq)

    await asyncio.gather(*(client(i) for i in range(64)))
    await journal.stop()
    assert all(seen) and len(seen) == 64 * 20
    assert journal.written == 64 * 20
    assert journal.commits <= 64 * 20 / 8, journal.commits  # about one fsync per round of 64, not one each
    bodies = [r.body for r in journal.records()]
    assert [r.seq for r in journal.records()] == list(range(1, 64 * 20 + 1))
    assert sorted((b["client"], b["n"]) for b in bodies) == [(i, n) for i in range(64) for n in range(20)]
    journal.close()


async def test_a_batch_larger_than_one_statement_is_one_transaction(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    count = MAX_ROWS_PER_STATEMENT * 2 + 3
    for i in range(count):
        journal.append("event", {"i": i}, ts_ms=i)
    await journal.sync()
    await journal.stop()
    assert journal.commits == 1
    assert [r.body["i"] for r in journal.records()] == list(range(count))
    journal.close()


async def test_waiting_through_a_record_does_not_wait_for_records_appended_after_it(tmp_path: Path) -> None:
    """An answer built when the journal ended at record k waits for k, not for what came after (one commit less)."""
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    first = journal.append("event", {"i": 0}, ts_ms=0)
    await asyncio.sleep(0)  # the batch with record 1 goes to the writer
    later = journal.append("event", {"i": 1}, ts_ms=1)  # appended by someone else while record 1 is written
    mine = journal.sync(first)  # an answer built when the journal ended at record 1
    everything = journal.sync()
    await mine
    # Released by record 1's commit; record 2 went to the writer only then and needs a commit of its own,
    # whose answer is read by the loop after this task resumes.
    assert journal.durable_seq == first and not everything.done()
    await everything
    assert journal.durable_seq == later
    assert journal.sync(first).done() and journal.sync(0).done()  # already durable: nothing to wait for
    await journal.stop()
    journal.close()


async def test_a_failed_write_fails_every_waiter_and_refuses_later_appends(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    journal.append("event", {"ok": 1}, ts_ms=0)
    await journal.sync()
    journal._conn.execute("DROP TABLE journal")  # the next write fails, as a full disk would
    journal.append("event", {"lost": 1}, ts_ms=1)
    waiters = [asyncio.ensure_future(journal.sync()) for _ in range(3)]
    results = await asyncio.gather(*waiters, return_exceptions=True)
    assert all(isinstance(r, JournalFailed) for r in results), results
    with pytest.raises(JournalFailed):
        journal.append("event", {"refused": 1}, ts_ms=2)
    with pytest.raises(JournalFailed):
        await journal.sync()
    await journal.stop()
    journal.close()


async def test_stop_writes_what_is_pending(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal.open(str(path))
    journal.start()
    for i in range(5):
        journal.append("event", {"i": i}, ts_ms=i)
    await journal.stop()
    assert _on_disk(path) == 5 and journal.durable_seq == 5
    journal.close()
    reopened = Journal.open(str(path))
    assert reopened.last_seq == 5
    reopened.close()


async def test_the_writer_process_starts_with_the_journal_and_exits_when_it_stops(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    pid = journal.writer_pid
    assert pid is not None and alive(pid)
    journal.append("event", {"i": 1}, ts_ms=0)
    await journal.sync()
    await journal.stop()
    assert journal.writer_pid is None and not alive(pid)
    journal.close()


async def test_a_writer_that_dies_fails_every_waiter_and_refuses_later_appends(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    journal.append("event", {"ok": 1}, ts_ms=0)
    await journal.sync()
    assert journal.writer_pid is not None
    os.kill(journal.writer_pid, signal.SIGKILL)
    journal.append("event", {"lost": 1}, ts_ms=1)
    results = await asyncio.gather(*(asyncio.ensure_future(journal.sync()) for _ in range(3)),
                                   return_exceptions=True)
    assert all(isinstance(r, JournalFailed) for r in results), results
    with pytest.raises(JournalFailed):
        journal.append("event", {"refused": 1}, ts_ms=2)
    await journal.stop()
    assert [r.body for r in journal.records()] == [{"ok": 1}]
    journal.close()


async def test_the_writer_is_out_of_the_servers_process_group_from_its_start(tmp_path: Path) -> None:
    """A Ctrl-C at the terminal goes to the server's process group: the writer is in a session of its own from
    the moment it is launched, before it has set its own signal handling."""
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    pid = journal.writer_pid
    assert pid is not None
    assert os.getpgid(pid) != os.getpgrp() and os.getsid(pid) == pid
    await journal.stop()
    journal.close()


async def test_the_running_writer_ignores_sigint(tmp_path: Path) -> None:
    journal = Journal.open(str(tmp_path / "j.db"))
    journal.start()
    journal.writer_ready()
    assert journal.writer_pid is not None
    os.kill(journal.writer_pid, signal.SIGINT)  # what a service manager may send every process it started
    journal.append("event", {"after": 1}, ts_ms=0)
    await journal.sync()
    await journal.stop()
    assert [r.body for r in journal.records()] == [{"after": 1}]
    journal.close()


def _unopenable_by_the_writer(path: Path) -> Journal:
    """A journal whose writer process cannot open its files: the durable mark's path is a directory."""
    journal = Journal.open(str(path))
    mark = Path(f"{path}-durable")
    mark.unlink(missing_ok=True)
    mark.mkdir()
    return journal


async def test_the_writer_starts_without_holding_up_the_journals_start_and_says_if_it_could_not(
    tmp_path: Path,
) -> None:
    """``start`` only launches the writer (the server recovers while it starts); ``writer_ready`` waits for it and
    raises with the writer's own reason if it could not open the database."""
    journal = _unopenable_by_the_writer(tmp_path / "j.db")
    journal.start()
    assert journal.writer_pid is not None
    with pytest.raises(sqlite3.OperationalError, match="Is a directory"):
        journal.writer_ready()
    await journal.stop()
    journal.close()


async def test_the_first_write_waits_for_the_writer_and_fails_the_journal_if_it_could_not_start(
    tmp_path: Path,
) -> None:
    journal = _unopenable_by_the_writer(tmp_path / "j.db")
    journal.start()
    journal.append("event", {"lost": 1}, ts_ms=0)
    with pytest.raises(JournalFailed) as failed:
        await journal.sync()
    assert "Is a directory" in str(failed.value.__cause__ or failed.value)
    await journal.stop()
    assert list(journal.records()) == []
    journal.close()


async def test_a_writer_that_could_not_start_gives_the_same_reason_to_whatever_asks_after(tmp_path: Path) -> None:
    """Once refused, the writer's pipe is closed: asking again, and the records left to write (what a recovery
    appended), fail with the writer's own reason, not with a read of a closed (or since reused) descriptor."""
    journal = _unopenable_by_the_writer(tmp_path / "j.db")
    journal.start()
    journal.append("event", {"recovered": 1}, ts_ms=0)
    for _ in range(2):
        with pytest.raises(sqlite3.OperationalError, match="Is a directory"):
            journal.writer_ready()
    await journal.stop()
    assert isinstance(journal.failure, sqlite3.OperationalError) and "Is a directory" in str(journal.failure)
    journal.close()


async def test_stopping_after_a_refused_writer_leaves_a_reader_on_its_reused_descriptor_alone(tmp_path: Path) -> None:
    """The refused writer's pipe was never watched: stop must not unwatch whatever has its descriptor now."""
    journal = _unopenable_by_the_writer(tmp_path / "j.db")
    journal.start()
    writer = journal._writer
    assert writer is not None  # started, though it cannot open the database
    fd = writer.ack_fd
    with pytest.raises(sqlite3.OperationalError):
        journal.writer_ready()
    loop = asyncio.get_running_loop()
    read_end, write_end = os.pipe()
    os.dup2(read_end, fd)  # the number is free again: the next pipe or socket opened may get it
    loop.add_reader(fd, lambda: None)
    try:
        await journal.stop()
        assert loop.remove_reader(fd), "the journal's stop took the reader off a descriptor it no longer owns"
    finally:
        for end in {fd, read_end, write_end}:
            os.close(end)
    journal.close()


async def test_a_journal_in_memory_has_no_writer_process() -> None:
    journal = Journal.open(":memory:")
    journal.start()
    assert journal.writer_pid is None
    journal.append("event", {"i": 1}, ts_ms=0)
    await journal.sync()
    assert journal.durable_seq == 1 and journal.commits == 1
    await journal.stop()
    journal.close()
