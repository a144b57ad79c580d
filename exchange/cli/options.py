"""Option types shared by the commands: each refuses a bad value with what is allowed (argparse shows it on one line).

>>> port("8080")
8080
>>> port("70000")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a port from 1 to 65535, not 70000
"""

from __future__ import annotations

import argparse


def port(text: str) -> int:
    """A TCP port to listen on for ``--port``: 1 to 65535 (the startup line names it, so 0 is no use)."""
    return _port(text, low=1, allowed="1 to 65535")


def port_or_any(text: str) -> int:
    """A port for a listener whose bound port is reported: 0 to 65535, 0 letting the system pick a free one."""
    return _port(text, low=0, allowed="0 (any free port) to 65535")


def _port(text: str, *, low: int, allowed: str) -> int:
    if not (text.strip().isdigit() and low <= int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"must be a port from {allowed}, not {text}")
    return int(text)
