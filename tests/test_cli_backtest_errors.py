"""``exchange-poker backtest``: an output folder it cannot write is refused before any game is played."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
STRATEGY = "exchange.backtest.strategy:Strategy"


@pytest.mark.parametrize("streams", [True, False])
def test_an_out_that_is_a_file_is_refused_on_one_line(
    streams: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "results.txt"
    taken.write_text("not a folder\n", encoding="utf-8")
    argv = ["backtest", "--strategy", STRATEGY, "--games", "2", "--seed", "1", "--out", str(taken), "--no-progress"]
    code, out, err = run_cli(capsys, *argv, *(() if streams else ("--no-streams",)))
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"exchange-poker: error: cannot write the output folder --out {taken}: "), err
    assert taken.read_text(encoding="utf-8") == "not a folder\n"


def test_an_out_inside_a_file_is_refused_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(tmp_path / "file" / "out")]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "cannot write the output folder --out" in err and "Not a directory" in err


def test_workers_and_a_scheduler_together_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cluster's workers run the games: --workers would be ignored, silently."""
    code, out, err = run_cli(capsys, "backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out",
                             str(tmp_path / "out"), "--workers", "4", "--scheduler", "tcp://127.0.0.1:1")
    assert (code, out) == (2, "")
    assert err == ("exchange-poker: error: give --workers (local processes) or --scheduler (a Dask cluster's "
                   "workers), not both\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("tcp://127.0.0.1:1", "Timed out trying to connect to tcp://127.0.0.1:1 after 1 s"),
        ("localhost", "missing port number in address 'localhost'"),
        ("http://127.0.0.1:8786", "unknown address scheme 'http'"),
    ],
)
def test_a_scheduler_it_cannot_reach_is_one_line(address: str, reason: str, tmp_path: Path) -> None:
    """In a process of its own (Dask's client leaves threads behind), bounded, with Dask's 30 s wait made 1 s."""
    pytest.importorskip("distributed")
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    result = subprocess.run([sys.executable, "-m", "exchange.cli", "backtest", "--strategy", STRATEGY, "--games", "1",
                             "--seed", "1", "--out", str(tmp_path / "out"), "--scheduler", address, "--no-progress"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"exchange-poker: error: cannot use the Dask scheduler {address}: ")
    assert reason in result.stderr


@pytest.mark.parametrize(
    ("blocked", "made_as", "reason"),
    [
        ("streams", "file", "streams is a file, not the folder of the stream recordings"),
        ("games.parquet", "folder", "games.parquet is a folder, not the games table"),
        ("settlements.parquet", "folder", "settlements.parquet is a folder, not the settlements table"),
    ],
)
def test_an_out_whose_names_are_taken_is_refused_before_the_games(
    blocked: str, made_as: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name the run writes in ``--out`` held by the wrong kind of thing: one line, exit 2, before any game, and
    the folder left as it was (not a traceback once every game has run, with the recordings half moved in)."""
    out = tmp_path / "out"
    out.mkdir()
    if made_as == "file":
        (out / blocked).write_text("mine\n", encoding="utf-8")
    else:
        (out / blocked).mkdir()
        (out / blocked / "part-0.parquet").write_text("mine\n", encoding="utf-8")
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(out), "--no-progress"]
    code, stdout, err = run_cli(capsys, *argv)
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"exchange-poker: error: cannot write the output folder --out {out}: "), err
    assert reason in err, err
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before


@pytest.mark.parametrize("theirs", [("games.parquet",), ("fills.parquet", "streams/holdem.0")])
def test_an_out_holding_files_that_are_no_backtests_is_refused(
    theirs: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table's name, or recordings in ``streams/``, in a folder without the record of a run (``backtest.json``):
    not an earlier backtest's output, which is all a backtest replaces; they were overwritten without a word."""
    out = tmp_path / "out"
    for name in theirs:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("precious\n", encoding="utf-8")
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(out), "--no-progress"]
    code, stdout, err = run_cli(capsys, *argv)
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    held = ", ".join(name.replace("/holdem.0", "/") for name in theirs)
    assert f"{out} holds {held} but no backtest.json, so not an earlier backtest's output, which is all a " in err
    assert err.endswith("choose another folder, or move them away\n"), err
    assert all((out / name).read_text(encoding="utf-8") == "precious\n" for name in theirs)
    assert sorted(p.name for p in out.iterdir()) == sorted({name.split("/")[0] for name in theirs})


@pytest.mark.parametrize("theirs", ["results.parquet", "hands/000000.phh"])
def test_an_out_holding_play_s_hands_is_refused(
    theirs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exchange-poker play --out`` wrote there: the backtest's tables went in beside its hands, as if one output."""
    out = tmp_path / "out"
    (out / theirs).parent.mkdir(parents=True, exist_ok=True)
    (out / theirs).write_text("precious\n", encoding="utf-8")
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(out), "--no-progress"]
    code, stdout, err = run_cli(capsys, *argv)
    assert (code, stdout) == (2, "")
    assert err == (f"exchange-poker: error: cannot write the output folder --out {out}: {out} holds the hands "
                   "'exchange-poker play' wrote (results.parquet, hands/); give the backtest a folder of its own\n")
    assert [str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()] == [theirs]


def test_an_earlier_backtests_output_is_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its record of the run is what makes a folder a backtest's: the second run replaces the first's files."""
    out = tmp_path / "out"
    argv = ["backtest", "--strategy", STRATEGY, "--seed", "1", "--out", str(out), "--no-progress"]
    assert run_cli(capsys, *argv, "--games", "2")[0] == 0
    code, _, err = run_cli(capsys, *argv, "--games", "1")
    assert code == 0, err
    assert json.loads((out / "backtest.json").read_text(encoding="utf-8"))["games"] == 1
    assert sorted(p.name for p in (out / "streams").iterdir()) == ["holdem.0"]


def test_a_hidden_file_in_streams_is_no_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file manager's ``.DS_Store`` in an empty folder's ``streams/`` neither refuses the run nor is removed."""
    out = tmp_path / "out"
    (out / "streams").mkdir(parents=True)
    (out / "streams" / ".DS_Store").write_text("finder\n", encoding="utf-8")
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(out), "--no-progress"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert sorted(p.name for p in (out / "streams").iterdir()) == [".DS_Store", "holdem.0"]


def test_a_file_named_streams_is_left_alone_without_streams(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "streams").write_text("mine\n", encoding="utf-8")
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(out), "--no-progress"]
    code, _, err = run_cli(capsys, *argv, "--no-streams")
    assert code == 0, err
    assert (out / "streams").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("latency", ["abc", "1.5", "-5"])
def test_a_latency_that_is_no_whole_number_of_ms_says_what_is_allowed(
    latency: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not argparse's 'invalid _non_negative value' (the name of a function of ours)."""
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(tmp_path / "out")]
    code, out, err = run_cli(capsys, *argv, f"--latency-ms={latency}")
    assert code == 2 and out == ""
    assert err == (f"exchange-poker: error: argument --latency-ms: must be a whole number of ms, 0 or more, "
                   f"not {latency}\n"), err  # fmt: skip


def test_a_latency_no_order_could_beat_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As long as a betting window or longer: every order would have been refused MARKET_NOT_OPEN_FOR_BETTING."""
    argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(tmp_path / "out")]
    code, out, err = run_cli(capsys, *argv, "--latency-ms", "30000")
    assert (code, out) == (2, "")
    assert err.endswith("a latency of 30000 ms is not shorter than holdem's betting windows (30000 ms): no order "
                        "could arrive while one is open\n"), err
    assert not (tmp_path / "out").exists()
    assert run_cli(capsys, *argv, "--latency-ms", "29999", "--no-progress")[0] == 0
    code, out, err = run_cli(capsys, *argv, "--params", '{"latency_ms": 45000}')  # the strategy's own
    assert (code, out) == (2, "")
    assert err.endswith("a latency of 45000 ms (the strategy's own; --latency-ms sets another) is not shorter than "
                        "holdem's betting windows (30000 ms): no order could arrive while one is open\n"), err
    assert run_cli(capsys, *argv, "--params", '{"latency_ms": 45000}', "--latency-ms", "50", "--no-progress")[0] == 0


DIES_IN_GAME_2 = """
import os

from exchange.backtest.strategy import Strategy


class Dies(Strategy):
    def on_market_open(self, market):
        if market.market_id == "holdem.2":
            os._exit(3)  # as a worker killed for its memory would end
"""


def test_a_worker_process_lost_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A worker that ends abruptly: one line saying so and that nothing was written, exit 2 (not the traceback of
    the process pool's internals); the folder is left as it was."""
    source = tmp_path / "dies.py"
    source.write_text(DIES_IN_GAME_2, encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", f"{source}:Dies", "--games", "3", "--seed", "1",
                                "--workers", "2", "--chunk-size", "1", "--out", str(out), "--no-progress")  # fmt: skip
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1, err
    assert err.startswith("exchange-poker: error: a worker process ended abruptly"), err
    assert "nothing was written to --out" in err
    assert not out.exists()  # made for the run, and taken away with it


def test_a_strategy_module_in_the_current_folder_is_found_as_python_m_finds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On main: "cannot import strategy module 'strategy_in_the_current_folder'" from the console script."""
    import sys

    monkeypatch.chdir(tmp_path)
    (tmp_path / "strategy_in_the_current_folder.py").write_text(
        "from exchange.backtest.strategy import Strategy\nclass Idle(Strategy):\n    pass\n"
    )
    try:
        code, _, err = run_cli(capsys, "backtest", "--strategy", "strategy_in_the_current_folder:Idle",
                                     "--games", "1", "--seed", "1", "--out", "out", "--no-progress", "--no-streams")
    finally:
        sys.modules.pop("strategy_in_the_current_folder", None)
    assert code == 0, err
    assert (tmp_path / "out" / "games.parquet").is_file()


RAISES = """
from exchange.backtest.strategy import Strategy

class InBook(Strategy):
    def process_market_book(self, market):
        if market.market_id == "holdem.1":
            raise ZeroDivisionError("boom in book")

class InEnd(Strategy):
    def on_game_end(self, end):
        raise KeyError("no such thing")

class InPlace(Strategy):
    def on_market_open(self, market):
        market.place_order(1, "BACK", 2.0)  # no stake: the strategy's mistake, in the backtester's code

class InInit(Strategy):
    def __init__(self, **params):
        super().__init__(**params)
        raise RuntimeError("boom in init")

class SignalError(Exception):  # its constructor wants two arguments: it pickles, but cannot be rebuilt from its text
    def __init__(self, market_id, reason):
        super().__init__(f"{market_id}: {reason}")

class OwnError(Strategy):
    def on_market_open(self, market):
        raise SignalError(market.market_id, "no edge")

class LocalError(Strategy):
    def on_market_open(self, market):
        class Local(Exception):  # defined in a function: it does not pickle
            pass
        raise Local("local class")

class HoldsTheHandle(Strategy):
    def on_market_open(self, market):
        error = LookupError("no edge")
        error.market = market  # a market handle does not pickle
        raise error

class Exits(Strategy):
    def on_window_open(self, market, round):
        import sys
        sys.exit(3)

class Async(Strategy):
    async def process_market_book(self, market):
        market.place_order(1, "BACK", "2", 200)

class ForgetsToAnswer(Strategy):
    def check_market_book(self, market):
        self.asked = True

class SaysNo(Strategy):
    def check_market_book(self, market):
        return "no"

class Yields(Strategy):
    def process_market_book(self, market):
        market.cancel_all()
        yield

class Stops(Strategy):
    def on_market_open(self, market):
        raise StopIteration("no more")

class AnswersRefusals(Strategy):
    # each refusal answered with the cancel of a bet it never had, refused again: each arrives at once
    def __init__(self):
        super().__init__(latency_ms=0)

    def on_market_open(self, market):
        market.cancel_order(999999)

    def on_order_rejected(self, market, rejection):
        market.cancel_order(999999)

class AnswersItself(Strategy):
    # at every update a lay under each hand's fair odds, every third all cancelled: each arrives at once
    def __init__(self):
        super().__init__(latency_ms=0)
        self.updates = 0

    def process_market_book(self, market):
        from exchange.core import ladder
        from exchange.core.side import Side
        view = market.view
        if not view.betting_open:
            return
        self.updates += 1
        if self.updates % 3 == 0:
            market.cancel_all()
            return
        for hand in view.live_hands:
            if hand.fair_odds is not None:
                tick = ladder.nearest_tick(hand.fair_odds) - 1
                market.place_order(hand.hand, Side.LAY, ladder.price(tick), view.min_stake)
"""


@pytest.mark.parametrize(("name", "workers", "said"), [
    ("InBook", "1", "process_market_book raised ZeroDivisionError: boom in book, in backtest session 1, game 1 "
                    "(holdem.1)"),
    ("InBook", "2", "process_market_book raised ZeroDivisionError: boom in book, in backtest session 1, game 1 "
                    "(holdem.1)"),
    ("InEnd", "1", "on_game_end raised KeyError: 'no such thing', in backtest session 0, game 0 (holdem.0)"),
    ("InPlace", "1", "on_market_open raised TypeError: "),
    # an error that cannot come back from a worker process as it is: said all the same (it broke the process pool)
    ("OwnError", "2", "on_market_open raised SignalError: holdem.0: no edge, in backtest session 0, game 0"),
    ("LocalError", "2", "on_market_open raised Local: local class, in backtest session 0, game 0"),
    ("HoldsTheHandle", "2", "on_market_open raised LookupError: no edge, in backtest session 0, game 0"),
    # these three ended the run with status 3 and nothing said, or ran to the end with no hook run and no bet placed
    ("Exits", "1", "on_window_open raised StrategyExited: SystemExit(3): a strategy ends its session with "
                   "end_session(), not sys.exit(), in backtest session 0, game 0 (holdem.0)"),
    ("Exits", "2", "on_window_open raised StrategyExited: SystemExit(3)"),
    ("Async", "1", "process_market_book raised TypeError: the game calls a hook as a plain function, so async def "
                   "process_market_book would never run its body; write def process_market_book without await or "
                   "yield, in backtest session 0, game 0"),
    ("ForgetsToAnswer", "1", "check_market_book raised TypeError: it returned None: it answers True (call "
                             "process_market_book) or False, in backtest session 0, game 0"),
    # read by its truth, "no" was a yes: process_market_book ran at every update
    ("SaysNo", "1", "check_market_book raised TypeError: it returned 'no': it answers True (call "
                    "process_market_book) or False, in backtest session 0, game 0"),
    # this one ran for ever at one instant, the progress bar at 0 and nothing said
    ("AnswersItself", "1", "process_market_book raised StrategyStuck: updated 1,001 times at 1767225600000 ms without "
                           "the game's clock moving on: with latency 0 ms its orders arrive at once, and each changes "
                           "the book, which updates it again: give it a latency above 0 (--latency-ms), or place only "
                           "when what it looks at has changed, in backtest session 0, game 0 (holdem.0)"),
    # accepted, and its body never ran; a StopIteration became the runner's RuntimeError, a traceback, exit 1
    ("Yields", "1", "process_market_book raised TypeError: the game calls a hook as a plain function, so a generator "
                    "process_market_book (it yields) would never run its body; write def process_market_book "
                    "without await or yield, in backtest session 0, game 0"),
    ("Stops", "1", "on_market_open raised RuntimeError: it raised StopIteration('no more'), which ends a generator, "
                   "not a hook, in backtest session 0, game 0 (holdem.0)"),
    ("Stops", "2", "on_market_open raised RuntimeError: it raised StopIteration('no more'), which ends a generator, "
                   "not a hook, in backtest session 0, game 0 (holdem.0)"),
    # and this one for ever at one instant too, told of its own refusals
    ("AnswersRefusals", "1", "on_order_rejected raised StrategyStuck: told of 1,001 refusals at 1767225600000 ms "
                             "without the game's clock moving on: each refusal it answers with an order that is "
                             "refused again, which with latency 0 ms arrives at once: give it a latency above 0 "
                             "(--latency-ms), or do not send again what was refused, in backtest session 0, game 0 "
                             "(holdem.0)"),
], ids=["book", "book-2-workers", "game-end", "bad-place-order", "unbuildable", "unpicklable", "holds-a-handle",
        "sys-exit", "sys-exit-2-workers", "async-hook", "check-answers-none", "check-answers-text",
        "stuck-at-one-instant", "generator-hook", "stop-iteration", "stop-iteration-2-workers",
        "refused-at-one-instant"])
def test_a_strategy_that_raises_during_a_game_is_one_line_naming_the_hook_and_the_game(
    name: str, workers: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A strategy's bug was some forty lines of tracebacks through the runner and the process pool, exit 1."""
    source = tmp_path / "raises.py"
    source.write_text(RAISES, encoding="utf-8")
    out = tmp_path / "runs" / "out"
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", f"{source}:{name}", "--games", "3", "--seed", "1",
                                "--workers", workers, "--chunk-size", "1", "--out", str(out), "--no-progress")
    assert (code, stdout, err.count("\n")) == (2, "", 1), err
    assert err.startswith(f"exchange-poker: error: strategy '{source}:{name}': {said}"), err
    assert err.endswith("nothing was written to --out (--debug shows the traceback)\n"), err
    assert not (tmp_path / "runs").exists()  # --out and the parent made for it are taken away: as it was


@pytest.mark.parametrize("ends", ["self.end_session(5)", "self.session_ended = b'enough'"], ids=["given", "set"])
def test_a_session_ended_for_a_reason_that_is_no_text_is_one_line_naming_end_session(
    ends: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The summary shows each reason as text: one of another type failed it with a traceback, exit 1, once every
    table was already in --out."""
    source = tmp_path / "ends.py"
    source.write_text("from exchange.backtest.strategy import Strategy\n\n"
                      "class Ends(Strategy):\n"
                      "    def on_game_start(self, game):\n"
                      f"        {ends}\n", encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", f"{source}:Ends", "--sessions", "2",
                                "--games-per-session", "2", "--seed", "1", "--out", str(out), "--no-progress")
    given = "5" if "5" in ends else "b'enough'"
    assert (code, stdout, err.count("\n")) == (2, "", 1), err
    assert err.startswith(f"exchange-poker: error: strategy '{source}:Ends': end_session raised TypeError: the "
                          f"session's end was given {given}: its reason is a text, as the summary shows it, in "
                          "backtest session 0, game 0 (holdem.0)"), err
    assert not out.exists()


def test_a_failed_run_into_a_folder_that_was_there_leaves_it_as_it_was(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "raises.py"
    source.write_text(RAISES, encoding="utf-8")
    empty, mine = tmp_path / "empty", tmp_path / "mine"
    empty.mkdir()
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n", encoding="utf-8")
    for out in (empty, mine):
        code, _, err = run_cli(capsys, "backtest", "--strategy", f"{source}:InEnd", "--games", "1", "--seed", "1",
                               "--out", str(out), "--no-progress")
        assert code == 2 and "nothing was written to --out" in err, err
    assert empty.is_dir() and not any(empty.iterdir())
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_debug_shows_a_raising_strategys_traceback(tmp_path: Path) -> None:
    source = tmp_path / "raises.py"
    source.write_text(RAISES, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "exchange.cli", "backtest", "--strategy", f"{source}:InBook",
                             "--games", "2", "--seed", "1", "--out", str(tmp_path / "out"), "--no-progress",
                             "--debug"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1
    assert 'raise ZeroDivisionError("boom in book")' in result.stderr  # the strategy's own line
    assert "ZeroDivisionError: boom in book" in result.stderr
    assert "raised in the strategy's process_market_book" in result.stderr


@pytest.mark.parametrize(("source", "reference", "said"), [
    ("X = 1 / 0\n", "S", "raised ZeroDivisionError: division by zero as its file loaded (--debug shows the "
                         "traceback)"),
    (RAISES, "InInit", "raised RuntimeError: boom in init as its class was built (--debug shows the traceback)"),
], ids=["as-it-loads", "as-it-is-built"])
def test_a_strategy_that_raises_as_it_loads_or_is_built_is_one_line(
    source: str, reference: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "strategy.py"
    path.write_text(source, encoding="utf-8")
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", f"{path}:{reference}", "--games", "1", "--seed",
                                "1", "--out", str(tmp_path / "out"), "--no-progress")
    assert (code, stdout) == (2, "")
    assert err == f"exchange-poker: error: strategy '{path}:{reference}' {said}\n"


def test_a_strategy_file_that_is_not_utf8_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.py"
    path.write_bytes("# café\n".encode("latin-1"))
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", f"{path}:S", "--games", "1", "--seed", "1",
                                "--out", str(tmp_path / "out"), "--no-progress")
    assert (code, stdout) == (2, "")
    said = "is not UTF-8 text (Python's default): byte 5 is 0xe9"
    assert err == f"exchange-poker: error: strategy file '{path}' {said}\n"


def test_a_balance_the_tables_cannot_hold_is_refused_before_the_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It played every game, then failed writing the tables (OverflowError from pyarrow), exit 1."""
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1",
                                "--balance", "100000000000000000", "--out", str(out), "--no-progress")
    assert (code, stdout) == (2, "")
    assert err.endswith("argument --balance: must be at most 10,000,000,000,000, not 100000000000000000\n"), err
    assert not out.exists()
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", STRATEGY, "--games", "1", "--balance", "1e3",
                                "--out", str(out), "--no-progress")
    assert (code, stdout) == (2, "") and err.endswith("argument --balance: '1e3' is not an amount like 1000 or "
                                                      "25.50\n"), err


def test_a_folder_another_backtest_is_writing_into_is_refused(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Two backtests into one folder at once: the second is refused on one line while the first holds the folder
    (its lock, ``flock`` on the folder itself, taken here as a running backtest holds it), and the first's staging
    folder is left alone. It used to be cleared, the first run then failing and the folder left unusable."""
    import fcntl

    out = tmp_path / "out"
    staged = out / ".backtest-in-progress" / "fills.parquet"  # the running backtest's unfinished table
    staged.parent.mkdir(parents=True)
    staged.write_text("the first run's\n", encoding="utf-8")
    holder = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        argv = ["backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", str(out), "--no-progress"]
        code, stdout, err = run_cli(capsys, *argv)
    finally:
        os.close(holder)
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert f"another backtest is writing into {out} now: wait for it to end, or choose another folder" in err
    assert staged.read_text(encoding="utf-8") == "the first run's\n"
    assert sorted(p.name for p in out.iterdir()) == [".backtest-in-progress"]
    code, stdout, err = run_cli(capsys, *argv)  # once it has ended (its lock given up), the folder is free
    assert code == 0 and (out / "backtest.json").is_file() and not staged.parent.exists(), err


def test_an_empty_out_is_refused_not_taken_for_the_current_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``--out "$OUT"`` with the variable unset: the tables and backtest.json went into the current folder."""
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run_cli(capsys, "backtest", "--strategy", STRATEGY, "--games", "1", "--seed", "1", "--out", "",
                                "--no-progress")
    assert (code, stdout) == (2, "") and err.count("\n") == 1, err
    assert "argument --out: give the folder to write to, not an empty name" in err
    assert not any(tmp_path.iterdir())
