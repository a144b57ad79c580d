"""Load test of the exchange server on loopback: placeOrders/s and latency, against a bare aiohttp ceiling.

Starts, in child processes on 127.0.0.1 only: (1) a bare aiohttp app whose one
handler parses a JSON body and answers JSON, and (2) the exchange server
(``python -m exchange.cli serve``, one long betting window, no house, a
fresh database). A closed-loop load generator with ``--clients`` keep-alive
connections then sends single-instruction ``placeOrders`` (a back at 1000 that
rests, so every order is accepted and journaled with an fsync before it is
acknowledged) to each server in turn, bare then exchange, ``--repeats`` times,
each phase bounded by ``--seconds`` and ``--max-requests``. It prints every
phase, the medians, the ratio to the ceiling and the servers' CPU time per
request, then stops both servers and reads the exchange's journal statistics
(records per fsync: the group commit at work).

The load generator must not be the bottleneck, or the "ceiling" is the
client's (the old aiohttp-client version of this script spent most of a core
and measured its own queueing). It is ``wrk`` (``apt-get install wrk``; one
thread, a Lua script for the body, headers, failure count and request cap)
when on the PATH, else Python processes on raw asyncio streams with
pre-encoded requests and keep-alive (one per load-generator CPU). Both cost
about 15 us of client CPU a request; each phase prints the load generator's
CPU (in cores) and the server's CPU time per request, the figure least
disturbed by other work on the machine. With two or more CPUs the load
generator is pinned to the last CPU and the servers may run on any (``--pin
client``, the default: the exchange server's journal writer process commits beside its
event loop, as it would in production; the bare server has one thread);
``--pin split`` keeps the servers off the load generator's CPU, ``--pin none``
pins nothing.

    python scripts/load_http.py --seconds 5 --repeats 3 --clients 64
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import BinaryIO

ROOT = Path(__file__).resolve().parents[1]  # the checkout whose server is measured, wherever this is run from
sys.path.insert(0, str(ROOT))  # and whose option types refuse bad input

from exchange.cli.options import number_from_to, whole_number_from_to  # noqa: E402

HOST = "127.0.0.1"
PATH = "/exchange/betting/json-rpc/v1"
MAX_SECONDS = 60.0
MAX_REQUESTS = 2_000_000
MAX_REPEATS = 20
MAX_CLIENTS = 1024
TARGET_RATIO = 0.7
TARGET_P99_MS = 15.0
BARE = """
import sys
from aiohttp import web
async def handle(request):
    body = await request.json()
    return web.json_response({"jsonrpc": "2.0", "result": {"status": "SUCCESS", "echo": body.get("id")}, "id": 1})
app = web.Application()
app.router.add_post("/exchange/betting/json-rpc/v1", handle)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""
MARKET_ID = "holdem.0"  # the server's first game: its one long window takes every order
PLACE_BODY = json.dumps({"jsonrpc": "2.0", "method": "SportsAPING/v1.0/placeOrders", "id": 1, "params": {
    "marketId": MARKET_ID, "instructions": [{"selectionId": 1, "side": "BACK", "orderType": "LIMIT",
                                              "limitOrder": {"size": 2, "price": 1000, "persistenceType": "LAPSE"}}]}},
                        separators=(",", ":"))
# wrk's Lua: one thread; counts answers that are not 200 with "SUCCESS" in the body, stops at the cap,
# and prints one machine-readable line (latencies in microseconds).
WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = %(body)s
wrk.headers["Content-Type"] = "application/json"
%(headers)s
local cap = %(cap)d
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) failures = 0; answered = 0 end
function response(status, headers, body)
  answered = answered + 1
  if status ~= 200 or not string.find(body, '"SUCCESS"', 1, true) then failures = failures + 1 end
  if answered >= cap then wrk.thread:stop() end
end
function done(summary, latency, requests)
  local failed = 0
  for _, t in ipairs(threads) do failed = failed + t:get("failures") end
  local e = summary.errors
  io.write(string.format("LOAD requests=%%d duration_us=%%d p50_us=%%d p99_us=%%d failures=%%d errors=%%d\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), failed,
    e.connect + e.read + e.write + e.status + e.timeout))
end
"""


@dataclass(frozen=True, slots=True)
class Phase:
    """One bounded run against one server."""

    name: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    failures: int
    server_cpu_us: float  # server CPU time per request: its process (all threads) and its children (journal writer)
    loop_cpu_us: float  # of which the main thread's (the event loop)
    client_cpu: float  # load generator CPU seconds per wall second (1.0 = one core busy)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def line(self) -> str:
        return (f"{self.name:<26} {self.requests:>7} req in {self.seconds:5.2f} s = {self.rate:7.0f} /s"
                f"   p50 {self.p50_ms:6.2f} ms   p99 {self.p99_ms:6.2f} ms   failures {self.failures}"
                f"   server {self.server_cpu_us:4.0f} µs CPU/req (loop {self.loop_cpu_us:3.0f})"
                f"   client {self.client_cpu:4.2f} cores")


@dataclass(frozen=True, slots=True)
class Load:
    """A load generator's view of one run: what it sent, how long, and its latencies (ms)."""

    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    failures: int


# --- servers ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    """The Popen ``preexec_fn`` that starts a child on ``cpus`` (None when not pinning)."""
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def wait_up(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def wait_open(base: str, headers: dict[str, str], proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait (at most a minute) until the market the orders bet on is open. The server answers HTTP while it still
    warms the poker engine (seconds on a busy machine), before its first game creates that market: an order sent
    then fails with INVALID_MARKET_ID, and a phase run then would count nearly every order as a failure."""
    body = json.dumps({"jsonrpc": "2.0", "method": "SportsAPING/v1.0/listMarketBook", "id": 1,
                       "params": {"marketIds": [MARKET_ID]}}).encode()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
        request = urllib.request.Request(f"{base}{PATH}", data=body,
                                         headers={**headers, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as resp:
            books = json.load(resp)["result"]
        if books and books[0]["status"] == "OPEN":
            return
        time.sleep(0.1)
    raise RuntimeError(f"market {MARKET_ID} did not open within a minute")


def login(base: str, name: str, password: str) -> str:
    data = urllib.parse.urlencode({"username": name, "password": password}).encode()
    request = urllib.request.Request(f"{base}/api/login", data=data, headers={"X-Application": "load"})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return str(json.load(resp)["token"])


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User + system CPU time of a live process: (all its threads and live children, its main thread).

    The children are the exchange server's journal writer process (the bare server has none); the
    main thread runs the event loop.
    """

    def read(stat: str) -> float:
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a child that has just exited
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    total = read(f"/proc/{pid}/stat") + sum(read(f"/proc/{child}/stat") for child in children)
    return total, read(f"/proc/{pid}/task/{pid}/stat")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGINT (a clean shutdown that flushes the journal), then SIGKILL if it hangs."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


# --- load generators ---------------------------------------------------------------------------


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_wrk(port: int, headers: dict[str, str], clients: int, seconds: float, cap: int,
            cpus: set[int] | None, tmp: Path) -> Load:
    header_lines = "\n".join(f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}" for k, v in headers.items())
    script = tmp / "load.lua"
    script.write_text(WRK_SCRIPT % {"body": json.dumps(PLACE_BODY), "headers": header_lines, "cap": cap})
    duration = max(1, round(seconds))
    command = ["wrk", "-t1", f"-c{clients}", f"-d{duration}s", "--timeout", "10s", "-s", str(script),
               f"http://{HOST}:{port}{PATH}"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60, check=True,
                         preexec_fn=pinned(cpus)).stdout
    match = re.search(r"LOAD requests=(\d+) duration_us=(\d+) p50_us=(\d+) p99_us=(\d+) failures=(\d+) "
                      r"errors=(\d+)", out)
    if match is None:
        raise RuntimeError(f"wrk printed no result line:\n{out}")
    requests, duration_us, p50, p99, failures, errors = map(int, match.groups())
    return Load(requests, duration_us / 1e6, p50 / 1000, p99 / 1000, failures + errors)


async def _drive(port: int, request: bytes, clients: int, seconds: float, cap: int) -> tuple[array[float], int]:
    """``clients`` keep-alive connections, each sending ``request`` and reading the answer, until time or cap."""
    latencies: array[float] = array("d")
    failures = 0
    sent = 0
    stop_at = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal failures, sent
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while sent < cap and time.perf_counter() < stop_at:
                sent += 1
                start = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
                if length is None:
                    raise RuntimeError(f"an answer without Content-Length: {head[:200]!r}")
                body = await reader.readexactly(int(length.group(1)))
                latencies.append(time.perf_counter() - start)
                if not head.startswith(b"HTTP/1.1 200") or b'"SUCCESS"' not in body:
                    failures += 1
        finally:
            writer.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, failures


def _python_worker(port: int, request: bytes, clients: int, seconds: float, cap: int, cpus: set[int] | None,
                   out: Connection) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)
    latencies, failures = asyncio.run(_drive(port, request, clients, seconds, cap))
    out.send((latencies.tobytes(), failures))
    out.close()


def run_python(port: int, headers: dict[str, str], clients: int, seconds: float, cap: int,
               cpus: set[int] | None) -> Load:
    """The fallback: one process per client CPU, each with its share of the connections."""
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    body = PLACE_BODY.encode()
    request = (f"POST {PATH} HTTP/1.1\r\nHost: {HOST}:{port}\r\n{head}Content-Length: {len(body)}\r\n\r\n"
               .encode() + body)
    workers = max(1, min(clients, len(cpus) if cpus else 1))
    context = multiprocessing.get_context("fork")
    procs, pipes = [], []
    for i in range(workers):
        share = clients // workers + (i < clients % workers)
        receiver, sender = context.Pipe(duplex=False)
        proc = context.Process(target=_python_worker, daemon=True,
                               args=(port, request, share, seconds, max(1, cap // workers), cpus, sender))
        procs.append(proc)
        pipes.append(receiver)
    began = time.perf_counter()
    for proc in procs:
        proc.start()
    latencies: array[float] = array("d")
    failures = 0
    for receiver in pipes:
        if not receiver.poll(seconds + 60):
            raise RuntimeError("a load process did not report")
        raw, failed = receiver.recv()
        latencies.frombytes(raw)
        failures += failed
    elapsed = time.perf_counter() - began
    for proc in procs:
        proc.join(timeout=10)
    ordered = sorted(latencies)
    return Load(len(ordered), elapsed, percentile(ordered, 0.5), percentile(ordered, 0.99), failures)


def percentile(ordered: Sequence[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


# --- the run -----------------------------------------------------------------------------------


def measure(name: str, server: subprocess.Popen[bytes], port: int, headers: dict[str, str],
            args: argparse.Namespace, cpus: set[int] | None, tmp: Path, seconds: float) -> Phase:
    (cpu_before, loop_before), children_before = cpu_seconds(server.pid), children_cpu()
    if args.generator == "wrk":
        load = run_wrk(port, headers, args.clients, seconds, args.max_requests, cpus, tmp)
    else:
        load = run_python(port, headers, args.clients, seconds, args.max_requests, cpus)
    cpu_after, loop_after = cpu_seconds(server.pid)
    per_request = 1e6 / max(1, load.requests)
    client_cpu = (children_cpu() - children_before) / load.seconds
    return Phase(name, load.requests, load.seconds, load.p50_ms, load.p99_ms, load.failures,
                 (cpu_after - cpu_before) * per_request, (loop_after - loop_before) * per_request, client_cpu)


def cpu_plan(pin: str) -> tuple[set[int] | None, set[int] | None, str]:
    """(server CPUs, client CPUs, a sentence saying so) for ``--pin split|client|none``."""
    available = sorted(os.sched_getaffinity(0))
    if pin == "none" or len(available) < 2:
        return None, None, f"not pinned ({len(available)} CPUs shared by servers and load generator)"
    client = {available[-1]}
    if pin == "client":
        return None, client, f"load generator pinned to CPU {available[-1]}, servers free on all {len(available)}"
    server = set(available[:-1])
    return server, client, f"servers pinned to CPU {sorted(server)}, load generator to CPU {available[-1]}"


def summarise(phases: list[Phase], names: tuple[str, str]) -> None:
    bare = [p for p in phases if p.name == names[0]]
    place = [p for p in phases if p.name == names[1]]
    print(f"\nmedian of {len(bare)}:")
    width = max(map(len, names))
    for name, runs in zip(names, (bare, place), strict=True):
        print(f"  {name:<{width}} {statistics.median(p.rate for p in runs):7.0f} /s"
              f"   p50 {statistics.median(p.p50_ms for p in runs):6.2f} ms"
              f"   p99 {statistics.median(p.p99_ms for p in runs):6.2f} ms"
              f"   server {statistics.median(p.server_cpu_us for p in runs):4.0f} µs CPU/req"
              f" (loop {statistics.median(p.loop_cpu_us for p in runs):3.0f})")
    ratios = [p.rate / b.rate for b, p in zip(bare, place, strict=True)]
    ratio = statistics.median(ratios)
    p99 = statistics.median(p.p99_ms for p in place)
    cpu_ratio = cpu_time_ratio([b.server_cpu_us for b in bare], [p.server_cpu_us for p in place])
    loop_ratio = cpu_time_ratio([b.loop_cpu_us for b in bare], [p.loop_cpu_us for p in place])
    print(f"ratio to ceiling: {ratio:.2f} (per repeat: {', '.join(f'{r:.2f}' for r in ratios)});"
          f" by server CPU per request: {cpu_ratio}, by event-loop CPU per request: {loop_ratio}")
    verdict = "met" if ratio >= TARGET_RATIO and p99 <= TARGET_P99_MS else "NOT met"
    print(f"target (>= {TARGET_RATIO:.1f}x the ceiling, p99 <= {TARGET_P99_MS:.0f} ms): {verdict}")


def cpu_time_ratio(bare: Sequence[float], place: Sequence[float]) -> str:
    """The ratio of the medians of CPU time per request, bare over exchange, or why it cannot be told: the kernel
    counts CPU time in clock ticks (10 ms), and a phase shorter than that may show none.

    >>> cpu_time_ratio([40.0, 50.0], [100.0, 80.0]), cpu_time_ratio([40.0], [0.0])
    ('0.50', 'n/a: phase too short to time')
    """
    numerator, denominator = statistics.median(bare), statistics.median(place)
    if numerator <= 0 or denominator <= 0:
        return "n/a: phase too short to time"
    return f"{numerator / denominator:.2f}"


def journal_stats(log: Path) -> str:
    match = re.search(r"journal: (\d+) records in (\d+) commits", log.read_text())
    if match is None:
        return "journal statistics not found in the server log"
    records, commits = map(int, match.groups())
    return f"journal: {records} records in {commits} commits ({records / max(1, commits):.1f} records per fsync)"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, every bound checked and ``--generator auto`` resolved to wrk or python."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=whole_number_from_to(1, MAX_CLIENTS), default=64,
                        help=f"concurrent keep-alive connections (default 64, 1 to {MAX_CLIENTS})")
    parser.add_argument("--seconds", type=number_from_to(1, MAX_SECONDS), default=5.0,
                        help=f"per phase (default 5, 1 to {MAX_SECONDS:.0f})")
    parser.add_argument("--repeats", type=whole_number_from_to(1, MAX_REPEATS), default=3,
                        help=f"bare/exchange pairs (default 3, 1 to {MAX_REPEATS})")
    parser.add_argument("--max-requests", type=whole_number_from_to(1, MAX_REQUESTS), default=500_000,
                        help=f"per phase (default 500000, 1 to {MAX_REQUESTS})")
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto",
                        help="auto: wrk if on the PATH, else Python processes (default auto)")
    parser.add_argument("--record", action="store_true",
                        help="the exchange server also records the Parquet tables (serve --record): what that costs "
                             "an order")
    parser.add_argument("--pin", choices=("client", "split", "none"), default="client",
                        help="client: the load generator on the last CPU, servers anywhere (default); split: "
                             "servers on all CPUs but the last; none: the scheduler places both")
    args = parser.parse_args(argv)
    if args.generator == "auto":
        args.generator = "wrk" if shutil.which("wrk") else "python"
        if args.generator == "python":
            print("wrk is not on the PATH (apt-get install wrk): falling back to the Python load generator, "
                  "which costs the client CPU about three times what wrk does", file=sys.stderr)
    elif args.generator == "wrk" and not shutil.which("wrk"):
        parser.error("--generator wrk: wrk is not on the PATH (apt-get install wrk)")
    return args


def start_bare(port: int, env: dict[str, str], out: BinaryIO, cpus: set[int] | None) -> subprocess.Popen[bytes]:
    """The bare aiohttp JSON handler (the ceiling) on ``port``, logging to ``out``."""
    return subprocess.Popen([sys.executable, "-c", BARE, str(port)], env=env, stdout=out,
                            stderr=subprocess.STDOUT, preexec_fn=pinned(cpus))


def add_load_account(db: str, env: dict[str, str], name: str = "load") -> None:
    """Create the funded account ``name`` (its password the same) that sends the orders, in a fresh ``db``."""
    subprocess.run([sys.executable, "-m", "exchange.cli", "accounts", "--db", db, "add", name,
                    "--password", name, "--balance", "100000000"], check=True, env=env, capture_output=True, cwd=ROOT)


def start_exchange(db: str, port: int, env: dict[str, str], out: BinaryIO,
                   cpus: set[int] | None, record: Path | None = None) -> subprocess.Popen[bytes]:
    """The exchange server on ``port`` over ``db``: one long betting window, no house, no call-rate limit;
    recording its tables into ``record`` if given."""
    return subprocess.Popen(
        [sys.executable, "-m", "exchange.cli", "serve", "--db", db, "--port", str(port),
         "--window-seconds", "3600", "--seed", "1", "--no-house",
         "--calls-per-second", "0",  # one account sends every order: no per-account rate limit
         *(() if record is None else ("--record", str(record)))],
        env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, preexec_fn=pinned(cpus))


def run_phases(targets: Sequence[tuple[str, subprocess.Popen[bytes], int]], headers: dict[str, str],
               args: argparse.Namespace, client_cpus: set[int] | None, tmp: Path) -> list[Phase]:
    """One unreported second of warm-up per server, then ``--repeats`` rounds of every target in turn."""
    for _, proc, port in targets:
        measure("warm-up", proc, port, headers, args, client_cpus, tmp, 1.0)
    phases = []
    for _ in range(args.repeats):
        for phase_name, proc, port in targets:
            phase = measure(phase_name, proc, port, headers, args, client_cpus, tmp, args.seconds)
            print(phase.line(), flush=True)
            phases.append(phase)
    return phases


def main() -> None:
    args = parse_args()
    server_cpus, client_cpus, placement = cpu_plan(args.pin)
    names = ("bare aiohttp JSON handler", "placeOrders (journaled, recorded)" if args.record else
             "placeOrders (journaled)")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        db = str(tmp / "load.db")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        add_load_account(db, env)
        bare_port, server_port = free_port(), free_port()
        bare_log, server_log = tmp / "bare.log", tmp / "server.log"
        with bare_log.open("wb") as bare_out, server_log.open("wb") as server_out:
            bare = start_bare(bare_port, env, bare_out, server_cpus)
            server = start_exchange(db, server_port, env, server_out, server_cpus,
                                    tmp / "recording" if args.record else None)
            try:
                base = f"http://{HOST}:{server_port}"
                wait_up(f"{base}/openapi.json", server, server_log)
                wait_up(f"http://{HOST}:{bare_port}/", bare, bare_log)
                token = login(base, "load", "load")
                headers = {"X-Application": "load", "X-Authentication": token}
                wait_open(base, headers, server, server_log)
                print(f"{args.clients} clients, {args.seconds:.0f} s or {args.max_requests} requests per phase, "
                      f"{args.repeats} repeats, loopback only; load generator: {args.generator}; {placement}; "
                      f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
                targets = ((names[0], bare, bare_port), (names[1], server, server_port))
                summarise(run_phases(targets, headers, args, client_cpus, tmp), names)
            finally:
                for proc in (bare, server):
                    stop(proc)
        print(journal_stats(server_log))
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
