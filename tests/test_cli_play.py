"""``exchange-poker play``: hand histories and the results table, own bots, bad input."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from engine.table.phh import loads
from tests.cli_helpers import run_cli


def test_play_writes_histories_and_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "telesina"
    argv = ["play", "--variant", "telesina", "--seats", "3", "--hands", "12", "--seed", "5", "--out", str(out)]
    code, printed, _ = run_cli(capsys, *argv, "--bots", "random", "calling", "random", "--no-progress")
    assert code == 0 and "12 hands of Telesina (fixed-limit)" in printed
    results = pd.read_parquet(out / "results.parquet")
    assert len(results) == 36 and set(results["bot"]) == {"random", "calling"}
    assert (results.groupby("hand")["net"].sum() == 0).all()
    assert list(results[results["hand"] == 2]["player"]) == [2, 3, 1]  # the players move round
    files = sorted((out / "hands").glob("*.phh"))
    assert len(files) == 12
    for number, path in enumerate(files, 1):
        history = loads(path.read_text())
        state = history.replay()
        rows = results[results["hand"] == number].sort_values("seat")
        assert state.stacks == list(rows["final_stack"]) and history.other["hand"] == number
    totals = results.groupby("player")["net"].sum()
    assert f"player 2 (calling): {totals[2]:+d} chips" in printed  # the table's player 2, as the summary's
    run_cli(capsys, *argv, "--bots", "random", "calling", "random", "--no-progress", "--out", str(tmp_path / "again"))
    assert (tmp_path / "again" / "hands" / "000007.phh").read_text() == (out / "hands" / "000007.phh").read_text()


def test_play_with_a_bot_of_your_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = tmp_path / "raiser.py"
    bot.write_text(
        "from engine.table.bots import CallingBot, Decision, Move\n"
        "class Raiser:\n"
        "    def decide(self, view):\n"
        "        if view.options.raise_sizes:\n"
        "            return Decision(Move.BET_RAISE, amount=view.options.raise_sizes[-1])\n"
        "        return CallingBot().decide(view)\n"
    )
    out = tmp_path / "nl"
    code, _, _ = run_cli(
        capsys, "play", "--structure", "no-limit", "--hands", "5", "--out", str(out),
        "--bots", f"{bot}:Raiser", "calling", "--no-progress",
    )  # fmt: skip
    assert code == 0
    first = loads((out / "hands" / "000001.phh").read_text())
    assert first.structure == "no-limit" and any(a.endswith(" cbr 200") for a in first.actions)  # all in


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variant", "razz"], "unknown variant 'razz'"),
        (["--variant", "draw32", "--seats", "6"], "--seats must be 2 to 5 for 32-Card Draw, not 6"),
        (["--hands", "0"], "argument --hands: must be a whole number from 1, not 0"),
        (["--seats", "3", "--bots", "random", "calling"], "one per player (3), not 2"),
        (["--bots", "nowhere.py:Bot"], "does not exist"),
        (["--bots", "rnadom"], "bot 'rnadom' is not one: give random or calling (built in), or your own as "
                               "module:Class or path/to/file.py:Class"),
        (["--stack", str(10**20)], "--stack must be at most 1000000000000"),
        (["--seed", str(10**13)], "--seed must be 0 to 1000000000000, not 10000000000000"),
        # hand 1 of seed -1 was dealt as hand 999,999 of seed 0 (its seed's sign was dropped)
        (["--seed", "-1"], "--seed must be 0 to 1000000000000, not -1"),
        (["--out", ""], "argument --out: give the folder to write to, not an empty name"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run_cli(capsys, "play", "--out", str(tmp_path), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_an_out_directory_that_cannot_be_made_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("not a directory")
    code, _, err = run_cli(capsys, "play", "--hands", "1", "--no-progress", "--out", str(taken))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"--out {taken} is a file; give a folder (it is made if it does not exist)" in err
    code, _, err = run_cli(capsys, "play", "--hands", "1", "--no-progress", "--out", str(taken / "below"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"--out {taken / 'below'}: cannot write the hands there (Not a directory)" in err


def test_an_illegal_move_names_the_hand_and_the_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = tmp_path / "tiny.py"
    bot.write_text(
        "from engine.table.bots import CallingBot, Decision, Move\n"
        "class TinyRaise:\n"
        "    def decide(self, view):\n"
        "        if view.options.raise_sizes and view.street == 1:\n"
        "            return Decision(Move.BET_RAISE, amount=1)\n"
        "        return CallingBot().decide(view)\n"
    )
    code, _, err = run_cli(
        capsys, "play", "--structure", "no-limit", "--seats", "3", "--hands", "5", "--out", str(tmp_path / "out"),
        "--bots", "calling", "calling", f"{bot}:TinyRaise", "--no-progress",
    )  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"hand 1: player 3 ({bot}:TinyRaise), in seat 2, made an illegal move: seat 2 may bet or raise to 2" in err


def test_a_bot_file_whose_import_fails_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "needs.py"
    bot.write_text("import a_module_nobody_installed\nclass Bot:\n    def decide(self, view): ...\n")
    code, _, err = run_cli(capsys, "play", "--hands", "1", "--out", str(tmp_path), "--bots", f"{bot}:Bot")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"bot '{bot}:Bot': No module named 'a_module_nobody_installed'" in err


def test_a_second_run_into_the_same_out_leaves_only_its_own_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert run_cli(capsys, "play", "--hands", "5", "--seed", "1", "--out", str(out), "--no-progress")[0] == 0
    assert run_cli(capsys, "play", "--hands", "3", "--seed", "2", "--out", str(out), "--no-progress")[0] == 0
    files = sorted(path.name for path in (out / "hands").iterdir())
    assert files == ["000001.phh", "000002.phh", "000003.phh"]  # not hands 4 and 5 of the first run
    results = pd.read_parquet(out / "results.parquet")
    for name in files:
        assert loads((out / "hands" / name).read_text()).other["_seed"] in set(results["seed"])
    assert set(results["seed"]) == {2_000_000, 2_000_001, 2_000_002}


def test_a_run_that_fails_leaves_the_previous_run_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert run_cli(capsys, "play", "--hands", "2", "--out", str(out), "--no-progress")[0] == 0
    before = {path.name: path.read_bytes() for path in (out / "hands").iterdir()}
    results = (out / "results.parquet").read_bytes()
    bot = tmp_path / "late.py"
    bot.write_text(
        "from engine.table.bots import CallingBot\n"
        "class Late:\n"
        "    decisions = 0\n"
        "    def decide(self, view):\n"
        "        self.decisions += 1\n"
        "        return CallingBot().decide(view) if self.decisions < 6 else None\n"
    )
    code, _, err = run_cli(capsys, "play", "--hands", "4", "--out", str(out), "--no-progress", "--bots", f"{bot}:Late")
    assert code == 2 and "hand 1:" not in err  # it failed after a hand or more was written
    assert {path.name: path.read_bytes() for path in (out / "hands").iterdir()} == before
    assert (out / "results.parquet").read_bytes() == results
    assert sorted(path.name for path in out.iterdir()) == ["hands", "results.parquet"]


def test_more_hands_than_a_seed_has_distinct_deals_for_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hand h of seed s is dealt from s x 1,000,000 + h: a millionth hand would be dealt as hand 1 of seed s + 1."""
    code, _, err = run_cli(capsys, "play", "--hands", "1000001", "--out", str(tmp_path / "out"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--hands must be 1 to 1000000" in err
    assert not (tmp_path / "out").exists()


BROKEN_BOTS = (
    "from engine.table.bots import CallingBot\n"
    "class Crashes:\n"
    "    def decide(self, view):\n"
    "        if view.seat == 0:  # the players move round: seat 1 in hand 1, seat 0 in hand 2\n"
    "            return {}['no such key']\n"
    "        return CallingBot().decide(view)\n"
    "class NoModel:\n"
    "    def __init__(self):\n"
    "        raise RuntimeError('no model file')\n"
    "    def decide(self, view): ...\n"
)


@pytest.mark.parametrize(
    ("bot", "message", "error"),
    [
        ("Crashes", "hand 2: player 2 ({bot}), in seat 0, raised KeyError: 'no such key'", KeyError),
        ("NoModel", "player 2's bot '{bot}' raised RuntimeError: no model file", RuntimeError),
    ],
)
def test_a_bot_that_raises_is_named_on_one_line_and_debug_shows_its_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bot: str, message: str, error: type[Exception]
) -> None:
    path = tmp_path / "broken.py"
    path.write_text(BROKEN_BOTS)
    argv = ["play", "--hands", "3", "--out", str(tmp_path / "out"), "--no-progress",
            "--bots", "calling", f"{path}:{bot}"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert message.format(bot=f"{path}:{bot}") + " (--debug shows the traceback)" in err
    assert not (tmp_path / "out" / "hands").exists()
    with pytest.raises(error):  # the bot's own error, with its traceback
        run_cli(capsys, *argv, "--debug")


def test_a_bot_file_that_raises_as_it_loads_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "explodes.py"
    path.write_text("raise RuntimeError('module blows up')\n")
    code, _, err = run_cli(capsys, "play", "--hands", "1", "--out", str(tmp_path), "--bots", f"{path}:Bot")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"player 1's bot '{path}:Bot' raised RuntimeError: module blows up (--debug shows the traceback)" in err


def test_a_failing_run_clears_its_progress_bar_before_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal the bar is redrawn in place after a carriage return: the error must come after the bar is
    gone, on a line of its own, not run on from the bar (and the bar must not be drawn again after it)."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a terminal: the bar is drawn
    bot = tmp_path / "late.py"
    bot.write_text(
        "from engine.table.bots import CallingBot\n"
        "class Late:\n"
        "    def decide(self, view):\n"
        "        return CallingBot().decide(view) if view.seat == 1 else None\n"
    )
    code, _, err = run_cli(capsys, "play", "--hands", "3", "--out", str(tmp_path / "out"),
                           "--bots", "calling", f"{bot}:Late")
    assert code == 2 and "%|" in err  # the bar was drawn
    last = err.split("\r")[-1]  # what is left on the terminal's last line
    assert last.startswith("exchange-poker: error: hand 2: player 2") and last.count("\n") == 1, repr(err)


def test_no_progress_bar_is_drawn_into_a_file_or_a_pipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its frames, each after a carriage return, filled a log of ``2>log`` (hundreds of KB for a long run)."""
    assert not sys.stderr.isatty()  # captured: as a file or a pipe
    code, _, err = run_cli(capsys, "play", "--hands", "3", "--out", str(tmp_path / "out"))
    assert (code, err) == (0, "")


def test_the_summary_counts_in_english(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One hand is "1 hand", and a total of one chip "1 chip" (on main: "1 hands of", "+1 chips")."""
    out = tmp_path / "one"
    code, printed, _ = run_cli(capsys, "play", "--hands", "1", "--seed", "0", "--out", str(out), "--no-progress")
    assert code == 0
    lines = printed.splitlines()
    assert lines[0] == f"1 hand of Texas Hold'em (fixed-limit) written to {out}"
    totals = pd.read_parquet(out / "results.parquet").groupby("player")["net"].sum()
    assert 1 in set(totals.abs())  # the seed's one hand moves a single chip: the case this test is about
    for player, total in totals.items():
        chips = "chip" if abs(total) == 1 else "chips"
        assert lines[int(player)] == f"player {int(player)} (random): {total:+d} {chips}"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda out: (out / "hands").write_text("a file"), "--out {out}: {out}/hands is a file; a run writes its hand "
                                                           "histories into a folder of that name"),
        (lambda out: (out / "results.parquet").mkdir(), "--out {out}: {out}/results.parquet is a folder; a run writes "
                                                        "its results table as a file of that name"),
        (lambda out: (out / "hands" / "000001.phh").mkdir(parents=True),
         "--out {out}: {out}/hands/000001.phh is a folder; a run replaces the hand histories there (files)"),
        (lambda out: (out / "games.parquet").write_text("a backtest's table"),
         "--out {out} holds a backtest's output or a server's recording (games.parquet and the other tables); give "
         "play a folder of its own"),
        (lambda out: (out / "fills.parquet").mkdir(),  # a recording's table: a folder of parts
         "--out {out} holds a backtest's output or a server's recording (games.parquet and the other tables); give "
         "play a folder of its own"),
    ],
    ids=["hands-a-file", "results-a-folder", "a-hand-a-folder", "a-backtest", "a-recording"],
)
def test_an_out_whose_entries_are_in_the_way_is_refused_before_any_hand_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    """On main: every hand was played, then a FileExistsError or IsADirectoryError traceback as the run was moved in."""
    out = tmp_path / "out"
    out.mkdir()
    make(out)
    before = sorted(str(path.relative_to(out)) for path in out.rglob("*"))
    bot = tmp_path / "watched.py"
    bot.write_text(
        "from engine.table.bots import CallingBot\n"
        "class Watched(CallingBot):\n"
        "    def decide(self, view):\n"
        f"        open({str(tmp_path / 'played')!r}, 'w').close()\n"
        "        return super().decide(view)\n"
    )
    code, printed, err = run_cli(capsys, "play", "--hands", "2", "--no-progress", "--out", str(out),
                                 "--bots", f"{bot}:Watched")
    assert code == 2 and printed == "" and err.count("\n") == 1, err
    assert err == f"exchange-poker: error: {message.format(out=out)}\n"
    assert not (tmp_path / "played").exists()  # refused before a hand was dealt
    assert sorted(str(path.relative_to(out)) for path in out.rglob("*")) == before


def _bot_that_runs(tmp_path: Path, argv: list[str]) -> str:
    """A bot that, at its first decision, runs a whole other ``play`` to the end (in this process): two runs into
    one ``--out`` at once, the second started after the first and finished before it, with no timing to wait on."""
    bot = tmp_path / "meanwhile.py"
    bot.write_text(
        "from engine.table.bots import CallingBot\n"
        "from exchange.cli import main\n"
        "class Meanwhile(CallingBot):\n"
        "    other = None\n"
        "    def decide(self, view):\n"
        "        if Meanwhile.other is None:\n"
        f"            Meanwhile.other = main({argv!r})\n"
        "        return super().decide(view)\n"
    )
    return f"{bot}:Meanwhile"


def test_two_runs_into_one_out_at_once_each_stage_apart_and_the_later_finisher_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On main both staged in the one ``.play-in-progress``: the second run's start removed the first's hands
    (a FileNotFoundError traceback), or the two runs' files were mixed in ``--out``."""
    out = tmp_path / "out"
    other = ["play", "--hands", "3", "--seed", "2", "--out", str(out), "--no-progress"]
    code, printed, err = run_cli(capsys, "play", "--hands", "4", "--seed", "1", "--out", str(out), "--no-progress",
                                 "--bots", _bot_that_runs(tmp_path, other))
    assert printed.startswith(f"3 hands of Texas Hold'em (fixed-limit) written to {out}\n")  # the other run's
    assert code == 2 and err.count("\n") == 1, err
    assert err == (f"exchange-poker: error: --out {out}: another run wrote its hands and results there while this "
                   "one played, and they are left as they are; this run's were not written (the same options deal "
                   "the same hands: run it again with another --out)\n")
    assert sorted(path.name for path in out.iterdir()) == ["hands", "results.parquet"]  # no staging left behind
    assert sorted(path.name for path in (out / "hands").iterdir()) == ["000001.phh", "000002.phh", "000003.phh"]
    assert set(pd.read_parquet(out / "results.parquet")["seed"]) == {2_000_000, 2_000_001, 2_000_002}


def test_a_killed_run_s_staging_folder_goes_and_a_running_one_s_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import fcntl
    import os

    out = tmp_path / "out"
    killed, running = out / ".play-in-progress-killed", out / ".play-in-progress-running"
    for folder in (killed, running):
        (folder / "hands").mkdir(parents=True)
    held = os.open(running, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # as the run playing there holds it
        assert run_cli(capsys, "play", "--hands", "1", "--out", str(out), "--no-progress")[0] == 0
        assert sorted(path.name for path in out.iterdir()) == [".play-in-progress-running", "hands",
                                                               "results.parquet"]
    finally:
        os.close(held)


def test_a_module_bot_in_the_current_folder_is_found_as_python_m_finds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``exchange-poker`` (a console script) has its own folder first on the import path, not the current one as
    ``python -m`` has: ``--bots my_bot:Raiser`` beside the user was "No module named 'my_bot'" (on main)."""
    import sys

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot_in_the_current_folder.py").write_text(
        "from engine.table.bots import CallingBot\n"
        "class Mine(CallingBot):\n"
        "    pass\n"
    )
    path_before = list(sys.path)
    try:
        code, printed, err = run_cli(capsys, "play", "--hands", "2", "--out", "out", "--no-progress",
                                     "--bots", "bot_in_the_current_folder:Mine")
    finally:
        sys.modules.pop("bot_in_the_current_folder", None)
    assert code == 0, err
    assert "player 1 (bot_in_the_current_folder:Mine)" in printed
    assert sys.path == path_before  # the current folder is on the path for the command only


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("no_module_of_that_name:Bot",
         "bot 'no_module_of_that_name:Bot': no module 'no_module_of_that_name' among the installed packages or "
         "in the current folder ({here})"),  # the command looks there last
        ("bot_with_classes:Nope",
         "bot 'bot_with_classes:Nope': bot_with_classes has no class 'Nope' (its classes: Mine, Other)"),
        ("bot_needing:Mine",
         "bot 'bot_needing:Mine': No module named 'a_module_nobody_installed'"),
    ],
)
def test_a_module_bot_that_is_not_there_says_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, bot: str, message: str
) -> None:
    import sys

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot_with_classes.py").write_text(
        "from engine.table.bots import CallingBot\nclass Mine(CallingBot): ...\nclass Other: ...\n"
    )
    (tmp_path / "bot_needing.py").write_text("import a_module_nobody_installed\n")
    try:
        code, _, err = run_cli(capsys, "play", "--hands", "1", "--out", "out", "--bots", bot)
    finally:
        for name in ("bot_with_classes", "bot_needing"):
            sys.modules.pop(name, None)
    assert code == 2 and err == f"exchange-poker: error: {message.format(here=tmp_path)}\n"


def test_a_first_run_that_fails_leaves_no_folder_it_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On main an empty --out folder was left behind, made for a run that wrote nothing."""
    bot = tmp_path / "late.py"
    bot.write_text("class Late:\n    def decide(self, view):\n        return None\n")
    out = tmp_path / "new" / "out"
    code, _, _ = run_cli(capsys, "play", "--hands", "2", "--out", str(out), "--no-progress", "--bots", f"{bot}:Late")
    assert code == 2
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    code, _, _ = run_cli(capsys, "play", "--hands", "2", "--out", str(kept), "--no-progress", "--bots", f"{bot}:Late")
    assert code == 2 and kept.is_dir() and not any(kept.iterdir())  # a folder that was there stays
