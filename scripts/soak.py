"""Soak test of the live server: memory and file descriptors over many games, then restart times.

Runs ``python -m exchange.cli serve`` on 127.0.0.1 with the house market
maker, short windows and a fresh database, for ``--games`` games (or until
``--time-limit`` seconds, whichever comes first). Every ``--sample-seconds``
it reads the server's resident memory (``VmRSS`` in ``/proc/PID/status``) and
its open file descriptors (``/proc/PID/fd``), and, unless ``--no-trade``, a
small client backs one hand at the best price on offer, so orders match and
markets settle with positions in them. Then it SIGKILLs the server and times
three starts until the server answers HTTP:

* the restart on the killed server's database (the newest snapshot plus the
  journal after it);
* the same, on a copy of the database with its snapshots removed (a full
  replay of the journal: what a restart cost before snapshots);
* a fresh start on an empty database.

and prints a table of the figures, with each start's recovery log line; the restart's row says what the restart
did, as that line does (a snapshot and the journal after it, or a full replay when every snapshot was passed over).
The package's bytecode is compiled first, as ``pip install`` does, into the ``__pycache__`` folders of the
checkout this script is in (it writes there): a server
run from a checkout where ``PYTHONDONTWRITEBYTECODE`` is set would otherwise
compile every module from source at each start (0.15 s here), which no
installed server does. ``--keep`` keeps the databases; ``--restarts-only DB`` times the three starts
again on a copy of a kept one (on a quiet machine, say); ``--repeats N`` times the restart and the fresh start N
times each, alternately, and prints their medians.

With ``--restarts-only``, give the same serve options as the run that made DB (``--window-seconds``,
``--playing-seconds``, ``--snapshot-every-records``, ``--snapshot-every-minutes``, ``--keep-closed-markets``): a
snapshot taken with another exchange config (another ``--keep-closed-markets``) is passed over, and the restart
is then a full replay of the journal, which its row says.

    python scripts/soak.py --games 200 --window-seconds 0.15 --playing-seconds 0.03
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's option types, as the server it runs is the checkout's

from exchange.cli.options import minutes_or_off, not_negative, positive, seconds, seconds_or_zero  # noqa: E402

HOST = "127.0.0.1"
APP_KEY = "soak"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass
class Sample:
    at_s: float
    games: int
    rss_kib: int
    fds: int


@dataclass
class Server:
    """One ``serve`` process on a free loopback port, its stderr in a file."""

    db: Path
    args: list[str]
    log: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, timeout_s: float = 120) -> float:
        """Start it; the seconds until it answers HTTP."""
        started = time.perf_counter()
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "exchange.cli", "serve", "--db", str(self.db), "--host", HOST,
                 "--port", str(self.port), *self.args],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
            )
        while time.perf_counter() - started < timeout_s:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/games/v1/channels", timeout=1):
                    return time.perf_counter() - started
            except (urllib.error.URLError, OSError):
                time.sleep(0.02)
        raise RuntimeError(f"the server did not answer within {timeout_s} s")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=5) as answer:
            return json.loads(answer.read())

    def sample(self, at_s: float, games: int) -> Sample:
        assert self.proc is not None
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return Sample(at_s, games, rss, len(os.listdir(f"/proc/{self.proc.pid}/fd")))

    def recovery_line(self) -> str:
        lines = [line for line in self.log.read_text().splitlines() if "recovery:" in line]
        return lines[0].split("recovery: ", 1)[1] if lines else "(no recovery line)"

    def kill(self) -> None:
        """SIGKILL the server, then wait for its helper processes (journal writer, snapshot taker) to exit.

        They notice the server is gone and close the database, which checkpoints
        its write-ahead log into the main file: until they have, a copy of the
        files may be torn.
        """
        assert self.proc is not None
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in children) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


class Trader:
    """Logs in as the demo account and backs hand 1 at the best price offered (2.00 a bet), over JSON-RPC."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.token = ""
        self.placed = self.matched = 0

    def _post(self, path: str, body: bytes, content_type: str) -> Any:
        headers = {"X-Application": APP_KEY, "Content-Type": content_type}
        if self.token:
            headers["X-Authentication"] = self.token
        request = urllib.request.Request(f"{self.server.url}{path}", body, headers)
        with urllib.request.urlopen(request, timeout=5) as answer:
            return json.loads(answer.read())

    def _rpc(self, method: str, params: dict[str, Any]) -> Any:
        body = json.dumps({"jsonrpc": "2.0", "method": f"SportsAPING/v1.0/{method}", "params": params, "id": 1})
        return self._post("/exchange/betting/json-rpc/v1", body.encode(), "application/json").get("result")

    def trade(self, market_id: str) -> None:
        if not self.token:
            form = urllib.parse.urlencode({"username": "demo", "password": "demo"}).encode()
            self.token = self._post("/api/login", form, "application/x-www-form-urlencoded")["token"]
        books = self._rpc("listMarketBook", {"marketIds": [market_id],
                                             "priceProjection": {"priceData": ["EX_BEST_OFFERS"]}})
        offers = (books or [{}])[0].get("runners", [{}])[0].get("ex", {}).get("availableToBack", [])
        if not offers:
            return
        report = self._rpc("placeOrders", {"marketId": market_id, "instructions": [{
            "selectionId": 1, "side": "BACK", "orderType": "LIMIT",
            "limitOrder": {"size": 2.0, "price": offers[0]["price"], "persistenceType": "LAPSE"}}]})
        if report and report.get("status") == "SUCCESS":
            self.placed += 1
            self.matched += report["instructionReports"][0].get("sizeMatched", 0) > 0


def run_games(server: Server, games: int, time_limit_s: float, sample_s: float, trade: bool,
              marks: list[int]) -> tuple[list[Sample], dict[int, Sample]]:
    """Play until ``games`` games or ``time_limit_s``; samples every ``sample_s`` and at each game of ``marks``."""
    trader = Trader(server) if trade else None
    samples: list[Sample] = []
    at_marks: dict[int, Sample] = {}
    started = time.perf_counter()
    next_sample = 0.0
    game = 0
    while game < games and time.perf_counter() - started < time_limit_s:
        snapshot = server.get("/games/v1/channels/holdem/snapshot").get("game") or {}
        game = int(snapshot.get("gameNumber", 0))
        now = time.perf_counter() - started
        if trader is not None and snapshot.get("bettingOpen"):
            try:
                trader.trade(snapshot["id"])
            except (urllib.error.URLError, OSError, KeyError, IndexError, TypeError) as exc:
                print(f"  trade failed: {exc}", file=sys.stderr)
        for mark in marks:
            if game >= mark and mark not in at_marks:
                at_marks[mark] = server.sample(now, game)
                print(f"  mark: game {game} at {now:.0f} s, rss {at_marks[mark].rss_kib / 1024:.1f} MiB", flush=True)
        if now >= next_sample:
            samples.append(server.sample(now, game))
            print(f"  {now:7.1f} s  game {game:5d}  rss {samples[-1].rss_kib / 1024:7.1f} MiB  "
                  f"fds {samples[-1].fds}", flush=True)
            next_sample = now + sample_s
        time.sleep(0.05)
    samples.append(server.sample(time.perf_counter() - started, game))
    if trader is not None:
        print(f"  trader: {trader.placed} bets placed, {trader.matched} matched")
    return samples, at_marks


def db_figures(db: Path) -> dict[str, Any]:
    conn = sqlite3.connect(db)
    try:
        (records,) = conn.execute("SELECT COUNT(*) FROM journal").fetchone()
        snaps = conn.execute("SELECT seq, LENGTH(exchange) + LENGTH(notes) FROM snapshots ORDER BY seq").fetchall()
    finally:
        conn.close()
    return {"records": records, "snapshots": snaps}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive, default=200, help="games to run before the kill (default 200)")
    parser.add_argument("--time-limit", type=seconds, default=600, help="seconds at most before the kill (600)")
    parser.add_argument("--sample-seconds", type=seconds, default=10, help="seconds between samples (10)")
    parser.add_argument("--window-seconds", type=seconds, default=0.15, help="passed to serve (default 0.15)")
    parser.add_argument("--playing-seconds", type=seconds_or_zero, default=0.03, help="passed to serve (default 0.03)")
    parser.add_argument("--snapshot-every-records", type=not_negative(int), default=5_000,
                        help="passed to serve (default 5000)")
    parser.add_argument("--snapshot-every-minutes", type=minutes_or_off, default=1, help="passed to serve (default 1)")
    parser.add_argument("--keep-closed-markets", type=positive, default=None, help="passed to serve (default: serve's)")
    parser.add_argument("--marks", type=mark_list, default=[1000, 10000],
                        help="game numbers at which to report RSS, comma-separated (default 1000,10000)")
    parser.add_argument("--no-trade", action="store_true", help="only the house's orders, no client bets")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (databases and logs)")
    parser.add_argument("--restarts-only", type=kept_database, metavar="DB",
                        help="only time the three starts, on a copy of DB (a database a kept run left); give the "
                             "same serve options as the run that made DB, or its snapshots are passed over and the "
                             "restart is a full replay")
    parser.add_argument("--repeats", type=positive, default=1,
                        help="time the restart and the fresh start this many times each, alternately, and print "
                             "their medians (default 1; the full replay is timed once)")
    return parser.parse_args(argv)


def mark_list(text: str) -> list[int]:
    """``--marks``: whole numbers from 1, comma-separated."""
    try:
        return [positive(mark) for mark in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be whole numbers from 1, comma-separated, not {text}") from None


def kept_database(text: str) -> Path:
    """``--restarts-only``: an exchange's database file that is there (opening a missing one would create it empty;
    a file that is no SQLite database, or no exchange's, would fail its copy or its server's start)."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no database at {text}")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise argparse.ArgumentTypeError(f"{text} is not a SQLite database ({exc}): give the database a kept soak "
                                         f"or a server left") from None
    missing = sorted({"journal", "snapshots"} - tables)
    if missing:
        raise argparse.ArgumentTypeError(f"{text} is not an exchange's database: it has no {' or '.join(missing)} "
                                         f"table")
    return path


def serve_options(args: argparse.Namespace) -> list[str]:
    """The ``serve`` options every start of the run uses."""
    options = ["--demo", "--window-seconds", str(args.window_seconds),
               "--playing-seconds", str(args.playing_seconds), "--seed", "1",
               "--snapshot-every-records", str(args.snapshot_every_records),
               "--snapshot-every-minutes", str(args.snapshot_every_minutes)]
    if args.keep_closed_markets is not None:
        options += ["--keep-closed-markets", str(args.keep_closed_markets)]
    return options


def copy_database(db: Path, copy: Path) -> Path:
    """A consistent copy of a database (SQLite's backup, which reads through its write-ahead log) and its
    durable mark."""
    source, target = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    mark = db.with_name(db.name + "-durable")
    if mark.exists():
        shutil.copy(mark, copy.with_name(copy.name + "-durable"))
    return copy


def without_snapshots(db: Path, copy: Path) -> Path:
    """A copy of the database with its snapshots deleted: a restart from it replays the whole journal."""
    copy_database(db, copy)
    conn = sqlite3.connect(copy)
    conn.execute("DELETE FROM snapshots")
    conn.commit()
    conn.close()
    return copy


@dataclass
class Start:
    """One kind of start after the kill, timed one or more times: seconds to the first answer, and the recovery
    log line of its first start."""

    name: str
    seconds: list[float] = field(default_factory=list)
    line: str = ""

    def figure(self) -> str:
        if len(self.seconds) == 1:
            return f"{self.seconds[0]:.2f} s"
        return (f"{statistics.median(self.seconds):.2f} s, median of {len(self.seconds)} "
                f"({min(self.seconds):.2f}-{max(self.seconds):.2f}: {' / '.join(f'{t:.2f}' for t in self.seconds)})")


def restart_name(line: str) -> str:
    """The restart's row, saying what it did as its recovery log line ``line`` does: a snapshot and the journal
    after it, or a full replay (none taken yet, or every one passed over: taken with another exchange config).

    >>> restart_name("snapshot at seq 9000 + 120 journal records (seq 9001-9120)")
    'restart (snapshot + tail)'
    >>> restart_name("full replay of 9120 journal records (seq 1-9120) (no snapshot); snapshots passed over (...)")
    'restart (full replay: snapshots passed over)'
    """
    if line.startswith("snapshot at seq"):
        how = "snapshot + tail"
        if "snapshots passed over" in line:
            how += ", newer snapshots passed over"
    elif line.startswith("full replay"):
        how = "full replay: snapshots passed over" if "snapshots passed over" in line else "full replay: no snapshot"
    else:
        how = "how unknown: no recovery line"
    return f"restart ({how})"


def time_starts(work: Path, db: Path, serve_args: list[str], servers: list[Server], repeats: int = 1,
                keep: bool = False) -> list[Start]:
    """The three starts after the kill: the restart and the fresh start ``repeats`` times each, one after the other
    (this host's speed changes from minute to minute: alternated, both see the same), each restart on a copy of
    ``db`` (removed after it unless ``keep``: a 10,000-game database is a gigabyte); the full replay once (it
    takes a minute or more)."""
    restart, full, fresh = (Start("restart"), Start("restart (full replay, snapshots removed)"),
                            Start("fresh start, empty database"))

    def timed(start: Start, path: Path, wait_s: float) -> None:
        server = Server(path, serve_args, work / f"{len(servers)}.log")
        servers.append(server)
        start.seconds.append(server.start(timeout_s=wait_s))
        start.line = start.line or server.recovery_line()
        server.stop()

    for repeat in range(repeats):
        copy = copy_database(db, work / f"restart-{repeat}.db")
        timed(restart, copy, 120)
        if not keep:
            for path in work.glob(f"{copy.name}*"):  # and its write-ahead log, lock and durable mark
                path.unlink()
        timed(fresh, work / f"fresh-{repeat}.db", 120)
    # A full replay takes about a minute per two million records on a busy host: it gets a longer wait.
    timed(full, without_snapshots(db, work / "no-snapshots.db"), 1200)
    restart.name = restart_name(restart.line)  # what the restart did, not what it was meant to do
    return [restart, full, fresh]


def report(ran_s: float, samples: list[Sample], at_marks: dict[int, Sample], marks: list[int],
           figures: dict[str, Any], first_start: float, starts: list[Start]) -> None:
    """Print the table of figures, then each start's recovery log line."""
    first, last = samples[0], samples[-1]
    warm = samples[1] if len(samples) > 2 else first  # the first game loads the equity tables: grow from after it
    games = last.games
    rows = [
        ("games played", f"{games} in {ran_s:.0f} s ({games / max(ran_s, 1e-9):.1f} games/s)"),
        ("journal records", f"{figures['records']:,}"),
        ("snapshots kept (seq: bytes)", ", ".join(f"{seq}: {size:,}" for seq, size in figures["snapshots"]) or "none"),
        ("RSS first / last / max", f"{first.rss_kib / 1024:.1f} / {last.rss_kib / 1024:.1f} / "
                                   f"{max(s.rss_kib for s in samples) / 1024:.1f} MiB"),
        (f"RSS growth per game after game {warm.games}",
         f"{(last.rss_kib - warm.rss_kib) / max(1, last.games - warm.games):.1f} KiB"),
        *((f"RSS at game {mark}", f"{at_marks[mark].rss_kib / 1024:.1f} MiB (game {at_marks[mark].games}, "
           f"{at_marks[mark].at_s:.0f} s)") for mark in marks if mark in at_marks),
        ("open fds first / last / max", f"{first.fds} / {last.fds} / {max(s.fds for s in samples)}"),
        ("first start (empty database)", f"{first_start:.2f} s"),
    ]
    rows += [(start.name, start.figure()) for start in starts]
    width = max(len(name) for name, _ in rows)
    print()
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print()
    for start in starts:
        print(f"{start.name}: {start.line}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for package in ("engine", "exchange"):  # the starts are timed as an installed server's (see the module)
        compileall.compile_dir(ROOT / package, quiet=1)
    serve_args = serve_options(args)
    marks = sorted(args.marks)
    work = Path(tempfile.mkdtemp(prefix="soak-"))
    db = work / "soak.db"
    servers: list[Server] = []
    if args.restarts_only is not None:
        try:
            starts = time_starts(work, copy_database(args.restarts_only, db), serve_args, servers, args.repeats)
        finally:
            for server in servers:
                server.stop()
            shutil.rmtree(work, ignore_errors=True)
        for start in starts:
            print(f"{start.name}: {start.figure()}; {start.line}")
        if "snapshots passed over" in starts[0].line:
            print("(the restart passed its snapshots over: were the serve options those of the run that made "
                  f"{args.restarts_only}? see --help)")
        return 0
    try:
        print(f"soak: up to {args.games} games or {args.time_limit:g} s, windows {args.window_seconds} s / "
              f"{args.playing_seconds} s, in {work}")
        live = Server(db, serve_args, work / "live.log")
        servers.append(live)
        first_start = live.start()
        started = time.perf_counter()
        samples, at_marks = run_games(live, args.games, args.time_limit, args.sample_seconds, not args.no_trade,
                                      marks)
        ran_s = time.perf_counter() - started
        live.kill()
        figures = db_figures(db)
        starts = time_starts(work, db, serve_args, servers, args.repeats, args.keep)
    finally:
        for server in servers:
            server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(ran_s, samples, at_marks, marks, figures, first_start, starts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
