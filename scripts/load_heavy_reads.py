"""Order latency with and without the heaviest legal reads beside it (issue "the server fails safe").

Seeds a fresh database (offline, through the journal) with an account ``reader``
holding ``--bets`` settled bets, starts ``python -m exchange.cli serve`` on it
(no house, one long window, per-account call rate off so the one order account
is not throttled), and then, ``--repeats`` times and interleaved, drives:

* **orders only**: ``--clients`` keep-alive connections of single-instruction
  ``placeOrders`` (the body of ``scripts/load_http.py``), closed loop, from
  Python processes; and
* **orders + heavy reads**: the same, while ``reader`` keeps its three allowed
  list calls in flight, each a batch of two full ``listClearedOrders`` pages
  (2 × 1000 records, the most a request may return), back to back.

It prints each phase's order rate, p50/p99 latency and failures, the reads'
records per second, and the ratio of the p99s (target: at most 2). Loopback
only, bounded (``--seconds`` a phase, at most 30), and it stops by itself.

    python scripts/load_heavy_reads.py --seconds 5 --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import load_http

from exchange.cli.options import number_from_to, positive, whole_number_from_to
from exchange.clock import WallClock
from exchange.core.commands import (
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SuspendMarket,
)
from exchange.core.side import Side
from exchange.server.journal import Journal
from exchange.server.service import ExchangeService

HOST = load_http.HOST
READ_BATCH = json.dumps([
    {"jsonrpc": "2.0", "id": i, "method": "SportsAPING/v1.0/listClearedOrders",
     "params": {"betStatus": "SETTLED", "fromRecord": 1000 * i, "recordCount": 1000}}
    for i in range(2)
]).encode()


def seed(db: str, bets: int, per_market: int = 20) -> None:
    """Journal ``bets`` settled backs of ``reader`` (laid by ``seed-layer``), ``per_market`` a market."""
    journal = Journal.open(db)
    service = ExchangeService(journal, WallClock(), [], house=False)
    now = service.now
    for account in ("reader", "seed-layer"):
        service.execute(OpenAccount(now(), account))
        service.execute(Deposit(now(), account, 10**12))
    for m in range(-(-bets // per_market)):
        market_id = f"seed.{m}"
        service.execute(CreateMarket(now(), market_id, (1, 2, 3, 4)))
        service.execute(OpenMarket(now(), market_id))
        for i in range(per_market):
            service.execute(PlaceOrder(now(), "seed-layer", market_id, 1 + i % 4, Side.LAY, Decimal("2"), 200))
            service.execute(PlaceOrder(now(), "reader", market_id, 1 + i % 4, Side.BACK, Decimal("2"), 200))
        service.execute(SuspendMarket(now(), market_id))
        service.execute(SettleMarket(now(), market_id, (1,)))
    journal.flush()
    journal.close()


async def _read(port: int, token: str, seconds: float, connections: int) -> tuple[int, int, int]:
    """``connections`` closed loops of READ_BATCH; (records read, requests, refusals)."""
    head = (f"POST {load_http.PATH} HTTP/1.1\r\nHost: {HOST}:{port}\r\nX-Application: load\r\n"
            f"X-Authentication: {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(READ_BATCH)}\r\n\r\n").encode()
    records = requests = refused = 0
    stop_at = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal records, requests, refused
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while time.perf_counter() < stop_at:
                writer.write(head + READ_BATCH)
                answer_head = await reader.readuntil(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in answer_head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                body = json.loads(await reader.readexactly(length))
                requests += 1
                for call in body:
                    if "result" in call:
                        records += len(call["result"]["clearedOrders"])
                    else:
                        refused += 1
        finally:
            writer.close()

    await asyncio.gather(*(loop() for _ in range(connections)))
    return records, requests, refused


def _reader_process(port: int, token: str, seconds: float, connections: int, out: Connection) -> None:
    out.send(asyncio.run(_read(port, token, seconds, connections)))
    out.close()


def phase(port: int, order_headers: dict[str, str], read_token: str | None, args: argparse.Namespace
          ) -> tuple[load_http.Load, tuple[int, int, int] | None]:
    reader = pipe = None
    if read_token is not None:
        pipe, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
        reader = multiprocessing.get_context("fork").Process(
            target=_reader_process, args=(port, read_token, args.seconds, 3, sender), daemon=True)
        reader.start()
    load = load_http.run_python(port, order_headers, args.clients, args.seconds, load_http.MAX_REQUESTS, None)
    reads = None
    if reader is not None and pipe is not None:
        if not pipe.poll(args.seconds + 60):
            raise RuntimeError("the reader did not report")
        reads = pipe.recv()
        reader.join(timeout=10)
    return load, reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=positive, default=16, help="order connections (default 16)")
    parser.add_argument("--seconds", type=number_from_to(1, 30), default=5.0, help="per phase (default 5, 1 to 30)")
    parser.add_argument("--repeats", type=whole_number_from_to(1, 10), default=3,
                        help="pairs of phases (default 3, 1 to 10)")
    parser.add_argument("--bets", type=positive, default=5000, help="settled bets of the reader (default 5000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        db = str(tmp / "heavy.db")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        began = time.perf_counter()
        seed(db, args.bets)
        print(f"seeded {args.bets} settled bets in {time.perf_counter() - began:.1f} s")
        for account in ("load", "reader"):
            load_http.add_load_account(db, env, account)
        port = load_http.free_port()
        log = tmp / "server.log"
        with log.open("wb") as out:
            server = load_http.start_exchange(db, port, env, out, None)  # the checkout's server, from any folder
            try:
                base = f"http://{HOST}:{port}"
                load_http.wait_up(f"{base}/openapi.json", server, log)
                order_headers = {"X-Application": "load", "X-Authentication": load_http.login(base, "load", "load")}
                read_token = load_http.login(base, "reader", "reader")
                load_http.wait_open(base, order_headers, server, log)
                print(f"{args.clients} order connections, 3 reader connections (2 x 1000 records a request), "
                      f"{args.seconds:.0f} s a phase, {args.repeats} repeats; {os.cpu_count()} CPUs, "
                      f"load average {os.getloadavg()[0]:.2f}")
                phase(port, order_headers, None, argparse.Namespace(**{**vars(args), "seconds": 1.0}))  # warm-up
                quiet: list[float] = []
                loud: list[float] = []
                for _ in range(args.repeats):
                    for with_reads in (False, True):
                        load, reads = phase(port, order_headers, read_token if with_reads else None, args)
                        (loud if with_reads else quiet).append(load.p99_ms)
                        extra = ""
                        if reads is not None:
                            records, requests, refused = reads
                            extra = (f"   reads {records / load.seconds:8.0f} records/s in {requests} requests"
                                     f" ({refused} calls refused)")
                        print(f"{'orders + heavy reads' if with_reads else 'orders only':22s} "
                              f"{load.requests / load.seconds:7.0f} orders/s  p50 {load.p50_ms:6.2f} ms  "
                              f"p99 {load.p99_ms:6.2f} ms  failures {load.failures}{extra}", flush=True)
                ratio = statistics.median(loud) / statistics.median(quiet)
                print(f"median order p99: {statistics.median(quiet):.2f} ms alone, {statistics.median(loud):.2f} ms "
                      f"beside the heavy reads: {ratio:.2f}x (target: at most 2x)")
            finally:
                load_http.stop(server)


if __name__ == "__main__":
    main()
