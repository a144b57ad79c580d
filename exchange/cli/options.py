"""What the commands share about bad input: option types that refuse a bad value with what is allowed, and
:func:`one_line_errors` / :func:`fail`, which report it on one line with status 2.

>>> port("8080")
8080
>>> port("70000")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a port from 1 to 65535, not 70000
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, NoReturn

PROG = "exchange-poker"
#: The exit status of a command given bad input.
BAD_INPUT = 2
MILLISECOND = 0.001
#: The longest duration an option takes, in seconds: a year (longer is a typo, and its milliseconds must fit).
LONGEST_S = 365 * 24 * 3600


def out_folder(text: str) -> Path:
    """An ``--out`` folder's name; an empty one (an unset shell variable) would be the current folder, silently."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give the folder to write to, not an empty name")
    return Path(text)


def database(text: str) -> str:
    """A ``--db`` path; an empty one (an unset shell variable) would be SQLite's throw-away database, which keeps
    nothing once the command ends."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give the database file's path, such as exchange.db, not an empty name "
                                         "(SQLite would open a throw-away database, and nothing would be kept)")
    return text


def port(text: str) -> int:
    """A TCP port to listen on for ``--port``: 1 to 65535 (the startup line names it, so 0 is no use)."""
    return _port(text, low=1, allowed="1 to 65535")


def port_or_any(text: str) -> int:
    """A port for a listener whose bound port is reported: 0 to 65535, 0 letting the system pick a free one."""
    return _port(text, low=0, allowed="0 (any free port) to 65535")


def positive(text: str) -> int:
    """A count that must not be empty: a whole number from 1 (repeats, games, operations, hands)."""
    if not (text.strip().isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, not {text}")
    return int(text)


def whole_number_from_to(low: int, high: int) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high`` (a measurement's repeats, where the script bounds its own run)."""

    def parse(text: str) -> int:
        if not (text.strip().isdigit() and low <= int(text) <= high):
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, not {text}")
        return int(text)

    return parse


def whole_number(text: str) -> int:
    """A whole number, negative or not (a seed; a count whose range the command checks with what it depends on).

    >>> whole_number("-3")
    -3
    """
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text}") from None


def number_from_to(low: float, high: float) -> Callable[[str], float]:
    """A number from ``low`` to ``high`` (a replay's speed)."""

    def parse(text: str) -> float:
        value = _number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a number from {low:g} to {high:g}, not {text}")
        return value

    return parse


def share(text: str) -> float:
    """A share of games, 0 to 1 (``--irregularity-rate``).

    >>> share("0.25")
    0.25
    """
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a share from 0 to 1, not {text}")
    return value


def seconds(text: str) -> float:
    """A duration in seconds the server keeps in whole milliseconds and needs positive: 0.001 or more, finite."""
    return _seconds(text, low=MILLISECOND)


def seconds_or_zero(text: str) -> float:
    """A duration in seconds that may be 0 (a playing window with no pause): finite, 0 or more."""
    return _seconds(text, low=0.0)


def minutes_or_off(text: str) -> float:
    """A period in minutes where 0 turns the feature off, kept in whole milliseconds: 0, or a millisecond to a year.

    >>> minutes_or_off("2.5"), minutes_or_off("0")
    (2.5, 0.0)
    """
    value = _number(text)
    if value != 0 and not MILLISECOND / 60 <= value <= LONGEST_S / 60:
        raise argparse.ArgumentTypeError(f"must be 0 (off) or a number of minutes from {MILLISECOND / 60:.2g} (a "
                                         f"millisecond) to {LONGEST_S // 60} (a year), not {text}")
    return value


def minutes_in_ms(minutes: float) -> int:
    """A period :func:`minutes_or_off` took, in the whole milliseconds the server keeps.

    >>> minutes_in_ms(2.5), minutes_in_ms(1 / 60_000)
    (150000, 1)
    """
    return round(minutes * 60_000)


def not_negative(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    """A count or a period where 0 turns the feature off: a finite number, 0 or more."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0):
            raise argparse.ArgumentTypeError(f"must be a number from 0 (0 turns it off), not {text}")
        return value

    return parse


def _number(text: str) -> float:
    """``text`` as a number of a command-line option (a count of seconds, minutes, a share), NaN if it is none: the
    caller's range check refuses it, saying what is allowed."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def _seconds(text: str, *, low: float) -> float:
    value = _number(text)
    if not low <= value <= LONGEST_S:
        raise argparse.ArgumentTypeError(f"must be a number of seconds from {low:g} to {LONGEST_S} (a year), "
                                         f"not {text}")
    return value


def _port(text: str, *, low: int, allowed: str) -> int:
    if not (text.strip().isdigit() and low <= int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"must be a port from {allowed}, not {text}")
    return int(text)


def http_url(host: str, port: int) -> str:
    """The address a browser or curl opens for a server listening on ``host:port`` (an IPv6 host in brackets).

    >>> http_url("127.0.0.1", 8080), http_url("::1", 8080)
    ('http://127.0.0.1:8080', 'http://[::1]:8080')
    """
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def help_text(docstring: str | None) -> str:
    """A module's docstring as a command's ``--help`` description: its literals without reST's double backticks."""
    return (docstring or "").replace("``", "")


def progress_bar_wanted(args: argparse.Namespace) -> bool:
    """Whether a long run draws its progress bar: unless ``--no-progress``, and only on a terminal (redrawn in place
    after a carriage return, a bar sent to a file or a pipe is hundreds of frames of noise)."""
    return not args.no_progress and sys.stderr.isatty()


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Make argparse's errors for this subcommand one line, status 2, without the usage block.

    Unrecognized arguments would otherwise be reported by the top-level parser
    with its usage, so this parser rejects leftovers itself.
    """
    parse_known_args = parser.parse_known_args

    def strict_parse_known_args(*args: Any, **kwargs: Any) -> tuple[argparse.Namespace, list[str]]:
        namespace, extras = parse_known_args(*args, **kwargs)
        if extras:
            fail(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    # Instance attributes shadow the methods (mypy rejects assigning to a method, hence setattr).
    setattr(parser, "error", fail)  # noqa: B010
    setattr(parser, "parse_known_args", strict_parse_known_args)  # noqa: B010


def refuse_a_game_as_a_hand(hands: Sequence[str], games: Collection[str]) -> None:
    """A hand written as a game's name (``equity holdem AsKs QdQc``) is refused saying where the game goes; the
    card parser would have said ``'ho' has an unknown rank 'h'``."""
    for i, hand in enumerate(hands, 1):
        if hand.strip().lower() in games:
            fail(f"hand {i} is {hand!r}, a game, not cards: give the game as --variant {hand.strip().lower()}")


def fail(message: str) -> NoReturn:
    """Report bad input on one line and exit with status 2."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    raise SystemExit(BAD_INPUT)
