"""Bad options of ``serve``, ``accounts``, ``backtest`` and ``replay``: exit 2 and one line saying what is allowed.

Every case here is refused while the command line is read, before a database,
a port or a worker is touched, so the tests run in-process and start nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from exchange.cli import build_parser
from exchange.game.channels import dealt_as_holdem
from tests.cli_helpers import run_cli


def assert_one_line_refusal(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err  # the reason alone, not argparse's usage block before it
    assert err.startswith("exchange-poker: error: "), err
    assert fragment in err


SECONDS = "must be a number of seconds from 0.001 to 31536000 (a year), not"
OFF = "must be a number from 0 (0 turns it off), not"
MINUTES = "must be 0 (off) or a number of minutes from 1.7e-05 (a millisecond) to 525600 (a year), not"
STRATEGY = ("--strategy", "exchange.backtest.strategy:Strategy", "--seed", "1")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([], "give a command: equity, showdown, play, serve, accounts, journal, backtest, replay or compare"),
        (["nosuch"], "argument COMMAND: invalid choice: 'nosuch' (choose from 'equity', 'showdown', 'play',"),
        (["serve", "--port", "abc"], "argument --port: must be a port from 1 to 65535, not abc"),
        (["serve", "--port", "70000"], "argument --port: must be a port from 1 to 65535, not 70000"),
        (["serve", "--port", "-1"], "argument --port: must be a port from 1 to 65535, not -1"),
        (["serve", "--port", "0"], "argument --port: must be a port from 1 to 65535, not 0"),
        (["serve", "--stream-port", "65536"],
         "--stream-port: must be a port from 0 (any free port) to 65535, not 65536"),
        (["replay", "out", "--port", "70000"], "argument --port: must be a port from 1 to 65535, not 70000"),
        (["serve", "--window-seconds", "-3"], f"argument --window-seconds: {SECONDS} -3"),
        (["serve", "--window-seconds", "nan"], f"argument --window-seconds: {SECONDS} nan"),
        (["serve", "--window-seconds", "inf"], f"argument --window-seconds: {SECONDS} inf"),
        (["serve", "--window-seconds", "0.0001"], f"argument --window-seconds: {SECONDS} 0.0001"),
        (["serve", "--playing-seconds", "-1"],
         "--playing-seconds: must be a number of seconds from 0 to 31536000 (a year), not -1"),
        (["serve", "--header-timeout", "-1"], f"argument --header-timeout: {SECONDS} -1"),
        (["serve", "--header-timeout", "inf"], f"argument --header-timeout: {SECONDS} inf"),
        (["serve", "--body-timeout", "0"], f"argument --body-timeout: {SECONDS} 0"),
        (["serve", "--journal-timeout", "1e-9"], f"argument --journal-timeout: {SECONDS} 1e-9"),
        (["serve", "--max-connections", "0"], "argument --max-connections: must be a whole number from 1, not 0"),
        (["serve", "--snapshot-every-minutes", "nan"], f"argument --snapshot-every-minutes: {MINUTES} nan"),
        (["serve", "--snapshot-every-minutes", "inf"], f"argument --snapshot-every-minutes: {MINUTES} inf"),
        (["serve", "--snapshot-every-records", "-1"], f"argument --snapshot-every-records: {OFF} -1"),
        (["serve", "--tls-cert", "c.pem", "--tls-key", "k.pem"],
         "--tls-cert and --tls-key are the certificate of the stream port: give --stream-port N with them"),
        (["serve", "--port", "9000", "--stream-port", "9000"],
         "--stream-port 9000 is the HTTP --port; give the stream another port"),
        (["serve", "--channel", "stud7", "--channel", "draw5", "--irregularity-rate", "0.5"],
         "--irregularity-rate: the dealer's irregularities are Hold'em's, and no channel given is dealt as hole cards "
         f"then flop, turn and river ({', '.join(dealt_as_holdem())} are)"),
        (["serve", "--channel", "nosuch"], "argument --channel: invalid choice: 'nosuch' (choose from"),
        (["serve", "--irregularity-rate", "2"], "must be a share from 0 to 1, not 2"),
        (["serve", "--keep-results", "0"], "argument --keep-results: must be a whole number from 1, not 0"),
        (["serve", "--record-every", "0"], "argument --record-every: must be a whole number from 1, not 0"),
        (["serve", "--record-every-minutes", "-1"], f"argument --record-every-minutes: {MINUTES} -1"),
        (["serve", "--record-every-minutes", "1e308"], f"argument --record-every-minutes: {MINUTES} 1e308"),
        (["serve", "--record-every-minutes", "0.000001"], f"argument --record-every-minutes: {MINUTES} 0.000001"),
        (["serve", "--snapshot-every-minutes", "1e308"], f"argument --snapshot-every-minutes: {MINUTES} 1e308"),
        (["serve", "--window-seconds", "1e308"], f"argument --window-seconds: {SECONDS} 1e308"),
        (["serve", "--journal-timeout", "1e308"], f"argument --journal-timeout: {SECONDS} 1e308"),
        (["serve", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["accounts", "--db", "x.db"],
         "give an action: add, list, password, role or history ('exchange-poker accounts ACTION --help' lists"),
        (["accounts", "remove", "bob"],
         "argument ACTION: invalid choice: 'remove' (choose from 'add', 'list', 'password', 'role', 'history')"),
        (["accounts", "add", "bob"], "the following arguments are required: --password"),
        (["accounts", "add", "bob", "--password", "p", "--balance", "abc"], "'abc' is not an amount like 1000"),
        (["accounts", "list", "--frob"], "unrecognized arguments: --frob"),
        (["backtest", *STRATEGY, "--out", "o", "--games", "0"],
         "argument --games: must be a whole number from 1, not 0"),
        (["backtest", *STRATEGY, "--games", "1"], "the following arguments are required: --out"),
        (["backtest", *STRATEGY, "--out", "o", "--games", "1", "--frob"], "unrecognized arguments: --frob"),
        (["replay"], "the following arguments are required: DIR"),
        (["replay", "out", "--speed", "fast"], "argument --speed: must be a number from 0.1 to 100, not fast"),
        (["replay", "out", "--speed", "nan"], "argument --speed: must be a number from 0.1 to 100, not nan"),
        (["play", "--out", "o", "--hands", "x"], "argument --hands: must be a whole number from 1, not x"),
        (["play", "--out", "o", "--hands", "0"], "argument --hands: must be a whole number from 1, not 0"),
        (["play", "--out", "o", "--stack", "-1"], "argument --stack: must be a whole number from 1, not -1"),
        (["play", "--out", "o", "--seats", "two"], "argument --seats: must be a whole number, not two"),
        (["play", "--out", "o", "--seats", "1"], "--seats must be 2 to 8 for Texas Hold'em, not 1"),
        (["play", "--out", "o", "--seed", "1.5"], "argument --seed: must be a whole number, not 1.5"),
        (["equity", "AsKs", "QdQc", "--seed", "x"],
         "argument --seed: must be a whole number from 0 to 18446744073709551615, not x"),
        (["equity", "--variant", "draw5", "AsKsQsJsTs", "9s9h9d9c8s", "--draws", "one"],
         "argument --draws: must be a whole number, not one"),
        (["backtest", *STRATEGY[:2], "--seed", "s", "--out", "o", "--games", "1"],
         "argument --seed: must be a whole number, not s"),
        (["serve", "--seed", "x"], "argument --seed: must be a whole number, not x"),
    ],
)
def test_a_bad_option_is_one_line_and_status_2(
    argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may be written, but if it were, not into the checkout
    assert_one_line_refusal(*run_cli(capsys, *argv), fragment)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["accounts", "--db", "exchnage.db", "list"], "no database at exchnage.db (exchange-poker serve or accounts"),
        (["accounts", "--db", "folder", "list"], "cannot use the database folder: it is a directory"),
        (["accounts", "--db", "folder", "add", "bob", "--password", "p"], "cannot use the database folder"),
        (["replay", "folder", "--speed", "1000000"], "--speed: must be a number from 0.1 to 100, not 1000000"),
        (["replay", "folder"], "is not a backtest's output or a server's recording"),
        (["backtest", "--strategy", "no_such_module_here:Mine", "--seed", "1", "--games", "1", "--out", "o"],
         "no_such_module_here"),
        (["backtest", "--strategy", "exchange.backtest.strategy:Strategy", "--seed", "1", "--games", "1",
          "--sessions", "2", "--out", "o"], "give either --games or --sessions with --games-per-session, not both"),
    ],
)
def test_refusals_after_the_options_are_read_have_argparse_s_prefix(
    argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every refusal of bad input starts as argparse's do, with status 2 (on main: "error: ..." from accounts and
    replay, "exchange-poker backtest: ..." from backtest)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    assert_one_line_refusal(*run_cli(capsys, *argv), fragment)
    assert [path.name for path in tmp_path.iterdir()] == ["folder"]


def test_an_account_that_exists_is_refused_with_argparse_s_prefix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "x.db")
    assert run_cli(capsys, "accounts", "--db", db, "add", "alice", "--password", "p")[0] == 0
    assert_one_line_refusal(*run_cli(capsys, "accounts", "--db", db, "add", "alice", "--password", "q"),
                            "account 'alice' already exists")


def _parsers(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, argparse.ArgumentParser]]:
    """``parser`` and every subcommand's below it, with the command line that reaches each."""
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found += _parsers(sub, f"{name} {sub_name}")
    return found


def test_every_option_of_every_command_says_what_it_takes_in_its_help() -> None:
    """On main ``accounts add --help`` listed NAME and --password with nothing said of them."""
    silent = [
        f"{where}: {'/'.join(action.option_strings) or action.dest}"
        for where, parser in _parsers(build_parser(), "exchange-poker")
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and action.help is None
    ]
    assert silent == []
