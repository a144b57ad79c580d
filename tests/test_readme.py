"""The README's examples work as written, so the README cannot drift from the code unnoticed.

* Every ```python block runs (those that talk to a running server, betfairlightweight
  and flumine against ``serve``, are only compiled: ``tests/server`` runs them for
  real). Where a line's comment starts with a value (``# (0, True, (4,)): ...``,
  ``# PostBringIn(seat=0, amount=2)``), the expression's ``repr`` must start it;
  where it names an error (``# IllegalActionError: seat 0 ...``), the line must
  raise exactly that.
* The engine's console block: each ``$ exchange-poker ...`` runs with status 0 and,
  where the README prints its output, prints exactly that.
* Every ``exchange-poker`` command of a fenced block parses (its options and values
  are the command's), and every ``--option`` the README names is one of a command's.

Nothing here starts a server, plays a backtest or deals a table hand of a command.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import io
import re
import shlex
import tokenize
from pathlib import Path

import pytest

from exchange.backtest.strategy import Strategy
from exchange.cli import build_parser, main
from exchange.game.channels import dealt_as_holdem
from exchange.tables.outputs import TABLES

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
BLOCKS = [(lang, body) for lang, body in FENCE.findall(TEXT)]
LIVE = ("betfairlightweight", "flumine")  # blocks that need a running server
VALUE = re.compile(r"^(\(|\[|\{|-?\d|'|\"|True\b|False\b|None\b|[A-Z]\w*\()")
ERROR = re.compile(r"^([A-Z]\w*Error): (.+)$")


def python_blocks(*, live: bool) -> list[str]:
    return [body for lang, body in BLOCKS if lang == "python" and any(name in body for name in LIVE) == live]


def first_line(block: str) -> str:
    return block.splitlines()[0][:60]


def comments(block: str) -> dict[int, str]:
    """Each line's comment, without its ``#``."""
    tokens = tokenize.generate_tokens(io.StringIO(block).readline)
    return {tok.start[0]: tok.string.lstrip("#").strip() for tok in tokens if tok.type == tokenize.COMMENT}


def run_block(block: str) -> None:
    namespace: dict[str, object] = {"__name__": "readme"}
    said = comments(block)
    for node in ast.parse(block).body:
        comment = said.get(node.end_lineno or node.lineno, "")
        if not isinstance(node, ast.Expr):
            exec(compile(ast.Module([node], type_ignores=[]), README.name, "exec"), namespace)
            continue
        expression = compile(ast.Expression(node.value), README.name, "eval")
        error = ERROR.match(comment)
        if error:
            with pytest.raises(Exception) as raised:  # the class is checked by name below
                eval(expression, namespace)
            assert (type(raised.value).__name__, str(raised.value)) == error.groups(), ast.unparse(node)
            continue
        value = eval(expression, namespace)
        if VALUE.match(comment):
            assert comment.startswith(repr(value)), f"{ast.unparse(node)} is {value!r}; the README says {comment}"


@pytest.mark.parametrize("block", python_blocks(live=False), ids=first_line)
def test_a_python_block_runs_and_its_values_are_those_its_comments_show(block: str) -> None:
    run_block(block)


@pytest.mark.parametrize("block", python_blocks(live=True), ids=first_line)
def test_a_python_block_for_a_live_server_compiles(block: str) -> None:
    compile(block, README.name, "exec")


def console_sessions() -> list[tuple[list[str], list[str]]]:
    """``(argv, printed lines)`` for each ``$ exchange-poker`` line of the README."""
    sessions: list[tuple[list[str], list[str]]] = []
    for lang, body in BLOCKS:
        for line in body.splitlines():
            if line.startswith("$ exchange-poker "):
                sessions.append((shlex.split(line)[2:], []))
            elif sessions and lang == "" and body.startswith("$ "):
                sessions[-1][1].append(line)
    return sessions


def test_the_readme_shows_console_sessions() -> None:
    assert len(console_sessions()) >= 5  # the engine's block: equity and showdown


@pytest.mark.parametrize(("argv", "printed"), console_sessions(), ids=lambda v: " ".join(v)[:50] if v else "")
def test_a_console_command_prints_what_the_readme_shows(
    argv: list[str], printed: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == ""
    if printed:
        assert out.splitlines() == printed


def fenced_commands() -> list[list[str]]:
    """Each ``exchange-poker ...`` command of a fenced block other than Python, without the program name."""
    commands = []
    for lang, body in BLOCKS:
        if lang == "python":
            continue
        for line in body.replace("\\\n", " ").splitlines():
            for found in re.finditer(r"(?:^|&& |\$ )exchange-poker (.+?)(?: &&|$)", line):
                commands.append(shlex.split(found.group(1)))
    return commands


def test_the_readme_shows_commands() -> None:
    assert {argv[0] for argv in fenced_commands()} >= {"equity", "showdown", "play", "serve", "backtest", "replay"}


@pytest.mark.parametrize("argv", fenced_commands(), ids=lambda argv: " ".join(argv)[:60])
def test_a_command_of_the_readme_parses(argv: list[str]) -> None:
    try:
        build_parser(argv[0]).parse_args(argv)
    except SystemExit as stop:
        pytest.fail(f"exchange-poker {' '.join(argv)} is refused (status {stop.code})")


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    names: set[str] = set()
    for action in parser._actions:
        names.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                names |= options_of(sub)
    return names


#: Options of other tools the README shows, with the tool: none of them may be taken for one of ours.
OTHER_TOOLS = {"--output": "jupyter execute", "--timeout": "pytest"}


def test_every_option_the_readme_names_is_a_commands() -> None:
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", TEXT))
    ours = options_of(build_parser())
    assert named - ours - OTHER_TOOLS.keys() == set()
    assert OTHER_TOOLS.keys() <= named and not OTHER_TOOLS.keys() & ours  # each shown, and none ours
    for option, tool in OTHER_TOOLS.items():
        assert re.search(rf"{tool} [^`]*{option}", TEXT), option  # shown with its tool


def test_the_strategy_hooks_the_readme_lists_are_the_strategy_classs_with_their_parameters() -> None:
    """The Backtesting section's hooks, each as ``name(parameters)``, are the base class's public methods that a
    strategy overrides, with their parameters' names in order."""
    listed = TEXT[TEXT.index("\nHooks ("):]
    listed = listed[:listed.index("The handle has")]
    said = {name: [p.strip() for p in params.split(",")] for name, params in
            re.findall(r"`((?:on|check|process)_\w+)\(([\w, ]+)\)`", listed)}
    hooks = {name: list(inspect.signature(method).parameters)[1:] for name, method in vars(Strategy).items()
             if re.match(r"(on|check|process)_", name) and callable(method)}
    assert said == hooks


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_column_of_a_backtests_table_is_named_in_its_row_of_the_readme(table: str) -> None:
    """A researcher reads the outputs' table to know what a column holds: ``at_ms``, ``size_voided`` and others
    were in the files and nowhere in the README."""
    (row,) = [line for line in TEXT.splitlines() if line.startswith(f"| `{table}.parquet` |")]
    named = set(re.findall(r"`(\w+)`", row))
    named |= {f"{stem}_{i}" for stem in re.findall(r"`(\w+)_1`\.\.`\1_4`", row) for i in range(1, 5)}  # `a_1`..`a_4`
    every_row = {"game_index", "session", "session_game", "market_id"}  # named once, above the table
    columns = set(TABLES[table].schema.names) - every_row
    assert columns <= named, f"{table}.parquet's columns the README does not name: {sorted(columns - named)}"


@pytest.mark.parametrize("reader", ["BettorView", "HandView", "OrderView", "OrderRejected", "OrderTicket", "GameStart",
                                    "GameEnd", "Settlement"])
def test_every_field_and_method_a_strategy_reads_is_named_in_its_row_of_the_readme(reader: str) -> None:
    """A strategy author had to read the source for ``HandView``'s, ``OrderView``'s and ``OrderRejected``'s fields:
    each class a hook is given has a row of the Backtesting section naming all it holds."""
    from exchange.agents import view
    from exchange.backtest import strategy
    from exchange.core import events, orders

    cls = next(getattr(module, reader) for module in (view, orders, events, strategy) if hasattr(module, reader))
    (row,) = [line for line in TEXT.splitlines() if re.match(rf"\| `{reader}`( / `\w+`)? \(", line)
              or re.match(rf"\| `\w+` / `{reader}` \(", line)]
    named = set(re.findall(r"`(\w+)", row))
    public = {field.name for field in dataclasses.fields(cls)} | {
        name for name, value in vars(cls).items() if not name.startswith("_") and
        (isinstance(value, property) or inspect.isfunction(value))}
    public -= {"to_dict", "from_dict", "CHANGES_STATE", "TYPE_TAG"}  # (an event's own, for the journal)
    assert public <= named, f"{reader}'s fields and methods the README does not name: {sorted(public - named)}"


def test_where_the_readme_lists_the_channels_dealt_as_holdem_it_lists_them_all() -> None:
    """The dealer's irregularities are for channels dealt as Hold'em is; the README names them where it says so."""
    lists = re.findall(r"((?:`[a-z0-9-]+`,? )+and `[a-z0-9-]+` channels|Hold'em-dealt channel: (?:`[a-z0-9-]+`,?\s*)+)",
                       TEXT)
    assert len(lists) == 2, lists
    for found in lists:
        assert re.findall(r"`([a-z0-9-]+)`", found) == dealt_as_holdem(), found
