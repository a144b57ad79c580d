"""The current folder on the import path while a command runs, as ``python -m`` puts it there.

``exchange-poker`` is a console script: Python puts the script's own folder first on the import path, not the
current one, so ``--bots my_bot:Raiser`` or ``--strategy my_strategy:Mine`` beside the user were not found,
where ``python -m exchange.cli`` found them. :func:`current_folder_importable` puts the current folder first for
the command (its bots and strategies import at the start, and may import more later), then takes it away.

It goes last, after the installed packages, so that a file of the user's named like a library (a ``pandas.py``
beside the strategy) is never imported in the library's place by the command's own code (``python -m`` puts the
current folder first, so there it does shadow the library, as in any script run that way).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def current_folder_importable() -> Iterator[None]:
    """The current folder last on ``sys.path`` for the block, unless it is on it already (``""`` included)."""
    here = os.getcwd()
    if any(os.path.abspath(entry or os.curdir) == here for entry in sys.path):
        yield
        return
    sys.path.append(here)
    try:
        yield
    finally:
        if here in sys.path:  # unless the command's own code took it away already
            sys.path.remove(here)
