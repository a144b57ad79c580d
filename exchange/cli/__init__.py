"""The ``exchange-poker`` command line.

Each subcommand lives in a module of this package that exposes
``register(subparsers)``; the parser calls the function stored as the
subcommand's ``run`` default with the parsed arguments and exits with its code.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import select
import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import Any

from exchange.backtest.stopped import ChunkStopped
from exchange.cli.commands import SUMMARIES
from exchange.cli.options import PROG, fail, one_line_errors
from exchange.cli.stdout import OutputFailed, checked_stdout
from exchange.cli.stopping import TERMINATED, Terminated

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS = tuple(SUMMARIES)
#: Below the list of commands: where to go next.
EPILOG = ("'exchange-poker COMMAND --help' lists a command's options. To start, 'exchange-poker serve --demo' runs "
          "the exchange with its house traders; then open http://127.0.0.1:8080/ and log in as demo / demo.")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; given a known ``command``, only that subcommand is registered, so a command
    imports only what it uses (``serve`` does not load pyarrow for ``backtest`` and ``replay``)."""
    parser, subparsers = _top_parser()
    for name in (command,) if command in SUBCOMMANDS else SUBCOMMANDS:
        importlib.import_module(f"exchange.cli.{name}").register(subparsers)
    return parser


def listing_parser() -> argparse.ArgumentParser:
    """The command line with every subcommand named and summed up, none of them loaded: all that
    ``exchange-poker --help``, no command or a mistyped one need (the whole tree takes a second or more to load)."""
    parser, subparsers = _top_parser()
    for name, summary in SUMMARIES.items():
        subparsers.add_parser(name, help=summary)
    return parser


def _top_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction[argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(prog="exchange-poker", description="Exchange Poker simulator", epilog=EPILOG)
    parser.add_argument("--version", action=_Version)
    one_line_errors(parser)
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


class _Version(argparse.Action):
    """``--version``: print the installed version and exit. Looked up only when asked (reading the installed
    packages' metadata costs every other command's start some 40 ms)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0,
                         help="print the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from exchange.backtest.provenance import installed_version

        print(f"{PROG} {installed_version() or 'from a checkout that was never installed (no version)'}")
        parser.exit()


#: The status of a command whose output's reader went away (``| head``), as of a tool ended by SIGPIPE.
READER_GONE = 128 + signal.SIGPIPE
#: The status of a command whose output could not be written (a full disk), as other tools give.
OUTPUT_FAILED = 1
#: The status of a command stopped by Ctrl-C (SIGINT), as the shell gives one the signal ended.
INTERRUPTED = 128 + signal.SIGINT


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None
    code: int = 0  # a stop signal while serve starts: a clean stop
    try:
        with checked_stdout(), _stops_while_serve_starts() if command == "serve" else contextlib.nullcontext():
            parser = build_parser(command) if command in SUBCOMMANDS else listing_parser()
            args = parser.parse_args(argv)
            if args.command is None:
                fail(f"give a command: {', '.join(SUBCOMMANDS[:-1])} or {SUBCOMMANDS[-1]} "
                     "('exchange-poker COMMAND --help' lists its options)")
            code = args.run(args)
            sys.stdout.flush()  # a reader gone is met here, not in the interpreter's last flush
    except SystemExit as stop:  # bad input refused (options.fail, argparse) or --help: its status, as run's are
        if stop.code is not None and not isinstance(stop.code, int):
            raise
        return stop.code or 0
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the last flush writes nowhere
        return READER_GONE
    except OutputFailed as error:  # as a tool whose output cannot be written: one line, status 1
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left is not tried again at exit
        print(f"{PROG}: error: cannot write the output: {error}", file=sys.stderr)
        return OUTPUT_FAILED
    except KeyboardInterrupt as stop:  # Ctrl-C: the command stopped as asked (what it was writing it has removed)
        print(f"{PROG}: interrupted{_how_far(stop)}", file=sys.stderr)
        return INTERRUPTED
    except (Terminated, ChunkStopped) as stop:  # SIGTERM, in a command that takes it as Ctrl-C
        # (exchange.cli.stopping), or in one of its workers alone (its chunk stopped, its error the command's)
        print(f"{PROG}: terminated{_how_far(stop)}", file=sys.stderr)
        return TERMINATED
    return code


def _how_far(stop: BaseException) -> str:
    """What a stopped command noted on its way out (a backtest: the games played, ``--out`` untouched)."""
    notes = getattr(stop, "__notes__", ())
    return f": {'; '.join(notes)}" if notes else ""


class _Stopped(Exception):
    """SIGTERM while ``serve`` starts, before the server handles the stop signals itself."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


@contextlib.contextmanager
def _stops_while_serve_starts() -> Iterator[None]:
    """A stop signal before the server has its own handlers (its modules take a moment to load) stops it as
    cleanly as one after: nothing is open yet, so it exits 0 where SIGTERM would kill it and SIGINT end in a
    KeyboardInterrupt traceback. Once running, the server's handlers take over (and give these back)."""
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    except (_Stopped, KeyboardInterrupt):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stdout_gone() -> bool:
    """Whether standard output is a pipe whose reader has gone (the broken pipe was ours, not another's)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
    except (OSError, ValueError):  # no file behind it (an in-process capture)
        return False
    return any(events & select.POLLERR for _, events in poller.poll(0))


if __name__ == "__main__":
    sys.exit(main())
