"""``exchange-poker serve`` stopped by a signal while it starts, what it loads before it answers, and commands whose
reader goes away."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.helpers import free_port

REPO = Path(__file__).resolve().parents[1]
BOUND_S = 60  # every wait in these tests

# The command line with a signal sent to itself the moment aiohttp is first imported: while ``serve`` loads,
# long before the server could install its own handlers (about 0.3 s of a start on this machine).
_SIGNAL_AS_AIOHTTP_LOADS = """
import os, runpy, signal, sys

class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "aiohttp":
            sys.meta_path.remove(self)
            print("signalled as aiohttp loads", flush=True)
            os.kill(os.getpid(), getattr(signal, os.environ["SIGNAL"]))
        return None

sys.meta_path.insert(0, SignalOnImport())
sys.argv = ["exchange.cli", *sys.argv[1:]]
runpy.run_module("exchange.cli", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT"])
def test_a_stop_signal_while_serve_loads_stops_it_cleanly(tmp_path: Path, stop: str) -> None:
    db = tmp_path / "exchange.db"
    argv = ["serve", "--db", str(db), "--port", str(free_port()), "--no-house"]
    done = subprocess.run([sys.executable, "-c", _SIGNAL_AS_AIOHTTP_LOADS, *argv], capture_output=True, text=True,
                          timeout=BOUND_S, cwd=REPO, env={**os.environ, "SIGNAL": stop})
    assert "signalled as aiohttp loads" in done.stdout
    assert done.returncode == 0, (done.returncode, done.stderr)  # on main: -15 (killed), or 1 (KeyboardInterrupt)
    assert "Traceback" not in done.stderr
    assert "Exchange Poker server on" not in done.stdout
    assert not db.exists()  # it stopped before it opened anything


def test_a_command_whose_reader_has_gone_ends_quietly(tmp_path: Path) -> None:
    """``exchange-poker ... | head -1``: the rest of the output has nowhere to go; no BrokenPipeError traceback."""
    command = [sys.executable, "-m", "exchange.cli", "showdown", "--hands", "AsKs", "QdQc", "--board", "2c3d4h5s9c"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes before the command writes a line
    err = proc.stderr.read().decode()
    assert proc.wait(BOUND_S) == 128 + signal.SIGPIPE, err  # as a tool the pipe's signal ended
    assert err == ""  # on main: "BrokenPipeError: [Errno 32] Broken pipe" and exit 120


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--host", "host.invalid"], "--host host.invalid: "),
        (["--stream-port", "0", "--tls-cert", "missing.pem", "--tls-key", "missing.key"],
         "cannot load the certificate missing.pem with the key missing.key"),
    ],
)
def test_a_host_or_certificate_that_cannot_serve_is_refused_before_the_server_starts(
    tmp_path: Path, argv: list[str], reason: str
) -> None:
    """Refused on one line before the database is opened (on main: after a whole start, its log lines first)."""
    db = tmp_path / "exchange.db"
    done = subprocess.run([sys.executable, "-m", "exchange.cli", "serve", "--db", str(db), "--port",
                           str(free_port()), "--no-house", *argv], capture_output=True, text=True, timeout=BOUND_S,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and reason in done.stderr, done.stderr
    assert not db.exists()


def _play_with_a_bot_that_sends(tmp_path: Path,
                                signum: signal.Signals) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``play`` into ``tmp_path/out`` with a bot that sends its own process ``signum`` at its first decision: what
    the run ended with, and its ``--out``."""
    bot = tmp_path / "signals.py"
    bot.write_text(
        "import os, signal\n"
        "class Signals:\n"
        "    def decide(self, view):\n"
        f"        os.kill(os.getpid(), signal.{signum.name})\n"
    )
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "exchange.cli", "play", "--hands", "3", "--no-progress", "--out",
                           str(out), "--bots", f"{bot}:Signals"], capture_output=True, text=True, timeout=BOUND_S,
                          cwd=REPO)
    return done, out


def test_ctrl_c_in_a_long_command_stops_it_on_one_line(tmp_path: Path) -> None:
    """A SIGINT while ``play`` plays (sent by a bot, at an exact moment): one line, status 130, and the run's
    unfinished output removed."""
    done, out = _play_with_a_bot_that_sends(tmp_path, signal.SIGINT)
    assert done.returncode == 128 + signal.SIGINT, done.stderr  # on main: 1, a KeyboardInterrupt traceback
    assert done.stderr == "exchange-poker: interrupted\n"
    assert not out.exists()  # nor the folder it made for them


def test_a_port_another_process_listens_on_is_refused_before_the_server_starts(tmp_path: Path) -> None:
    db = tmp_path / "exchange.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        record = tmp_path / "out" / "rec"
        done = subprocess.run([sys.executable, "-m", "exchange.cli", "serve", "--db", str(db), "--port", str(port),
                               "--no-house", "--record", str(record)],
                              capture_output=True, text=True, timeout=BOUND_S, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [  # on main: the whole start's log lines first, then the refusal
        f"exchange-poker: error: --port {port}: cannot listen on 127.0.0.1:{port} (Address already in use); "
        "is another server on it? Give another port"
    ]
    assert not db.exists()
    assert not record.parent.exists()  # (the recording's check left the folders it made, tables' and all)


def test_output_that_cannot_be_written_is_one_line_not_a_traceback() -> None:
    """``exchange-poker ... > /dev/full``: on main an OSError traceback (No space left on device)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "exchange.cli", "showdown", "--hands", "AsKs", "QdQc", "--board", "2c3d4h5s9c"],
            stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=BOUND_S,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr == "exchange-poker: error: cannot write the output: No space left on device\n"


def test_sigterm_in_play_removes_its_unfinished_output_as_ctrl_c_does(tmp_path: Path) -> None:
    """``kill`` or ``timeout`` while ``play`` plays (a bot sends it, at an exact moment): on main the process died
    at once (status -15) and left its staging folder in --out."""
    done, out = _play_with_a_bot_that_sends(tmp_path, signal.SIGTERM)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr == "exchange-poker: terminated\n"
    assert not out.exists()


@pytest.mark.parametrize(("channels", "line"), [
    (("holdem", "stud7", "omaha-hilo"), "irregularities in a share 0.25 of the games on holdem, omaha-hilo (none on "
                                        "stud7: the rules are for games dealt as Hold'em)"),
    (("omaha",), "irregularities in a share 0.25 of the games on omaha"),
])
def test_the_startup_lines_say_which_channels_the_dealer_errs_on(
    tmp_path: Path, channels: tuple[str, ...], line: str
) -> None:
    """A channel not dealt as Hold'em is given no irregularity: the server says so as it starts, rather than leave
    a trader waiting for errors that never come on it."""
    from exchange.cli.serve import _irregularity_line
    from exchange.server.config import ServerConfig

    config = ServerConfig(db_path=str(tmp_path / "x.db"), channels=channels, irregularity_rate=0.25)
    assert _irregularity_line(config) == line


def test_serve_loads_no_numeric_library_nor_process_pool_before_it_answers() -> None:
    """numpy, numba and pyarrow take about a fifth of a second to load: a server that records nothing loads them on
    its equity thread once it answers (the engine's warm-up), not before, so a restart is not held up by them. The
    backtest's process pools (multiprocessing) it never loads."""
    code = ("import sys, exchange.cli, exchange.cli.serve; "
            "print(' '.join(sorted({'numpy', 'numba', 'pyarrow', 'multiprocessing'} & set(sys.modules))) or 'none')")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=BOUND_S)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "none"


def test_a_seeded_server_says_its_deals_can_be_foreseen(tmp_path: Path) -> None:
    """A probe dealt every card of a ``--seed 7`` server's games ahead of their reveal, from the hole cards and the
    market id's game number: the start says so."""
    from tests.server.serverproc import ServerProcess

    with ServerProcess(tmp_path / "ex.db", "--seed", "7") as server:
        pass
    decks = [line for line in server.out.read_text().splitlines() if "decks:" in line]
    assert decks == ["  decks:    seeded (--seed 7): whoever knows or guesses the seed can deal every card ahead of "
                     "its reveal (a market's id numbers its game); leave --seed out for real trading"], decks
