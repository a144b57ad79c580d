"""``exchange-poker showdown`` (readable and JSON), and ``equity`` for the variants beyond Hold'em and Omaha."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli

REPO = Path(__file__).resolve().parents[1]


def test_readable_telesina(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "showdown", "--variant", "telesina", "--hands", "Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d", "--board", "Jh"
    )
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "telesina showdown, vela Jh",
        "hand 1: high card (Ah Qc Jh 9d 8s) *",
        "hand 2: high card (Ad Kc Jh 9h 8c)",
        "hand 1 wins",
    ]


def test_json_is_the_result_dict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "showdown", "--variant", "telesina", "--hands", "Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d", "--board", "Jh",
        "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data == {
        "variant": "telesina",
        "high": {
            "winners": [0],
            "hands": [
                {"category": "high card", "cards": ["Ah", "Qc", "Jh", "9d", "8s"]},
                {"category": "high card", "cards": ["Ad", "Kc", "Jh", "9h", "8c"]},
            ],
        },
        "low": None,
    }


def test_hilo_halves_and_scoop(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "showdown", "--variant", "omaha-hilo", "--hands", "AsKs2d3c", "QdQh9c8d", "--board", "4h5s6dKcJd"
    )
    assert code == 0
    assert out.splitlines()[-1] == "high: hand 1 wins; low: hand 1 wins"
    assert "low: no low" in out.splitlines()[2]
    code, out, _ = run_cli(
        capsys, "showdown", "--variant", "omaha-hilo", "--hands", "KdKhQsQc", "As2d9c9h", "--board", "Ks3h9dTdJh"
    )
    assert out.splitlines()[-1] == "high: hand 1 wins; no qualifying low, so high takes the whole pot"
    code, out, _ = run_cli(
        capsys, "showdown", "--variant", "omaha-hilo", "--hands", "KdKhQsQc", "As2d9c9h", "--board", "Ks3h9dTdJh",
        "--json",
    )  # fmt: skip
    assert json.loads(out)["low"] is None


def test_dead_heat(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "showdown", "--hands", "2c3d", "2h3s", "--board", "AsKsQsJsTs")
    assert code == 0 and out.splitlines()[-1] == "dead heat: hands 1, 2 split"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--variant", "razz", "--hands", "AsKs", "QdQc"], "unknown variant 'razz'; the variants are holdem, omaha"),
        (
            ["--variant", "telesina", "--hands", "Ah Qc 9d 8s", "Ad Kc 9h 8c 7d", "--board", "Jh"],
            "hand 1 has 4 cards; a Telesina hand has 5",
        ),
        (
            ["--variant", "telesina", "--hands", "Ah Qc 9d 8s 2h", "Ad Kc 9h 8c 7d", "--board", "Jh"],
            "card 2h is not in the 32-card deck; it holds ranks 7 8 9 T J Q K A only",
        ),
        (["--hands", "AsKs", "AsQd", "--board", "2c3c4c5c7d"], "card As appears more than once"),
        (["--hands", "AsKs", "QdQc", "--board", "2c3c4c"], "the board has 3 cards; Texas Hold'em needs 5"),
        (["--hands", "AsKs", "--board", "2c3c4c5c7d"], "Texas Hold'em needs 2 to 8 hands, got 1"),
        (["--hands", "AsKs", "QdQx", "--board", "2c3c4c5c7d"], "hand 2: 'Qx' has an unknown suit 'x'"),
        (["--variant", "draw32", "--hands", *["As Ks Qs Js Ts"] * 6], "32-Card Draw needs 2 to 5 hands, got 6"),
        (["--variant", "stud7"], "the following arguments are required: --hands"),
        (["--hands", "AsKs", "QdQc", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        # the game where a hand goes: it was "hand 1: 'om' has an unknown rank 'o'"
        (["--hands", "Omaha", "AsKs2d3c", "QdQh9c8d"],
         "hand 1 is 'Omaha', a game, not cards: give the game as --variant omaha"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str) -> None:
    code, out, err = run_cli(capsys, "showdown", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("exchange-poker: error: ")
    assert fragment in err


def test_real_process() -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "exchange.cli", "showdown", *argv], cwd=REPO, capture_output=True, text=True
        )

    ok = run("--variant", "draw32", "--hands", "Ah Kc 9d 8s 7h", "As Kh 9c 8d 7d", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["high"]["winners"] == [0]
    bad = run("--variant", "telesina", "--hands", "Ah Qc 9d 8s 2h", "Ad Kc 9h 8c 7d", "--board", "Jh")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr == (
        "exchange-poker: error: card 2h is not in the 32-card deck; it holds ranks 7 8 9 T J Q K A only\n"
    )


# ------------------------------------------------------------------ equity for every dealt-out game


@pytest.mark.parametrize(
    ("variant", "hands", "board"),
    [
        ("omaha-hilo", ["AsKs2d3c", "QdQh9c8d"], "4h5s6dKc"),
        ("soko", ["AsKs9s4s", "QcQd8h5c"], ""),
        ("stud7", ["AsAdKcKd2h3h", "9cTcJcQc2c4d"], ""),
        ("stud7-hilo", ["As2d3cKd8hKh", "9cTcJcQc2c4h"], ""),
        ("americana", ["Ah7c8d9s", "ThJcQdKs"], ""),
        ("telesina", ["AhQc9d8s7h", "AdKc9h8c7d"], ""),
    ],
)
def test_equity_accepts_every_dealt_out_variant(
    capsys: pytest.CaptureFixture[str], variant: str, hands: list[str], board: str
) -> None:
    code, out, err = run_cli(capsys, "equity", "--variant", variant, *hands, "--board", board, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["variant"] == variant and data["exact"] is True
    assert sum(h["equity"] for h in data["hands"]) == pytest.approx(1.0)
    assert ("no_low" in data) == variant.endswith("hilo")
    code, out, _ = run_cli(capsys, "equity", "--variant", variant, *hands, "--board", board)
    assert code == 0 and out.startswith(f"{variant} equity")
    assert ("lo win %" in out) == variant.endswith("hilo")


def test_equity_of_a_draw_game_over_the_replacements(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "equity", "--variant", "draw5", "AsKsQsJsTs", "9s9h9d9c8s", "2c3d4h5s7c", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exact"] is True and [h["equity"] for h in data["hands"]] == [1.0, 0.0, 0.0]  # a royal flush stands
    code, out, _ = run_cli(capsys, "equity", "--variant", "triple-draw-27", "2c3d4h7s9c", "KcQd9h8s3c", "--draws", "3")
    assert code == 0 and "Monte Carlo over 10,000 samples" not in out and "triple-draw-27 equity" in out


def test_equity_sampled_when_exact_is_too_big(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "equity", "--variant", "stud7", "AsAdKc", "9cTcJc", "5s5d5h", "2c3d4h", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exact"] is False and data["boards"] == 200_000


@pytest.mark.parametrize(
    ("variant", "hands", "samples"),
    [
        ("stud7", ["AsKsQs", "2c2d2h"], 200_000),  # too many deals to count: sampled, at a random seed unless given
        ("draw5", ["2c3d4h7s9c", "KcQd9h8s3c"], 20_000),  # the engine's draw samples (the live game takes fewer)
    ],
)
def test_a_sampled_count_takes_a_seed_without_samples(
    capsys: pytest.CaptureFixture[str], variant: str, hands: list[str], samples: int
) -> None:
    """The header of a count too large to enumerate names its seed; that seed reproduces it without --samples."""
    code, out, err = run_cli(capsys, "equity", "--variant", variant, *hands, "--seed", "3")
    assert code == 0, err
    assert out.splitlines()[0] == f"{variant} equity: Monte Carlo over {samples:,} samples (seed 3)"
    again = run_cli(capsys, "equity", "--variant", variant, *hands, "--samples", str(samples), "--seed", "3")[1]
    assert again == out


def test_a_seed_for_an_exact_count_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "equity", "--variant", "stud7", "AsKsQsJs4c5c", "2c2d2h2s3d3h", "--seed", "3")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--seed needs --samples here: this count is exact (exact equity uses no randomness)" in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--variant", "draw5", "AsKsQsJsTs", "9s9h9d9c8s", "--board", "2c"], "draw5 has no board"),
        (["--variant", "holdem", "AsKs", "QdQc", "--draws", "1"], "--draws is for the draw games"),
        (["--variant", "draw5", "AsKsQsJsTs", "9s9h9d9c8s", "--draws", "2"], "5-Card Draw has 1 draw; 2 cannot"),
        (["--variant", "telesina", "As2s", "KdKh"], "card 2s is not in the 32-card deck"),
        (["--variant", "stud7", "AsAdKcKd2h3h4h5h", "9cTc"], "a 7-Card Stud hand has at most 7"),
        (["--variant", "razz", "AsKs", "QdQc"], "unknown variant 'razz'; equity knows holdem, omaha, omaha-hilo"),
    ],
)
def test_equity_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str) -> None:
    code, out, err = run_cli(capsys, "equity", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err


# ------------------------------------------------------------------ counts and articles read as English


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["showdown", "--variant", "omaha", "--hands", "As", "KdKcKhQh", "--board", "2c3c4c5c7d"],
         "hand 1 has 1 card; an Omaha hand has 4"),
        (["showdown", "--variant", "omaha-hilo", "--hands", "AsKsQsJs", "Kd", "--board", "2c3c4c5c7d"],
         "hand 2 has 1 card; an Omaha Hi/Lo hand has 4"),
        (["showdown", "--variant", "americana", "--hands", "AsKsQsJs9s", "Kd", "--board", ""],
         "hand 2 has 1 card; an Americana hand has 5"),
        (["showdown", "--variant", "omaha", "--hands", "AsKsQsJs", "KdKcKhQh", "--board", "2c"],
         "the board has 1 card; Omaha needs 5"),
        (["showdown", "--variant", "telesina", "--hands", "AhQc9d8s7h", "AdKc9h8c7d", "--board", "JhJs"],
         "the vela has 2 cards; Telesina needs 1"),
        (["showdown", "--variant", "holdem", "--hands", "AsKs", "--board", "2c3c4c5c7d"],
         "Texas Hold'em needs 2 to 8 hands, got 1"),
        (["equity", "--variant", "stud7", "AsAdKcKd2h3h4h5h", "9cTc"], "hand 1 has 8 cards; a 7-Card Stud hand"),
        (["equity", "--variant", "omaha", "AsAdKcKd2h", "9cTcJcQc"], "has 5 cards; omaha hands have exactly 4 hole"),
        (["equity", "--variant", "draw5", "AsKsQsJsTs", "9s9h9d9c8s", "--draws", "2"],
         "5-Card Draw has 1 draw; 2 cannot be left (0 to 1 can)"),
    ],
)
def test_counts_and_articles_in_refusals(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    """On main: "hand 1 has 1 cards; a Omaha hand has 4", "5-Card Draw has 1 draw(s)"."""
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err, err


def test_a_count_over_one_board_says_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "equity", "AsKs", "QdQc", "--board", "Ah7c2s3d4d")
    assert code == 0
    assert out.splitlines()[0] == "holdem equity, board Ah 7c 2s 3d 4d: exact over 1 board"  # on main: "1 boards"


def test_a_pot_telesinas_heads_up_rule_decided_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """A789T of spades 'winning' against a royal flush reads as a mistake unless the rule is named."""
    code, out, _ = run_cli(capsys, "showdown", "--variant", "telesina", "--hands", "As 7s 8s 9s Ts", "Th Jh Qh Kh Ah",
                           "--board", "7c")
    assert code == 0
    assert out.splitlines()[-1] == "hand 1 wins (heads-up: the lowest straight flush (A-7-8-9-T of spades) beats " \
        "the highest (T-A of hearts))"
