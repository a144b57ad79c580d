"""``exchange-poker equity``: the table, the JSON shape, and one-line errors with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from exchange.cli import main

REPO = Path(__file__).resolve().parents[1]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["equity", *argv])
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_exact_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--variant", "holdem", "AsKs", "QdQc", "7h6h", "2c2d")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "holdem equity, preflop: exact over 1,086,008 boards"
    assert lines[1].split() == ["hand", "win", "%", "tie", "%", "equity", "%"]
    assert lines[2].split() == ["As", "Ks", "31.691", "0.193", "31.740"]
    assert [line.split()[:2] for line in lines[2:]] == [["As", "Ks"], ["Qd", "Qc"], ["7h", "6h"], ["2c", "2d"]]
    assert len(lines) == 6


def test_a_hilo_table_names_its_first_columns_scoop_and_share(capsys: pytest.CaptureFixture[str]) -> None:
    """Hand 1 takes the high half alone, hands 2 and 3 tie for the low: none wins the pot alone, each has a part;
    a "tie 100 %" beside an equity of 50 % read as if hand 1 had tied (and 0 + 100/3 is not 50)."""
    code, out, _ = run_cli(capsys, "--variant", "omaha-hilo", "KsKdQsQd", "2c3cJhJd", "2d3hTcTd",
                           "--board", "Kh7h8s9cAs")
    lines = out.splitlines()
    assert code == 0 and lines[1].split() == ["hand", "scoop", "%", "share", "%", "equity", "%", "hi", "win", "%",
                                              "hi", "tie", "%", "lo", "win", "%", "lo", "tie", "%"]
    assert [line.split()[4:] for line in lines[2:5]] == [
        ["0.000", "100.000", "50.000", "100.000", "0.000", "0.000", "0.000"],
        ["0.000", "100.000", "25.000", "0.000", "0.000", "0.000", "100.000"],
        ["0.000", "100.000", "25.000", "0.000", "0.000", "0.000", "100.000"]]
    assert lines[5] == "no low in 0.000 % of the boards (the Low market's No low)" and len(lines) == 6


def test_a_hand_of_no_cards_yet_is_named_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--variant", "stud7", "", "", "--samples", "2000", "--seed", "1")
    assert code == 0 and [line.split()[:2] for line in out.splitlines()[2:]] == [["(no", "cards)"]] * 2


def test_monte_carlo_table_shows_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "AsKs", "QdQc", "--board", "Ah7c2s", "--samples", "20000", "--seed", "5")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "holdem equity, board Ah 7c 2s: Monte Carlo over 20,000 samples (seed 5)"
    assert "± stderr %" in lines[1]
    assert all("±" in line for line in lines[2:]) and len(lines) == 4
    again = run_cli(capsys, "AsKs", "QdQc", "--board", "Ah7c2s", "--samples", "20000", "--seed", "5")[1]
    assert again == out


def test_json_is_the_result_dict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "--variant", "omaha", "AsKsQhJh", "Qd Qc 9c 8d", "--board", "2c3d4h", "--dead", "5s", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"variant", "board", "dead", "exact", "boards", "hands"}
    assert (data["variant"], data["board"], data["exact"], data["boards"]) == ("omaha", "2c 3d 4h", True, 780)
    assert data["dead"] == "5s"
    assert [h["cards"] for h in data["hands"]] == ["As Ks Qh Jh", "Qd Qc 9c 8d"]
    assert all(set(h) == {"cards", "win", "tie", "equity"} for h in data["hands"])


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--variant", "razz", "AsKs", "QdQc"], "unknown variant 'razz'; equity knows holdem, omaha, omaha-hilo, "
                                                 "soko, stud7, stud7-hilo, americana, telesina, draw5, draw32, "
                                                 "triple-draw-27"),
        (["--variant", "razz", "AsKs", "QdQc", "--seed", "3"], "unknown variant 'razz'; equity knows holdem, omaha, "
                                                               "omaha-hilo, soko, stud7, stud7-hilo, americana, "
                                                               "telesina, draw5, draw32, triple-draw-27"),
        (["AsKs"], "got 1 hand; equity needs 2 to 8 hands"),
        ([f"{r}c{r}d" for r in "23456789T"], "got 9 hands"),
        (["AsKs", "QdQx"], "hand 2: 'Qx' has an unknown suit"),
        (["AsKs", "1dQc"], "hand 2: '1d' has an unknown rank"),
        # the game where a hand goes: it was "hand 1: 'ho' has an unknown rank 'h'"
        (["holdem", "AsKs", "QdQc"], "hand 1 is 'holdem', a game, not cards: give the game as --variant holdem"),
        (["--variant", "omaha", "AsKs2d3c", "draw5"], "hand 2 is 'draw5', a game, not cards"),
        (["AsKs", "AsQc"], "card As appears more than once"),
        (["AsKsQh", "QdQc"], "hand 1 (As Ks Qh) has 3 cards; holdem hands have exactly 2 hole cards"),
        (["--variant", "omaha", "AsKs", "QdQc"], "omaha hands have exactly 4 hole cards"),
        (["AsKs", "QdQc", "--board", "Ah7c2s3d4d5d"], "board has 6 cards"),
        (["AsKs", "QdQc", "--board", "Ah7c"], "needs 0, 3, 4 or 5 board cards"),
        (["AsKs", "QdQc", "--board", "Ah7"], "board: 'Ah7' is not a list of cards"),
        (["AsKs", "QdQc", "--dead", "Ks"], "card Ks appears more than once (in hand 1 and in the dead cards)"),
        (["AsAs", "QdQc"], "card As appears more than once (twice in hand 1)"),
        (["--variant", "telesina", "AhQc9d8s7h", "AdKc9h8c7d", "--board", "Ah"], "(in hand 1 and in the vela)"),
        (["AsKs", "QdQc", "--samples", "0"], "samples must be a positive whole number"),
        (["AsKs", "QdQc", "--samples", "many"], "argument --samples: must be a positive whole number of samples"),
        (["AsKs", "QdQc", "--samples", str(10**20)], "argument --samples: must be at most 1,000,000,000, not"),
        (["--variant", "stud7", "AsKsQs", "2c2d2h", "--samples", str(10**20)], "must be at most 1,000,000,000"),
        (["AsKs", "QdQc", "--seed", "3"], "--seed needs --samples"),
        (["AsKs", "QdQc", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        ([], "the following arguments are required: HAND"),
        (["--variant", "draw5", "AsKsQsJs9d", "2c2d2h3c3d", "4c4d4h5c5d", "6c6d6h7c7d", "8c8d8h9c9h", "TcTdThJcJd",
          "QcQdQhKcKd"], "5-Card Draw needs 2 to 6 hands, got 7"),
        (["--variant", "draw32", "JsKhJdAcAh", "Qs7s8s9d8c", "TdJhQdAsTc", "TsThKc7hKs", "8dJc9s9hQh", "Qc8hKd9cAd"],
         "32-Card Draw needs 2 to 5 hands, got 6"),
        (["--variant", "draw5", "AsKsQsJs9d", "2c2d2h3c"], "hand 2 has 4 cards; a 5-Card Draw hand has 5"),
        (["--variant", "draw5", "AsKsQsJs9d", "2c2d2h3c3d", "--dead", "2c"], "card 2c appears more than once"),
        (["--variant", "draw32", "AsKsQsJs9d", "2c2d2h3c3d"], "card 2c is not in the 32-card deck; it holds ranks 7"),
        (["--variant", "stud7", "AsKsQsJs9d8d", "2c"], "hand 2 has 1 card, hand 1 has 6; 7-Card Stud deals every hand"),
        (["--variant", "stud7-hilo", "AsKsQs", "2c3c4c", "--board", "5d"],
         "a board card in 7-Card Stud Hi/Lo is the shared last card, dealt only when the pack cannot give every"),
        (["--variant", "omaha-hilo", "AsKs2d3c", "QdQcJh4h", "--board", "5h6h"],
         "board has 2 cards (5h 6h); omaha-hilo equity needs 0, 3, 4 or 5 board cards"),
        # the generator takes its seed modulo 2**64: these gave seed 2**64 - 1's sample (and 0's) under their names
        (["AsKs", "QdQc", "--samples", "100", "--seed", "-1"],
         "argument --seed: must be a whole number from 0 to 18446744073709551615, not -1"),
        (["AsKs", "QdQc", "--samples", "100", "--seed", str(2**64)], f"to 18446744073709551615, not {2**64}"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("exchange-poker: error: ")
    assert fragment in err


def test_help_gives_each_games_most_hands_as_the_engine_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--help`` names the seats of every game equity prices (no longer "2 to 8 hands" for all of them), and
    the engine's variants agree, game by game."""
    from engine.variants import VARIANTS
    from exchange.cli.equity import SEATS

    monkeypatch.setenv("COLUMNS", "1000")  # no line breaks (argparse may break a name at its hyphen)
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "2 to 8" not in out and "2-8" not in out
    assert f"Equity of 2 hands up to the game's seats ({SEATS})" in out
    default, *others = SEATS.split("; ")
    most = {name: int(default) for name in VARIANTS}
    for part in others:
        seats, names = part.split(" in ")
        most.update({name: int(seats) for name in names.replace(" and ", ", ").split(", ")})
    assert most == {name: game.max_seats for name, game in VARIANTS.items()}


def test_real_process_exit_codes() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "exchange.cli", "equity", "AsKs", "QdQc", "--board", "Ah7c2sTd3h", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["boards"] == 1
    bad = subprocess.run(
        [sys.executable, "-m", "exchange.cli", "equity", "AsKs", "AsQc"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr == "exchange-poker: error: card As appears more than once (in hand 1 and in hand 2)\n"
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["AsKs", "QdQc", "7h6h", "2c2d"],
        ["--variant", "omaha-hilo", "AsKs2d3c", "QdQcJh4h", "7h6h5s8s", "2c2hTdTs"],
        ["--variant", "stud7", "AsKsQsJs9d", "2c2d2h3c3d"],
        ["--variant", "draw5", "AsAdAcKdKs", "2c3d4h5s7c", "--draws", "1"],
        ["--variant", "triple-draw-27", "2c3d4h7s9c", "KcQd9h8s3c", "--draws", "0"],
    ],
)
def test_a_seed_for_an_exact_count_is_refused_before_counting(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """The refusal comes before the count (an exact Omaha Hi/Lo count of four hands takes many seconds)."""
    import engine
    import engine.draw_equity

    def counted(*args: object, **kwargs: object) -> None:
        raise AssertionError("the count ran before the seed was refused")

    monkeypatch.setattr(engine, "equity", counted)
    monkeypatch.setattr(engine.draw_equity, "draw_equity", counted)
    code, out, err = run_cli(capsys, *argv, "--seed", "3")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--seed needs --samples here: this count is exact" in err


def test_a_seed_without_samples_seeds_a_count_too_large_to_enumerate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--variant", "stud7", "AsKsQs", "2c2d2h", "--seed", "3")
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "stud7 equity: Monte Carlo over 200,000 samples (seed 3)"


def test_json_of_a_monte_carlo_names_its_seed_and_each_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A count too large to enumerate is sampled from a seed drawn for it: the JSON, like the table's header, says
    which, so that ``--seed`` deals the same samples again."""
    code, out, _ = run_cli(capsys, "--variant", "stud7", "AsKsQs", "2c2d2h", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exact"] is False and isinstance(data["seed"], int)  # on main: no "seed"
    assert all(0 < hand["stderr"] < 0.01 for hand in data["hands"])
    again = run_cli(capsys, "--variant", "stud7", "AsKsQs", "2c2d2h", "--json", "--seed", str(data["seed"]))[1]
    assert json.loads(again) == data


def test_ctrl_c_stops_a_count_at_once(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A count runs in compiled kernels that Python's Ctrl-C handler cannot break into: on main ``equity ...
    --samples 1000000000`` went on for minutes after Ctrl-C. It writes nothing, so while it counts Ctrl-C has its
    default effect (the process ends at once, status 130 as the shell shows it), and the handler is back after."""
    import signal

    import engine

    seen = []
    real = engine.equity

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(signal.getsignal(signal.SIGINT))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "equity", watched)
    before = signal.getsignal(signal.SIGINT)
    code, _, err = run_cli(capsys, "AsKs", "QdQc", "--board", "2c3d4h")
    assert code == 0, err
    assert seen == [signal.SIG_DFL]
    assert signal.getsignal(signal.SIGINT) is before


def test_a_draw_count_is_exact_where_it_takes_a_moment_else_well_sampled(capsys: pytest.CaptureFixture[str]) -> None:
    """The live game's budget (a few thousand deals) is not the command's, nor the engine's from Python: three
    5-Card Draw hands drawing one card each are counted exactly, and a count past reach is sampled 20,000 times
    (from Python it was 2,000, ten times the command's error)."""
    from engine.draw_equity import draw_equity

    hands = ["AsKsQsJs2d", "7c7d7h8c3h", "2c3c4c5c9h"]
    code, out, _ = run_cli(capsys, "--variant", "draw5", *hands)
    assert code == 0 and out.splitlines()[0] == "draw5 equity: exact over 792,540 deals"
    exact = draw_equity("draw5", hands, draws_left=1)
    assert exact.exact and exact.boards == 792_540
    code, out, _ = run_cli(capsys, "--variant", "triple-draw-27", "2c3d4h7s9c", "KcQd9h8s3c", "--seed", "1")
    header = "triple-draw-27 equity: Monte Carlo over 20,000 samples (seed 1)"
    assert code == 0 and out.splitlines()[0] == header
    sampled = draw_equity("triple-draw-27", ["2c3d4h7s9c", "KcQd9h8s3c"], draws_left=3, seed=1)
    assert (sampled.exact, sampled.boards) == (False, 20_000)


def test_help_gives_the_draw_games_samples_the_engine_takes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.draw_equity import DEFAULT_SAMPLES

    monkeypatch.setenv("COLUMNS", "1000")
    assert f"{DEFAULT_SAMPLES:,} in draw games" in run_cli(capsys, "--help")[1]


def test_a_hilo_table_ends_with_the_share_of_deals_without_a_low(capsys: pytest.CaptureFixture[str]) -> None:
    import engine
    from engine.equity import HiLoEquityResult

    code, out, _ = run_cli(capsys, "--variant", "omaha-hilo", "AsKs2d3c", "QdQcJh4h", "--board", "Ah7c9s")
    result = engine.equity("omaha-hilo", ["AsKs2d3c", "QdQcJh4h"], board="Ah7c9s")
    assert isinstance(result, HiLoEquityResult)
    no_low = result.no_low
    assert code == 0 and 0 < no_low < 1
    assert out.splitlines()[-1] == f"no low in {100 * no_low:.3f} % of the boards (the Low market's No low)"


def test_a_sampled_hilo_table_gives_no_low_its_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    import engine

    argv = ("--variant", "omaha-hilo", "AsKs2d3c", "QdQcJh4h", "--samples", "3000", "--seed", "5")
    code, out, _ = run_cli(capsys, *argv)
    result = engine.equity("omaha-hilo", ["AsKs2d3c", "QdQcJh4h"], samples=3000, seed=5)
    no_low, error = result.to_dict()["no_low"], result.to_dict()["no_low_stderr"]
    assert code == 0 and error > 0
    assert out.splitlines()[-1] == (f"no low in {100 * no_low:.3f} % ± {100 * error:.3f} of the boards "
                                    "(the Low market's No low)")


def test_a_game_without_a_board_counts_deals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--variant", "stud7", "AsKsQsJdTd9c", "2c2d2h3d3c4s")
    assert code == 0 and out.splitlines()[0] == "stud7 equity: exact over 1,560 deals"
