"""``exchange-poker --help`` lists every command from their summaries alone, loading none of them."""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from exchange.cli import EPILOG, SUBCOMMANDS, build_parser
from exchange.cli.commands import SUMMARIES
from exchange.server.config import ServerConfig

REPO = Path(__file__).resolve().parents[1]
BOUND_S = 60
#: The libraries a command's help or the list of commands has no need of (a second and 100 MB between them).
HEAVY = ("aiohttp", "pandas", "pyarrow", "numpy")


def test_the_list_of_commands_loads_none_of_them() -> None:
    """On main the list loaded every command, so aiohttp, pandas and pyarrow: 1.2 s and 100 MB for a page of
    names. A mistyped command and no command at all are answered the same way."""
    code = ("import sys\n"
            "from exchange.cli import main\n"
            "codes = [main(argv) for argv in (['--help'], ['sevre'], [])]\n"
            f"loaded = {{*{HEAVY}, 'engine'}} & set(sys.modules)\n"
            "loaded |= {name for name in sys.modules if name.startswith('exchange.cli.') and\n"
            "           name not in ('exchange.cli.commands', 'exchange.cli.options', 'exchange.cli.stdout',\n"
            "                        'exchange.cli.stopping')}\n"
            "print(codes, sorted(loaded), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "[0, 2, 2] []"
    assert "invalid choice: 'sevre' (choose from 'equity'," in done.stderr
    listed = " ".join(done.stdout.split())  # argparse wraps the summaries
    for name, summary in SUMMARIES.items():
        assert f"{name} {summary}" in listed


def test_each_command_shows_the_summary_the_list_shows() -> None:
    (commands,) = [action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction)]
    assert tuple(commands.choices) == SUBCOMMANDS == tuple(SUMMARIES)
    assert {action.dest: action.help for action in commands._choices_actions} == SUMMARIES


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_a_commands_help_shows_no_markup_of_its_docstring(command: str) -> None:
    """backtest, replay and compare showed their module docstrings' reST: ``exchange-poker replay DIR``."""
    (commands,) = [action for action in build_parser(command)._actions
                   if isinstance(action, argparse._SubParsersAction)]
    assert "``" not in commands.choices[command].format_help()


def test_the_list_ends_with_how_to_start_as_serve_starts() -> None:
    """The epilog's page address and demo login are serve's own defaults."""
    args = build_parser("serve").parse_args(["serve", "--demo"])
    config = ServerConfig()
    assert f"http://{args.host}:{args.port}/" in EPILOG
    assert f"log in as {config.demo_account} / {config.demo_password}." in EPILOG


#: serve loads aiohttp to state its defaults; it is about to run a server anyway
_LIGHT = [name for name in SUBCOMMANDS if name != "serve"]


def test_a_commands_help_loads_no_heavy_library() -> None:
    """``replay --help`` loaded aiohttp and pyarrow (0.7 s, 98 MB) for options that need neither; every command but
    serve loads its libraries only when it runs."""
    code = ("import sys\n"
            "from exchange.cli import main\n"
            "for name in sys.argv[1:]:\n"
            "    assert main([name, '--help']) == 0, name\n"
            f"print(sorted({{*{HEAVY}}} & set(sys.modules)), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code, *_LIGHT], cwd=REPO, capture_output=True, text=True,
                          timeout=BOUND_S)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "[]"
    assert done.stdout.count("usage: exchange-poker ") == len(_LIGHT)


def test_version_prints_the_installed_version_and_loads_no_command() -> None:
    code = ("import sys\n"
            "from exchange.cli import main\n"
            "code = main(['--version'])\n"
            f"loaded = {{*{HEAVY}, 'engine', 'exchange.backtest.runner'}} & set(sys.modules)\n"
            "print(code, sorted(loaded), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "0 []"
    assert done.stdout == f"exchange-poker {metadata.version('exchange-poker-sim')}\n"
