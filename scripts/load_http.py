"""Load test of the exchange server on loopback: placeOrders/s and latency, against a bare aiohttp ceiling.

Starts, in child processes on 127.0.0.1 only: (1) a bare aiohttp app whose one
handler parses a JSON body and answers JSON, and (2) the exchange server
(``python -m exchange.server serve``, one long betting window, no house, a
fresh database). 64 concurrent clients then send single-instruction
``placeOrders`` (a back at 1000 that rests, so every order is accepted and
journaled with an fsync before it is acknowledged) for a fixed time or count,
whichever comes first, and the same clients hit the bare handler the same way.
It prints orders/s, p50/p99 latency and the ratio, then stops both servers.

    python scripts/load_http.py --seconds 8 --clients 64
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

HOST = "127.0.0.1"
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    import urllib.error
    import urllib.request

    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


async def login(base: str, name: str, password: str) -> str:
    async with aiohttp.ClientSession() as session, session.post(
        f"{base}/api/login", data={"username": name, "password": password}, headers={"X-Application": "load"}
    ) as resp:
        return str((await resp.json())["token"])


async def run_load(url: str, headers: dict[str, str], body: bytes, clients: int, seconds: float,
                   max_requests: int) -> tuple[int, float, list[float], int]:
    latencies: list[float] = []
    failures = 0
    done = 0
    stop_at = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:

        async def worker() -> None:
            nonlocal done, failures
            while time.perf_counter() < stop_at and done < max_requests:
                done += 1
                start = time.perf_counter()
                async with session.post(url, data=body) as resp:
                    answer = await resp.read()
                latencies.append(time.perf_counter() - start)
                if resp.status != 200 or b'"SUCCESS"' not in answer:
                    failures += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        elapsed = time.perf_counter() - began
    return len(latencies), elapsed, latencies, failures


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def report(name: str, count: int, elapsed: float, latencies: list[float], failures: int) -> float:
    rate = count / elapsed
    print(f"{name:<28} {count:>7} req in {elapsed:5.2f} s = {rate:8.0f} /s   p50 {percentile(latencies, 0.5):6.2f} ms"
          f"   p99 {percentile(latencies, 0.99):6.2f} ms   failures {failures}")
    return rate


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=8.0, help="per phase (default 8)")
    parser.add_argument("--max-requests", type=int, default=200_000, help="per phase (default 200000)")
    args = parser.parse_args()
    clients, seconds, cap = args.clients, min(args.seconds, 60.0), min(args.max_requests, 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "load.db")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        subprocess.run([sys.executable, "-m", "exchange.server", "accounts", "--db", db, "add", "load",
                        "--password", "load", "--balance", "100000000"], check=True, env=env, capture_output=True)
        bare_port, server_port = free_port(), free_port()
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(bare_port)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        server = subprocess.Popen(
            [sys.executable, "-m", "exchange.server", "serve", "--db", db, "--port", str(server_port),
             "--window-seconds", "3600", "--seed", "1", "--no-house"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = f"http://{HOST}:{server_port}"
            wait_up(f"{base}/openapi.json", server)
            wait_up(f"http://{HOST}:{bare_port}/", bare)
            token = await login(base, "load", "load")
            headers = {"X-Application": "load", "X-Authentication": token, "Content-Type": "application/json"}
            body = json.dumps({"jsonrpc": "2.0", "method": "SportsAPING/v1.0/placeOrders", "id": 1, "params": {
                "marketId": "holdem.0", "instructions": [{"selectionId": 1, "side": "BACK", "orderType": "LIMIT",
                "limitOrder": {"size": 2, "price": 1000, "persistenceType": "LAPSE"}}]}}).encode()
            print(f"{clients} clients, {seconds:.0f} s or {cap} requests per phase, loopback only")
            bare_rate = report("bare aiohttp JSON handler", *await run_load(
                f"http://{HOST}:{bare_port}/exchange/betting/json-rpc/v1", headers, body, clients, seconds, cap))
            rate = report("placeOrders (journaled)", *await run_load(
                f"{base}/exchange/betting/json-rpc/v1", headers, body, clients, seconds, cap))
            print(f"ratio to ceiling: {rate / bare_rate:.2f}")
        finally:
            for proc in (bare, server):
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()


if __name__ == "__main__":
    asyncio.run(main())
